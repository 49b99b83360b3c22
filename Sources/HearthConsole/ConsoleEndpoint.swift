import HTTPTypes
import HearthCore
import HearthEdge
import HearthPasswords
import Hummingbird
import NIOCore

/// The console's origin (its own port, never the one serving Storage objects):
/// - its page for every deep link (`/database/…`, `/auth/users/…`), its scripts and styles
///   under `/assets/`;
/// - `/console/session`, `/console/sign-in`, `/console/sign-out`;
/// - the admin API no Firebase API covers: `/console/changes`, `/console/requests`,
///   `/console/traffic`, `/console/rules/…`, `/console/auth/templates…`;
/// - the products' public APIs under `/console/api/` (REST, Server-Sent Events, the Identity
///   Toolkit, Storage's JSON APIs), called with the administrator's credential, so that the
///   browser never holds one.
///
/// Every forwarded request, and every change of the console's own, must carry the session's
/// CSRF token in `X-Hearth-CSRF`; a page of another origin can neither read the token nor send
/// the header without a preflight the console never grants.
package struct ConsoleEndpoint: Sendable {
    /// How the products answer a request.
    package typealias Respond = @Sendable (Request, HearthRequestContext) async -> Response

    static let sessionCookie = "hearth_console"
    static let apiPrefix = "/console/api"
    static let maximumSignInBytes = 4096

    let settings: ConsoleSettings
    let products: Respond
    let credentials: AdministratorCredentials
    let changeSource: ChangeSource
    let databaseRules: RulesAccess
    let storageRules: RulesAccess
    let emailTemplateAccess: EmailTemplateAccess
    /// Every product's requests, for the requests view.
    let feed: RequestFeed
    let trafficSource: TrafficSource
    /// The main port as bound (it may have been 0 when the console was made).
    let mainPort: @Sendable () -> Int
    /// The administrators who may sign in; `nil` when the console needs no sign-in.
    let administrators: ConsoleAdministrators?
    let sessions = ConsoleSessions()
    let throttle = SignInThrottle()
    let assets = ConsoleAssets()
    let emailPreviews = EmailPreviews()
    /// The CSRF token of an open console, and of the sign-in form of one that needs sign-in.
    let openCSRFToken = ConsoleSessions.token()

    package init(
        settings: ConsoleSettings, administrators: ConsoleAdministrators?, credentials: AdministratorCredentials,
        changeSource: @escaping ChangeSource, databaseRules: RulesAccess, storageRules: RulesAccess,
        emailTemplates: EmailTemplateAccess, feed: RequestFeed,
        traffic: @escaping TrafficSource, mainPort: @escaping @Sendable () -> Int, products: @escaping Respond
    ) {
        self.settings = settings
        self.changeSource = changeSource
        self.databaseRules = databaseRules
        self.storageRules = storageRules
        self.emailTemplateAccess = emailTemplates
        self.feed = feed
        self.trafficSource = traffic
        self.mainPort = mainPort
        self.administrators = administrators
        self.credentials = credentials
        self.products = products
    }

    /// The responder the console's application serves with.
    package var responder: CallbackResponder<HearthRequestContext> {
        CallbackResponder { request, context in
            var response = await respond(to: request, context: context)
            response.headers[.xContentTypeOptions] = "nosniff"
            return response
        }
    }

    /// Who is asking: the open console's user, an administrator's session, or nobody.
    enum Visitor {
        case open
        case administrator(id: String, session: ConsoleSessions.Session)
        case signedOut

        var csrfToken: String? {
            switch self {
            case .open, .signedOut: nil
            case .administrator(_, let session): session.csrfToken
            }
        }
    }

    func respond(to request: Request, context: HearthRequestContext) async -> Response {
        if !settings.requiresSignIn, !Self.isLoopback(authority: request.head.authority) {
            return ConsoleResponses.error("HOST_NOT_ALLOWED", status: .forbidden)
        }
        let path = request.uri.path
        let visitor = await visitor(of: request)
        switch path {
        case "/console/session": return session(visitor, request: request)
        case "/console/sign-in": return await signIn(request, context: context)
        case "/console/sign-out": return await signOut(request, visitor: visitor)
        case "/console/changes": return await changes(request, visitor: visitor)
        case "/console/requests": return requests(request, visitor: visitor)
        case "/console/traffic": return await traffic(request, visitor: visitor)
        case "/console/rules/database", "/console/rules/database/simulate":
            return await rules(request, visitor: visitor, access: databaseRules)
        case "/console/rules/storage", "/console/rules/storage/simulate":
            return await rules(request, visitor: visitor, access: storageRules)
        case _ where path == Self.emailTemplatesPath || path.hasPrefix(Self.emailTemplatesPath + "/"):
            return await emailTemplates(request, visitor: visitor)
        case Self.usersExportPath: return await exportUsers(request, context: context, visitor: visitor)
        case Self.usersImportPath: return await importUsers(request, context: context, visitor: visitor)
        case _ where path.hasPrefix(Self.emailPreviewsPath):
            return await emailPreview(request, visitor: visitor)
        default: break
        }
        if Self.isForwarded(rawPath: request.head.path ?? "") {
            return await forward(request, context: context, visitor: visitor)
        }
        if path.hasPrefix("/console/") { return ConsoleResponses.error("NOT_FOUND", status: .notFound) }
        guard request.method == .get || request.method == .head else {
            return ConsoleResponses.error("METHOD_NOT_ALLOWED", status: .methodNotAllowed)
        }
        if path.hasPrefix("/assets/") { return asset(String(path.dropFirst("/assets/".count)), request: request) }
        return asset("index.html", request: request)
    }

    private func visitor(of request: Request) async -> Visitor {
        guard settings.requiresSignIn else { return .open }
        guard let id = request.cookies[Self.sessionCookie]?.value, let session = await sessions.session(id) else {
            return .signedOut
        }
        return .administrator(id: id, session: session)
    }

    /// Whether a change carries the token it must: the session's, or the open console's.
    func carriesCSRFToken(_ request: Request, visitor: Visitor) -> Bool {
        guard let sent = request.headers[ConsoleResponses.csrfHeader] else { return false }
        let expected = visitor.csrfToken ?? openCSRFToken
        return ConstantTime.equal(Array(sent.utf8), Array(expected.utf8))
    }

    /// `GET /console/session`: the mode, whether sign-in is needed and done, and the CSRF token
    /// changes carry.
    private func session(_ visitor: Visitor, request: Request) -> Response {
        var members: [(String, JSONValue)] = [
            ("projectId", .string(settings.projectID)),
            ("defaultNamespace", .string(settings.defaultNamespace)),
            ("buckets", .array(settings.buckets.map { .string($0) })),
            ("mainOrigin", .string(mainOrigin(for: request))),
            ("mode", .string(settings.production ? "production" : "development")),
            ("signInRequired", .bool(settings.requiresSignIn)),
        ]
        switch visitor {
        case .open:
            members += [("signedIn", .bool(true)), ("csrfToken", .string(openCSRFToken))]
        case .signedOut:
            members += [("signedIn", .bool(false)), ("csrfToken", .string(openCSRFToken))]
        case .administrator(_, let session):
            members += [("signedIn", .bool(true)), ("email", .string(session.email)), ("csrfToken", .string(session.csrfToken))]
        }
        return ConsoleResponses.json(.object(members.map { JSONMember(key: $0.0, value: $0.1) }))
    }

    /// `POST /console/sign-in` with `{"email", "password"}`: starts a session in a cookie.
    private func signIn(_ request: Request, context: HearthRequestContext) async -> Response {
        guard request.method == .post else { return ConsoleResponses.error("METHOD_NOT_ALLOWED", status: .methodNotAllowed) }
        guard let administrators else { return ConsoleResponses.error("SIGN_IN_NOT_REQUIRED", status: .notFound) }
        guard let sent = request.headers[ConsoleResponses.csrfHeader], ConstantTime.equal(Array(sent.utf8), Array(openCSRFToken.utf8))
        else {
            return ConsoleResponses.error("CSRF_TOKEN_MISMATCH", status: .forbidden)
        }
        var request = request
        guard let body = try? await request.collectBody(upTo: Self.maximumSignInBytes),
            let json = try? JSONParser.parse(Array(body.readableBytesView)),
            case .string(let email)? = json["email"], case .string(let password)? = json["password"]
        else { return ConsoleResponses.error("INVALID_ARGUMENT", status: .badRequest) }
        let address = context.channel.remoteAddress?.ipAddress ?? "unknown"
        if let wait = await throttle.wait(address: address, email: email) {
            var headers = HTTPFields()
            headers[.retryAfter] = String(max(1, wait.components.seconds))
            return ConsoleResponses.error("TOO_MANY_ATTEMPTS_TRY_LATER", status: .tooManyRequests, extra: headers)
        }
        guard await administrators.verify(email: email, password: password) else {
            await throttle.recordFailure(address: address, email: email)
            return ConsoleResponses.error("INVALID_LOGIN_CREDENTIALS", status: .badRequest)
        }
        await throttle.recordSuccess(email: email)
        let (id, session) = await sessions.start(email: email.lowercased())
        var response = ConsoleResponses.json(
            .object([
                JSONMember(key: "email", value: .string(session.email)),
                JSONMember(key: "csrfToken", value: .string(session.csrfToken)),
            ]))
        response.setCookie(Cookie(name: Self.sessionCookie, value: id, path: "/", httpOnly: true, sameSite: .strict))
        return response
    }

    /// `POST /console/sign-out`: ends the session and clears its cookie.
    private func signOut(_ request: Request, visitor: Visitor) async -> Response {
        guard request.method == .post else { return ConsoleResponses.error("METHOD_NOT_ALLOWED", status: .methodNotAllowed) }
        guard case .administrator(let id, _) = visitor else { return ConsoleResponses.error("SIGN_IN_REQUIRED", status: .unauthorized) }
        guard carriesCSRFToken(request, visitor: visitor) else {
            return ConsoleResponses.error("CSRF_TOKEN_MISMATCH", status: .forbidden)
        }
        await sessions.end(id)
        var response = ConsoleResponses.json(.object([]))
        response.setCookie(Cookie(name: Self.sessionCookie, value: "", maxAge: 0, path: "/", httpOnly: true, sameSite: .strict))
        return response
    }

    /// `/console/api/<path>`: the products' answer to `/<path>`, asked with the administrator's
    /// credential. Object bodies (`alt=media`) are not served here: they are user content, and
    /// the console's origin holds an administrator's session.
    private func forward(_ request: Request, context: HearthRequestContext, visitor: Visitor) async -> Response {
        let credential: String
        switch await productAccess(request, visitor: visitor) {
        case .granted(let granted): credential = granted
        case .refused(let response): return response
        }
        let query = QueryString.parameters(request.uri.query ?? "")
        if query["alt"] == "media" { return ConsoleResponses.error("OBJECT_BODIES_NOT_SERVED", status: .forbidden) }
        var head = request.head
        // The raw target, percent-encoding and query as sent, less the prefix.
        let rest = (head.path ?? "").dropFirst(Self.apiPrefix.count)
        head.path = rest.first == "/" ? String(rest) : "/" + rest
        head.headerFields[.cookie] = nil
        head.headerFields[.origin] = nil
        head.headerFields[ConsoleResponses.csrfHeader] = nil
        head.headerFields[.authorization] = "Bearer \(credential)"
        var response = await RequestTrace.$isFromConsole.withValue(true) {
            await products(Request(head: head, body: request.body), context)
        }
        // Whatever a product answers, it is inert on the console's origin.
        response.headers[.contentSecurityPolicy] = "default-src 'none'; sandbox"
        response.headers[ConsoleResponses.xFrameOptions] = "DENY"
        return response
    }

    /// Whether the console calls the products for a request: with the credential, or not, with
    /// the answer saying why.
    enum ProductAccess {
        case granted(credential: String)
        case refused(Response)
    }

    /// The credential the visitor's requests to the products carry, once the request is shown to
    /// come from the console's page: it carries the CSRF token, reads too (a product's GET may
    /// act, such as an action link, and a page elsewhere can make the browser send a GET but
    /// never this header).
    func productAccess(_ request: Request, visitor: Visitor) async -> ProductAccess {
        let email: String
        switch visitor {
        case .signedOut: return .refused(ConsoleResponses.error("SIGN_IN_REQUIRED", status: .unauthorized))
        case .open: email = "owner"
        case .administrator(_, let session): email = session.email
        }
        guard carriesCSRFToken(request, visitor: visitor) else {
            return .refused(ConsoleResponses.error("CSRF_TOKEN_MISMATCH", status: .forbidden))
        }
        guard let credential = await credentials.credential(for: email) else {
            return .refused(ConsoleResponses.error("CREDENTIAL_UNAVAILABLE", status: .serviceUnavailable))
        }
        return .granted(credential: credential)
    }

    /// An embedded file, with its ETag (a matching `If-None-Match` gets 304) and, when the
    /// browser takes gzip and it is smaller, compressed. The page and scripts are revalidated on
    /// each load, so that a new binary's console is never mixed with an old one's.
    private func asset(_ name: String, request: Request) -> Response {
        guard let asset = assets[name] else { return ConsoleResponses.error("NOT_FOUND", status: .notFound) }
        var headers = ConsoleResponses.securityHeaders(mainOrigin: mainOrigin(for: request))
        headers[.eTag] = asset.etag
        headers[.cacheControl] = "no-cache"
        headers[.vary] = "Accept-Encoding"
        if request.headers[.ifNoneMatch] == asset.etag {
            return Response(status: .notModified, headers: headers)
        }
        headers[.contentType] = asset.contentType
        var body = asset.body
        if let gzipped = asset.gzipped, request.headers[.acceptEncoding]?.contains("gzip") == true {
            headers[.contentEncoding] = "gzip"
            body = gzipped
        }
        headers[.contentLength] = String(body.readableBytes)
        return Response(
            status: .ok, headers: headers, body: request.method == .head ? ResponseBody() : ResponseBody(byteBuffer: body))
    }

    /// The origin browsers reach the main port at: the public URL's, or this request's host
    /// name at the main port.
    func mainOrigin(for request: Request) -> String {
        if let publicURL = settings.publicURL, let schemeEnd = publicURL.range(of: "://") {
            let rest = publicURL[schemeEnd.upperBound...]
            return String(publicURL[..<schemeEnd.upperBound] + rest.prefix { $0 != "/" })
        }
        // Only a plain host name or address goes into the page's policy.
        let sent = request.head.authority ?? settings.host
        let authority = sent.allSatisfy { $0.isLetter || $0.isNumber || ".-[]:".contains($0) } ? sent : settings.host
        return "http://\(Self.hostName(of: authority)):\(mainPort())"
    }

    /// Whether a request target (as sent, before any decoding) is under `/console/api/`.
    static func isForwarded(rawPath: String) -> Bool {
        guard rawPath.hasPrefix(apiPrefix) else { return false }
        return rawPath.count == apiPrefix.count || ["/", "?"].contains(rawPath.dropFirst(apiPrefix.count).first)
    }

    /// Whether the `Host` names the loopback interface, with any port.
    static func isLoopback(authority: String?) -> Bool {
        guard let authority else { return false }
        return ConsoleSettings.loopbackHosts.contains(hostName(of: authority).lowercased())
    }

    /// The host of an authority without its port: `[::1]` of `[::1]:4000`, `localhost` of
    /// `localhost:4000`.
    static func hostName(of authority: String) -> Substring {
        if authority.hasPrefix("["), let end = authority.firstIndex(of: "]") { return authority[...end] }
        return authority.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
    }
}
