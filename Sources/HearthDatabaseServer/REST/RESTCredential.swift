import HearthCore
import HearthEdge
import Hummingbird

/// Whom a REST request acts for (rules §5.9): the `Authorization` header
/// (``AuthorizationHeader``) or the `access_token=` / `auth=` parameter, checked by the edge's
/// ``CredentialVerifying``.
///
/// No credential is a signed-out caller. An admin credential with `auth_variable_override=`
/// (what the Admin SDKs send for `databaseAuthVariableOverride`) acts as that `auth` instead.
enum RESTCredential {
    /// The credential the request presents, if any.
    static func token(of request: Request, parameters: [String: String]) -> String? {
        let token = AuthorizationHeader.token(in: request.headers) ?? parameters["access_token"] ?? parameters["auth"]
        return token.flatMap { $0.isEmpty ? nil : $0 }
    }

    static func caller(of request: Request, parameters: [String: String], verifier: any CredentialVerifying) async throws(RESTError)
        -> Caller
    {
        guard let token = token(of: request, parameters: parameters) else { return .signedOut }
        let caller: Caller
        do {
            caller = try await verifier.caller(credential: token, authvar: nil, noauth: false, now: NamespaceEngine.now() / 1000).0
        } catch {
            throw RESTError(.unauthorized, error == .expired ? "Auth token is expired." : "Could not parse auth token.")
        }
        guard caller == .admin, let override = parameters["auth_variable_override"] else { return caller }
        guard let auth = try? JSONParser.parse(override) else {
            throw RESTError.badRequest("auth_variable_override must be JSON.")
        }
        return .client(auth: auth)
    }
}
