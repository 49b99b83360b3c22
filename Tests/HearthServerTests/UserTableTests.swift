import Testing

@testable import HearthAuthServer
@testable import HearthServer

/// The in-memory accounts and their indexes.
@Suite struct UserTableTests {
    private func user(_ uid: String, email: String? = nil) -> UserRecord {
        var user = UserRecord(localId: uid, createdAt: 0)
        user.email = email
        return user
    }

    @Test func indexesFollowChangesAndRemovals() {
        var table = UserTable([user("a", email: "x@example.com")])
        var moved = user("a", email: "y@example.com")
        moved.providers = [LinkedProvider(providerId: "google.com", rawId: "g1")]
        table.put(moved)
        #expect(table.users(withEmail: "x@example.com").isEmpty)
        #expect(table.users(withEmail: "y@example.com").map(\.localId) == ["a"])
        #expect(table.user(federatedBy: "google.com", rawId: "g1")?.localId == "a")
        table.remove("a")
        #expect(table.user(federatedBy: "google.com", rawId: "g1") == nil)
        #expect(table.takeChanges().removed == ["a"])
    }

    @Test func aTouchedAccountIsSavedWithTheNextChangeOnly() {
        var table = UserTable([user("a"), user("b")])
        var refreshed = user("a")
        refreshed.lastRefreshAt = 42
        table.touch(refreshed)
        #expect(table["a"]?.lastRefreshAt == 42)
        #expect(table.takeChanges().written.isEmpty)
        table.put(user("b", email: "b@example.com"))
        #expect(table.takeChanges().written.map(\.localId) == ["a", "b"])
        #expect(table.takeChanges().written.isEmpty)
    }
}
