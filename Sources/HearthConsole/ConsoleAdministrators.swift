import HearthPasswords
import HearthSupport
import Logging
import NIOCore
import SQLiteNIO

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The people who may sign in to the console in production, kept in `<data dir>/console.sqlite`
/// (WAL, `synchronous=FULL`): an email and a Firebase-scrypt hash of the password, with a salt
/// per administrator and the store's own hash configuration. `hearth admin:create` adds them; a
/// running server sees a new administrator at the next sign-in.
package actor ConsoleAdministrators {
    /// Why an administrator could not be created.
    package enum Failure: Error, Equatable, CustomStringConvertible {
        case invalidEmail
        case weakPassword(minimumLength: Int)
        case exists

        package var description: String {
            switch self {
            case .invalidEmail: "not an email address"
            case .weakPassword(let length): "the password must have at least \(length) characters"
            case .exists: "an administrator with this email exists"
            }
        }
    }

    package static let minimumPasswordLength = 10

    private let connection: SQLiteConnection
    private let hashing: FirebaseScrypt
    /// What an unknown email is checked against, so that it takes as long as a known one.
    private let decoy: (salt: [UInt8], hash: [UInt8])

    private init(connection: SQLiteConnection, hashing: FirebaseScrypt) throws {
        self.connection = connection
        self.hashing = hashing
        let salt = Self.randomBytes(16)
        self.decoy = (salt, try hashing.hash(password: "", salt: salt))
    }

    /// The store of data directory `dataDirectory`, created if needed.
    package static func open(dataDirectory: String, logger: Logger) async throws -> ConsoleAdministrators {
        try FileManager.default.createDirectory(atPath: dataDirectory, withIntermediateDirectories: true)
        let connection = try await DurableSQLite.open(
            path: dataDirectory + "/console.sqlite",
            schema: [
                "CREATE TABLE IF NOT EXISTS settings (name TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID",
                """
                CREATE TABLE IF NOT EXISTS administrators (email TEXT PRIMARY KEY, salt BLOB NOT NULL, hash BLOB NOT NULL,
                created_at INTEGER NOT NULL) WITHOUT ROWID
                """,
            ],
            logger: logger)
        do {
            return try ConsoleAdministrators(connection: connection, hashing: try await hashConfiguration(connection))
        } catch {
            try? await connection.close()
            throw error
        }
    }

    /// The store's hash configuration, made at its first open.
    private static func hashConfiguration(_ connection: SQLiteConnection) async throws -> FirebaseScrypt {
        let rows = try await connection.query("SELECT value FROM settings WHERE name = 'hash-config'")
        if let text = rows.first?.column("value")?.string {
            return try JSONDecoder().decode(FirebaseScrypt.self, from: Data(text.utf8))
        }
        let configuration = FirebaseScrypt.generate()
        let text = String(decoding: try JSONEncoder().encode(configuration), as: UTF8.self)
        _ = try await connection.query("INSERT INTO settings (name, value) VALUES ('hash-config', ?1)", [.text(text)])
        return configuration
    }

    /// Adds an administrator; the email is kept lower-cased.
    package func create(email: String, password: String, now: Int64) async throws {
        let email = email.lowercased()
        guard Self.isEmail(email) else { throw Failure.invalidEmail }
        guard password.count >= Self.minimumPasswordLength else {
            throw Failure.weakPassword(minimumLength: Self.minimumPasswordLength)
        }
        let salt = Self.randomBytes(16)
        let hash = try hashing.hash(password: password, salt: salt)
        let existing = try await connection.query("SELECT 1 FROM administrators WHERE email = ?1", [.text(email)])
        guard existing.isEmpty else { throw Failure.exists }
        _ = try await connection.query(
            "INSERT INTO administrators (email, salt, hash, created_at) VALUES (?1, ?2, ?3, ?4)",
            [.text(email), .blob(ByteBuffer(bytes: salt)), .blob(ByteBuffer(bytes: hash)), .integer(Int(now))])
    }

    /// Whether `password` is the administrator `email`'s. An unknown email costs one hash too.
    package func verify(email: String, password: String) async -> Bool {
        let rows = try? await connection.query(
            "SELECT salt, hash FROM administrators WHERE email = ?1", [.text(email.lowercased())])
        guard let row = rows?.first, let salt = row.column("salt")?.blob, let hash = row.column("hash")?.blob else {
            _ = hashing.matches(password: password, salt: decoy.salt, expected: decoy.hash)
            return false
        }
        return hashing.matches(password: password, salt: Array(buffer: salt), expected: Array(buffer: hash))
    }

    /// How many administrators exist.
    package func count() async throws -> Int {
        try await connection.query("SELECT count(*) AS n FROM administrators").first?.column("n")?.integer ?? 0
    }

    package func close() async {
        try? await connection.close()
    }

    /// An address with one `@`, text on both sides, no spaces or control characters, at most 254
    /// characters.
    static func isEmail(_ email: String) -> Bool {
        let parts = email.split(separator: "@", omittingEmptySubsequences: false)
        return email.utf8.count <= 254 && parts.count == 2 && !parts[0].isEmpty && !parts[1].isEmpty
            && !email.unicodeScalars.contains { $0.properties.isWhitespace || $0.value < 0x20 || $0.value == 0x7F }
    }

    static func randomBytes(_ count: Int) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<count).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
    }
}
