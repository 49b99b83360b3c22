import Metrics
import Testing

@testable import HearthDatabaseServer

/// In a cluster a session id names the node that made it, and only an id marked with the
/// cluster's secret is taken to name one.
@Suite struct ClusterSessionIDTests {
    private let node = RealtimeSessions.ClusterNode(address: "10.0.0.7:9000", secret: "cluster secret")
    private var sessions: RealtimeSessions { RealtimeSessions(count: Meter(label: "sessions"), cluster: node) }

    @Test func aSessionIDNamesItsNodeOnlyWithTheClustersMark() throws {
        let id = sessions.makeSessionID()
        #expect(id.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) })
        #expect(sessions.node(of: id, in: node) == "10.0.0.7:9000")
        // Another cluster's secret, a changed mark, another address with the same mark.
        #expect(sessions.node(of: id, in: .init(address: node.address, secret: "other")) == nil)
        let parts = id.split(separator: "X", omittingEmptySubsequences: false)
        let mark = parts[parts.count - 1]
        let tampered = id.dropLast(mark.count) + String(repeating: "0", count: mark.count)
        #expect(sessions.node(of: String(tampered), in: node) == nil)
        let elsewhere = parts.dropLast(2).joined(separator: "X") + "X" + "31302e302e302e383a39303030" + "X" + mark
        #expect(sessions.node(of: elsewhere, in: node) == nil)
        #expect(sessions.node(of: RealtimeSessions.makeID(), in: node) == nil)
    }
}
