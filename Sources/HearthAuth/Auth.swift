import Foundation
@_spi(HearthSDK) import HearthApp

/// Signs users in to an app, under the Firebase Apple SDK's name: one instance per app, found
/// with ``auth()`` or ``auth(app:)``. The signed-in user is kept on disk across restarts, and
/// the app's database and storage send their ID token.
public final class Auth: @unchecked Sendable {
    /// The app this auth signs in to.
    public let app: FirebaseApp
    let store: SessionStore
    private let apiKey: String
    private let lock = NSLock()
    private var state = State()

    private struct State {
        var emulator: String?
        var user: User?
        var stateListeners: [ObjectIdentifier: @Sendable (Auth, User?) -> Void] = [:]
        var tokenListeners: [ObjectIdentifier: @Sendable (Auth, User?) -> Void] = [:]
        var providerListeners: [@Sendable (String?) -> Void] = []
        var scheduledRefresh: Task<Void, Never>?
        var queue = defaultCallbackQueue(label: "hearth.auth.callbacks")
    }

    private static let instances = NSLock()
    nonisolated(unsafe) private static var byApp: [String: Auth] = [:]

    private init(app: FirebaseApp) {
        self.app = app
        apiKey = app.options.apiKey ?? ""
        store = SessionStore(appName: app.name, apiKey: apiKey)
        if let session = store.load() { state.user = User(session: session, auth: self) }
    }

    /// The default app's auth; the default app must be configured.
    public static func auth() -> Auth {
        guard let app = FirebaseApp.app() else {
            fatalError("The default FirebaseApp instance must be configured before the default Auth instance can be initialized.")
        }
        return auth(app: app)
    }

    /// `app`'s auth.
    public static func auth(app: FirebaseApp) -> Auth {
        let (auth, isNew) = instances.withLock { () -> (Auth, Bool) in
            if let existing = byApp[app.name], existing.app === app { return (existing, false) }
            let made = Auth(app: app)
            byApp[app.name] = made
            return (made, true)
        }
        if isNew {
            app.setAuthTokenProvider(AuthTokenBridge(auth))
            if let user = auth.currentUser { auth.scheduleRefresh(for: user) }
        }
        return auth
    }

    /// Sends every request to the Auth emulator, or a Hearth server, at `host:port`.
    public func useEmulator(withHost host: String, port: Int) {
        lock.withLock { state.emulator = "\(host):\(port)" }
    }

    /// The signed-in user, if any.
    public var currentUser: User? { lock.withLock { state.user } }

    /// The queue completion handlers and listeners run on: the main queue on Apple platforms, a
    /// serial queue of the SDK's own on Linux (a Hearth addition, as `Database.callbackQueue`).
    public var callbackQueue: DispatchQueue {
        get { lock.withLock { state.queue } }
        set { lock.withLock { state.queue = newValue } }
    }

    var backend: AuthBackend { AuthBackend(apiKey: apiKey, emulator: lock.withLock { state.emulator }) }

    func callBack(_ body: @escaping @Sendable () -> Void) {
        callbackQueue.async(execute: body)
    }

    // MARK: Users and tokens

    /// Puts `session` in force as the current user (a new sign-in), or none; tells listeners.
    func setCurrentUser(_ session: UserSession?) -> User? {
        let user = session.map { User(session: $0, auth: self) }
        lock.withLock {
            state.scheduledRefresh?.cancel()
            state.user = user
        }
        store.save(session)
        if let user { scheduleRefresh(for: user) }
        notify(user, tokenOnly: false)
        return user
    }

    /// The ID token of `user`, refreshed when it expires within five minutes or when forced.
    func idToken(of user: User, forcingRefresh: Bool) async throws(AuthErrorCode) -> String {
        let session = user.snapshot
        guard forcingRefresh || session.expirationDate.timeIntervalSinceNow < 300 else { return session.idToken }
        let answer: [String: Any]
        do {
            answer = try await backend.refresh(session.refreshToken)
        } catch {
            if error.endsSession, currentUser === user { _ = setCurrentUser(nil) }
            throw error
        }
        var applied = false
        let updated = user.update { applied = $0.applyRefresh(answer) }
        guard applied else { throw AuthErrorCode(.internalError, failureReason: "the token refresh answer has no access_token") }
        if currentUser === user {
            store.save(updated)
            tokenChanged(for: user)
        }
        return updated.idToken
    }

    /// Tells listeners of a new token of the current `user` and plans its next refresh.
    func tokenChanged(for user: User) {
        scheduleRefresh(for: user)
        notify(user, tokenOnly: true)
    }

    /// Refreshes the token five minutes before it expires, as the Firebase SDKs do, so that
    /// connections authenticated with it stay so.
    private func scheduleRefresh(for user: User) {
        let delay = max(user.snapshot.expirationDate.timeIntervalSinceNow - 300, 1)
        let task = Task { [weak self, weak user] in
            try? await Task.sleep(for: .seconds(delay))
            guard !Task.isCancelled, let self, let user, currentUser === user else { return }
            _ = try? await idToken(of: user, forcingRefresh: true)
        }
        lock.withLock {
            state.scheduledRefresh?.cancel()
            state.scheduledRefresh = task
        }
    }

    /// Tells state listeners (unless only the token changed), token listeners and the app's
    /// other modules.
    private func notify(_ user: User?, tokenOnly: Bool) {
        let (stateListeners, tokenListeners, providers) = lock.withLock {
            (tokenOnly ? [] : Array(state.stateListeners.values), Array(state.tokenListeners.values), state.providerListeners)
        }
        let token = user?.snapshot.idToken
        for provider in providers { provider(token) }
        callBack {
            for listener in stateListeners { listener(self, user) }
            for listener in tokenListeners { listener(self, user) }
        }
    }

    // MARK: Listeners

    /// Adds a listener of the app's other modules, told every new ID token.
    func addProviderListener(_ listener: @escaping @Sendable (String?) -> Void) {
        lock.withLock { state.providerListeners.append(listener) }
    }

    /// Calls `listener` now with the current user, then after every sign-in and sign-out.
    @discardableResult
    public func addStateDidChangeListener(_ listener: @escaping @Sendable (Auth, User?) -> Void) -> any AuthStateDidChangeListenerHandle {
        let handle = ListenerHandle()
        let user = lock.withLock {
            state.stateListeners[ObjectIdentifier(handle)] = listener
            return state.user
        }
        callBack { listener(self, user) }
        return handle
    }

    public func removeStateDidChangeListener(_ handle: any AuthStateDidChangeListenerHandle) {
        lock.withLock { _ = state.stateListeners.removeValue(forKey: ObjectIdentifier(handle)) }
    }

    /// Calls `listener` now with the current user, then after every sign-in, sign-out and token
    /// refresh.
    @discardableResult
    public func addIDTokenDidChangeListener(_ listener: @escaping @Sendable (Auth, User?) -> Void) -> any IDTokenDidChangeListenerHandle {
        let handle = ListenerHandle()
        let user = lock.withLock {
            state.tokenListeners[ObjectIdentifier(handle)] = listener
            return state.user
        }
        callBack { listener(self, user) }
        return handle
    }

    public func removeIDTokenDidChangeListener(_ handle: any IDTokenDidChangeListenerHandle) {
        lock.withLock { _ = state.tokenListeners.removeValue(forKey: ObjectIdentifier(handle)) }
    }

    /// The current user, then the user after each sign-in and sign-out (a Swift concurrency
    /// form of ``addStateDidChangeListener(_:)``).
    public var authStateChanges: AsyncStream<User?> {
        AsyncStream { continuation in
            // The handle is only ever compared by identity.
            nonisolated(unsafe) let handle = addStateDidChangeListener { _, user in continuation.yield(user) }
            continuation.onTermination = { [weak self] _ in self?.removeStateDidChangeListener(handle) }
        }
    }
}

/// The handle of an auth state listener, for ``Auth/removeStateDidChangeListener(_:)``.
public typealias AuthStateDidChangeListenerHandle = NSObjectProtocol
/// The handle of an ID token listener, for ``Auth/removeIDTokenDidChangeListener(_:)``.
public typealias IDTokenDidChangeListenerHandle = NSObjectProtocol

/// A listener's identity.
private final class ListenerHandle: NSObject, @unchecked Sendable {}

/// The app's auth as its other modules see it (``AuthTokenProvider``).
private final class AuthTokenBridge: AuthTokenProvider {
    let auth: Auth

    init(_ auth: Auth) {
        self.auth = auth
    }

    func idToken(forcingRefresh: Bool) async throws -> String? {
        guard let user = auth.currentUser else { return nil }
        return try await auth.idToken(of: user, forcingRefresh: forcingRefresh)
    }

    func addTokenListener(_ listener: @escaping @Sendable (String?) -> Void) {
        auth.addProviderListener(listener)
    }
}
