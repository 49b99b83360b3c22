import Foundation
import HearthCore
import HearthEdge
import HearthRules
import Logging
import NIOCore
import Synchronization
import Testing

@testable import HearthDatabaseServer
@testable import HearthServer

/// The engine applies the rules to every operation of a client caller, and revokes listeners
/// that lose read access.
@Suite struct RulesEnforcementTests {
    static let ownerOnly = """
        {"rules": {"users": {"$uid": {".read": "auth != null && auth.uid == $uid", ".write": "auth != null && auth.uid == $uid",
          "name": {".validate": "newData.isString()"}}}}}
        """
    static let alice = Caller.client(auth: .object([JSONMember(key: "uid", value: .string("alice"))]))
    static let bob = Caller.client(auth: .object([JSONMember(key: "uid", value: .string("bob"))]))

    /// Records what the engine sends a listener.
    final class RecordingSink: EventSink {
        let events = Mutex(0)
        let revoked = Mutex(false)
        func send(_ event: ByteBuffer) -> Bool {
            events.withLock { $0 += 1 }
            return true
        }
        func revoke() { revoked.withLock { $0 = true } }
    }

    private func withEngine(_ body: (NamespaceEngine) async throws -> Void) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-rules-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let service = DatabaseService(
            dataDirectory: directory,
            rulesPolicy: RulesPolicy(fileRules: try RulesDocument(source: Self.ownerOnly), fallback: .open, explainsDenials: false),
            logger: Logger(label: "test"))
        let engine = try await service.namespace("rules")
        do {
            try await body(engine)
        } catch {
            await service.close()
            throw error
        }
        await service.close()
    }

    @Test func deniedWritesChangeNothing() async throws {
        try await withEngine { engine in
            _ = try await engine.set(DatabasePath("users/alice/name"), .string("Alice"), as: Self.alice)
            await #expect(throws: DatabaseError.permissionDenied(explanation: nil)) {
                try await engine.set(DatabasePath("users/alice/name"), .string("Mallory"), as: Self.bob)
            }
            await #expect(throws: DatabaseError.permissionDenied(explanation: nil)) {
                try await engine.update(
                    DatabasePath("users/alice"), [(DatabasePath("name"), .number(.int(1)))], as: Self.alice)
            }
            await #expect(throws: DatabaseError.permissionDenied(explanation: nil)) {
                try await engine.push(DatabasePath("users/bob"), .json(.string("x")), as: .signedOut)
            }
            #expect(
                try await engine.read(DatabasePath("users"))
                    == .build(children: [
                        (ChildKey("alice"), .build(children: [(ChildKey("name"), .value(.string("Alice")))]))
                    ]))
            // The admin caller bypasses the rules.
            _ = try await engine.set(DatabasePath("users/alice/name"), .number(.int(1)), as: .admin)
        }
    }

    @Test func queuedWritesDeniedWhenTheyRunAreSkipped() async throws {
        try await withEngine { engine in
            let writes: [QueuedWrite] = [
                .set(try DatabasePath("users/alice/name"), .json(.string("Alice"))),
                .set(try DatabasePath("users/bob/name"), .json(.string("Bob"))),
            ]
            try await engine.apply(writes, as: Self.alice)
            #expect(try await engine.read(DatabasePath("users/alice/name")) == .value(.string("Alice")))
            #expect(try await engine.read(DatabasePath("users/bob")) == .null)
        }
    }

    @Test func listenersLosingAccessAreRevoked() async throws {
        try await withEngine { engine in
            let sink = RecordingSink()
            let other = RecordingSink()
            let listening = try await engine.addListener(
                at: DatabasePath("users/alice"), query: .all, format: RealtimeEventFormat(), sink: sink, as: Self.alice)
            _ = try await engine.addListener(
                at: DatabasePath("users/bob"), query: .all, format: RealtimeEventFormat(), sink: other, as: Self.bob)
            await #expect(throws: DatabaseError.permissionDenied(explanation: nil)) {
                try await engine.addListener(
                    at: DatabasePath("users/alice"), query: .all, format: RealtimeEventFormat(), sink: RecordingSink(), as: Self.bob)
            }
            // Signing out revokes only that connection's listener.
            await engine.changeCaller(of: [listening.id], to: .signedOut)
            #expect(sink.revoked.withLock { $0 })
            #expect(!other.revoked.withLock { $0 })
            // New rules that close everything revoke the rest; admins keep listening.
            let admin = RecordingSink()
            _ = try await engine.addListener(
                at: DatabasePath("users"), query: .all, format: RealtimeEventFormat(), sink: admin, as: .admin)
            await engine.useRules(try RulesDocument(source: #"{"rules": {}}"#))
            #expect(other.revoked.withLock { $0 })
            #expect(!admin.revoked.withLock { $0 })
            // A revoked listener receives nothing more.
            let before = sink.events.withLock { $0 }
            _ = try await engine.set(DatabasePath("users/alice/name"), .string("A"), as: .admin)
            #expect(sink.events.withLock { $0 } == before)
            #expect(admin.events.withLock { $0 } == 2)
        }
    }

    @Test func indexesDeclaredByRulesServeQueriesAfterLaterWrites() async throws {
        try await withEngine { engine in
            let scores = try DatabasePath("scores")
            for (key, score) in [("a", 3), ("b", 1), ("c", 2)] {
                _ = try await engine.set(
                    scores.child(ChildKey(key)), .object([JSONMember(key: "v", value: .number(.int(Int64(score))))]), as: .admin)
            }
            // The index is built here, for the data already there, then kept current.
            await engine.useRules(try RulesDocument(source: #"{"rules": {".read": true, "scores": {".indexOn": "v"}}}"#))
            _ = try await engine.set(try DatabasePath("scores/a/v"), .number(.int(0)), as: .admin)
            _ = try await engine.set(try DatabasePath("scores/d"), .object([JSONMember(key: "v", value: .number(.int(5)))]), as: .admin)
            let query = QueryParams(index: .child(try DatabasePath("v")), limit: 3)
            let keys = try await engine.query(scores, query, as: .signedOut).map(\.key.string)
            #expect(keys == ["a", "b", "c"])
        }
    }
}
