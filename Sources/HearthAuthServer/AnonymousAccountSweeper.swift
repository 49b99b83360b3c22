import ServiceLifecycle

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Deletes anonymous accounts that were never upgraded once they are older than the configured
/// lifetime, with their refresh tokens, checking every hour (Firebase's automatic clean-up).
package struct AnonymousAccountSweeper: Service {
    let auth: AuthService
    let lifetimeDays: Int

    package init(auth: AuthService, lifetimeDays: Int) {
        self.auth = auth
        self.lifetimeDays = lifetimeDays
    }

    package func run() async throws {
        try? await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                _ = try? await auth.removeAbandonedAnonymousAccounts(
                    olderThanDays: lifetimeDays, now: Int64(Date().timeIntervalSince1970 * 1000))
                try await Task.sleep(for: .seconds(3600))
            }
        }
    }
}

extension AuthService {
    /// Removes the accounts made by anonymous sign-up that are still anonymous (no email, phone,
    /// password, provider or custom-token sign-in since) and were created more than `days` days
    /// before `now` (milliseconds), and their refresh sessions; returns how many.
    @discardableResult
    func removeAbandonedAnonymousAccounts(olderThanDays days: Int, now: Int64) async throws -> Int {
        let cutoff = now - Int64(days) * 24 * 3600 * 1000
        let removed = try await directory.change { (state: inout AuthDirectory.State) throws(AuthError) -> [String] in
            let abandoned = state.users.byID.values.filter { user in
                user.anonymous == true && user.createdAt < cutoff && user.email == nil && user.phoneNumber == nil && user.password == nil
                    && user.providers.isEmpty && !user.customAuth
            }.map(\.localId)
            for localId in abandoned { state.users.remove(localId) }
            return abandoned
        }
        try await directory.store.removeSessions(of: removed)
        return removed.count
    }
}
