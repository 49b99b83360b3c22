import HearthCore
import HearthEdge

/// A phone verification code sent (in development: logged and listed) for a sign-in.
struct PhoneCode: Sendable, Equatable {
    var sessionInfo: String
    var phoneNumber: String
    /// Six digits.
    var code: String
}

extension AuthService {
    /// Production has no SMS provider to send codes with.
    private static let noSMS = AuthError.code("OPERATION_NOT_ALLOWED", "Phone sign-in needs an SMS provider, which Hearth does not have.")

    /// `accounts:sendVerificationCode` (auth spec §2.14): a six-digit code for the number, which
    /// development logs and lists at the emulator's `verificationCodes`, as the emulator does.
    func sendVerificationCode(_ body: AuthRequestBody, _ call: AuthCall) async throws(AuthError) -> JSONValue {
        guard !settings.production else { throw Self.noSMS }
        let phone = try body.required("phoneNumber", else: .code("MISSING_PHONE_NUMBER"))
        guard AuthFormats.isValidPhone(phone) else { throw .code("INVALID_PHONE_NUMBER", "Invalid format.") }
        try await require(\.phoneNumber, call, or: "OPERATION_NOT_ALLOWED")
        let code = PhoneCode(
            sessionInfo: AuthFormats.newPhoneSessionInfo(), phoneNumber: phone,
            code: String((0..<6).map { _ in Character(String(Int.random(in: 0...9))) }))
        await directory.addPhoneCode(code)
        logger.notice("To verify the phone number \(logSafe: phone), use the code \(code.code).")
        return .object([JSONMember(key: "sessionInfo", value: .string(code.sessionInfo))])
    }

    /// `accounts:signInWithPhoneNumber`: signs in (creating if needed) the account with the
    /// verified number, or links the number to the signed-in account (`idToken`).
    func signInWithPhoneNumber(_ body: AuthRequestBody, _ call: AuthCall) async throws(AuthError) -> JSONValue {
        guard !settings.production else { throw Self.noSMS }
        if body.has("temporaryProof") { throw .notImplemented("Sign-in with a temporary proof is not implemented.") }
        let sessionInfo = try body.required("sessionInfo", else: .code("MISSING_SESSION_INFO"))
        let code = try body.required("code", else: .code("MISSING_CODE"))
        try await require(\.phoneNumber, call, or: "OPERATION_NOT_ALLOWED")
        // Re-authentication proves an account's number: it never makes an account.
        let reauthenticating = try body.string("operation") == "REAUTH"
        let linking: UserRecord? =
            if let idToken = try body.string("idToken"), !idToken.isEmpty { try await user(forIDToken: idToken, call).0 } else { nil }
        let (user, isNew) = try await directory.change { (state: inout AuthDirectory.State) throws(AuthError) -> (UserRecord, Bool) in
            guard let sent = state.phoneCodes[sessionInfo] else { throw .code("INVALID_SESSION_INFO") }
            guard sent.code == code else { throw .code("INVALID_CODE") }
            state.phoneCodes[sessionInfo] = nil
            let owner = state.users.user(withPhone: sent.phoneNumber)
            var user: UserRecord
            var isNew = false
            if let linking {
                if let owner, owner.localId != linking.localId { throw .code("PHONE_NUMBER_EXISTS") }
                guard let current = state.users[linking.localId] else { throw .code("USER_NOT_FOUND") }
                user = current
            } else if let owner {
                user = owner
            } else if reauthenticating {
                throw .code("USER_NOT_FOUND")
            } else {
                user = UserRecord(localId: AuthFormats.newUID(), createdAt: call.nowMilliseconds)
                isNew = true
            }
            if user.disabled { throw .code("USER_DISABLED") }
            user.phoneNumber = sent.phoneNumber
            user.lastLoginAt = call.nowMilliseconds
            user.lastRefreshAt = call.nowMilliseconds
            state.users.put(user)
            return (user, isNew)
        }
        return .object(
            [
                JSONMember(key: "localId", value: .string(user.localId)),
                JSONMember(key: "isNewUser", value: .bool(isNew)),
                JSONMember(key: "phoneNumber", value: .string(user.phoneNumber ?? "")),
            ] + (try await tokenTriple(for: user, provider: "phone", call)))
    }

    /// `GET /emulator/v1/projects/{p}/verificationCodes`: every unused phone code.
    func listPhoneCodes() async throws(AuthError) -> JSONValue {
        let codes = try await directory.read { state in
            state.phoneCodes.values.sorted { $0.sessionInfo < $1.sessionInfo }.map { code in
                JSONValue.object([
                    JSONMember(key: "phoneNumber", value: .string(code.phoneNumber)),
                    JSONMember(key: "code", value: .string(code.code)),
                    JSONMember(key: "sessionInfo", value: .string(code.sessionInfo)),
                ])
            }
        }
        return .object([JSONMember(key: "verificationCodes", value: .array(codes))])
    }
}
