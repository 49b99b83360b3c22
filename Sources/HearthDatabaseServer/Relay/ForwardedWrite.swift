import HearthCore
import HearthEdge

/// A write a relay's client made, passed on to the namespace's owner with whom it acts for.
struct ForwardedWrite: Sendable {
    enum Operation: Sendable {
        /// A set; with a hash, a compare-and-set.
        case set(DatabasePath, WriteValue, WritePrecondition?)
        /// A multi-path update below the path.
        case update(DatabasePath, [(DatabasePath, WriteValue)])
        /// onDisconnect writes, as one batch.
        case apply([QueuedWrite])
    }

    /// What became of a write on the owner.
    enum Outcome: Sendable, Equatable {
        case written
        case preconditionFailed
        case refused(DatabaseError)

        /// `{}`, `{"stale":true}`, `{"denied":explanation}` or `{"failed":text}`.
        var json: JSONValue {
            switch self {
            case .written: .object([])
            case .preconditionFailed: .object([JSONMember(key: "stale", value: .bool(true))])
            case .refused(.permissionDenied(let explanation)):
                .object([JSONMember(key: "denied", value: explanation.map(JSONValue.string) ?? .null)])
            case .refused(let error): .object([JSONMember(key: "failed", value: .string(error.message))])
            }
        }

        init(_ json: JSONValue) throws(RelayWire.Malformed) {
            if json["stale"] == .bool(true) {
                self = .preconditionFailed
            } else if let denied = json["denied"] {
                if case .string(let explanation) = denied {
                    self = .refused(.permissionDenied(explanation: explanation))
                } else {
                    self = .refused(.permissionDenied(explanation: nil))
                }
            } else if let failed = json["failed"] {
                guard case .string(let text) = failed else { throw RelayWire.Malformed(description: "a failure without text") }
                self = .refused(.refusedByOwner(text))
            } else {
                self = .written
            }
        }
    }

    let caller: Caller
    let transport: WriteTransport
    let operation: Operation

    init(caller: Caller, transport: WriteTransport, operation: Operation) {
        self.caller = caller
        self.transport = transport
        self.operation = operation
    }

    // MARK: Wire form

    /// `{"c":caller,"t":transport,"a":"p"|"m"|"o",…}`: a set has `p`, `d` and maybe `h`
    /// (a hash) or `e` (an ETag); an update `p` and `d`, an object of relative paths; onDisconnect
    /// writes `w`, each `{"p":…,"d":…}` or `{"p":…,"u":{…}}`, with the locations it keeps as `k`.
    func encode(into writer: inout JSONWriter) {
        var scope = writer.beginObject()
        writer.writeKey("c", in: &scope)
        switch caller {
        case .admin:
            var callerScope = writer.beginObject()
            writer.writeKey("admin", in: &callerScope)
            writer.write(LeafValue.bool(true))
            writer.endObject(callerScope)
        case .client(let auth):
            var callerScope = writer.beginObject()
            writer.writeKey("auth", in: &callerScope)
            writer.write(auth)
            writer.endObject(callerScope)
        }
        writer.writeKey("t", in: &scope)
        writer.writeString(transport.rawValue)
        switch operation {
        case .set(let path, let value, let precondition):
            writer.writeKey("a", in: &scope)
            writer.writeString("p")
            writer.writeKey("p", in: &scope)
            writer.writeString(path.description)
            writer.writeKey("d", in: &scope)
            Self.write(value, into: &writer)
            switch precondition {
            case .hash(let hash)?:
                writer.writeKey("h", in: &scope)
                writer.writeString(hash)
            case .etag(let etag)?:
                writer.writeKey("e", in: &scope)
                writer.writeString(etag)
            case nil: break
            }
        case .update(let path, let entries):
            writer.writeKey("a", in: &scope)
            writer.writeString("m")
            writer.writeKey("p", in: &scope)
            writer.writeString(path.description)
            writer.writeKey("d", in: &scope)
            Self.write(entries, into: &writer)
        case .apply(let writes):
            writer.writeKey("a", in: &scope)
            writer.writeString("o")
            writer.writeKey("w", in: &scope)
            RelayWire.writeList(writes, into: &writer) { write, writer in
                var scope = writer.beginObject()
                writer.writeKey("p", in: &scope)
                writer.writeString(write.path.description)
                switch write.kind {
                case .set(let value):
                    writer.writeKey("d", in: &scope)
                    Self.write(value, into: &writer)
                case .update(let entries):
                    writer.writeKey("u", in: &scope)
                    Self.write(entries, into: &writer)
                }
                writer.writeKey("k", in: &scope)
                RelayWire.writeList(write.preserving, into: &writer) { path, writer in writer.writeString(path.description) }
                writer.endObject(scope)
            }
        }
        writer.endObject(scope)
    }

    private static func write(_ value: WriteValue, into writer: inout JSONWriter) {
        switch value {
        case .node(let node): writer.write(node, .export)
        case .json(let json): writer.write(json)
        }
    }

    private static func write(_ entries: [(DatabasePath, WriteValue)], into writer: inout JSONWriter) {
        var scope = writer.beginObject()
        for (path, value) in entries {
            writer.writeKey(path.description, in: &scope)
            write(value, into: &writer)
        }
        writer.endObject(scope)
    }

    /// The write `json` describes; its values are built and checked again, as a client's are.
    init(_ json: JSONValue) throws(RelayWire.Malformed) {
        switch json["c"] {
        case .object(let members)? where members.contains(where: { $0.key == "admin" }): caller = .admin
        case .object? where json["c"]?["auth"] != nil: caller = .client(auth: json["c"]!["auth"]!)
        default: throw RelayWire.Malformed(description: "a write without its caller")
        }
        guard case .string(let transportName)? = json["t"], let transport = WriteTransport(rawValue: transportName) else {
            throw RelayWire.Malformed(description: "a write without its transport")
        }
        self.transport = transport
        switch json["a"] {
        case .string("p")?:
            let path = try RelayWire.path(json["p"])
            let precondition: WritePrecondition? =
                if case .string(let hash)? = json["h"] {
                    .hash(hash)
                } else if case .string(let etag)? = json["e"] {
                    .etag(etag)
                } else {
                    nil
                }
            operation = .set(path, try Self.value(json["d"] ?? .null, at: path), precondition)
        case .string("m")?:
            let path = try RelayWire.path(json["p"])
            operation = .update(path, try Self.entries(json["d"], at: path))
        case .string("o")?:
            guard case .array(let writes)? = json["w"] else { throw RelayWire.Malformed(description: "onDisconnect writes missing") }
            operation = .apply(
                try writes.map { write throws(RelayWire.Malformed) in
                    let path = try RelayWire.path(write["p"])
                    var queued =
                        if let entries = write["u"] {
                            QueuedWrite.update(path, try Self.entries(entries, at: path))
                        } else {
                            QueuedWrite.set(path, try Self.value(write["d"] ?? .null, at: path))
                        }
                    if case .array(let kept)? = write["k"] {
                        queued.preserving = try kept.map { location throws(RelayWire.Malformed) in try RelayWire.path(location) }
                    }
                    return queued
                })
        default:
            throw RelayWire.Malformed(description: "a write of an unknown kind")
        }
    }

    private static func value(_ json: JSONValue, at path: DatabasePath) throws(RelayWire.Malformed) -> WriteValue {
        do {
            return try WriteValue.prepare(json, at: path)
        } catch {
            throw RelayWire.Malformed(description: "a value is invalid: \(error.message)")
        }
    }

    private static func entries(_ json: JSONValue?, at path: DatabasePath) throws(RelayWire.Malformed) -> [(DatabasePath, WriteValue)] {
        guard case .object(let members)? = json else { throw RelayWire.Malformed(description: "an update is not an object") }
        return try members.map { member throws(RelayWire.Malformed) in
            let relative = try RelayWire.path(.string(member.key))
            return (relative, try value(member.value, at: path.appending(relative)))
        }
    }
}
