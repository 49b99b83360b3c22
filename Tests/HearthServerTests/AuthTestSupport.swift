import Foundation
import Logging

@testable import HearthAuthServer
@testable import HearthServer

/// Runs `body` with an Authentication service of project `test-project` on a temporary data
/// directory, opened at `now` (seconds), then closes it and removes the directory.
func withAuthService(
    production: Bool, now: Int64, _ body: (AuthService) async throws -> Void
) async throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-auth-\(UUID().uuidString)").path
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let auth = try await AuthService.open(
        .dataDirectory(directory), settings: AuthSettings(projectID: "test-project", production: production), now: now,
        logger: Logger(label: "test"))
    do {
        try await body(auth)
    } catch {
        await auth.close()
        throw error
    }
    await auth.close()
}
