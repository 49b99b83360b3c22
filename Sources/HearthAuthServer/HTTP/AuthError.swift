import HTTPTypes

/// A failed Identity Toolkit request, answered as Google APIs answer errors (auth spec §3.1):
/// `{"error":{"code":400,"message":"EMAIL_EXISTS","errors":[…]}}`.
///
/// `message` is the message code, optionally followed by `" : "` and a detail; clients split on
/// the separator, so codes never contain a colon.
struct AuthError: Error, Equatable {
    let status: HTTPResponse.Status
    let message: String
    /// The canonical status name (`PERMISSION_DENIED`, …); plain message-code 400s have none.
    let statusName: String?
    /// `errors[0].reason`; `invalid` for message-code errors.
    let reason: String
    /// Extra members of `errors[0]` (`location`, `locationType`).
    let location: (name: String, type: String)?
    /// `errors[0].message` when it differs from `message`.
    var itemMessage: String?

    static func == (lhs: AuthError, rhs: AuthError) -> Bool {
        lhs.status == rhs.status && lhs.message == rhs.message
    }

    /// A 400 with a message code and an optional detail: `CODE` or `CODE : detail`.
    static func code(_ code: String, _ detail: String? = nil) -> AuthError {
        AuthError(
            status: .badRequest, message: detail.map { "\(code) : \($0)" } ?? code, statusName: nil, reason: "invalid",
            location: nil)
    }

    /// A request body that is not JSON, or a field of the wrong type.
    static func invalidArgument(_ problem: String) -> AuthError {
        AuthError(
            status: .badRequest, message: "Invalid JSON payload received. \(problem)", statusName: "INVALID_ARGUMENT",
            reason: "parseError", location: nil)
    }

    static let missingAPIKey = AuthError(
        status: .forbidden, message: "The request is missing a valid API key.", statusName: "PERMISSION_DENIED",
        reason: "forbidden", location: nil)

    /// An API key that is not one of the project's (production).
    static let invalidAPIKey = AuthError(
        status: .badRequest, message: "API key not valid. Please pass a valid API key.", statusName: "INVALID_ARGUMENT",
        reason: "keyInvalid", location: nil)

    static let invalidCredentials = AuthError(
        status: .unauthorized,
        message: """
            Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid \
            authentication credential. See https://developers.google.com/identity/sign-in/web/devconsole-project.
            """,
        statusName: "UNAUTHENTICATED", reason: "authError", location: ("Authorization", "header"),
        itemMessage: "Invalid Credentials")

    static let notFound = AuthError(
        status: .notFound, message: "Not Found", statusName: "NOT_FOUND", reason: "notFound", location: nil)

    static func notImplemented(_ what: String) -> AuthError {
        AuthError(status: .notImplemented, message: what, statusName: "NOT_IMPLEMENTED", reason: "unimplemented", location: nil)
    }

    /// A backend Authentication needs is out of reach (the mail server, a cluster's PostgreSQL).
    static func unavailable(_ message: String) -> AuthError {
        AuthError(status: .serviceUnavailable, message: message, statusName: "UNAVAILABLE", reason: "backendError", location: nil)
    }

    /// The accounts of a cluster cannot be read now.
    static let unavailable = unavailable("The service is currently unavailable.")

    static func internalError(_ what: String) -> AuthError {
        AuthError(status: .internalServerError, message: what, statusName: "INTERNAL", reason: "backendError", location: nil)
    }

    /// A provider configuration (`oauthIdpConfigs/{id}`, `inboundSamlConfigs/{id}`) that does not
    /// exist: the v2 admin API's `404 NOT_FOUND` (a project that is not the server's stays a 400).
    static let configurationNotFound = AuthError(
        status: .notFound, message: "CONFIGURATION_NOT_FOUND", statusName: "NOT_FOUND", reason: "notFound", location: nil)

    /// A provider configuration id already taken. The status is Google's canonical one for an
    /// existing resource (Identity Toolkit's own is unconfirmed).
    static let configurationExists = AuthError(
        status: .conflict, message: "CONFIGURATION_EXISTS", statusName: "ALREADY_EXISTS", reason: "conflict", location: nil)

    /// `targetProjectId` (or a project in the path) without an OAuth credential.
    static let targetProjectNeedsOAuth = AuthError.code(
        "INSUFFICIENT_PERMISSION", "Only authenticated requests can specify target_project_id.")

    static let weakPassword = AuthError.code("WEAK_PASSWORD", "Password should be at least 6 characters")
}
