import HearthCore
import HearthEdge
import HearthRules
import Hummingbird

/// `/.settings/rules.json`: reads and replaces a namespace's rules document (protocol §11.8).
///
/// GET returns the document as stored, comments included, or as strict JSON with
/// `format=strict`. PUT takes the rules text with the relaxed syntax Firebase accepts;
/// `dryRun=true` only checks it.
enum RulesEndpoint {
    static func respond(
        method: HTTPRequest.Method, request: Request, parameters: [String: String], caller: Caller, engine: NamespaceEngine,
        context: HearthRequestContext
    ) async throws -> Response {
        guard caller == .admin else {
            throw RESTError(.unauthorized, "Permission denied")
        }
        switch method {
        case .get:
            let rules = await engine.currentRules()
            let text = parameters["format"] == "strict" ? rules.strictJSON : rules.source
            return RESTResponse.json(Array(text.utf8))
        case .put:
            var request = request
            let body = try await request.collectBody(upTo: context.maxUploadSize)
            let document: RulesDocument
            do {
                document = try RulesDocument(source: String(decoding: body.readableBytesView, as: UTF8.self))
            } catch {
                throw RESTError.badRequest(error.description)
            }
            if parameters["dryRun"] != "true" {
                try await engine.replaceRules(document)
            }
            return RESTResponse.json(Array("{\"status\":\"ok\"}".utf8))
        default:
            throw RESTError(.methodNotAllowed, "Method not allowed: use GET or PUT.")
        }
    }
}
