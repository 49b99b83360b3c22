/// Every account in memory, with the indexes sign-in needs (email, phone, federated identity),
/// and the set of accounts changed since it was last saved.
///
/// Emails are unique unless the project allows duplicate emails, so the email index maps an
/// address to every account that has it.
struct UserTable: Sendable {
    private(set) var byID: [String: UserRecord] = [:]
    private var byEmail: [String: Set<String>] = [:]
    private var byPhone: [String: String] = [:]
    private var byFederatedID: [FederatedID: String] = [:]
    /// The accounts written or removed since the last ``takeChanges()``.
    private var changed: Set<String> = []
    /// Accounts whose only change is worth saving but not waiting for (a refresh time).
    private var touched: Set<String> = []

    init(_ users: [UserRecord] = []) {
        for user in users { index(user) }
    }

    var count: Int { byID.count }

    subscript(localId: String) -> UserRecord? { byID[localId] }

    /// The accounts whose email is `email` (already lower-cased), oldest first.
    func users(withEmail email: String) -> [UserRecord] {
        (byEmail[email] ?? []).compactMap { byID[$0] }.sorted { ($0.createdAt, $0.localId) < ($1.createdAt, $1.localId) }
    }

    func user(withPhone phone: String) -> UserRecord? { byPhone[phone].flatMap { byID[$0] } }

    func user(federatedBy provider: String, rawId: String) -> UserRecord? {
        byFederatedID[FederatedID(provider: provider, rawId: rawId)].flatMap { byID[$0] }
    }

    /// Adds or replaces an account.
    mutating func put(_ user: UserRecord) {
        if let old = byID[user.localId] { unindex(old) }
        index(user)
        changed.insert(user.localId)
    }

    /// Replaces an account with a change that is saved with the next ``put(_:)`` or
    /// ``remove(_:)`` of any account, not on its own: a crash may lose it.
    mutating func touch(_ user: UserRecord) {
        guard let old = byID[user.localId] else { return }
        unindex(old)
        index(user)
        touched.insert(user.localId)
    }

    mutating func remove(_ localId: String) {
        guard let old = byID[localId] else { return }
        unindex(old)
        changed.insert(localId)
    }

    /// Takes in account `localId` as the store holds it (`nil`: removed), not as a change to save.
    mutating func adopt(_ user: UserRecord?, localId: String) {
        if let old = byID[localId] { unindex(old) }
        if let user { index(user) }
    }

    /// Removes every account; the store is told separately (one statement).
    mutating func removeAll() {
        self = UserTable()
    }

    /// The accounts to write and the uids to delete since the last call.
    mutating func takeChanges() -> (written: [UserRecord], removed: [String]) {
        guard !changed.isEmpty else { return ([], []) }
        defer {
            changed = []
            touched = []
        }
        var written: [UserRecord] = []
        var removed: [String] = []
        for localId in changed.union(touched).sorted() {
            if let user = byID[localId] { written.append(user) } else { removed.append(localId) }
        }
        return (written, removed)
    }

    private mutating func index(_ user: UserRecord) {
        byID[user.localId] = user
        if let email = user.email { byEmail[email, default: []].insert(user.localId) }
        if let phone = user.phoneNumber { byPhone[phone] = user.localId }
        for provider in user.providers {
            byFederatedID[FederatedID(provider: provider.providerId, rawId: provider.rawId)] = user.localId
        }
    }

    private mutating func unindex(_ user: UserRecord) {
        byID[user.localId] = nil
        if let email = user.email {
            byEmail[email]?.remove(user.localId)
            if byEmail[email]?.isEmpty == true { byEmail[email] = nil }
        }
        if let phone = user.phoneNumber, byPhone[phone] == user.localId { byPhone[phone] = nil }
        for provider in user.providers {
            let key = FederatedID(provider: provider.providerId, rawId: provider.rawId)
            if byFederatedID[key] == user.localId { byFederatedID[key] = nil }
        }
    }

    private struct FederatedID: Hashable, Sendable {
        let provider: String
        let rawId: String
    }
}
