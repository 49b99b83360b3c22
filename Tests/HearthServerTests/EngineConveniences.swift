import HearthCore

@testable import HearthDatabaseServer
@testable import HearthServer
import HearthEdge

/// Writes of JSON values, prepared as the transports prepare them, to keep tests short.
extension NamespaceEngine {
    func set(
        _ path: DatabasePath, _ json: JSONValue, ifMatch precondition: WritePrecondition? = nil, as caller: Caller
    ) async throws -> SetOutcome {
        try await set(path, WriteValue.prepare(json, at: path), ifMatch: precondition, as: caller)
    }

    func update(_ path: DatabasePath, _ entries: [(DatabasePath, JSONValue)], as caller: Caller) async throws {
        let prepared = try entries.map { relative, json in (relative, try WriteValue.prepare(json, at: path.appending(relative))) }
        try await update(path, prepared, as: caller)
    }
}

/// The engine of a namespace as its administrator, who may create it.
extension DatabaseService {
    func namespace(_ name: String) async throws -> NamespaceEngine {
        try await namespace(name, for: .admin, writes: true)
    }
}
