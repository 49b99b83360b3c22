import HTTPTypes
import HearthEdge
import Hummingbird

/// Who is calling an Authentication endpoint and from where (auth spec §1.2): an end user with
/// an API key, or a privileged caller with an OAuth credential.
struct AuthCall: Sendable {
    /// A valid `Authorization: Bearer` credential was presented.
    let privileged: Bool
    /// The API key, when one was given.
    let apiKey: String?
    /// Where action links point: the public URL in production, the request's host in development
    /// (or a hosted `linkDomain` the request asks for).
    var origin: String
    /// The client's IP address, for rate limits.
    let clientAddress: String
    /// The time of the request: seconds and milliseconds since 1970.
    let now: Int64
    let nowMilliseconds: Int64
    /// The language of the client's `X-Firebase-Locale` (`auth.languageCode`), which action
    /// links carry as `lang`; English without one.
    var language = "en"

    /// Reads the credentials of `request`: an `Authorization` credential (read as every product
    /// reads it, ``AuthorizationHeader``) makes a privileged caller when it is an admin one and a
    /// 401 otherwise; without one, an API key is required (`key=` or `X-Goog-Api-Key`).
    static func resolve(
        _ request: Request, query: [String: String], service: AuthService, requiresCredential: Bool, clientAddress: String,
        nowMilliseconds: Int64
    ) async throws(AuthError) -> AuthCall {
        let settings = service.settings
        let apiKey = query["key"] ?? request.headers[.googleAPIKey]
        var privileged = false
        if let credential = AuthorizationHeader.token(in: request.headers) {
            guard await service.credentials.isAdmin(credential, now: nowMilliseconds / 1000) else { throw .invalidCredentials }
            privileged = true
        }
        if requiresCredential && !privileged {
            guard let apiKey, !apiKey.isEmpty else { throw .missingAPIKey }
            guard settings.accepts(apiKey: apiKey) else { throw .invalidAPIKey }
        }
        let scheme = request.head.scheme == "https" ? "https" : "http"
        let origin = settings.production ? settings.publicOrigin : "\(scheme)://\(request.head.authority ?? "localhost")"
        return AuthCall(
            privileged: privileged, apiKey: apiKey, origin: origin, clientAddress: clientAddress,
            now: nowMilliseconds / 1000,
            nowMilliseconds: nowMilliseconds, language: language(of: request))
    }

    /// The `X-Firebase-Locale` of `request` when it looks like a language tag (`fr`, `pt-BR`).
    private static func language(of request: Request) -> String {
        guard let tag = request.headers[.firebaseLocale], (1...35).contains(tag.count),
            tag.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") })
        else { return "en" }
        return tag
    }
}

extension HTTPField.Name {
    static let googleAPIKey = HTTPField.Name("X-Goog-Api-Key")!
    static let firebaseLocale = HTTPField.Name("X-Firebase-Locale")!
}
