import Foundation
import HearthApp
import HearthAuth
import HearthDatabase
import HearthTestSupport
import Testing

/// Credentials, linking, profile and password changes, and email action codes.
@Suite struct AccountTests {
    /// A fake Google ID token the development server accepts (spec auth-api §7.4).
    private func googleCredential(sub: String, email: String) -> AuthCredential {
        GoogleAuthProvider.credential(
            withIDToken: #"{"sub": "\#(sub)", "email": "\#(email)", "email_verified": true}"#, accessToken: "")
    }

    private func uniqueEmail(_ prefix: String) -> String {
        "\(prefix)-\(UUID().uuidString.prefix(8).lowercased())@example.com"
    }

    @Test func anAnonymousUserLinksAPasswordAndKeepsTheirData() async throws {
        let rules = #"{"rules": {"users": {"$uid": {".read": "auth.uid == $uid", ".write": "auth.uid == $uid"}}}}"#
        try await withServer(rules: rules) { server in
            let auth = makeAuth(server)
            let database = Database.database(app: auth.app!)
            database.callbackQueue = DispatchQueue(label: "link-test")
            let anonymous = try await auth.signInAnonymously().user
            try await database.reference(withPath: "users/\(anonymous.uid)/draft").setValue("kept")
            let email = uniqueEmail("linked")
            let linked = try await anonymous.link(with: EmailAuthProvider.credential(withEmail: email, password: "secret-123"))
            #expect(linked.user.uid == anonymous.uid && !linked.user.isAnonymous && linked.user.email == email)
            #expect(linked.user.providerData.map(\.providerID) == ["password"])
            #expect(try await database.reference(withPath: "users/\(anonymous.uid)/draft").getData().value as? String == "kept")
            try auth.signOut()
            #expect(try await auth.signIn(withEmail: email, password: "secret-123").user.uid == anonymous.uid)

            try auth.signOut()
            let other = try await auth.signInAnonymously().user
            let taken = await code { _ = try await other.link(with: EmailAuthProvider.credential(withEmail: email, password: "x-secret")) }
            #expect(taken == .emailAlreadyInUse)
        }
    }

    @Test func signInWithAppleAndOtherOAuthCredentials() async throws {
        try await withServer { server in
            let auth = makeAuth(server)
            var name = PersonNameComponents()
            name.givenName = "Ada"
            name.familyName = "Lovelace"
            let token = #"{"sub": "apple-\#(UUID().uuidString)", "email": "ada@privaterelay.appleid.com"}"#
            let apple = OAuthProvider.appleCredential(withIDToken: token, rawNonce: "raw-nonce", fullName: name)
            let result = try await auth.signIn(with: apple)
            #expect(result.additionalUserInfo?.providerID == "apple.com" && result.additionalUserInfo?.isNewUser == true)
            #expect(result.user.providerData.map(\.providerID) == [AuthProviderID.apple.rawValue])
            let again = OAuthProvider.credential(providerID: .apple, idToken: token, rawNonce: "raw-nonce")
            #expect(try await auth.signIn(with: again).user.uid == result.user.uid)

            let gitHub = OAuthProvider.credential(providerID: .gitHub, accessToken: #"{"sub": "octocat"}"#)
            let linked = try await result.user.link(with: gitHub)
            #expect(Set(linked.user.providerData.map(\.providerID)) == ["apple.com", "github.com"])
        }
    }

    @Test func googleCredentialsSignInLinkAndUnlink() async throws {
        try await withServer { server in
            let auth = makeAuth(server)
            let email = uniqueEmail("google")
            let sub = UUID().uuidString
            let first = try await auth.signIn(with: googleCredential(sub: sub, email: email))
            #expect(first.additionalUserInfo?.isNewUser == true && first.additionalUserInfo?.providerID == "google.com")
            #expect(first.additionalUserInfo?.profile?["email"] as? String == email)
            #expect(first.additionalUserInfo?.profile?["id"] as? String == sub)
            #expect(first.credential?.provider == "google.com" && first.credential?.idToken?.contains(sub) == true)
            #expect(first.user.providerData.first?.providerID == "google.com" && first.user.providerData.first?.uid == sub)
            #expect(try await auth.fetchSignInMethods(forEmail: email) == ["google.com"])
            let again = try await auth.signIn(with: googleCredential(sub: sub, email: email))
            #expect(again.user.uid == first.user.uid && again.additionalUserInfo?.isNewUser == false)

            try auth.signOut()
            let anonymous = try await auth.signInAnonymously().user
            let inUse = await code { _ = try await anonymous.link(with: googleCredential(sub: sub, email: email)) }
            #expect(inUse == .credentialAlreadyInUse)
            let freshSub = UUID().uuidString
            let linked = try await anonymous.link(with: googleCredential(sub: freshSub, email: uniqueEmail("fresh")))
            #expect(linked.user.uid == anonymous.uid && linked.user.providerData.map(\.providerID) == ["google.com"])
            try await anonymous.unlink(fromProvider: "google.com")
            #expect(anonymous.providerData.isEmpty)
            #expect(await code { try await anonymous.unlink(fromProvider: "google.com") } == .noSuchProvider)
        }
    }

    @Test func profilePasswordAndReauthentication() async throws {
        try await withServer { server in
            let auth = makeAuth(server)
            let email = uniqueEmail("profile")
            let user = try await auth.createUser(withEmail: email, password: "secret-123").user
            let change = user.createProfileChangeRequest()
            change.displayName = "Ada"
            change.photoURL = URL(string: "https://example.com/ada.png")
            try await change.commitChanges()
            #expect(user.displayName == "Ada" && user.photoURL?.absoluteString == "https://example.com/ada.png")
            try await user.reload()
            #expect(user.displayName == "Ada")
            let removal = user.createProfileChangeRequest()
            removal.displayName = nil
            try await removal.commitChanges()
            #expect(user.displayName == nil && user.photoURL != nil)

            try await user.updatePassword(to: "changed-456")
            try auth.signOut()
            #expect(await code { _ = try await auth.signIn(withEmail: email, password: "secret-123") } == .wrongPassword)
            let back = try await auth.signIn(withEmail: email, password: "changed-456").user
            #expect(back.uid == user.uid)
            try await back.reauthenticate(with: EmailAuthProvider.credential(withEmail: email, password: "changed-456"))
            let stranger = uniqueEmail("stranger")
            _ = try await makeAuth(server).createUser(withEmail: stranger, password: "secret-123")
            let mismatch = await code {
                try await back.reauthenticate(with: EmailAuthProvider.credential(withEmail: stranger, password: "secret-123"))
            }
            #expect(mismatch == .userMismatch)
            #expect(auth.currentUser?.uid == user.uid)
        }
    }

    @available(*, deprecated, message: "tests Firebase's deprecated updateEmail(to:)")
    @Test func theDeprecatedUpdateEmailChangesTheAddressAtOnce() async throws {
        try await withServer { server in
            let auth = makeAuth(server)
            let user = try await auth.createUser(withEmail: uniqueEmail("before"), password: "secret-123").user
            let taken = uniqueEmail("taken")
            _ = try await makeAuth(server).createUser(withEmail: taken, password: "secret-123")
            #expect(await code { try await user.updateEmail(to: taken) } == .emailAlreadyInUse)
            #expect(await code { try await user.updateEmail(to: "not-an-email") } == .invalidEmail)
            let after = uniqueEmail("after")
            try await user.updateEmail(to: after)
            #expect(user.email == after)
            try auth.signOut()
            #expect(try await auth.signIn(withEmail: after, password: "secret-123").user.uid == user.uid)
        }
    }

    @Test func passwordResetAndEmailVerificationThroughTheOutbox() async throws {
        try await withServer { server in
            let auth = makeAuth(server)
            let email = uniqueEmail("codes")
            let user = try await auth.createUser(withEmail: email, password: "secret-123").user
            #expect(!user.isEmailVerified)
            try await user.sendEmailVerification()
            let verify = try await outboxEntry(server, email: email, type: "VERIFY_EMAIL").code
            #expect(try await auth.checkActionCode(verify).operation == .verifyEmail)
            try await auth.applyActionCode(verify)
            try await user.reload()
            #expect(user.isEmailVerified)

            try await auth.sendPasswordReset(withEmail: email)
            let reset = try await outboxEntry(server, email: email, type: "PASSWORD_RESET").code
            let info = try await auth.checkActionCode(reset)
            #expect(info.operation == .passwordReset && info.email == email)
            #expect(try await auth.verifyPasswordResetCode(reset) == email)
            try await auth.confirmPasswordReset(withCode: reset, newPassword: "reset-789")
            #expect(await code { try await auth.confirmPasswordReset(withCode: reset, newPassword: "again-000") } == .invalidActionCode)
            try auth.signOut()
            #expect(try await auth.signIn(withEmail: email, password: "reset-789").user.uid == user.uid)
        }
    }

    @Test func customTokensCarryTheirClaims() async throws {
        try await withServer { server in
            let auth = makeAuth(server)
            func segment(_ json: String) -> String {
                Data(json.utf8).base64EncodedString().replacingOccurrences(of: "=", with: "")
                    .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            }
            let now = Int(Date().timeIntervalSince1970)
            let payload = """
                {"iss": "admin@demo-sdk.iam.gserviceaccount.com", "sub": "admin@demo-sdk.iam.gserviceaccount.com",
                 "aud": "https://identitytoolkit.googleapis.com/google.identity.identitytoolkit.v1.IdentityToolkit",
                 "iat": \(now), "exp": \(now + 3600), "uid": "custom-\(now)", "claims": {"admin": true}}
                """
            let token = segment(#"{"alg": "none", "typ": "JWT"}"#) + "." + segment(payload) + "."
            let result = try await auth.signIn(withCustomToken: token)
            #expect(result.user.uid == "custom-\(now)" && !result.user.isAnonymous)
            let claims = try await result.user.getIDTokenResult()
            #expect(claims.signInProvider == "custom" && claims.claims["admin"] as? Bool == true)
            #expect(await code { _ = try await auth.signIn(withCustomToken: "not-a-token") } == .invalidCustomToken)
        }
    }
}
