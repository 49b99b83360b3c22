import Foundation
import HearthApp
import HearthAuth
import HearthTestSupport
import HearthTesting
import Testing

/// Phone sign-in against the development server, which lists the codes it "sends".
@Suite struct PhoneTests {
    /// A code sent to `number`, as a credential.
    private func credential(_ auth: Auth, _ server: TestHearth, for number: String) async throws -> PhoneAuthCredential {
        let provider = PhoneAuthProvider.provider(auth: auth)
        let verificationID = try await provider.verifyPhoneNumber(number)
        return provider.credential(
            withVerificationID: verificationID, verificationCode: try await phoneCode(server, verificationID: verificationID))
    }

    @Test func aCodeSignsInItsNumberAndBadOnesAreRefused() async throws {
        try await withServer { server in
            let auth = makeAuth(server)
            auth.settings?.isAppVerificationDisabledForTesting = true  // as Firebase's tests set it; no effect here
            let provider = PhoneAuthProvider.provider(auth: auth)
            #expect(await code { _ = try await provider.verifyPhoneNumber("") } == .missingPhoneNumber)
            #expect(await code { _ = try await provider.verifyPhoneNumber("555-0100") } == .invalidPhoneNumber)

            let ids = Recorder<String>()
            provider.verifyPhoneNumber("+15555550100", uiDelegate: nil) { verificationID, error in
                ids.record(verificationID ?? "error: \(String(describing: error))")
            }
            let verificationID = try await ids.next()
            #expect(!verificationID.hasPrefix("error"))
            let sent = try await phoneCode(server, verificationID: verificationID)
            let wrong = sent == "000000" ? "111111" : "000000"
            let refusals: [(PhoneAuthCredential, AuthErrorCode.Code)] = [
                (provider.credential(withVerificationID: verificationID, verificationCode: wrong), .invalidVerificationCode),
                (provider.credential(withVerificationID: "unknown-session", verificationCode: sent), .invalidVerificationID),
                (provider.credential(withVerificationID: verificationID, verificationCode: ""), .missingVerificationCode),
                (provider.credential(withVerificationID: "", verificationCode: sent), .missingVerificationID),
            ]
            for (credential, expected) in refusals {
                #expect(await code { _ = try await auth.signIn(with: credential) } == expected)
            }
            #expect(auth.currentUser == nil)

            let result = try await auth.signIn(
                with: provider.credential(withVerificationID: verificationID, verificationCode: sent))
            #expect(result.additionalUserInfo?.isNewUser == true && result.additionalUserInfo?.providerID == PhoneAuthProvider.id)
            #expect(result.user.phoneNumber == "+15555550100" && !result.user.isAnonymous)
            #expect(result.user.providerData.map(\.providerID) == [PhoneAuthProvider.id])
            #expect(try await result.user.getIDTokenResult().signInProvider == "phone")

            // The same number later signs in the same account; a code is used once.
            try auth.signOut()
            let again = try await auth.signIn(with: try await credential(auth, server, for: "+15555550100"))
            #expect(again.user.uid == result.user.uid && again.additionalUserInfo?.isNewUser == false)
            let used = provider.credential(withVerificationID: verificationID, verificationCode: sent)
            #expect(await code { _ = try await auth.signIn(with: used) } == .invalidVerificationID)
            #expect(
                try await again.user.reauthenticate(with: try await credential(auth, server, for: "+15555550100")).user.uid
                    == again.user.uid)

            // Re-authenticating with a number no account has makes no account.
            let stranger = try await credential(auth, server, for: "+15555550199")
            #expect(await code { _ = try await again.user.reauthenticate(with: stranger) } == .userMismatch)
            try auth.signOut()
            let fresh = try await auth.signIn(with: try await credential(auth, server, for: "+15555550199"))
            #expect(fresh.additionalUserInfo?.isNewUser == true)
        }
    }

    @Test func anAnonymousUserLinksANumberAndChangesIt() async throws {
        try await withServer { server in
            let auth = makeAuth(server)
            let owner = try await auth.signIn(with: try await credential(auth, server, for: "+15555550111")).user
            try auth.signOut()

            let guest = try await auth.signInAnonymously().user
            let taken = try await credential(auth, server, for: "+15555550111")
            #expect(await code { _ = try await guest.link(with: taken) } == .credentialAlreadyInUse)
            #expect(guest.phoneNumber == nil && guest.uid != owner.uid)

            let linked = try await guest.link(with: try await credential(auth, server, for: "+15555550122"))
            #expect(linked.user.uid == guest.uid && guest.phoneNumber == "+15555550122" && !guest.isAnonymous)
            let second = try await credential(auth, server, for: "+15555550133")
            #expect(await code { _ = try await guest.link(with: second) } == .providerAlreadyLinked)

            try await guest.updatePhoneNumber(second)
            #expect(guest.phoneNumber == "+15555550133")
            try await guest.reload()
            #expect(guest.phoneNumber == "+15555550133" && guest.uid == linked.user.uid)
            let owners = try await credential(auth, server, for: "+15555550111")
            #expect(await code { try await guest.updatePhoneNumber(owners) } == .credentialAlreadyInUse)
            #expect(guest.phoneNumber == "+15555550133")

            // Unlinked, the provider can be linked again.
            _ = try await guest.unlink(fromProvider: PhoneAuthProvider.id)
            #expect(guest.phoneNumber == nil && guest.providerData.isEmpty)
            _ = try await guest.link(with: try await credential(auth, server, for: "+15555550144"))
            #expect(guest.phoneNumber == "+15555550144")
        }
    }
}
