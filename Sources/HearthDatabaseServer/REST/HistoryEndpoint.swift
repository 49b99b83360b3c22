import HearthCore
import HearthEdge
import Hummingbird

/// `/.history/<path>.json`: a location's history from the namespace's write log, for
/// administrators (Hearth's own; Firebase has none). The console's History view uses it.
///
/// - `GET` lists the writes that changed the location, newest first: `limit` (1–500, default 50)
///   of them, before write `before` when given. The answer:
///   `{"entries": [{"sequence", "time", "by", "via", "changes": [{"path", "before", "after"}]}],
///   "next", "begins"}`, nodes in export format, `before`/`after` left out when not kept.
/// - `GET ?at=<ms>` answers the location as it was at that time (`format=export` keeps
///   priorities); `GET ?beforeWrite=<sequence>`, as it was just before that write.
/// - `POST` with either makes the location what it was then, as one write, and answers that node.
enum HistoryEndpoint {
    static func respond(
        method: HTTPRequest.Method, path: DatabasePath, parameters: [String: String], caller: Caller, engine: NamespaceEngine
    ) async throws -> Response {
        guard caller == .admin else { throw RESTError(.unauthorized, "Permission denied") }
        let point = try historyPoint(parameters)
        let rendering: JSONRendering = parameters["format"] == "export" ? .export : JSONRendering(export: false, arrays: false)
        switch (method, point) {
        case (.get, let point?):
            return RESTResponse.json(JSONWriter.render(try await engine.state(at: path, as: point), rendering))
        case (.post, let point?):
            return RESTResponse.json(JSONWriter.render(try await engine.restore(path, as: point, by: caller), rendering))
        case (.get, nil):
            let limit =
                try parameters["limit"].map { text throws(RESTError) in try integer(text, named: "limit", meaning: "a number of writes") }
                ?? 50
            guard (1...500).contains(limit) else { throw RESTError.badRequest("limit must be between 1 and 500.") }
            let before = try parameters["before"].map { text throws(RESTError) in
                try integer(text, named: "before", meaning: "a write's sequence number")
            }
            return RESTResponse.json(render(try await engine.history(at: path, before: before, limit: Int(limit))))
        case (.post, nil):
            throw RESTError.badRequest(
                "A restore needs the moment to go back to: at=<milliseconds since 1970> or beforeWrite=<sequence>.")
        default:
            throw RESTError(.methodNotAllowed, "Method not allowed: use GET, or POST to restore.")
        }
    }

    /// The moment `at` or `beforeWrite` names, if either.
    private static func historyPoint(_ parameters: [String: String]) throws(RESTError) -> HistoryPoint? {
        switch (parameters["at"], parameters["beforeWrite"]) {
        case (let time?, nil):
            return .time(try integer(time, named: "at", meaning: "a time in milliseconds since 1970"))
        case (nil, let sequence?):
            return .beforeWrite(try integer(sequence, named: "beforeWrite", meaning: "a write's sequence number"))
        case (nil, nil):
            return nil
        case (_?, _?):
            throw RESTError.badRequest("Name one moment: at or beforeWrite, not both.")
        }
    }

    private static func integer(_ text: String, named name: String, meaning: String) throws(RESTError) -> Int64 {
        guard let value = Int64(text), value >= 0 else {
            throw RESTError.badRequest("\(name) must be \(meaning), not \"\(text)\".")
        }
        return value
    }

    private static func render(_ page: WriteHistory.Page) -> [UInt8] {
        var writer = JSONWriter()
        var scope = writer.beginObject()
        writer.writeKey("entries", in: &scope)
        writer.writeRaw("[")
        for (index, entry) in page.entries.enumerated() {
            if index > 0 { writer.writeRaw(",") }
            var entryScope = writer.beginObject()
            writer.writeKey("sequence", in: &entryScope)
            writer.write(JSONValue.number(.int(entry.sequence)))
            writer.writeKey("time", in: &entryScope)
            writer.write(JSONValue.number(.int(entry.time)))
            writer.writeKey("by", in: &entryScope)
            writer.write(entry.author)
            writer.writeKey("via", in: &entryScope)
            writer.writeString(entry.transport)
            writer.writeKey("changes", in: &entryScope)
            writer.writeRaw("[")
            for (changeIndex, change) in entry.changes.enumerated() {
                if changeIndex > 0 { writer.writeRaw(",") }
                var changeScope = writer.beginObject()
                writer.writeKey("path", in: &changeScope)
                writer.writeString(change.path.description)
                if let before = change.before {
                    writer.writeKey("before", in: &changeScope)
                    writer.write(before, .export)
                }
                if let after = change.after {
                    writer.writeKey("after", in: &changeScope)
                    writer.write(after, .export)
                }
                writer.endObject(changeScope)
            }
            writer.writeRaw("]")
            writer.endObject(entryScope)
        }
        writer.writeRaw("]")
        writer.writeKey("next", in: &scope)
        if let next = page.next { writer.write(JSONValue.number(.int(next))) } else { writer.writeNull() }
        writer.writeKey("begins", in: &scope)
        writer.write(JSONValue.number(.int(page.begins)))
        writer.endObject(scope)
        return writer.bytes
    }
}
