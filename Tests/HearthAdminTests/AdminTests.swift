import Crypto
import Foundation
import HearthAdmin
import HearthApp
import HearthAuth
import HearthTestSupport
import HearthTesting
import Testing

private func makeAdmin(_ server: TestHearth) throws -> AdminApp {
    try AdminApp(options: AdminOptions(projectID: "demo-sdk", serverURL: "http://127.0.0.1:\(server.port)"))
}

/// A client auth of its own app on `server`, as an app would sign its users in.
func clientAuth(_ server: TestHearth) -> Auth {
    _ = sdkUserDataDirectory
    return Auth.auth(app: server.app(name: "admin-client-\(UUID().uuidString)"))
}

private func adminCode(of body: () async throws -> Void) async -> String? {
    do {
        try await body()
        return nil
    } catch let error as AdminError {
        return error.code
    } catch {
        return "\(error)"
    }
}

@Suite struct AdminTests {
    @Test func verifiesIDTokensAndRevocation() async throws {
        try await withServer { server in
            let admin = try makeAdmin(server)
            let auth = clientAuth(server)
            let user = try await auth.createUser(
                withEmail: "verify-\(UUID().uuidString.prefix(6).lowercased())@example.com", password: "secret-1"
            ).user
            let token = try await user.getIDToken()
            let verified = try await admin.auth.verifyIDToken(token, checkRevoked: true)
            #expect(verified.uid == user.uid && verified.claims["email"] as? String == user.email)
            let otherProject = try AdminApp(
                options: AdminOptions(projectID: "another-project", serverURL: "http://127.0.0.1:\(server.port)"))
            #expect(await adminCode { _ = try await otherProject.auth.verifyIDToken(token) } == "invalid-id-token")
            #expect(await adminCode { _ = try await admin.auth.verifyIDToken("not-a-token") } == "invalid-id-token")
            let remote = try AdminApp(options: AdminOptions(projectID: "demo-sdk", serverURL: "https://hearth.example.com"))
            #expect(await adminCode { _ = try await remote.auth.verifyIDToken(token) } == "invalid-credential")

            let cookie = try await admin.auth.createSessionCookie(idToken: token, expiresIn: 3600)
            #expect(try await admin.auth.verifySessionCookie(cookie, checkRevoked: true).uid == user.uid)
            #expect(await adminCode { _ = try await admin.auth.verifySessionCookie(token) } == "invalid-id-token")
            #expect(await adminCode { _ = try await admin.auth.createSessionCookie(idToken: token, expiresIn: 60) } == "INVALID_DURATION")

            try await Task.sleep(for: .milliseconds(1100))  // revocation has a one-second resolution
            try await admin.auth.revokeRefreshTokens(uid: user.uid)
            #expect(try await admin.auth.verifyIDToken(token).uid == user.uid)
            #expect(await adminCode { _ = try await admin.auth.verifyIDToken(token, checkRevoked: true) } == "id-token-revoked")
        }
    }

    @Test func customTokensCarryClaimsIntoIDTokens() async throws {
        try await withServer { server in
            let admin = try makeAdmin(server)
            let token = try admin.auth.createCustomToken(uid: "server-made", claims: ["role": "editor"])
            let signedIn = try await clientAuth(server).signIn(withCustomToken: token)
            #expect(signedIn.user.uid == "server-made")
            #expect(try await signedIn.user.getIDTokenResult().claims["role"] as? String == "editor")
        }
    }

    @Test func managesUsers() async throws {
        try await withServer { server in
            let admin = try makeAdmin(server)
            let email = "managed-\(UUID().uuidString.prefix(6).lowercased())@example.com"
            let created = try await admin.auth.createUser(UserProperties(email: email, password: "secret-1", displayName: "Managed"))
            #expect(created.email == email && created.displayName == "Managed" && created.providerIDs == ["password"])
            #expect(try await admin.auth.getUser(email: email).uid == created.uid)
            let batch = try await admin.auth.getUsers([.uid(created.uid), .email(email.uppercased()), .uid("nobody-here")])
            #expect(batch.users.map(\.uid) == [created.uid] && batch.notFound == [.uid("nobody-here")])
            #expect(
                await adminCode { _ = try await admin.auth.createUser(UserProperties(email: email, password: "secret-2")) }
                    == "EMAIL_EXISTS")

            try await admin.auth.setCustomUserClaims(uid: created.uid, claims: ["admin": true])
            let auth = clientAuth(server)
            let user = try await auth.signIn(withEmail: email, password: "secret-1").user
            #expect(try await user.getIDTokenResult(forcingRefresh: true).claims["admin"] as? Bool == true)

            let disabled = try await admin.auth.updateUser(uid: created.uid, UserProperties(disabled: true))
            #expect(disabled.disabled)
            let refused = await { () async -> AuthErrorCode.Code? in
                do {
                    _ = try await auth.signIn(withEmail: email, password: "secret-1")
                    return nil
                } catch {
                    return AuthErrorCode.Code(error)
                }
            }()
            #expect(refused == .userDisabled)

            let link = try await admin.auth.generatePasswordResetLink(email: email)
            #expect(link.contains("oobCode=") && link.contains("mode=resetPassword"))

            for index in 0..<3 { _ = try await admin.auth.createUser(UserProperties(uid: "page-\(index)")) }
            var uids: [String] = []
            var token: String?
            repeat {
                let page = try await admin.auth.listUsers(maxResults: 2, pageToken: token)
                #expect(page.users.count <= 2)
                uids += page.users.map(\.uid)
                token = page.nextPageToken
            } while token != nil
            #expect(uids == uids.sorted() && Set(uids).isSuperset(of: ["page-0", "page-1", "page-2", created.uid]))

            try await admin.auth.deleteUser(uid: created.uid)
            #expect(await adminCode { _ = try await admin.auth.getUser(uid: created.uid) } == "USER_NOT_FOUND")
        }
    }

    @Test func emailLinksCarryTheirSettingsAndSignTheUserIn() async throws {
        try await withServer { server in
            let admin = try makeAdmin(server)
            let auth = clientAuth(server)
            let email = "emailed-\(UUID().uuidString.prefix(6).lowercased())@example.com"
            let settings = AdminActionCodeSettings(url: "https://app.example/welcome?ref=mail", handleCodeInApp: true)
            let link = try await admin.auth.generateSignInWithEmailLink(email: email, actionCodeSettings: settings)
            let query = URLComponents(string: link)?.queryItems ?? []
            #expect(query.first { $0.name == "continueUrl" }?.value == "https://app.example/welcome?ref=mail")
            #expect(auth.isSignIn(withEmailLink: link))
            let signedIn = try await auth.signIn(withEmail: email, link: link)
            #expect(signedIn.additionalUserInfo?.isNewUser == true)
            #expect(try await admin.auth.getUser(email: email).uid == signedIn.user.uid)

            let reset = try await admin.auth.generatePasswordResetLink(
                email: email, actionCodeSettings: AdminActionCodeSettings(url: "https://app.example/after"))
            #expect(URLComponents(string: reset)?.queryItems?.first { $0.name == "mode" }?.value == "resetPassword")

            // Settings are checked before anything is sent, as the Admin SDKs check them.
            let bad: [(AdminActionCodeSettings, String)] = [
                (AdminActionCodeSettings(url: ""), "missing-continue-uri"),
                (AdminActionCodeSettings(url: "not a url"), "invalid-continue-uri"),
                (AdminActionCodeSettings(url: "/relative"), "invalid-continue-uri"),
                (AdminActionCodeSettings(url: "https://app.example", androidInstallApp: true), "missing-android-pkg-name"),
            ]
            for (settings, expected) in bad {
                #expect(
                    await adminCode { _ = try await admin.auth.generateSignInWithEmailLink(email: email, actionCodeSettings: settings) }
                        == expected)
            }
        }
    }

    @Test func valuesJSONCannotHoldAreRefusedBeforeAnythingIsSent() async throws {
        // No server listens there: the refusals come first.
        let admin = try AdminApp(options: AdminOptions(projectID: "demo-sdk", serverURL: "http://127.0.0.1:9"))
        #expect(await adminCode { try await admin.database.set("when", Date()) } == "invalid-argument")
        #expect(await adminCode { try await admin.database.set("ratio", ["x": Double.nan]) } == "invalid-argument")
        #expect(await adminCode { _ = try admin.auth.createCustomToken(uid: "u", claims: ["at": Date()]) } == "invalid-argument")
        #expect(
            await adminCode { try await admin.auth.setCustomUserClaims(uid: "u", claims: ["n": Double.infinity]) } == "invalid-argument")
    }

    @Test func importsUsersWithTheirPasswordHashes() async throws {
        try await withServer { server in
            let admin = try makeAdmin(server)
            let key = Data("secret".utf8)
            let salt = Data("pepper".utf8)
            let email = "imported-\(UUID().uuidString.prefix(6).lowercased())@example.com"
            let hash = Data(HMAC<SHA256>.authenticationCode(for: Data("from-legacy".utf8) + salt, using: SymmetricKey(data: key)))
            let result = try await admin.auth.importUsers(
                [
                    UserImportRecord(
                        uid: "imported-1", email: email, passwordHash: hash, passwordSalt: salt, customClaims: #"{"plan":"pro"}"#),
                    UserImportRecord(uid: "imported-2", email: "not an email"),
                ], hash: .hmacSHA256(key: key))
            #expect(result.successCount == 1 && result.failureCount == 1 && result.errors.first?.index == 1)
            let user = try await clientAuth(server).signIn(withEmail: email, password: "from-legacy").user
            #expect(user.uid == "imported-1")
            #expect(try await user.getIDTokenResult().claims["plan"] as? String == "pro")
        }
    }

    @Test func readsAndWritesTheDatabaseWithTransactions() async throws {
        let rules = #"{"rules": {".read": false, ".write": false}}"#
        try await withServer(rules: rules) { server in
            let admin = try makeAdmin(server)
            try await admin.database.set("config/motd", "hello")
            #expect(try await admin.database.get("config/motd") as? String == "hello")
            try await admin.database.update("config", ["limits/daily": 10, "motd": "updated"])
            let config = try await admin.database.get("config") as? [String: Any]
            #expect(config?["motd"] as? String == "updated" && (config?["limits"] as? [String: Any])?["daily"] as? Int == 10)

            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<2 {
                    group.addTask {
                        for _ in 0..<10 {
                            _ = try await admin.database.transaction("counters/visits") { current in ((current as? Int) ?? 0) + 1 }
                        }
                    }
                }
                try await group.waitForAll()
            }
            #expect(try await admin.database.get("counters/visits") as? Int == 20)
            try await admin.database.remove("config")
            #expect(try await admin.database.get("config") is NSNull)
        }
    }

    @Test func storesObjects() async throws {
        try await withServer { server in
            let admin = try makeAdmin(server)
            let data = Data("server-side bytes".utf8)
            let resource = try await admin.storage.upload(data, as: "reports/2026.txt", contentType: "text/plain")
            #expect(resource["size"] as? String == String(data.count) && resource["contentType"] as? String == "text/plain")
            #expect(try await admin.storage.download("reports/2026.txt") == data)
            #expect(try await admin.storage.metadata("reports/2026.txt")["name"] as? String == "reports/2026.txt")
            try await admin.storage.delete("reports/2026.txt")
            #expect(await adminCode { _ = try await admin.storage.download("reports/2026.txt") } == "object-not-found")
        }
    }
}
