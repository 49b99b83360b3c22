import HTTPTypes
import HearthCore
import HearthEdge
import Hummingbird
import NIOCore

/// One product's rules as the console edits and tries them, provided by the composition: no
/// Firebase API covers publishing into the rules file or the evaluation trace. `scope` is the
/// database namespace; Storage's rules are the project's, whatever the scope.
package struct RulesAccess: Sendable {
    /// The rules text in force and the file it comes from (`nil`: rules set through the
    /// product's API); `nil` when the scope cannot be opened or no rules are in force.
    package let read: @Sendable (_ scope: String) async -> (source: String, file: String?)?
    /// Checks `source` and, unless `dryRun`, puts it in force (written to the rules file when there
    /// is one); returns the problem (`Line 3 (column 5): …`) when it is refused.
    package let publish: @Sendable (_ scope: String, _ source: String, _ dryRun: Bool) async -> String?
    /// Judges the operation `request` describes against the rules in force and the current data:
    /// `.success` with the decision, `.failure` with the problem.
    package let simulate: @Sendable (_ scope: String, _ request: JSONValue) async -> Result<JSONValue, SimulationRefused>

    package init(
        read: @escaping @Sendable (_ scope: String) async -> (source: String, file: String?)?,
        publish: @escaping @Sendable (_ scope: String, _ source: String, _ dryRun: Bool) async -> String?,
        simulate: @escaping @Sendable (_ scope: String, _ request: JSONValue) async -> Result<JSONValue, SimulationRefused>
    ) {
        self.read = read
        self.publish = publish
        self.simulate = simulate
    }
}

/// Why the playground could not run an operation.
package struct SimulationRefused: Error, Sendable {
    package let message: String

    package init(_ message: String) {
        self.message = message
    }
}

extension ConsoleEndpoint {
    static let maximumRulesBytes = 1 << 20

    /// `GET|PUT /console/rules/<product>[?ns=]` (PUT takes the rules text; `dryRun=true` only
    /// checks it) and `POST /console/rules/<product>/simulate[?ns=]`, for `rules`, the access to
    /// one product's rules.
    func rules(_ request: Request, visitor: Visitor, access rules: RulesAccess) async -> Response {
        if case .signedOut = visitor { return ConsoleResponses.error("SIGN_IN_REQUIRED", status: .unauthorized) }
        let parameters = QueryString.parameters(request.uri.query ?? "")
        let namespace = parameters["ns"].flatMap { $0.isEmpty ? nil : $0 } ?? settings.defaultNamespace
        let simulates = request.uri.path.hasSuffix("/simulate")
        if request.method != .get, !carriesCSRFToken(request, visitor: visitor) {
            return ConsoleResponses.error("CSRF_TOKEN_MISMATCH", status: .forbidden)
        }
        switch (request.method, simulates) {
        case (.get, false):
            guard let (source, file) = await rules.read(namespace) else {
                return ConsoleResponses.error("RULES_NOT_FOUND", status: .notFound)
            }
            return ConsoleResponses.json(
                .object([
                    JSONMember(key: "source", value: .string(source)),
                    JSONMember(key: "file", value: file.map { .string($0) } ?? .null),
                ]))
        case (.put, false):
            guard let text = await bodyText(request) else { return ConsoleResponses.error("INVALID_ARGUMENT", status: .badRequest) }
            if let problem = await rules.publish(namespace, text, parameters["dryRun"] == "true") {
                return ConsoleResponses.error(problem, status: .badRequest)
            }
            return ConsoleResponses.json(.object([JSONMember(key: "status", value: .string("ok"))]))
        case (.post, true):
            guard let text = await bodyText(request), let body = try? JSONParser.parse(text) else {
                return ConsoleResponses.error("INVALID_ARGUMENT", status: .badRequest)
            }
            switch await rules.simulate(namespace, body) {
            case .success(let result): return ConsoleResponses.json(result)
            case .failure(let refused): return ConsoleResponses.error(refused.message, status: .badRequest)
            }
        default:
            return ConsoleResponses.error("METHOD_NOT_ALLOWED", status: .methodNotAllowed)
        }
    }

    private func bodyText(_ request: Request) async -> String? {
        var request = request
        guard let body = try? await request.collectBody(upTo: Self.maximumRulesBytes) else { return nil }
        return String(decoding: body.readableBytesView, as: UTF8.self)
    }
}
