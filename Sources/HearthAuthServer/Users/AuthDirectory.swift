import HearthSupport
import Logging

/// The accounts, action codes and project settings of Authentication, kept in memory and saved
/// to the ``AuthStore`` before any change is acknowledged. With a store shared by several nodes
/// (PostgreSQL), the memory is a copy brought up to date before every request from what the
/// other nodes changed, and a change is saved only if no other node's came first.
///
/// Operations run their checks and changes synchronously inside ``change(_:)``, so no two
/// interleave (an email is unique however many sign-ups race); slow work such as password hashing
/// happens before, outside the actor.
///
/// In a store of its own, a change is visible to other requests from the moment it is applied, a
/// moment before it is on disk; the request that made it is answered only once it is. Should the
/// store fail, the change stays in memory and the failure is answered as an internal error (the
/// next start reads the store as it is). In a shared store, a change is visible once saved.
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

        /// What a change made of the state must save, and what it tells.
        struct Pending {
            var clearedUsers: Bool
            var writtenUsers: [UserRecord]
            var removedUsers: [String]
            var savedCodes: [ActionCode]
            var removedCodes: [String]
            var config: ProjectAuthConfig?
            var providers: ProviderConfigs?
            /// The users whose tokens the change revokes.
            var revoked: [String]
            /// Whether accounts came or went, which changes their order.
            var reorders: Bool

            var operations: [AuthStoreOperation] {
                var operations: [AuthStoreOperation] = clearedUsers ? [.clearUsers] : []
                operations += writtenUsers.map { .putUser($0) } + removedUsers.map { .deleteUser($0) }
                operations += savedCodes.map { .putCode($0) } + removedCodes.map { .deleteCode($0) }
                if let config { operations.append(.putSetting(AuthChanges.configSetting, config)) }
                if let providers { operations.append(.putSetting(AuthChanges.providersSetting, providers)) }
                return operations
            }
        }

        /// What this state, a draft of `original`, changed, forgetting it: the draft then holds
        /// nothing left to save.
        mutating func takePending(from original: State) -> Pending {
            let (written, removed) = users.takeChanges()
            let revoked =
                clearedUsers
                ? original.users.byID.keys.map { $0 }
                : written.filter { RevocationFeed.revoked(from: original.users[$0.localId], to: $0) }.map(\.localId) + removed
            defer {
                savedCodes = []
                removedCodes = []
                clearedUsers = false
                configChanged = false
                providersChanged = false
            }
            return Pending(
                clearedUsers: clearedUsers, writtenUsers: written, removedUsers: removed,
                savedCodes: savedCodes.compactMap { codes[$0] }, removedCodes: Array(removedCodes),
                config: configChanged ? config : nil, providers: providersChanged ? providers : nil, revoked: revoked,
                reorders: clearedUsers || !removed.isEmpty || written.contains { original.users[$0.localId] == nil })
        }

        /// Takes in what a store holds or another node changed, as saved (nothing to save again);
        /// the users whose tokens that revokes.
        mutating func adopt(_ changes: AuthChanges) -> [String] {
            var revoked: [String] = []
            for (localId, user) in changes.users {
                if RevocationFeed.revoked(from: users[localId], to: user) { revoked.append(localId) }
                users.adopt(user, localId: localId)
            }
            for (code, record) in changes.codes { codes[code] = record }
            if let newConfig = changes.config { config = newConfig }
            if let newProviders = changes.providers { providers = newProviders }
            return revoked
        }
    }

    private var state: State
    /// The version of a shared store (``AuthStore/isShared``) the state holds every change up to.
    private var version: Int64
    /// Every uid in order, for paging through the accounts; rebuilt after accounts come or go.
    private var sortedIDs: [String]?
    nonisolated let store: any AuthStore
    private let logger: Logger
    /// Told of every change that revokes a user's tokens.
    nonisolated let revocations = RevocationFeed()
    /// The reading of a shared store's changes under way, which later readers wait for.
    private var fetch: Task<Void, Never>?
    /// How many readings of a shared store's changes have begun, the number of the last that
    /// ended, and whether it succeeded.
    private var fetchesBegun = 0
    private var fetchesEnded = 0
    private var lastFetchSucceeded = true
    /// Until when requests are refused at once after a reading failed, rather than each waiting
    /// for the store to answer.
    private var unreachableUntil: ContinuousClock.Instant?
    private static let unreachablePause: Duration = .seconds(1)
    /// A shared store's changes are made one at a time on this node, each on the newest state.
    private let changes = MutationQueue()
    /// How many times a change is tried again when other nodes keep changing the store first;
    /// each waits a random moment first, up to twice as long as the last (at most 64 ms), so that
    /// nodes racing for the store fall out of step.
    private static let attempts = 40

    private init(store: any AuthStore, state: State, version: Int64, logger: Logger) {
        self.store = store
        self.logger = logger
        self.state = state
        self.version = version
    }

    static func open(store: any AuthStore, logger: Logger) async throws -> AuthDirectory {
        let everything = try await store.everything()
        var state = State(users: UserTable(), codes: [:], config: ProjectAuthConfig(), providers: ProviderConfigs())
        _ = state.adopt(everything)
        return AuthDirectory(store: store, state: state, version: everything.version, logger: logger)
    }

    /// Reads the current state: in a shared store, after the changes other nodes made until now
    /// (``AuthError/unavailable`` when they cannot be read: nothing is decided on a copy that may
    /// be out of date).
    func read<Result: Sendable>(_ body: (State) throws(AuthError) -> Result) async throws(AuthError) -> Result {
        try await catchUp()
        return try body(state)
    }

    /// Keeps a phone code until it is used (in memory only).
    func addPhoneCode(_ code: PhoneCode) {
        state.phoneCodes[code.sessionInfo] = code
    }

    /// Up to `limit` accounts with uids after `after`, in uid order (`batchGet` pages): sorting
    /// happens once per set of accounts, not once per page.
    func page(after: String, limit: Int) async throws(AuthError) -> [UserRecord] {
        try await catchUp()
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
    /// an fsync (a refresh time), saved with the next ``change(_:)``. In a shared store, `body`
    /// sees the changes other nodes made until now.
    func touch<Result: Sendable>(_ body: (inout State) throws(AuthError) -> Result) async throws(AuthError) -> Result {
        try await catchUp()
        return try body(&state)
    }

    /// Applies `body` to the state, then saves what it changed; returns once the change is
    /// durable. A `body` that throws changes nothing.
    ///
    /// In a shared store, `body` runs on the newest state and may run again: when another node
    /// changed the store first, the change is refused, the state brought up to date and `body`
    /// tried anew. The change is visible here once it is durable.
    func change<Result: Sendable>(_ body: (inout State) throws(AuthError) -> Result) async throws(AuthError) -> Result {
        guard store.isShared else { return try await changeAtOnce(body) }
        await changes.enter()
        do throws(AuthError) {
            var backoff = 1
            for _ in 0..<Self.attempts {
                try await catchUp()
                if let result = try await changeIfNewest(body) {
                    await changes.leave()
                    return result
                }
                try? await Task.sleep(for: .milliseconds(Int.random(in: 0...backoff)))
                backoff = min(backoff * 2, 64)
            }
            logger.error("could not save an authentication change: other nodes kept changing the accounts first")
            throw AuthError.internalError("Internal error.")
        } catch {
            await changes.leave()
            throw error
        }
    }

    /// A change of a store no one else changes: visible to other requests from the moment it is
    /// applied, a moment before it is on disk.
    private func changeAtOnce<Result: Sendable>(
        _ body: (inout State) throws(AuthError) -> Result
    ) async throws(AuthError) -> Result {
        var draft = state
        let result = try body(&draft)
        let pending = draft.takePending(from: state)
        if pending.reorders { sortedIDs = nil }
        state = draft
        try await save(pending, basedOn: version)
        revocations.publish(pending.revoked)
        return result
    }

    /// A change of a shared store based on the state as it is now, or `nil` when another node
    /// changed the store first (nothing is applied).
    private func changeIfNewest<Result: Sendable>(
        _ body: (inout State) throws(AuthError) -> Result
    ) async throws(AuthError) -> Result? {
        let original = state
        var draft = state
        let result = try body(&draft)
        let pending = draft.takePending(from: original)
        // Nothing to save: nothing to number either.
        if pending.operations.isEmpty {
            keepPhoneCodes(of: draft, from: original)
            return result
        }
        let base = version
        // Refused, the change is computed again from the state as it was: its phone codes too.
        guard let committed = try await save(pending, basedOn: base) else { return nil }
        keepPhoneCodes(of: draft, from: original)
        // A reading of the store's changes may have brought the state past this change already.
        if version == base {
            var own = AuthChanges(version: committed)
            let cleared = pending.clearedUsers ? state.users.byID.keys.map { $0 } : []
            for localId in cleared + pending.removedUsers { own.users[localId] = .some(nil) }
            for user in pending.writtenUsers { own.users[user.localId] = .some(user) }
            for code in pending.removedCodes { own.codes[code] = .some(nil) }
            for code in pending.savedCodes { own.codes[code.code] = .some(code) }
            own.config = pending.config
            own.providers = pending.providers
            apply(own, publishing: false)
        }
        revocations.publish(pending.revoked)
        return result
    }

    /// Phone codes are this node's alone, in memory: the ones a change made from `original`
    /// into `draft` used or sent are used or kept at once, whatever happens to the rest of it,
    /// and codes sent meanwhile stay.
    private func keepPhoneCodes(of draft: State, from original: State) {
        for used in original.phoneCodes.keys where draft.phoneCodes[used] == nil { state.phoneCodes[used] = nil }
        for (session, code) in draft.phoneCodes where original.phoneCodes[session] == nil {
            state.phoneCodes[session] = code
        }
    }

    /// Saves `pending`; the store's version after it, or `nil` if the store was past `base`.
    @discardableResult
    private func save(_ pending: State.Pending, basedOn base: Int64) async throws(AuthError) -> Int64? {
        do {
            return try await store.commit(pending.operations, basedOn: base)
        } catch {
            logger.error("could not save an authentication change", metadata: ["error": "\(error)"])
            throw AuthError.internalError("Internal error.")
        }
    }

    /// Brings the state up to every change a shared store holds now. A reading already under way
    /// may have begun before the caller asked: the caller then waits for the one after it. A
    /// store out of reach refuses the request (``AuthError/unavailable``), at once for a moment
    /// after a reading failed.
    func catchUp() async throws(AuthError) {
        guard store.isShared else { return }
        if let unreachableUntil, ContinuousClock.now < unreachableUntil { throw .unavailable }
        let wanted = fetchesBegun + 1
        while fetchesEnded < wanted {
            if let fetch {
                await fetch.value
                continue
            }
            fetchesBegun += 1
            let number = fetchesBegun
            let task = Task { await self.fetchChanges(number) }
            fetch = task
            await task.value
        }
        if !lastFetchSucceeded { throw .unavailable }
    }

    private func fetchChanges(_ number: Int) async {
        defer {
            fetch = nil
            fetchesEnded = number
        }
        do {
            var page = try await store.changes(after: version)
            apply(page, publishing: true)
            while !page.complete {
                page = try await store.changes(after: version)
                apply(page, publishing: true)
            }
            lastFetchSucceeded = true
            unreachableUntil = nil
        } catch {
            logger.warning("could not read the accounts other nodes changed", metadata: ["error": "\(error)"])
            lastFetchSucceeded = false
            unreachableUntil = ContinuousClock.now + Self.unreachablePause
        }
    }

    /// Takes in changes read from a shared store, unless the state is already as new.
    private func apply(_ changes: AuthChanges, publishing: Bool) {
        guard changes.version > version else { return }
        version = changes.version
        if !changes.users.isEmpty { sortedIDs = nil }
        let revoked = state.adopt(changes)
        if publishing { revocations.publish(revoked) }
    }
}
