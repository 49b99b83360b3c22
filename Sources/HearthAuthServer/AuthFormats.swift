import HearthCore

/// Identifier and value formats of Firebase Auth.
enum AuthFormats {
    private static let uidAlphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
    private static let codeAlphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")

    /// A new uid: 28 random letters and digits.
    static func newUID() -> String { String((0..<28).map { _ in uidAlphabet.randomElement()! }) }

    /// A new email action code: 54 random base64url characters.
    static func newActionCode() -> String { String((0..<54).map { _ in codeAlphabet.randomElement()! }) }

    /// A new phone `sessionInfo`: 226 random base64url characters, as the emulator's.
    static func newPhoneSessionInfo() -> String { String((0..<226).map { _ in codeAlphabet.randomElement()! }) }

    /// A new `createAuthUri` session id.
    static func newSessionID() -> String { String((0..<27).map { _ in uidAlphabet.randomElement()! }) }

    /// `x@y` with no other `@` (the emulator's rule), under 256 bytes, and no control character
    /// (production's RFC 822 address has none): a line break would end an SMTP command, or a log
    /// line, early.
    static func isValidEmail(_ email: String) -> Bool {
        let parts = email.split(separator: "@", omittingEmptySubsequences: false)
        return parts.count == 2 && !parts[0].isEmpty && !parts[1].isEmpty && email.utf8.count <= AccountLimits.emailBytes
            && !email.unicodeScalars.contains { $0.properties.generalCategory == .control }
    }

    /// `email` lower-cased, as accounts store it; `INVALID_EMAIL` unless ``isValidEmail(_:)``.
    static func email(_ email: String) throws(AuthError) -> String {
        guard isValidEmail(email) else { throw .code("INVALID_EMAIL") }
        return email.lowercased()
    }

    /// A phone number must be `+` followed by 2 to 15 ASCII digits (E.164-like).
    static func isValidPhone(_ phone: String) -> Bool {
        let digits = phone.utf8.dropFirst()
        return phone.hasPrefix("+") && (2...AccountLimits.phoneDigits).contains(digits.count)
            && digits.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }
    }

    /// A new password: at least 6 characters (`WEAK_PASSWORD`), at most 4,096.
    static func requireStrong(_ password: String) throws(AuthError) {
        if password.count < 6 { throw .weakPassword }
        if password.utf16.count > AccountLimits.passwordCharacters { throw AccountLimits.passwordTooLong }
    }

    /// Validates custom claims text (auth spec §4.6): at most 1,000 bytes, a JSON object, no
    /// reserved claim names.
    static func validateCustomClaims(_ text: String) throws(AuthError) {
        guard text.utf8.count <= AccountLimits.customClaimsBytes else { throw .code("CLAIMS_TOO_LARGE") }
        guard case .object(let members)? = try? JSONParser.parse(text) else { throw .code("INVALID_CLAIMS") }
        if let reserved = members.first(where: { IDTokenClaims.reservedNames.contains($0.key) }) {
            throw .code("FORBIDDEN_CLAIM", reserved.key)
        }
    }
}
