import Testing

@testable import HearthServer

/// The clean-up of abandoned anonymous accounts.
@Suite struct AnonymousAccountSweeperTests {
    @Test func onlyOldAccountsThatAreStillAnonymousGo() async throws {
        let now: Int64 = 1_800_000_000_000
        let day: Int64 = 24 * 3600 * 1000
        try await withAuthService(production: true, now: now / 1000) { auth in
            var upgraded = UserRecord(localId: "upgraded", createdAt: now - 40 * day)
            upgraded.email = "up@example.com"
            var linked = UserRecord(localId: "linked", createdAt: now - 40 * day)
            linked.providers = [LinkedProvider(providerId: "google.com", rawId: "g1")]
            let users = [
                UserRecord(localId: "abandoned", createdAt: now - 31 * day), upgraded, linked,
                UserRecord(localId: "recent", createdAt: now - 29 * day),
            ]
            try await auth.directory.change { (state: inout AuthDirectory.State) throws(AuthError) in
                for user in users { state.users.put(user) }
            }
            let session = RefreshSession(
                localId: "abandoned", provider: "anonymous", projectId: "test-project", authTime: 0, issuedAt: 0)
            let refreshToken = try await auth.tokens.refreshToken(for: session)

            #expect(try await auth.removeAbandonedAnonymousAccounts(olderThanDays: 30, now: now) == 1)
            let remaining = await auth.directory.page(after: "", limit: .max).map(\.localId)
            #expect(remaining == ["linked", "recent", "upgraded"])
            #expect(try await auth.tokens.session(forRefreshToken: refreshToken) == nil)
        }
    }
}
