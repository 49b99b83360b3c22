import Testing

@testable import HearthAuthServer
@testable import HearthServer

/// The clean-up of abandoned anonymous accounts.
@Suite struct AnonymousAccountSweeperTests {
    @Test func onlyOldAccountsThatAreStillAnonymousGo() async throws {
        let now: Int64 = 1_800_000_000_000
        let day: Int64 = 24 * 3600 * 1000
        try await withAuthService(production: true, now: now / 1000) { auth in
            func anonymous(_ uid: String, ageInDays: Int64) -> UserRecord {
                var user = UserRecord(localId: uid, createdAt: now - ageInDays * day)
                user.anonymous = true
                return user
            }
            var upgraded = anonymous("upgraded", ageInDays: 40)
            upgraded.email = "up@example.com"
            var linked = anonymous("linked", ageInDays: 40)
            linked.providers = [LinkedProvider(providerId: "google.com", rawId: "g1")]
            // Made by an admin without any credential: not an anonymous sign-up, so it stays.
            let bare = UserRecord(localId: "bare", createdAt: now - 40 * day)
            let users = [anonymous("abandoned", ageInDays: 31), upgraded, linked, bare, anonymous("recent", ageInDays: 29)]
            try await auth.directory.change { (state: inout AuthDirectory.State) throws(AuthError) in
                for user in users { state.users.put(user) }
            }
            let session = RefreshSession(
                localId: "abandoned", provider: "anonymous", projectId: "test-project", authTime: 0, issuedAt: 0)
            let refreshToken = try await auth.tokens.refreshToken(for: session)

            #expect(try await auth.removeAbandonedAnonymousAccounts(olderThanDays: 30, now: now) == 1)
            let remaining = try await auth.directory.page(after: "", limit: .max).map(\.localId)
            #expect(remaining == ["bare", "linked", "recent", "upgraded"])
            #expect(try await auth.tokens.session(forRefreshToken: refreshToken) == nil)
        }
    }
}
