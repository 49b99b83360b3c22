import HTTPTypes
import HearthCore
import Hummingbird
import NIOCore

extension ConsoleEndpoint {
    static let emailTemplatesPath = "/console/auth/templates"
    static let emailPreviewsPath = "/console/auth/email-previews/"
    static let maximumTemplateBytes = 1 << 20

    /// `GET /console/auth/templates`: every template with whether it is customized and whether
    /// emails are sent; `PUT|DELETE /console/auth/templates/<mode>`: saves one, or puts the
    /// built-in text back; `POST /console/auth/templates/<mode>/preview`: a draft as a sample
    /// user would read it, its HTML body under a preview URL.
    func emailTemplates(_ request: Request, visitor: Visitor) async -> Response {
        if case .signedOut = visitor { return ConsoleResponses.error("SIGN_IN_REQUIRED", status: .unauthorized) }
        if request.method != .get, !carriesCSRFToken(request, visitor: visitor) {
            return ConsoleResponses.error("CSRF_TOKEN_MISMATCH", status: .forbidden)
        }
        // "", "/<mode>" or "/<mode>/preview": the parts after the leading slash.
        let rest = request.uri.path.dropFirst(Self.emailTemplatesPath.count).split(separator: "/", omittingEmptySubsequences: false)
            .dropFirst()
        switch (request.method, rest.count) {
        case (.get, 0):
            let templates = emailTemplateAccess.modes.compactMap { mode in
                emailTemplateAccess.read(mode).map { Self.json(mode: mode, $0.template, customized: $0.customized) }
            }
            return ConsoleResponses.json(
                .object([
                    JSONMember(key: "sendsEmail", value: .bool(emailTemplateAccess.sendsEmail)),
                    JSONMember(key: "templates", value: .array(templates)),
                ]))
        case (.put, 1), (.delete, 1):
            let mode = String(rest[rest.startIndex])
            var template: EmailTemplateAccess.Template?
            if request.method == .put {
                guard let draft = await Self.template(in: request) else {
                    return ConsoleResponses.error("INVALID_ARGUMENT", status: .badRequest)
                }
                template = draft
            }
            guard emailTemplateAccess.read(mode) != nil else { return ConsoleResponses.error("NOT_FOUND", status: .notFound) }
            if let problem = emailTemplateAccess.write(mode, template) { return ConsoleResponses.error(problem, status: .badRequest) }
            guard let saved = emailTemplateAccess.read(mode) else { return ConsoleResponses.error("NOT_FOUND", status: .notFound) }
            return ConsoleResponses.json(Self.json(mode: mode, saved.template, customized: saved.customized))
        case (.post, 2) where rest.last == "preview":
            let mode = String(rest[rest.startIndex])
            guard let draft = await Self.template(in: request) else {
                return ConsoleResponses.error("INVALID_ARGUMENT", status: .badRequest)
            }
            switch emailTemplateAccess.preview(mode, draft, mainOrigin(for: request)) {
            case .failure(let refused):
                return ConsoleResponses.error(refused.message, status: .badRequest)
            case .success(let email):
                var members = [
                    JSONMember(key: "subject", value: .string(email.subject)), JSONMember(key: "text", value: .string(email.text)),
                ]
                if let html = email.html {
                    let token = await emailPreviews.keep(html)
                    members.append(JSONMember(key: "htmlURL", value: .string(Self.emailPreviewsPath + token)))
                }
                return ConsoleResponses.json(.object(members))
            }
        default:
            return ConsoleResponses.error("METHOD_NOT_ALLOWED", status: .methodNotAllowed)
        }
    }

    /// `GET /console/auth/email-previews/<token>`: a previewed HTML body, for the preview frame
    /// only: sandboxed (no script runs, its origin is opaque), framed by the console alone, its
    /// inline styles and remote images allowed as a mail reader would.
    func emailPreview(_ request: Request, visitor: Visitor) async -> Response {
        if case .signedOut = visitor { return ConsoleResponses.error("SIGN_IN_REQUIRED", status: .unauthorized) }
        guard request.method == .get else { return ConsoleResponses.error("METHOD_NOT_ALLOWED", status: .methodNotAllowed) }
        let token = String(request.uri.path.dropFirst(Self.emailPreviewsPath.count))
        guard let html = await emailPreviews.html(for: token) else { return ConsoleResponses.error("NOT_FOUND", status: .notFound) }
        var headers = HTTPFields()
        headers[.contentType] = "text/html; charset=utf-8"
        headers[.cacheControl] = "no-store"
        headers[.contentSecurityPolicy] =
            "sandbox; default-src 'none'; style-src 'unsafe-inline'; img-src https: data:; frame-ancestors 'self'"
        headers[ConsoleResponses.xFrameOptions] = "SAMEORIGIN"
        headers[ConsoleResponses.referrerPolicy] = "no-referrer"
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: html)))
    }

    private static func json(mode: String, _ template: EmailTemplateAccess.Template, customized: Bool) -> JSONValue {
        .object([
            JSONMember(key: "mode", value: .string(mode)),
            JSONMember(key: "subject", value: .string(template.subject)),
            JSONMember(key: "text", value: .string(template.text)),
            JSONMember(key: "html", value: template.html.map { .string($0) } ?? .null),
            JSONMember(key: "customized", value: .bool(customized)),
        ])
    }

    /// The `{subject, text, html}` a request carries; an empty `html` means none.
    private static func template(in request: Request) async -> EmailTemplateAccess.Template? {
        var request = request
        guard let body = try? await request.collectBody(upTo: maximumTemplateBytes),
            let json = try? JSONParser.parse(Array(body.readableBytesView)),
            case .string(let subject)? = json["subject"], case .string(let text)? = json["text"]
        else { return nil }
        let html: String?
        switch json["html"] {
        case .string(let value)? where !value.isEmpty: html = value
        case .string?, .null?, nil: html = nil
        default: return nil
        }
        return EmailTemplateAccess.Template(subject: subject, text: text, html: html)
    }
}
