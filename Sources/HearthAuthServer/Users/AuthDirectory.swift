import Logging

/// The accounts, action codes and project settings of Authentication, kept in memory and saved
/// to the ``AuthStore`` before any change is acknowledged.
///
/// Operations run their checks and changes synchronously inside ``change(_:)``, so no two
/// interleave (an email is unique however many sign-ups race); slow work such as password hashing
/// happens before, outside the actor.
///
/// A change is visible to other requests from the moment it is applied, a moment before it is on
/// disk; the request that made it is answered only once it is. Should the store fail, the change
/// stays in memory and the failure is answered as an internal error (the next start reads the
/// store as it is).
actor AuthDirectory {
    /// What one change may read and modify.
    struct State: Sendable {
        var users: UserTable
        var codes: [String: ActionCode]
        var config: ProjectAuthConfig
        var providers: ProviderConfigs
        /// Phone codes sent and not yet used, by session (kept in memory, as the emulator keeps them).
        var phoneCodes: [String: PhoneCode] = [:]
        fileprivate var savedCodes: Set<String> = []
        fileprivate var removedCodes: Set<String> = []
        fileprivate var clearedUsers = false
        fileprivate var configChanged = false
        fileprivate var providersChanged = false

        mutating func addCode(_ code: ActionCode) {
            codes[code.code] = code
            savedCodes.insert(code.code)
        }

        /// Forgets the codes whose lifetime has passed (production's codes expire).
        mutating func removeExpiredCodes(now: Int64) {
            for code in codes.values where (code.expiresAt ?? .max) < now { consumeCode(code.code) }
        }

        mutating func consumeCode(_ code: String) {
            codes[code] = nil
            removedCodes.insert(code)
        }

        mutating func removeAllUsers() {
            users.removeAll()
            clearedUsers = true
        }

        mutating func setConfig(_ newConfig: ProjectAuthConfig) {
            config = newConfig
            configChanged = true
        }

        mutating func setProviders(_ newProviders: ProviderConfigs) {
            providers = newProviders
            providersChanged = true
        }
    }

    private var state: State
    /// Every uid in order, for paging through the accounts; rebuilt after accounts come or go.
    private var sortedIDs: [String]?
    nonisolated let store: AuthStore
    private let logger: Logger
    /// Told of every change that revokes a user's tokens.
    nonisolated let revocations = RevocationFeed()

    private init(store: AuthStore, state: State, logger: Logger) {
        self.store = store
        self.logger = logger
        self.state = state
    }

    static func open(store: AuthStore, logger: Logger) async throws -> AuthDirectory {
        let users = UserTable(try await store.loadUsers())
        var codes: [String: ActionCode] = [:]
        for code in try await store.loadActionCodes() { codes[code.code] = code }
        let config = try await store.setting("config", as: ProjectAuthConfig.self) ?? ProjectAuthConfig()
        let providers = try await store.setting("providerConfigs", as: ProviderConfigs.self) ?? ProviderConfigs()
        return AuthDirectory(
            store: store, state: State(users: users, codes: codes, config: config, providers: providers), logger: logger)
    }

    /// Reads the current state.
    func read<Result: Sendable, Failure: Error>(_ body: (State) throws(Failure) -> Result) throws(Failure) -> Result {
        try body(state)
    }

    /// Keeps a phone code until it is used (in memory only).
    func addPhoneCode(_ code: PhoneCode) {
        state.phoneCodes[code.sessionInfo] = code
    }

    /// Up to `limit` accounts with uids after `after`, in uid order (`batchGet` pages): sorting
    /// happens once per set of accounts, not once per page.
    func page(after: String, limit: Int) -> [UserRecord] {
        let ids = sortedIDs ?? state.users.byID.keys.sorted()
        sortedIDs = ids
        var low = 0
        var high = ids.count
        while low < high {
            let middle = (low + high) / 2
            if ids[middle] <= after { low = middle + 1 } else { high = middle }
        }
        let end = limit >= ids.count - low ? ids.count : low + limit
        return ids[low..<end].compactMap { state.users[$0] }
    }

    /// Applies `body` to the state at once, without waiting for the store: for changes not worth
    /// an fsync (a refresh time), saved with the next ``change(_:)``.
    func touch<Result: Sendable>(_ body: (inout State) throws(AuthError) -> Result) throws(AuthError) -> Result {
        try body(&state)
    }

    /// Applies `body` to the state, then saves what it changed; returns once the change is
    /// durable. A `body` that throws changes nothing.
    func change<Result: Sendable>(_ body: (inout State) throws(AuthError) -> Result) async throws(AuthError) -> Result {
        var draft = state
        let result = try body(&draft)
        let (written, removed) = draft.users.takeChanges()
        let revoked =
            draft.clearedUsers
            ? state.users.byID.keys.map { $0 }
            : written.filter { RevocationFeed.revoked(from: state.users[$0.localId], to: $0) }.map(\.localId) + removed
        let clearedUsers = draft.clearedUsers
        let savedCodes = draft.savedCodes.compactMap { draft.codes[$0] }
        let removedCodes = draft.removedCodes
        let config = draft.configChanged ? draft.config : nil
        let providers = draft.providersChanged ? draft.providers : nil
        draft.savedCodes = []
        draft.removedCodes = []
        draft.clearedUsers = false
        draft.configChanged = false
        draft.providersChanged = false
        if clearedUsers || !removed.isEmpty || written.contains(where: { state.users[$0.localId] == nil }) { sortedIDs = nil }
        state = draft
        var operations: [AuthStore.Operation] = clearedUsers ? [.clearUsers] : []
        operations += written.map { .putUser($0) } + removed.map { .deleteUser($0) }
        operations += savedCodes.map { .putCode($0) } + removedCodes.map { .deleteCode($0) }
        if let config { operations.append(.putSetting("config", config)) }
        if let providers { operations.append(.putSetting("providerConfigs", providers)) }
        do {
            try await store.commit(operations)
        } catch {
            logger.error("could not save an authentication change", metadata: ["error": "\(error)"])
            throw AuthError.internalError("Internal error.")
        }
        revocations.publish(revoked)
        return result
    }
}
