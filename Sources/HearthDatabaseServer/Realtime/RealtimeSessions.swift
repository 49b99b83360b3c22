import AsyncHTTPClient
import Crypto
import HearthCore
import HearthEdge
import Metrics
import NIOCore
import Synchronization

/// The live realtime sessions of a server by session id, so that a client reconnecting with
/// `ls=<id>` ends its previous session at once (protocol §3.6): its onDisconnect writes run now
/// instead of when a half-open socket or an abandoned long-poll session finally times out.
///
/// In a cluster, the previous session may live on another node (a relay, or the owner a long
/// poll was passed on to): a session id then names the node that made it, marked with the
/// cluster's secret, and a node asked to end a session of another node asks that node
/// (``RelayEndpoint``). Only a genuine mark is followed, so a client cannot make a node send
/// requests where it likes.
///
/// `count` follows how many are live.
package final class RealtimeSessions: Sendable {
    /// This node of a cluster: where it serves, and the secret its nodes share.
    package struct ClusterNode: Sendable {
        package let address: String
        package let secret: String

        package init(address: String, secret: String) {
            self.address = address
            self.secret = secret
        }
    }

    private let enders = Mutex<[String: @Sendable () -> Void]>([:])
    private let count: Meter
    private let cluster: ClusterNode?

    init(count: Meter, cluster: ClusterNode? = nil) {
        self.count = count
        self.cluster = cluster
    }

    /// Registers a session and how to end it.
    func register(_ sessionID: String, end: @escaping @Sendable () -> Void) {
        enders.withLock { $0[sessionID] = end }
        count.increment()
    }

    func remove(_ sessionID: String) {
        _ = take(sessionID)
    }

    /// A new random id (a long-poll password, or outside a cluster a session id): 32 characters
    /// from `[A-Za-z0-9]`, as clients put it in URLs unescaped.
    static func makeID() -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
        var generator = SystemRandomNumberGenerator()
        return String((0..<32).map { _ in alphabet[Int(generator.next(upperBound: UInt64(alphabet.count)))] })
    }

    /// A new session id. In a cluster: a random id, `X`, this node's address in lowercase hex,
    /// `X`, and the mark (an HMAC of the two with the cluster's secret) in lowercase hex.
    func makeSessionID() -> String {
        let random = Self.makeID()
        guard let cluster else { return random }
        let address = Hex.encode(Array(cluster.address.utf8))
        return "\(random)X\(address)X\(Self.mark(random, address, secret: cluster.secret))"
    }

    private static func mark(_ random: String, _ address: String, secret: String) -> String {
        let code = HMAC<SHA256>.authenticationCode(
            for: Array("\(random)X\(address)".utf8), using: SymmetricKey(data: Array(secret.utf8)))
        return Hex.encode(Array(code).prefix(16))
    }

    /// Ends session `sessionID`, if it is still live: here, or on the node of the cluster that
    /// made it.
    func end(_ sessionID: String) {
        if let end = take(sessionID) {
            end()
        } else if let cluster, let address = node(of: sessionID, in: cluster), address != cluster.address {
            Task { await Self.endRemotely(sessionID, at: address, secret: cluster.secret) }
        }
    }

    /// The address a cluster session id names, when its mark is genuine.
    func node(of sessionID: String, in cluster: ClusterNode) -> String? {
        let parts = sessionID.split(separator: "X", omittingEmptySubsequences: false)
        guard parts.count >= 3 else { return nil }
        let random = parts.dropLast(2).joined(separator: "X")
        let (address, mark) = (String(parts[parts.count - 2]), parts[parts.count - 1])
        guard let addressBytes = Hex.decode(address),
            // Compared as digests, in constant time.
            SHA256.hash(data: Array(Self.mark(random, address, secret: cluster.secret).utf8)) == SHA256.hash(data: Array(mark.utf8))
        else { return nil }
        return String(decoding: addressBytes, as: UTF8.self)
    }

    private static func endRemotely(_ sessionID: String, at address: String, secret: String) async {
        var request = HTTPClientRequest(url: "http://\(address)\(RelayEndpoint.endSessionPath)?s=\(sessionID)")
        request.method = .POST
        request.headers.add(name: OwnerLink.secretHeader, value: secret)
        _ = try? await ClusterHTTPClient.shared.execute(request, deadline: .now() + .seconds(5))
    }

    private func take(_ sessionID: String) -> (@Sendable () -> Void)? {
        guard let ender = enders.withLock({ $0.removeValue(forKey: sessionID) }) else { return nil }
        count.decrement()
        return ender
    }
}
