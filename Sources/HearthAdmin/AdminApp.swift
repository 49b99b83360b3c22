import Foundation

/// Server-side access to a Hearth (or Firebase emulator) project with admin rights, for Swift
/// servers (Hummingbird, Vapor) where no Firebase Admin SDK runs: ``auth`` verifies ID tokens and
/// manages users, ``database`` reads and writes the Realtime Database, ``storage`` the buckets.
public final class AdminApp: Sendable {
    public let options: AdminOptions
    public let auth: AdminAuth
    public let database: AdminDatabase
    public let storage: AdminStorage

    public init(options: AdminOptions) throws {
        self.options = options
        let client = try AdminClient(options: options)
        auth = AdminAuth(client: client)
        database = AdminDatabase(client: client)
        storage = AdminStorage(client: client)
    }
}

/// Where the project is and how the admin proves who it is.
public struct AdminOptions: Sendable {
    /// The project's id.
    public var projectID: String
    /// The server's address, `http://127.0.0.1:9000`.
    public var serverURL: String
    /// A service-account key file (`hearth auth:service-account`): requests carry access tokens
    /// signed for from it, custom tokens are signed with it, and ID tokens must carry valid
    /// signatures. Without one, the development credential (`owner`) is used and ID tokens are
    /// read without checking signatures, as Firebase's Admin SDKs do with the emulators.
    public var serviceAccountKeyFile: String?
    /// The database namespace; the project's default database when `nil`.
    public var databaseNamespace: String?
    /// The default bucket; `<project>.appspot.com` when `nil`.
    public var storageBucket: String?

    public init(
        projectID: String, serverURL: String, serviceAccountKeyFile: String? = nil, databaseNamespace: String? = nil,
        storageBucket: String? = nil
    ) {
        self.projectID = projectID
        self.serverURL = serverURL.hasSuffix("/") ? String(serverURL.dropLast()) : serverURL
        self.serviceAccountKeyFile = serviceAccountKeyFile
        self.databaseNamespace = databaseNamespace
        self.storageBucket = storageBucket
    }
}

/// Why an admin call failed: the server's error code (`USER_NOT_FOUND`, `EMAIL_EXISTS`, …, or
/// `id-token-revoked`, `invalid-id-token` for local checks) and a message.
public struct AdminError: Error, CustomStringConvertible, Sendable {
    public let code: String
    public let message: String
    /// The HTTP status, for errors the server answered.
    public let status: UInt?

    init(_ code: String, _ message: String, status: UInt? = nil) {
        self.code = code
        self.message = message
        self.status = status
    }

    public var description: String { "\(code): \(message)" }

    /// Refuses `value` (what the caller gave as `what`) unless JSON can represent it: Apple's
    /// `JSONSerialization` stops the program with an exception where Linux's throws.
    static func requireJSON(_ value: Any, _ what: String) throws(AdminError) {
        guard JSONSerialization.isValidJSONObject([value]) else {
            throw AdminError("invalid-argument", "\(what) (\(type(of: value))) holds something JSON cannot represent")
        }
    }
}
