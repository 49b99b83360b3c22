import Foundation
import HearthApp
import HearthAuth
import HearthTestSupport
import HearthTesting
import Testing

/// Email-link sign-in, linking and re-authentication, and the settings and language that action
/// emails carry.
@Suite struct EmailLinkTests {
    private func uniqueEmail(_ prefix: String) -> String {
        "\(prefix)-\(UUID().uuidString.prefix(8).lowercased())@example.com"
    }

    private func signInSettings() -> ActionCodeSettings {
        let settings = ActionCodeSettings()
        settings.url = URL(string: "https://app.example/finish?cart=1&step=2")
        settings.handleCodeInApp = true
        settings.setIOSBundleID("com.example.app")
        return settings
    }

    /// Mails a sign-in link to `email` and reads it from the outbox.
    private func signInLink(_ auth: Auth, _ server: TestHearth, to email: String) async throws -> OutboxEntry {
        try await auth.sendSignInLink(toEmail: email, actionCodeSettings: signInSettings())
        return try await outboxEntry(server, email: email, type: "EMAIL_SIGNIN")
    }

    @Test func aMailedLinkSignsInANewAddressOnce() async throws {
        try await withServer { server in
            let auth = makeAuth(server)
            auth.languageCode = "fr"
            let email = uniqueEmail("link")
            let sent = try await signInLink(auth, server, to: email)
            #expect(sent.linkParameter("mode") == "signIn")
            #expect(sent.linkParameter("lang") == "fr")
            #expect(sent.linkParameter("continueUrl") == "https://app.example/finish?cart=1&step=2")

            #expect(auth.isSignIn(withEmailLink: sent.link))
            let nested = "https://example.page.link/?link=" + sent.link.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
            #expect(auth.isSignIn(withEmailLink: nested))
            #expect(!auth.isSignIn(withEmailLink: "https://app.example/finish?cart=1"))
            #expect(!auth.isSignIn(withEmailLink: sent.link.replacingOccurrences(of: "mode=signIn", with: "mode=resetPassword")))
            #expect(!auth.isSignIn(withEmailLink: ""))

            let result = try await auth.signIn(withEmail: email, link: nested)
            #expect(result.additionalUserInfo?.isNewUser == true)
            #expect(result.additionalUserInfo?.providerID == EmailAuthProviderID)
            #expect(result.user.email == email && result.user.isEmailVerified && !result.user.isAnonymous)
            #expect(auth.currentUser?.uid == result.user.uid)
            #expect(try await auth.fetchSignInMethods(forEmail: email) == ["emailLink"])

            // A link works once; a fresh one signs the same account in again.
            #expect(await code { _ = try await auth.signIn(withEmail: email, link: sent.link) } == .invalidActionCode)
            try auth.signOut()
            let again = try await signInLink(auth, server, to: email)
            let second = try await auth.signIn(with: EmailAuthProvider.credential(withEmail: email, link: again.link))
            #expect(second.user.uid == result.user.uid && second.additionalUserInfo?.isNewUser == false)

            // A link is for the address it was sent to.
            let other = try await signInLink(auth, server, to: uniqueEmail("other"))
            #expect(await code { _ = try await auth.signIn(withEmail: email, link: other.link) } == .invalidEmail)
            #expect(auth.currentUser?.uid == result.user.uid)
        }
    }

    @Test func anAnonymousUserLinksAnEmailLinkAndReauthenticatesWithOne() async throws {
        try await withServer { server in
            let auth = makeAuth(server)
            let anonymous = try await auth.signInAnonymously().user
            let email = uniqueEmail("guest")
            let sent = try await signInLink(auth, server, to: email)
            let linked = try await anonymous.link(with: EmailAuthProvider.credential(withEmail: email, link: sent.link))
            #expect(linked.user.uid == anonymous.uid)
            #expect(!anonymous.isAnonymous && anonymous.email == email)
            #expect(anonymous.providerData.map(\.providerID) == [EmailAuthProviderID])

            // An account has one email credential: a second is refused before anything is sent.
            let password = EmailAuthProvider.credential(withEmail: email, password: "secret-123")
            #expect(await code { _ = try await anonymous.link(with: password) } == .providerAlreadyLinked)

            let fresh = try await signInLink(auth, server, to: email)
            let reauthenticated = try await anonymous.reauthenticate(
                with: EmailAuthProvider.credential(withEmail: email, link: fresh.link))
            #expect(reauthenticated.user.uid == anonymous.uid)

            let stranger = uniqueEmail("stranger")
            let strangers = try await signInLink(auth, server, to: stranger)
            #expect(
                await code {
                    _ = try await anonymous.reauthenticate(with: EmailAuthProvider.credential(withEmail: stranger, link: strangers.link))
                } == .userMismatch)
            #expect(auth.currentUser?.uid == anonymous.uid)
        }
    }

    @Test func passwordResetAndVerificationCarryTheirSettings() async throws {
        try await withServer { server in
            let auth = makeAuth(server)
            let email = uniqueEmail("settings")
            let user = try await auth.createUser(withEmail: email, password: "secret-123").user
            let settings = ActionCodeSettings()
            settings.url = URL(string: "https://app.example/after-reset")
            settings.setAndroidPackageName("com.example.android", installIfNotAvailable: true, minimumVersion: "12")
            try await auth.sendPasswordReset(withEmail: email, actionCodeSettings: settings)
            let reset = try await outboxEntry(server, email: email, type: "PASSWORD_RESET")
            #expect(reset.linkParameter("continueUrl") == "https://app.example/after-reset")
            #expect(reset.linkParameter("lang") == "en")

            settings.url = URL(string: "https://app.example/verified")
            try await user.sendEmailVerification(with: settings)
            let verify = try await outboxEntry(server, email: email, type: "VERIFY_EMAIL")
            #expect(verify.linkParameter("continueUrl") == "https://app.example/verified")

            // A continue URL that is not absolute is refused, and nothing is sent.
            settings.url = URL(string: "/relative")
            #expect(await code { try await auth.sendPasswordReset(withEmail: email, actionCodeSettings: settings) } == .invalidContinueURI)
            #expect(try await outboxEntry(server, email: email, type: "PASSWORD_RESET").code == reset.code)
        }
    }
}
