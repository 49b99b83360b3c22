import HearthCore
import Hummingbird

/// Whom a REST request acts for (rules §5.9): the `Authorization: Bearer` header or the
/// `access_token=` / `auth=` parameter, read as the Firebase emulator reads credentials.
///
/// No credential is a signed-out caller; `owner` is admin, and with `auth_variable_override=`
/// (what the Admin SDKs send for `databaseAuthVariableOverride`) it acts as that `auth` instead;
/// an ID token gives its claims as `auth`. Signatures are not verified yet (as in the emulator).
enum RESTCredential {
    static func caller(of request: Request, parameters: [String: String]) throws(RESTError) -> Caller {
        var token = parameters["access_token"] ?? parameters["auth"]
        if let authorization = request.headers[.authorization], authorization.hasPrefix("Bearer ") {
            token = String(authorization.dropFirst("Bearer ".count))
        }
        guard let token, !token.isEmpty else { return .signedOut }
        guard let (caller, _) = Caller.from(credential: token, authvar: nil, noauth: false, now: NamespaceEngine.now()) else {
            throw RESTError(.unauthorized, "Could not parse auth token.")
        }
        guard caller == .admin, let override = parameters["auth_variable_override"] else { return caller }
        guard let auth = try? JSONParser.parse(override) else {
            throw RESTError.badRequest("auth_variable_override must be JSON.")
        }
        return .client(auth: auth)
    }
}
