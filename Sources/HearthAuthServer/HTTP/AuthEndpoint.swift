import HTTPTypes
import HearthCore
import HearthEdge
import Hummingbird
import NIOCore

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The HTTP side of Authentication on the shared port: routes a request (``AuthRoute``), reads
/// its credentials and body, runs the operation and writes the JSON answer with CORS headers.
package struct AuthEndpoint: Sendable {
    let service: AuthService

    /// The largest request body (a batchCreate of 1,000 accounts fits easily).
    static let maximumBodyBytes = 32 * 1024 * 1024

    package init(service: AuthService) {
        self.service = service
    }

    package func respond(to request: Request, context: HearthRequestContext) async -> Response {
        if request.method == .options { return Self.crossOrigin.preflight(request) }
        do {
            return try await handle(request, context: context)
        } catch {
            return render(error: error, request: request)
        }
    }

    private func handle(_ request: Request, context: HearthRequestContext) async throws(AuthError) -> Response {
        guard let route = AuthRoute.parse(request.uri.path) else { throw .notFound }
        let query = QueryString.parameters(request.uri.query ?? "")
        let nowMilliseconds = Int64(Date().timeIntervalSince1970 * 1000)
        if route.operation == .oauthToken { return try await exchange(request, nowMilliseconds: nowMilliseconds) }
        let call = try await AuthCall.resolve(
            request, query: query, service: service, requiresCredential: !route.operation.isOpen,
            clientAddress: context.channel.remoteAddress?.ipAddress ?? "unknown", nowMilliseconds: nowMilliseconds)
        if route.operation.isEmulatorOnly && service.settings.production { throw .notFound }
        var body = try await readBody(request)
        var parameters = query
        parameters["key"] = nil
        body.merge(missingFrom: AuthRequestBody(form: parameters))
        if route.project != nil || body.has("targetProjectId") {
            guard call.privileged || route.operation.isOpen else { throw .targetProjectNeedsOAuth }
            var project = route.project
            if project == nil { project = try body.string("targetProjectId") }
            guard project == service.settings.projectID else { throw .code("CONFIGURATION_NOT_FOUND") }
        }
        if route.operation == .emulatorAction { return try await EmulatorActionPage(service: service).respond(query, call) }
        if route.operation == .actionPage { return actionPage(query) }
        let json = try await run(route, body: body, method: request.method, call: call)
        return render(json, status: .ok, request: request)
    }

    private func run(_ route: AuthRoute, body: AuthRequestBody, method: HTTPRequest.Method, call: AuthCall) async throws(AuthError)
        -> JSONValue
    {
        if route.operation.requiresPrivilege && !call.privileged {
            throw .code("INSUFFICIENT_PERMISSION", "Only authenticated requests can perform this operation.")
        }
        switch route.operation {
        case .ready:
            return .object([
                JSONMember(
                    key: "authEmulator",
                    value: .object([
                        JSONMember(key: "ready", value: .bool(true)),
                        JSONMember(key: "docs", value: .string("https://firebase.google.com/docs/emulator-suite")),
                        JSONMember(key: "apiSpec", value: .string("/emulator/openapi.json")),
                    ]))
            ])
        case .signUp: return try await service.signUp(body, call)
        case .createUser: return try await service.createUser(body, call)
        case .signInWithPassword: return try await service.signInWithPassword(body, call)
        case .signInWithCustomToken: return try await service.signInWithCustomToken(body, call)
        case .signInWithEmailLink: return try await service.signInWithEmailLink(body, call)
        case .lookup: return try await service.lookup(body, call)
        case .update: return try await service.update(body, call)
        case .delete: return try await service.delete(body, call)
        case .sendOobCode: return try await service.sendOobCode(body, call)
        case .resetPassword: return try await service.resetPassword(body, call)
        case .createAuthUri: return try await service.createAuthUri(body, call)
        case .refresh: return try await service.refresh(body, call)
        case .batchCreate: return try await service.batchCreate(body, call)
        case .batchGet: return try await service.batchGet(body, call)
        case .batchDelete: return try await service.batchDelete(body, call)
        case .query: return try await service.query(body, call)
        case .createSessionCookie: return try await service.createSessionCookie(body, call)
        case .projectConfig: return service.projectConfig()
        case .recaptchaParams: return service.recaptchaParams()
        case .passwordPolicy: return service.passwordPolicy()
        case .config, .emulatorConfig:
            return try await service.config(body, patch: method == .patch, withSignInMethods: route.operation == .config)
        case .providerConfigs(let kind, let id): return try await service.providerConfigs(kind, id: id, method: method, body: body)
        case .emulatorClearAccounts:
            guard method == .delete else { throw .notFound }
            return try await service.clearAccounts()
        case .emulatorOobCodes: return try await service.listActionCodes()
        case .emulatorVerificationCodes: return try await service.listPhoneCodes()
        case .sendVerificationCode: return try await service.sendVerificationCode(body, call)
        case .signInWithPhoneNumber: return try await service.signInWithPhoneNumber(body, call)
        case .idTokenKeys, .sessionCookieKeys:
            do {
                return try await service.tokens.keys.jwks()
            } catch {
                service.logger.error("could not render the keys", metadata: ["error": "\(error)"])
                throw .internalError("Could not render the keys.")
            }
        case .idTokenCertificates, .sessionCookieCertificates: return await service.tokens.keys.certificates()
        case .signInWithIdp: return try await service.signInWithIdp(body, call)
        case .emulatorAction, .oauthToken, .actionPage: throw .notFound
        case .unimplemented(let name): throw .notImplemented("\(name) is not implemented.")
        }
    }

    /// The page action links open: it checks and applies the code with the REST API.
    private func actionPage(_ query: [String: String]) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "text/html; charset=utf-8"
        headers[.cacheControl] = "no-store"
        headers[.xFrameOptions] = "DENY"
        let html = ActionPage.html(query: query, appName: service.settings.projectID)
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: html)))
    }

    /// The token endpoint: answers in OAuth's own JSON, not Google APIs' error shape.
    private func exchange(_ request: Request, nowMilliseconds: Int64) async throws(AuthError) -> Response {
        let body = try await readBody(request)
        do {
            return render(try await service.exchange(body, now: nowMilliseconds / 1000), status: .ok, request: request)
        } catch {
            let json = JSONValue.object([
                JSONMember(key: "error", value: .string(error.error)),
                JSONMember(key: "error_description", value: .string(error.description)),
            ])
            return render(json, status: .badRequest, request: request)
        }
    }

    /// A JSON body, or a form body (the JS SDK's refresh), as fields.
    private func readBody(_ request: Request) async throws(AuthError) -> AuthRequestBody {
        var request = request
        let buffer: ByteBuffer
        do {
            buffer = try await request.collectBody(upTo: Self.maximumBodyBytes)
        } catch {
            throw .invalidArgument("The request body could not be read.")
        }
        let bytes = Array(buffer.readableBytesView)
        let isForm = request.headers[.contentType]?.lowercased().hasPrefix("application/x-www-form-urlencoded") == true
        if isForm, bytes.first != UInt8(ascii: "{") {
            return AuthRequestBody(form: QueryString.parameters(String(decoding: bytes, as: UTF8.self)))
        }
        return try AuthRequestBody(json: bytes)
    }

    private func render(_ json: JSONValue, status: HTTPResponse.Status, request: Request) -> Response {
        var writer = JSONWriter(pretty: true)
        writer.write(json)
        return Response(
            status: status, headers: corsHeaders(request, contentType: "application/json; charset=utf-8"),
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: writer.bytes)))
    }

    private func render(error: AuthError, request: Request) -> Response {
        var detail: [JSONMember] = [
            JSONMember(key: "message", value: .string(error.itemMessage ?? error.message)),
            JSONMember(key: "domain", value: .string("global")),
            JSONMember(key: "reason", value: .string(error.reason)),
        ]
        if let location = error.location {
            detail.append(JSONMember(key: "location", value: .string(location.name)))
            detail.append(JSONMember(key: "locationType", value: .string(location.type)))
        }
        var members: [JSONMember] = [
            JSONMember(key: "code", value: .number(.int(Int64(error.status.code)))),
            JSONMember(key: "message", value: .string(error.message)),
            JSONMember(key: "errors", value: .array([.object(detail)])),
        ]
        if let name = error.statusName { members.append(JSONMember(key: "status", value: .string(name))) }
        return render(.object([JSONMember(key: "error", value: .object(members))]), status: error.status, request: request)
    }

    /// CORS as the emulator answers it: the caller's origin and requested headers reflected.
    static let crossOrigin = CrossOriginPolicy(
        allowedOrigin: .caller, methods: "GET, POST, PATCH, PUT, DELETE, OPTIONS", defaultHeaders: "*",
        preflightStatus: .noContent)

    private func corsHeaders(_ request: Request, contentType: String) -> HTTPFields {
        var headers = HTTPFields()
        headers[.contentType] = contentType
        Self.crossOrigin.allowOrigin(&headers, for: request)
        return headers
    }
}

extension HTTPField.Name {
    static let xFrameOptions = HTTPField.Name("X-Frame-Options")!
}
