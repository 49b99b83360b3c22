import Foundation
@_spi(HearthSDK) import HearthApp

/// Signs users in to an app, under the Firebase Apple SDK's name: one instance per app, found
/// with ``auth()`` or ``auth(app:)``. The signed-in user is kept on disk across restarts, and
/// the app's database and storage send their ID token.
public final class Auth: @unchecked Sendable {
    /// The app this auth signs in to (optional, as Firebase's is).
    public var app: FirebaseApp? { firebaseApp }
    private let firebaseApp: FirebaseApp
    let store: any SessionStore
    private let apiKey: String
    private let lock = NSLock()
    private var state = State()

    /// An app's listener, called only on the callback queue.
    private typealias Listener = UncheckedSendable<(Auth, User?) -> Void>

    private struct State {
        var emulator: String?
        var languageCode: String?
        var settings: AuthSettings? = AuthSettings()
        /// Whether sign-ins and refreshes are saved: not when the store could not be read, so that
        /// the user kept there survives this run.
        var keepsUser = true
        var user: User?
        var stateListeners: [ObjectIdentifier: Listener] = [:]
        var tokenListeners: [ObjectIdentifier: Listener] = [:]
        var providerListeners: [@Sendable (String?) -> Void] = []
        var scheduledRefresh: Task<Void, Never>?
        var queue = defaultCallbackQueue(label: "hearth.auth.callbacks")
    }

    private static let instances = NSLock()
    nonisolated(unsafe) private static var byApp: [String: Auth] = [:]

    private init(app: FirebaseApp) {
        firebaseApp = app
        apiKey = app.options.apiKey ?? ""
        store = sessionStore(appName: app.name, apiKey: apiKey)
        switch store.load() {
        case .found(let session):
            state.user = User(session: session, auth: self)
            // Until the app says otherwise, the user's tokens are refreshed where they were issued.
            state.emulator = session.issuer
        case .none: break
        case .unavailable: state.keepsUser = false
        }
    }

    /// Forgets the auth of every deleted app, once registered.
    private static let deletionRegistration: Void = FirebaseApp.addDeletionHandler { app in
        let auth = instances.withLock { () -> Auth? in
            guard let auth = byApp[app.name], auth.firebaseApp === app else { return nil }
            byApp[app.name] = nil
            return auth
        }
        auth?.forget()
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
            if let existing = byApp[app.name], existing.firebaseApp === app { return (existing, false) }
            let made = Auth(app: app)
            byApp[app.name] = made
            return (made, true)
        }
        if isNew {
            _ = deletionRegistration
            app.setAuthTokenProvider(AuthTokenBridge(auth))
        }
        return auth
    }

    /// Sends every request to the Auth emulator, or a Hearth server, at `host:port`.
    public func useEmulator(withHost host: String, port: Int) {
        lock.withLock { state.emulator = "\(host):\(port)" }
    }

    /// The signed-in user, if any.
    public var currentUser: User? { lock.withLock { state.user } }

    /// The auth's settings (``AuthSettings``); one instance per auth, as in Firebase.
    public var settings: AuthSettings? {
        get { lock.withLock { state.settings } }
        set { lock.withLock { state.settings = newValue } }
    }

    /// The queue completion handlers and listeners run on: the main queue on Apple platforms, a
    /// serial queue of the SDK's own on Linux (a Hearth addition, as `Database.callbackQueue`).
    public var callbackQueue: DispatchQueue {
        get { lock.withLock { state.queue } }
        set { lock.withLock { state.queue = newValue } }
    }

    /// The language of the emails Auth has sent (password reset, verification, sign-in links),
    /// as a BCP 47 code; `nil` for the project's default.
    public var languageCode: String? {
        get { lock.withLock { state.languageCode } }
        set { lock.withLock { state.languageCode = newValue } }
    }

    /// Sets ``languageCode`` to the user's preferred language.
    public func useAppLanguage() {
        languageCode = Locale.preferredLanguages.first
    }

    var backend: AuthBackend {
        lock.withLock { AuthBackend(apiKey: apiKey, emulator: state.emulator, languageCode: state.languageCode) }
    }

    func callBack(_ body: @escaping @Sendable () -> Void) {
        callbackQueue.async(execute: body)
    }

    // MARK: Users and tokens

    /// Puts `session` in force as the current user (a new sign-in), or none. The change, the
    /// saved file and the announcement happen in one step, so that nothing a previous user's
    /// refresh does afterwards can bring that user back.
    func setCurrentUser(_ session: UserSession?) -> User? {
        let user = session.map { User(session: $0, auth: self) }
        lock.withLock {
            state.scheduledRefresh?.cancel()
            state.scheduledRefresh = nil
            // As in Firebase, state listeners hear of another uid (or none); the same user signing
            // in again is a token change.
            let sameAccount = state.user?.uid == user?.uid
            state.user = user
            if state.keepsUser { store.save(session) }
            announce(user, tokenOnly: sameAccount)
        }
        if let user { scheduleRefresh(for: user) }
        return user
    }

    /// Saves `session`, a change of `user`'s tokens or profile, and announces a new token, if
    /// `user` is still the current one.
    func commit(_ session: UserSession, of user: User, tokenChanged: Bool) {
        let isCurrent = lock.withLock { () -> Bool in
            guard state.user === user else { return false }
            if state.keepsUser { store.save(session) }
            if tokenChanged { announce(user, tokenOnly: true) }
            return true
        }
        if isCurrent && tokenChanged { scheduleRefresh(for: user) }
    }

    /// The ID token of `user`, refreshed when it expires within five minutes or when forced;
    /// callers asking while a refresh is under way share it.
    func idToken(of user: User, forcingRefresh: Bool) async throws(AuthError) -> String {
        let session = user.snapshot
        guard forcingRefresh || session.expirationDate.timeIntervalSinceNow < 300 else { return session.idToken }
        let refresh = user.joinRefresh { [self] () async throws(AuthError) -> String in try await self.refresh(user) }
        do {
            return try await refresh.value
        } catch {
            throw error as? AuthError ?? AuthError(.internalError, failureReason: "\(error)")
        }
    }

    /// Trades `user`'s refresh token for a new ID token; a refusal that ends the session signs
    /// the user out (spec auth-api §2.12).
    private func refresh(_ user: User) async throws(AuthError) -> String {
        let answer: [String: Any]
        do {
            answer = try await backend.refresh(user.snapshot.refreshToken)
        } catch {
            if error.endsSession, currentUser === user { _ = setCurrentUser(nil) }
            throw error
        }
        var applied = false
        let updated = user.update { applied = $0.applyRefresh(answer) }
        guard applied else { throw AuthError(.internalError, failureReason: "the token refresh answer has no access_token") }
        commit(updated, of: user, tokenChanged: true)
        return updated.idToken
    }

    /// Starts refreshing `user`'s token ahead of its expiry unless that is scheduled already: a
    /// user kept from an earlier run is refreshed ahead once a module of the app asks for the
    /// token (as Firebase turns its auto-refresh on), not while the app is still being set up.
    func keepFresh(_ user: User) {
        if lock.withLock({ state.scheduledRefresh == nil && state.user === user }) { scheduleRefresh(for: user) }
    }

    /// Refreshes the token five minutes before it expires, as the Firebase SDKs do, so that
    /// connections authenticated with it stay so; a refresh that fails without ending the
    /// session is tried again a minute later.
    private func scheduleRefresh(for user: User) {
        let delay = max(user.snapshot.expirationDate.timeIntervalSinceNow - 300, 1)
        let task = Task { [weak self, weak user] in
            try? await Task.sleep(for: .seconds(delay))
            while !Task.isCancelled, let self, let user, currentUser === user {
                do throws(AuthError) {
                    _ = try await idToken(of: user, forcingRefresh: true)
                    return
                } catch {
                    if error.endsSession { return }
                    try? await Task.sleep(for: .seconds(60))
                }
            }
        }
        lock.withLock {
            guard state.user === user else { return task.cancel() }
            state.scheduledRefresh?.cancel()
            state.scheduledRefresh = task
        }
    }

    /// Tells state listeners (unless only the token changed), token listeners and the app's
    /// other modules; called with the lock held, so that announcements go out in order.
    private func announce(_ user: User?, tokenOnly: Bool) {
        let stateListeners = tokenOnly ? [] : Array(state.stateListeners.values)
        let tokenListeners = Array(state.tokenListeners.values)
        let token = user?.snapshot.idToken
        for provider in state.providerListeners { provider(token) }
        state.queue.async {
            for listener in stateListeners + tokenListeners { listener.value(self, user) }
            NotificationCenter.default.post(name: Self.authStateDidChangeNotification, object: self)
        }
    }

    /// Posted (with the auth as its object) whenever the signed-in user or their ID token
    /// changes, after the listeners have been called, as Firebase posts it.
    public static let authStateDidChangeNotification = Notification.Name("FIRAuthStateDidChangeNotification")

    /// Lets go of a deleted app: no more refreshes or announcements (the saved user stays on
    /// disk for the next app configured with the same name).
    private func forget() {
        lock.withLock {
            state.scheduledRefresh?.cancel()
            state.scheduledRefresh = nil
            state.user = nil
            state.providerListeners = []
        }
    }

    // MARK: Listeners

    /// Adds a listener of the app's other modules, told every new ID token.
    func addProviderListener(_ listener: @escaping @Sendable (String?) -> Void) {
        lock.withLock { state.providerListeners.append(listener) }
    }

    /// Calls `listener` now with the current user, then whenever another user signs in (a
    /// different uid), and at sign-out; the same user signing in again is not a state change.
    @discardableResult
    public func addStateDidChangeListener(_ listener: @escaping (Auth, User?) -> Void) -> any AuthStateDidChangeListenerHandle {
        addListener(listener, to: \.stateListeners)
    }

    public func removeStateDidChangeListener(_ handle: any AuthStateDidChangeListenerHandle) {
        lock.withLock { _ = state.stateListeners.removeValue(forKey: ObjectIdentifier(handle)) }
    }

    /// Calls `listener` now with the current user, then after every sign-in, sign-out and token
    /// refresh.
    @discardableResult
    public func addIDTokenDidChangeListener(_ listener: @escaping (Auth, User?) -> Void) -> any IDTokenDidChangeListenerHandle {
        addListener(listener, to: \.tokenListeners)
    }

    public func removeIDTokenDidChangeListener(_ handle: any IDTokenDidChangeListenerHandle) {
        lock.withLock { _ = state.tokenListeners.removeValue(forKey: ObjectIdentifier(handle)) }
    }

    /// Adds `listener` to a list of listeners and calls it with the current user.
    private func addListener(
        _ listener: @escaping (Auth, User?) -> Void, to list: WritableKeyPath<State, [ObjectIdentifier: Listener]>
    ) -> any NSObjectProtocol {
        let handle = ListenerHandle()
        let listener = Listener(listener)
        let user = lock.withLock {
            state[keyPath: list][ObjectIdentifier(handle)] = listener
            return state.user
        }
        callBack { listener.value(self, user) }
        return handle
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

/// The app's auth as its other modules see it (``AuthTokenProvider``); it holds the auth
/// weakly, as the app holds it.
private final class AuthTokenBridge: AuthTokenProvider, @unchecked Sendable {
    weak var auth: Auth?

    init(_ auth: Auth) {
        self.auth = auth
    }

    func idToken(forcingRefresh: Bool) async throws -> String? {
        guard let auth, let user = auth.currentUser else { return nil }
        auth.keepFresh(user)
        return try await auth.idToken(of: user, forcingRefresh: forcingRefresh)
    }

    func addTokenListener(_ listener: @escaping @Sendable (String?) -> Void) {
        auth?.addProviderListener(listener)
    }
}

/// Auth exists from the moment its app is configured, as Firebase's does, so that a user kept
/// from an earlier run signs the app's first database and storage requests.
@_spi(HearthSDK)
extension Auth: EagerAppComponent {
    public static func appWasConfigured(_ app: FirebaseApp) {
        _ = auth(app: app)
    }
}
