import Foundation

/// A signed-in user, under the Firebase Apple SDK's name: the profile from the last sign-in or
/// ``reload()``, and ID tokens that refresh before they expire.
public final class User: UserInfo, @unchecked Sendable {
    private let lock = NSLock()
    private var session: UserSession
    private weak var auth: Auth?
    /// The token refresh under way, which every caller meanwhile shares.
    private var refreshing: Task<String, any Error>?

    init(session: UserSession, auth: Auth) {
        self.session = session
        self.auth = auth
    }

    var snapshot: UserSession { lock.withLock { session } }

    func update(_ change: (inout UserSession) -> Void) -> UserSession {
        lock.withLock {
            change(&session)
            return session
        }
    }

    /// The refresh under way, or a new one running `start`.
    func joinRefresh(_ start: @escaping @Sendable () async throws(AuthError) -> String) -> Task<String, any Error> {
        lock.withLock {
            if let refreshing { return refreshing }
            let task = Task<String, any Error> {
                defer { self.lock.withLock { self.refreshing = nil } }
                return try await start()
            }
            refreshing = task
            return task
        }
    }

    /// The user's id, the same for every sign-in.
    public var uid: String { snapshot.uid }
    public var email: String? { snapshot.email }
    public var displayName: String? { snapshot.displayName }
    public var photoURL: URL? { snapshot.photoURL }
    public var phoneNumber: String? { snapshot.phoneNumber }
    public var isAnonymous: Bool { snapshot.isAnonymous }
    public var isEmailVerified: Bool { snapshot.isEmailVerified }
    /// Always `Firebase`, as for Firebase's users.
    public var providerID: String { "Firebase" }
    /// The providers linked to the account, one entry each.
    public var providerData: [any UserInfo] { snapshot.providers }
    public var metadata: UserMetadata { snapshot.metadata }
    public var refreshToken: String? { snapshot.refreshToken }

    func requireAuth() throws(AuthError) -> Auth {
        guard let auth else { throw AuthError(.internalError, failureReason: "the user's Auth no longer exists") }
        return auth
    }

    /// Runs `operation` and hands its outcome to `completion` on the auth's callback queue; when
    /// the auth is gone (its app deleted), `completion` gets that error at once.
    func run<Result: Sendable>(
        _ completion: ((Result?, (any Error)?) -> Void)?, _ operation: @escaping @Sendable () async throws -> Result
    ) {
        do {
            try requireAuth().run(completion, operation)
        } catch {
            completion?(nil, error)
        }
    }

    /// Runs `operation` and hands its error, if any, to `completion`, as the other ``run(_:_:)``.
    func run(_ completion: (((any Error)?) -> Void)?, _ operation: @escaping @Sendable () async throws -> Void) {
        do {
            try requireAuth().run(completion, operation)
        } catch {
            completion?(error)
        }
    }

    /// The user's ID token, refreshed first when it expires within five minutes or when asked.
    public func getIDToken(forcingRefresh: Bool = false) async throws -> String {
        try await getIDTokenResult(forcingRefresh: forcingRefresh).token
    }

    /// The ID token with its claims (sign-in provider, custom claims, times).
    public func getIDTokenResult(forcingRefresh: Bool = false) async throws -> AuthTokenResult {
        let token = try await requireAuth().idToken(of: self, forcingRefresh: forcingRefresh)
        guard let result = AuthTokenResult(token: token) else { throw AuthError(.internalError, failureReason: "undecodable ID token") }
        return result
    }

    public func getIDToken(completion: ((String?, (any Error)?) -> Void)?) {
        run(completion) { try await self.getIDToken() }
    }

    public func getIDTokenForcingRefresh(_ forcingRefresh: Bool, completion: ((String?, (any Error)?) -> Void)?) {
        run(completion) { try await self.getIDToken(forcingRefresh: forcingRefresh) }
    }

    public func getIDTokenResult(completion: ((AuthTokenResult?, (any Error)?) -> Void)?) {
        getIDTokenResult(forcingRefresh: false, completion: completion)
    }

    public func getIDTokenResult(forcingRefresh: Bool, completion: ((AuthTokenResult?, (any Error)?) -> Void)?) {
        run(completion) { try await self.getIDTokenResult(forcingRefresh: forcingRefresh) }
    }

    /// Reads the profile from the server again (email verification, display name, …).
    public func reload() async throws {
        try await requireAuth().reload(self)
    }

    public func reload(completion: (((any Error)?) -> Void)? = nil) {
        run(completion) { try await self.reload() }
    }

    /// Deletes the account and signs it out.
    public func delete() async throws {
        try await requireAuth().delete(self)
    }

    public func delete(completion: (((any Error)?) -> Void)? = nil) {
        run(completion) { try await self.delete() }
    }
}

/// Users compare as Firebase's (`NSObject`s) do: by identity. An auth hands out one `User` per
/// sign-in, so `user == Auth.auth().currentUser` tells whether that sign-in is still current.
extension User: Hashable {
    public static func == (lhs: User, rhs: User) -> Bool {
        lhs === rhs
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(ObjectIdentifier(self))
    }
}
