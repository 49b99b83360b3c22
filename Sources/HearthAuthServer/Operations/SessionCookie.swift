import HearthCore

extension AuthService {
    /// `projects:createSessionCookie` (auth spec §2.13, §4.7).
    func createSessionCookie(_ body: AuthRequestBody, _ call: AuthCall) async throws(AuthError) -> JSONValue {
        let idToken = try body.required("idToken", else: .code("MISSING_ID_TOKEN"))
        let duration = try body.int64("validDuration") ?? 14 * 24 * 3600
        guard (300...1_209_600).contains(duration) else { throw .code("INVALID_DURATION") }
        let (_, claims) = try await user(forIDToken: idToken, call)
        do {
            let cookie = try await tokens.sessionCookie(from: claims, duration: duration, now: call.now)
            return .object([JSONMember(key: "sessionCookie", value: .string(cookie))])
        } catch {
            logger.error("could not mint the session cookie", metadata: ["error": "\(error)"])
            throw .internalError("Could not mint the session cookie.")
        }
    }
}
