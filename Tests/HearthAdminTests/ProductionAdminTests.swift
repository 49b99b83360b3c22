import Foundation
import HearthAdmin
import HearthAuth
import HearthAuthServer
import HearthServer
import HearthTestSupport
import HearthTesting
import Logging
import Testing

/// HearthAdmin against a production server: a service-account key from the server, access
/// tokens traded for it, signatures checked.
@Suite struct ProductionAdminTests {
    @Test func aServiceAccountKeySignsAndVerifies() async throws {
        let server = try await TestHearth.start(
            projectID: "demo-sdk", databaseRules: nil, storageRules: nil, users: [], production: true)
        defer { Task { await server.stop() } }
        let accounts = try await ServiceAccounts.open(.dataDirectory(server.dataDirectory), logger: Logger(label: "test"))
        let keyText = try await accounts.issue(
            projectID: "demo-sdk", serverURL: "http://127.0.0.1:\(server.port)", now: Int64(Date().timeIntervalSince1970))
        await accounts.close()
        let keyFile = (server.dataDirectory as NSString).appendingPathComponent("service-account.json")
        try keyText.write(toFile: keyFile, atomically: true, encoding: .utf8)
        let admin = try AdminApp(
            options: AdminOptions(projectID: "demo-sdk", serverURL: "http://127.0.0.1:\(server.port)", serviceAccountKeyFile: keyFile))

        let auth = clientAuth(server)

        let signedIn = try await auth.signIn(
            withCustomToken: try admin.auth.createCustomToken(uid: "signed-by-key", claims: ["tier": "gold"]))
        let token = try await signedIn.user.getIDToken()
        let verified = try await admin.auth.verifyIDToken(token, checkRevoked: true)
        #expect(verified.uid == "signed-by-key" && verified.claims["tier"] as? String == "gold")

        let cookie = try await admin.auth.createSessionCookie(idToken: token, expiresIn: 600)
        #expect(try await admin.auth.verifySessionCookie(cookie, checkRevoked: true).uid == "signed-by-key")

        var forged = token.split(separator: ".").map(String.init)
        forged[2] = String(forged[2].reversed())
        await #expect(throws: AdminError.self) { _ = try await admin.auth.verifyIDToken(forged.joined(separator: ".")) }

        try await admin.database.set("admin-only", ["written": true])
        #expect((try await admin.database.get("admin-only") as? [String: Any])?["written"] as? Bool == true)
        try await admin.storage.upload(Data("key".utf8), as: "admin/object")
        #expect(try await admin.storage.download("admin/object") == Data("key".utf8))

        let unauthenticated = try AdminApp(options: AdminOptions(projectID: "demo-sdk", serverURL: "http://127.0.0.1:\(server.port)"))
        await #expect(throws: AdminError.self) { try await unauthenticated.database.set("admin-only", 1) }
    }
}
