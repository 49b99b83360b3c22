import Foundation
import HearthCore

extension Repo {
    /// `getData()` (spec §17.7): the local value when it is complete, else the server's answer,
    /// which also updates observers of the location; offline, the disk cache's copy if any.
    func getData(_ query: QuerySpec, completion: @escaping @Sendable ((any Error)?, DataSnapshot?) -> Void) {
        queue.async { [self] in
            let local = syncTree.latestValue(at: query.path)
            if local.isComplete {
                let snapshot = makeSnapshot(query.path, query.window(of: local.node), index: query.params.index)
                callbackQueue.async { completion(nil, snapshot) }
                return
            }
            connection.get(path: query.path, query: query.wireObject) { [weak self] result in
                guard let self else { return }
                switch result {
                case .success(let json):
                    guard let node = try? Node.fromServer(json) else {
                        callbackQueue.async { completion(DatabaseErrors.error(status: "invalid_data"), nil) }
                        return
                    }
                    var batch = EventBatch()
                    if query.loadsAllData {
                        syncTree.applyServerData(at: query.path, overwrites: [(.root, node)], isMerge: false, tag: nil, into: &batch)
                    }
                    let snapshot = makeSnapshot(query.path, query.window(of: node), index: query.params.index)
                    batch.callback { completion(nil, snapshot) }
                    raise(batch)
                case .failure(.server(let status, let message)):
                    callbackQueue.async { completion(DatabaseErrors.error(status: status, reason: message), nil) }
                case .failure(.offline):
                    if let cached = diskCache?.node(at: query.path), !cached.isNull {
                        let snapshot = makeSnapshot(query.path, query.window(of: cached), index: query.params.index)
                        callbackQueue.async { completion(nil, snapshot) }
                        return
                    }
                    let error = NSError(
                        domain: DatabaseErrors.domain, code: 1,
                        userInfo: [
                            NSLocalizedDescriptionKey:
                                "Unable to get latest value for query \(query.path), client offline with no active listeners and no matching disk cache entries"
                        ])
                    callbackQueue.async { completion(error, nil) }
                }
            }
        }
    }
}
