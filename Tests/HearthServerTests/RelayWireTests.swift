import HearthCore
import HearthEdge
import NIOCore
import Testing

@testable import HearthDatabaseServer

/// What an owner sends its relays and what relays send back survive the trip unchanged, and a
/// replayed write leaves a relay's tree as it left the owner's.
@Suite struct RelayWireTests {
    private func node(_ text: String, at path: DatabasePath = .root) throws -> Node {
        try NodeBuilder(timestamp: 0).build(try JSONParser.parse(text), at: path, existing: .null)
    }

    private func path(_ text: String) throws -> DatabasePath { try DatabasePath(writeLocation: text) }

    /// The message a line says, read back after writing.
    private func roundTrip(_ message: ReplicationMessage) throws -> ReplicationMessage {
        let line = Array(RelayWire.line(message).readableBytesView)
        #expect(line.last == 0x0A)
        #expect(!line.dropLast().contains(0x0A))
        return try RelayWire.message(Array(line.dropLast()))
    }

    @Test func aSnapshotKeepsItsTreeWithPrioritiesAndItsRules() throws {
        let tree = try node(#"{"a":{".value":"nul\u0000 and \n",".priority":1},"b":[1,2.5,false]}"#)
        let rules = "{\n  \"rules\": {\".read\": true}\n}"
        guard case .snapshot(let sequence, let read, let readRules) = try roundTrip(.snapshot(sequence: 42, tree: tree, rules: rules))
        else {
            Issue.record("not a snapshot")
            return
        }
        #expect(sequence == 42 && read == tree && readRules == rules)
    }

    @Test func aReplayedBatchLeavesTheTreeTheOwnerHad() throws {
        let before = try node(#"{"users":{"alice":{"name":"Alice","age":30}},"count":1}"#)
        let update = QueuedWrite.update(
            try path("/users"),
            [(try path("alice/age"), .json(.number(.int(31)))), (try path("bob"), .json(try JSONParser.parse(#"{"name":"Bob"}"#)))])
        let afterUpdate = try #require(try update.applied(to: before, timestamp: 0))
        let set = QueuedWrite.set(try path("/count"), .json(.null))
        let afterSet = try #require(try set.applied(to: afterUpdate, timestamp: 0))
        let writes = [
            ReplicatedWrite(
                shape: .init(path: try path("/users"), mergedLocations: update.replacedLocations),
                changes: LoggedWrite.changes(from: before, to: afterUpdate, at: update.replacedLocations, largeNodes: 10_000)
                    .map { ($0.path, $0.after) }),
            ReplicatedWrite(
                shape: .init(path: try path("/count"), mergedLocations: nil),
                changes: LoggedWrite.changes(from: afterUpdate, to: afterSet, at: set.replacedLocations, largeNodes: 10_000)
                    .map { ($0.path, $0.after) }),
        ]
        guard case .batch(let batch) = try roundTrip(.batch(ReplicatedBatch(lastSequence: 7, writes: writes))) else {
            Issue.record("not a batch")
            return
        }
        #expect(batch.lastSequence == 7)
        #expect(batch.writes.map(\.shape.path) == [try path("/users"), try path("/count")])
        #expect(batch.writes[0].shape.mergedLocations == [try path("/users/alice/age"), try path("/users/bob")])
        #expect(batch.writes[1].shape.mergedLocations == nil)
        var replica = before
        for write in batch.writes { replica = write.applied(to: replica).after }
        #expect(replica == afterSet)
    }

    @Test func rulesAndKeepAlivesAreLinesToo() throws {
        guard case .rules(let source) = try roundTrip(.rules(#"{"rules":{}}"#)) else {
            Issue.record("not rules")
            return
        }
        #expect(source == #"{"rules":{}}"#)
        guard case .keepAlive = try roundTrip(.keepAlive) else {
            Issue.record("not a keep-alive")
            return
        }
    }

    @Test func malformedLinesAreRefused() {
        for line in [
            #"not json"#, #"{"writes":[]}"#, #"{"seq":1}"#, #"{"seq":1,"writes":[{"p":"/a"}]}"#,
            #"{"seq":1,"writes":[{"p":"/a.b","c":[]}]}"#,
        ] {
            #expect(throws: RelayWire.Malformed.self) { try RelayWire.message(Array(line.utf8)) }
        }
    }

    @Test func forwardedWritesKeepTheirCallerTransportAndEveryPart() throws {
        let alice = Caller.client(auth: try JSONParser.parse(#"{"uid":"alice","token":{"email":"a@example.com"}}"#))
        var presence = QueuedWrite.set(try path("/presence"), .json(try JSONParser.parse(#"{".sv":"timestamp"}"#)))
        presence.preserving = [try path("/presence/kept")]
        let writes = [
            ForwardedWrite(
                caller: alice, transport: .realtime,
                operation: .set(try path("/a/.priority"), .json(.number(.int(3))), .hash("h4sh"))),
            ForwardedWrite(
                caller: .admin, transport: .realtime,
                operation: .update(try path("/b"), [(try path("c/d"), .node(try node(#"{"e":true}"#))), (try path("f"), .json(.null))])),
            ForwardedWrite(
                caller: .signedOut, transport: .onDisconnect,
                operation: .apply([presence])),
        ]
        let encoded = writes.map { write in
            var writer = JSONWriter()
            write.encode(into: &writer)
            return writer.bytes
        }
        let body = try JSONParser.parse(Array(RelayWire.body(encoded).readableBytesView))
        guard case .array(let items)? = body["writes"] else {
            Issue.record("no writes")
            return
        }
        let read = try items.map { try ForwardedWrite($0) }
        #expect(read.map(\.caller) == [alice, .admin, .signedOut])
        #expect(read.map(\.transport) == [.realtime, .realtime, .onDisconnect])
        guard case .set(let setPath, let value, let precondition) = read[0].operation else {
            Issue.record("not a set")
            return
        }
        #expect(setPath == (try path("/a/.priority")) && precondition == .hash("h4sh"))
        if case .json(let json) = value { #expect(json == .number(.int(3))) } else { Issue.record("a priority stays JSON") }
        guard case .update(let updatePath, let entries) = read[1].operation else {
            Issue.record("not an update")
            return
        }
        let expectedEntries = [try path("c/d"), try path("f")]
        #expect(updatePath == (try path("/b")) && entries.map(\.0) == expectedEntries)
        guard case .apply(let queued) = read[2].operation else {
            Issue.record("not onDisconnect writes")
            return
        }
        #expect(queued.map(\.path) == [presence.path] && queued[0].preserving == presence.preserving)
    }

    @Test func outcomesKeepWhatTheSessionAnswers() throws {
        let outcomes: [ForwardedWrite.Outcome] = [
            .written, .preconditionFailed, .refused(.permissionDenied(explanation: nil)),
            .refused(.permissionDenied(explanation: "Attempt to write /a")), .refused(.invalidData(.unparseable)),
        ]
        let answer = try JSONParser.parse(Array(RelayWire.answer(sequence: 9, outcomes: outcomes).readableBytesView))
        let (sequence, read) = try RelayWire.answer(answer)
        #expect(sequence == 9)
        #expect(Array(read.prefix(4)) == Array(outcomes.prefix(4)))
        #expect(read[4] == .refused(.refusedByOwner(DatabaseError.invalidData(.unparseable).message)))
    }

    @Test func linesAreCutWhereverTheChunksFall() {
        var splitter = LineSplitter()
        #expect(splitter.lines(in: ByteBuffer(string: "ab")).isEmpty)
        #expect(splitter.lines(in: ByteBuffer(string: "c\n\nde")) == [Array("abc".utf8), []])
        #expect(splitter.lines(in: ByteBuffer(string: "f\n")) == [Array("def".utf8)])
    }
}
