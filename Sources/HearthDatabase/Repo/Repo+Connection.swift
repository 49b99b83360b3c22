import Foundation
@_spi(HearthSDK) import HearthApp
import HearthConnection
import HearthCore

extension Repo: PersistentConnectionDelegate {
    func connection(
        _ connection: PersistentConnection, didReceiveData data: JSONValue, at path: DatabasePath, isMerge: Bool, tag: Int?
    ) {
        let overwrites: [(path: DatabasePath, node: Node)]
        do {
            if isMerge {
                guard case .object(let members) = data else { return }
                overwrites = try members.map { member in
                    (try DatabasePath(writeLocation: member.key), try Node.fromServer(member.value))
                }
            } else {
                overwrites = [(.root, try Node.fromServer(data))]
            }
        } catch {
            logger.warning("Ignoring data the server sent for \(path) that cannot be read: \(error)")
            return
        }
        var batch = EventBatch()
        syncTree.applyServerData(at: path, overwrites: overwrites, isMerge: isMerge, tag: tag, into: &batch)
        raise(batch)
        rerunTransactions(relatedTo: path)
    }

    func connection(_ connection: PersistentConnection, didRevokeListenAt path: DatabasePath, query: JSONValue?) {
        var batch = EventBatch()
        syncTree.listensRevoked(at: path, error: DatabaseErrors.listenCancelled, into: &batch)
        raise(batch)
        updateListens()
    }

    func connectionDidConnect(_ connection: PersistentConnection, serverTimeOffset milliseconds: Int64) {
        serverTimeOffset = milliseconds
        updatePushIDOffset()
        var batch = EventBatch()
        syncTree.setInfo("serverTimeOffset", .value(.number(.int(milliseconds))), into: &batch)
        syncTree.setInfo("connected", .value(.bool(true)), into: &batch)
        raise(batch)
    }

    func connectionDidDisconnect(_ connection: PersistentConnection) {
        var batch = EventBatch()
        syncTree.setInfo("connected", .value(.bool(false)), into: &batch)
        raise(batch)
        runOnDisconnectWrites()
    }

    /// The server refused or revoked the credential (an expired token, say); the connection
    /// waits for a new one: a refreshed token of the app's auth, else none (signed out), as
    /// Firebase's SDKs do when no new token can be had.
    func connection(_ connection: PersistentConnection, didRevokeAuth status: String, reason: String?) {
        guard let provider = database.app?.authTokenProvider else {
            connection.setAuthToken(nil)
            return
        }
        Task { [self] in
            let token = try? await provider.idToken(forcingRefresh: true)
            queue.async { [self] in connection.setAuthToken(token) }
        }
    }

    func connection(_ connection: PersistentConnection, securityDebug message: String) {
        logger.info("Security rules: \(message)")
    }
}
