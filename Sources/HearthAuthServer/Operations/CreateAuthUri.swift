import HearthCore

extension AuthService {
    /// `accounts:createAuthUri` (auth spec §2.11): the sign-in methods of an email.
    func createAuthUri(_ body: AuthRequestBody, _ call: AuthCall) async throws(AuthError) -> JSONValue {
        let identifier = try body.required("identifier", else: .code("MISSING_IDENTIFIER"))
        let continueUri = try body.required("continueUri", else: .code("MISSING_CONTINUE_URI"))
        guard AuthFormats.isValidEmail(identifier) else { throw .code("INVALID_IDENTIFIER") }
        guard Self.isAbsoluteURL(continueUri) else { throw .code("INVALID_CONTINUE_URI") }
        if body.has("providerId") { throw .notImplemented("createAuthUri with providerId is not implemented.") }
        let sessionId = try body.string("sessionId") ?? AuthFormats.newSessionID()
        let email = identifier.lowercased()
        // The account whose email it is, else one with a linked provider that has that email.
        let (user, config) = try await directory.read { state in
            let owner =
                state.users.users(withEmail: email).first
                ?? state.users.byID.values.filter { $0.providers.contains { $0.email == email } }.min { $0.createdAt < $1.createdAt }
            return (owner, state.config)
        }
        var members = [
            JSONMember(key: "kind", value: .string("identitytoolkit#CreateAuthUriResponse")),
            JSONMember(key: "sessionId", value: .string(sessionId)),
        ]
        guard !config.enableImprovedEmailPrivacy else { return .object(members) }
        var methods = user?.signInMethods ?? []
        if !config.allowDuplicateEmails { methods += user?.providers.map(\.providerId) ?? [] }
        members.append(JSONMember(key: "registered", value: .bool(user != nil)))
        members.append(JSONMember(key: "allProviders", value: .array(methods.filter { $0 != "emailLink" }.map(JSONValue.string))))
        members.append(JSONMember(key: "signinMethods", value: .array(methods.map(JSONValue.string))))
        return .object(members)
    }
}
