import HearthCore
import HearthEdge
import NIOCore

/// The text of the link between a namespace's owner and a relay: one JSON document per line.
///
/// From the owner, ``ReplicationMessage``s: `{"seq":…,"tree":…,"rules":…}` first,
/// `{"seq":…,"writes":[{"p":…,"m":[…]?,"c":[[path,node],…]},…]}` per batch, `{"rules":…}`, and
/// an empty line to say the owner is alive. Nodes are in the export format (priorities kept).
/// From a relay, the writes its clients made (``ForwardedWrite``), and the owner's answers.
enum RelayWire {
    /// Why a line could not be read.
    struct Malformed: Error, CustomStringConvertible {
        let description: String
    }

    // MARK: Replication

    /// `message` as one line.
    static func line(_ message: ReplicationMessage) -> ByteBuffer {
        var writer = JSONWriter()
        switch message {
        case .snapshot(let sequence, let tree, let rules):
            var scope = writer.beginObject()
            writer.writeKey("seq", in: &scope)
            writer.write(LeafValue.number(.int(sequence)))
            writer.writeKey("rules", in: &scope)
            writer.writeString(rules)
            writer.writeKey("tree", in: &scope)
            writer.write(tree, .export)
            writer.endObject(scope)
        case .batch(let batch):
            var scope = writer.beginObject()
            writer.writeKey("seq", in: &scope)
            writer.write(LeafValue.number(.int(batch.lastSequence)))
            writer.writeKey("writes", in: &scope)
            writeList(batch.writes, into: &writer) { write, writer in
                var scope = writer.beginObject()
                writer.writeKey("p", in: &scope)
                writer.writeString(write.shape.path.description)
                if let locations = write.shape.mergedLocations {
                    writer.writeKey("m", in: &scope)
                    writeList(locations, into: &writer) { location, writer in writer.writeString(location.description) }
                }
                writer.writeKey("c", in: &scope)
                writeList(write.changes, into: &writer) { change, writer in
                    writer.writeRaw("[")
                    writer.writeString(change.path.description)
                    writer.writeRaw(",")
                    writer.write(change.after, .export)
                    writer.writeRaw("]")
                }
                writer.endObject(scope)
            }
            writer.endObject(scope)
        case .rules(let source):
            writer.writeObject(key: "rules", string: source)
        case .keepAlive:
            break
        }
        writer.writeRaw("\n")
        return ByteBuffer(bytes: writer.bytes)
    }

    /// The message of one line (without its newline).
    static func message(_ line: [UInt8]) throws(Malformed) -> ReplicationMessage {
        guard !line.isEmpty else { return .keepAlive }
        let json: JSONValue
        do {
            json = try JSONParser.parse(line)
        } catch {
            throw Malformed(description: "a line is not JSON: \(error)")
        }
        if case .string(let rules)? = json["rules"], json["seq"] == nil { return .rules(rules) }
        guard case .number(.int(let sequence))? = json["seq"] else { throw Malformed(description: "a message without seq") }
        if let tree = json["tree"] {
            guard case .string(let rules)? = json["rules"] else { throw Malformed(description: "a snapshot without rules") }
            return .snapshot(sequence: sequence, tree: try node(tree, at: .root), rules: rules)
        }
        guard case .array(let writes)? = json["writes"] else { throw Malformed(description: "a batch without writes") }
        var replicated: [ReplicatedWrite] = []
        for write in writes {
            let path = try path(write["p"])
            var merged: [DatabasePath]?
            if case .array(let locations)? = write["m"] {
                merged = try locations.map { location throws(Malformed) in try self.path(location) }
            }
            guard case .array(let changes)? = write["c"] else { throw Malformed(description: "a write without changes") }
            var replaced: [(path: DatabasePath, after: Node)] = []
            for change in changes {
                guard case .array(let pair) = change, pair.count == 2 else { throw Malformed(description: "a change is not a pair") }
                let location = try self.path(pair[0])
                replaced.append((location, try node(pair[1], at: location)))
            }
            replicated.append(ReplicatedWrite(shape: .init(path: path, mergedLocations: merged), changes: replaced))
        }
        return .batch(ReplicatedBatch(lastSequence: sequence, writes: replicated))
    }

    // MARK: Forwarded writes

    /// The body a relay posts to the owner, `{"writes":[…]}`, of writes each encoded
    /// (``ForwardedWrite/encode(into:)``).
    static func body(_ writes: [[UInt8]]) -> ByteBuffer {
        var body = ByteBuffer(string: #"{"writes":["#)
        for (index, write) in writes.enumerated() {
            if index > 0 { body.writeString(",") }
            body.writeBytes(write)
        }
        body.writeString("]}")
        return body
    }

    /// The owner's answer: the sequence number every write answered is durable at, and each
    /// write's outcome, in order.
    static func answer(sequence: Int64, outcomes: [ForwardedWrite.Outcome]) -> ByteBuffer {
        var writer = JSONWriter()
        var scope = writer.beginObject()
        writer.writeKey("seq", in: &scope)
        writer.write(LeafValue.number(.int(sequence)))
        writer.writeKey("outcomes", in: &scope)
        writeList(outcomes, into: &writer) { outcome, writer in writer.write(outcome.json) }
        writer.endObject(scope)
        return ByteBuffer(bytes: writer.bytes)
    }

    /// An answer read back.
    static func answer(_ json: JSONValue) throws(Malformed) -> (sequence: Int64, outcomes: [ForwardedWrite.Outcome]) {
        guard case .number(.int(let sequence))? = json["seq"], case .array(let outcomes)? = json["outcomes"] else {
            throw Malformed(description: "an answer without seq or outcomes")
        }
        return (sequence, try outcomes.map { outcome throws(Malformed) in try ForwardedWrite.Outcome(outcome) })
    }

    // MARK: Parts

    static func writeList<Element>(
        _ elements: [Element], into writer: inout JSONWriter, _ writeElement: (Element, inout JSONWriter) -> Void
    ) {
        writer.writeRaw("[")
        for (index, element) in elements.enumerated() {
            if index > 0 { writer.writeRaw(",") }
            writeElement(element, &writer)
        }
        writer.writeRaw("]")
    }

    static func path(_ json: JSONValue?) throws(Malformed) -> DatabasePath {
        guard case .string(let text)? = json, let path = try? DatabasePath(writeLocation: text) else {
            throw Malformed(description: "a path is missing or invalid")
        }
        return path
    }

    private static func node(_ json: JSONValue, at path: DatabasePath) throws(Malformed) -> Node {
        do {
            return try NodeBuilder(timestamp: 0).build(json, at: path, existing: .null)
        } catch {
            throw Malformed(description: "a node is invalid: \(error.message)")
        }
    }
}
