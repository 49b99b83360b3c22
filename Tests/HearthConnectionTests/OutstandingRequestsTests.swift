import HearthCore
import Testing

@testable import HearthConnection

@Suite struct OutstandingRequestsTests {
    private func write(_ requests: inout OutstandingRequests, hash: String?) -> Int {
        let id = requests.makeID()
        requests.append(PendingWrite(id: id, kind: .put(hash: hash), path: .root, data: .null, completion: { _, _ in }))
        return id
    }

    @Test func lostConnectionDropsOnlySentTransactionsAndOnDisconnects() {
        var requests = OutstandingRequests()
        let plain = write(&requests, hash: nil)
        let transaction = write(&requests, hash: "")
        let unsentTransaction = write(&requests, hash: "abc")
        requests.markWriteSent(plain)
        requests.markWriteSent(transaction)
        let onDisconnect = requests.makeID()
        requests.append(PendingOnDisconnect(id: onDisconnect, action: .onDisconnectPut, path: .root, data: .null, completion: { _, _ in }))
        requests.markOnDisconnectSent(onDisconnect)

        let dropped = requests.connectionLost()
        #expect(dropped.writes.map(\.id) == [transaction])
        #expect(dropped.onDisconnects.map(\.id) == [onDisconnect])
        #expect(requests.writes.map(\.id) == [plain, unsentTransaction])
        #expect(requests.writes.allSatisfy { !$0.isSent })
    }

    @Test func purgeTakesAllWritesAndUnsentOnDisconnects() {
        var requests = OutstandingRequests()
        let first = write(&requests, hash: nil)
        let second = write(&requests, hash: nil)
        requests.markWriteSent(first)
        let sent = requests.makeID()
        requests.append(PendingOnDisconnect(id: sent, action: .onDisconnectPut, path: .root, data: .null, completion: { _, _ in }))
        requests.markOnDisconnectSent(sent)
        let unsent = requests.makeID()
        requests.append(PendingOnDisconnect(id: unsent, action: .onDisconnectCancel, path: .root, data: .null, completion: { _, _ in }))

        let purged = requests.purge()
        #expect(purged.writes.map(\.id) == [first, second])
        #expect(purged.onDisconnects.map(\.id) == [unsent])
        #expect(requests.writes.isEmpty)
        #expect(requests.onDisconnects.map(\.id) == [sent])
    }

    @Test func listensAreIdentifiedByPathQueryAndTag() {
        var requests = OutstandingRequests()
        let query = JSONValue.members([("l", .number(.int(1))), ("vf", .string("l"))])
        for (query, tag) in [(nil, nil), (query, 1), (query, 2)] as [(JSONValue?, Int?)] {
            let key = ListenKey(path: "/a".db, query: query, tag: tag)
            requests.add(ActiveListen(id: requests.makeID(), key: key, query: query, hash: { "" }, completion: { _, _ in }))
        }
        #expect(requests.listens.count == 3)
        #expect(requests.removeListen(ListenKey(path: "/a".db, query: query, tag: 1)) != nil)
        #expect(requests.removeListens(at: "/a".db).count == 2)
    }
}
