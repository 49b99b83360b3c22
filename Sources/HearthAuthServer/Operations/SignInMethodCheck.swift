extension AuthService {
    /// Refuses a client's request that uses a sign-in method the project turned off, with
    /// `code`, Firebase's error for that method (auth spec §2.1, §2.5; the password sign-in's
    /// `PASSWORD_LOGIN_DISABLED` as the SDKs map it). Privileged callers are never refused.
    func require(_ method: KeyPath<SignInMethods, Bool>, _ call: AuthCall, or code: String) async throws(AuthError) {
        guard !call.privileged else { return }
        let methods = try await directory.read { $0.config.signInMethods }
        guard methods[keyPath: method] else { throw .code(code) }
    }
}
