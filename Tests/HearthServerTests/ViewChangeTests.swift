import HearthCore
import NIOCore
import Synchronization
import Testing

@testable import HearthDatabaseServer
@testable import HearthServer

/// What a listener at a location is told about a write, and how SSE encodes it: no network.
@Suite struct ViewChangeTests {
    private func tree(_ json: String) throws -> Node {
        try NodeBuilder(timestamp: 0).build(JSONParser.parse(json), at: .root, existing: .null)
    }

    private func write(_ before: String, set path: String, to value: String) throws -> AppliedWrite {
        let old = try tree(before)
        let location = try DatabasePath(path)
        let node = try NodeBuilder(timestamp: 0).build(JSONParser.parse(value), at: location, existing: old.child(at: location))
        return AppliedWrite(path: location, kind: .set, before: old, after: old.updatingChild(at: location, with: node))
    }

    private func sse(_ change: ViewChange?) -> String? {
        change.map { String(buffer: SSEFormat(rendering: .plain).encode($0, location: .root, query: .all)) }
    }

    @Test func aWriteBelowTheLocationIsAPutAtItsRelativePath() throws {
        let change = ViewChange.forLocation(try DatabasePath("a"), write: try write("{\"a\":{\"b\":1}}", set: "a/c/d", to: "2"))
        #expect(sse(change) == "event: put\ndata: {\"path\":\"/c/d\",\"data\":2}\n\n")
    }

    @Test func aWriteAboveTheLocationIsAPutOfTheWholeLocation() throws {
        let change = ViewChange.forLocation(
            try DatabasePath("a/b"), write: try write("{\"a\":{\"b\":1}}", set: "a", to: "{\"b\":{\"x\":true}}"))
        #expect(sse(change) == "event: put\ndata: {\"path\":\"/\",\"data\":{\"x\":true}}\n\n")
    }

    @Test func unrelatedOrUnchangedDataSendsNothing() throws {
        #expect(ViewChange.forLocation(try DatabasePath("z"), write: try write("{\"a\":1}", set: "a", to: "2")) == nil)
        #expect(ViewChange.forLocation(try DatabasePath("a"), write: try write("{\"a\":1}", set: "a", to: "1")) == nil)
        #expect(
            ViewChange.forLocation(try DatabasePath("a/b"), write: try write("{\"a\":{\"b\":1,\"c\":1}}", set: "a", to: "{\"b\":1}")) == nil
        )
    }

    @Test func mergesBecomePatchesOrPutsDependingOnWhereTheyLand() throws {
        let before = try tree("{\"u\":{\"k\":{\"x\":0},\"y\":1},\"v\":1}")
        let paths = [try DatabasePath("u/k/x"), try DatabasePath("u/y"), try DatabasePath("v")]
        var after = before
        after = after.updatingChild(at: paths[0], with: .value(.number(.int(1))))
        after = after.updatingChild(at: paths[1], with: .null)
        after = after.updatingChild(at: paths[2], with: .value(.number(.int(2))))
        let merge = AppliedWrite(path: .root, kind: .merge(paths), before: before, after: after)
        #expect(
            sse(ViewChange.forLocation(.root, write: merge))
                == "event: patch\ndata: {\"path\":\"/\",\"data\":{\"u/k/x\":1,\"u/y\":null,\"v\":2}}\n\n")
        #expect(
            sse(ViewChange.forLocation(try DatabasePath("u"), write: merge))
                == "event: patch\ndata: {\"path\":\"/\",\"data\":{\"k/x\":1,\"y\":null}}\n\n")
        #expect(sse(ViewChange.forLocation(try DatabasePath("u/k/x"), write: merge)) == "event: put\ndata: {\"path\":\"/\",\"data\":1}\n\n")
        #expect(ViewChange.forLocation(try DatabasePath("w"), write: merge) == nil)
    }

    @Test func aSinkOverItsBoundClosesAndReportsOverflow() {
        final class Flag: Sendable { let raised = Mutex(false) }
        let flag = Flag()
        let sink = StreamSink(limit: 10) { flag.raised.withLock { $0 = true } }
        #expect(sink.send(ByteBuffer(string: "12345")))
        sink.consumed()
        // An event larger than the bound goes out when nothing waits; the bound is on what
        // waits behind the event being written.
        #expect(sink.send(ByteBuffer(string: "123456789012345")))
        #expect(sink.send(ByteBuffer(string: "1234567890")))
        #expect(!sink.send(ByteBuffer(string: "1")))
        #expect(flag.raised.withLock { $0 })
        #expect(!sink.send(ByteBuffer(string: "1")))
    }
}
