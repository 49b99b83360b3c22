import HearthCore
import HearthEdge
import HearthStorageRules
import Hummingbird

/// The emulator's control endpoints (spec storage-api §1.6), served in development only:
/// `PUT /internal/setRules` replaces the rules (rules that fail to compile leave none, so every
/// request is refused until valid rules are set), `POST /internal/reset` deletes everything.
struct StorageControl: Sendable {
    let service: StorageService

    func respond(to request: Request, name: String) async throws -> Response {
        var request = request
        switch (request.method, name) {
        case (.put, "setRules"):
            return try await setRules(StorageRequestParts.collect(&request, limit: 16 << 20))
        case (.post, "reset"):
            try await service.reset()
            return StorageResponses.text("OK", status: .ok)
        case (.post, "export"):
            return StorageResponses.text("Export is not supported by Hearth; copy the data directory instead.", status: .notImplemented)
        default:
            return StorageResponses.text("Not Found", status: .notFound)
        }
    }

    private func setRules(_ body: [UInt8]) async throws -> Response {
        func refuse(_ message: String) -> Response {
            var writer = JSONWriter()
            writer.writeObject(key: "message", string: message)
            return StorageResponses.json(writer.bytes, status: .badRequest)
        }
        guard case .array(let files)? = (try? JSONParser.parse(body))?["rules"]?["files"], !files.isEmpty else {
            return refuse("Request body must include 'rules.files' array")
        }
        let contents = files.compactMap { file -> String? in
            guard case .string? = file["name"], case .string(let content)? = file["content"] else { return nil }
            return content
        }
        guard contents.count == files.count else {
            return refuse(
                files.count == 1
                    ? "Each member of 'rules.files' array must contain 'name' and 'content'"
                    : "Each member of 'rules.files' array must contain 'name', 'content', and 'resource'")
        }
        // The previous rules go first: rules that do not compile leave none in force.
        service.rules.replace(with: nil)
        do {
            service.rules.replace(with: try StorageRuleset(source: contents[0]))
        } catch {
            service.logger.error("storage rules set through /internal/setRules do not compile", metadata: ["error": "\(logSafe: error)"])
            return refuse("There was an error updating rules, see logs for more details")
        }
        var writer = JSONWriter()
        writer.writeObject(key: "message", string: "Rules updated successfully")
        return StorageResponses.json(writer.bytes)
    }
}
