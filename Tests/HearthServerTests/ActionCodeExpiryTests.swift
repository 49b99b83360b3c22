import HearthCore
import Testing

@testable import HearthAuthServer
@testable import HearthServer

/// Production's action codes expire (auth spec §10.3); the time is given, not read from the clock.
@Suite struct ActionCodeExpiryTests {
    @Test func aPasswordResetCodeExpiresAfterAnHour() async throws {
        let start: Int64 = 1_800_000_000
        try await withAuthService(production: true, now: start) { auth in
            func call(at seconds: Int64) -> AuthCall {
                AuthCall(
                    privileged: true, apiKey: "k", origin: "http://localhost", clientAddress: "127.0.0.1", now: seconds,
                    nowMilliseconds: seconds * 1000)
            }
            var user = UserRecord(localId: "ada", createdAt: start * 1000)
            user.email = "ada@example.com"
            try await auth.directory.change { (state: inout AuthDirectory.State) throws(AuthError) in state.users.put(user) }
            let request = AuthRequestBody(fields: [
                "requestType": .string("PASSWORD_RESET"), "email": .string("ada@example.com"), "returnOobLink": .bool(true),
            ])
            let sent = try await auth.sendOobCode(request, call(at: start))
            guard case .string(let code)? = sent["oobCode"] else { throw ExpiryTestError.noCode }
            let check = AuthRequestBody(fields: ["oobCode": .string(code)])
            #expect(try await auth.resetPassword(check, call(at: start + 3599))["requestType"] == .string("PASSWORD_RESET"))
            await #expect(throws: AuthError.code("EXPIRED_OOB_CODE")) {
                try await auth.resetPassword(check, call(at: start + 3601))
            }
        }
    }

    private enum ExpiryTestError: Error {
        case noCode
    }
}
