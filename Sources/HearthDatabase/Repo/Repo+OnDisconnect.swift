import Foundation
import HearthCore

extension Repo {
    /// onDisconnect set / remove at `path`.
    func onDisconnectSet(_ json: JSONValue, at path: DatabasePath, completion: WriteCompletion?) {
        queue.async { [self] in
            connection.onDisconnectPut(path: path, data: json) { [weak self] status, reason in
                guard let self else { return }
                if status == "ok" { remember(json, at: path) }
                onDisconnectAnswered(status, reason, completion)
            }
        }
    }

    /// onDisconnect update at `path`; an empty update completes at once.
    func onDisconnectUpdate(_ entries: [(path: DatabasePath, json: JSONValue)], at path: DatabasePath, completion: WriteCompletion?) {
        queue.async { [self] in
            guard !entries.isEmpty else {
                completeNow(completion, error: nil)
                return
            }
            let data = JSONValue.object(entries.map { JSONMember(key: $0.path.slashless, value: $0.json) })
            connection.onDisconnectMerge(path: path, data: data) { [weak self] status, reason in
                guard let self else { return }
                if status == "ok" {
                    for entry in entries { remember(entry.json, at: path.appending(entry.path)) }
                }
                onDisconnectAnswered(status, reason, completion)
            }
        }
    }

    /// Cancels the onDisconnect writes at and below `path`.
    func cancelOnDisconnect(at path: DatabasePath, completion: WriteCompletion?) {
        queue.async { [self] in
            connection.onDisconnectCancel(path: path) { [weak self] status, reason in
                guard let self else { return }
                if status == "ok" { remember(nil, at: path) }
                onDisconnectAnswered(status, reason, completion)
            }
        }
    }

    /// Runs an onDisconnect request's completion; the connection logs refusals.
    private func onDisconnectAnswered(_ status: String, _ reason: String?, _ completion: WriteCompletion?) {
        let error: NSError? = status == "ok" ? nil : DatabaseErrors.error(status: status, reason: reason)
        if let completion { callbackQueue.async { completion(error) } }
    }

    /// Keeps the local copy of accepted onDisconnect writes (spec §17.10.5): a value replaces
    /// its location (inside an ancestor's remembered value when there is one); `nil` forgets
    /// the location and everything below it.
    private func remember(_ json: JSONValue?, at path: DatabasePath) {
        if let ancestor = onDisconnectWrites.valuesOnPath(to: path).first(where: { $0.path != path }),
            let relative = ancestor.path.relativePath(to: path)
        {
            let updated = ancestor.value.setting(json, at: relative.keys[...]) ?? .null
            onDisconnectWrites.set(updated, at: ancestor.path)
        } else {
            onDisconnectWrites.setSubtree(json.map { PathTree(value: $0) }, at: path)
        }
    }

    /// After a connection loss, applies this client's accepted onDisconnect writes locally as
    /// server data, as the server does, and forgets them (spec §17.10.4).
    func runOnDisconnectWrites() {
        let writes = onDisconnectWrites.valuesTopDown()
        guard !writes.isEmpty else { return }
        onDisconnectWrites = PathTree()
        var batch = EventBatch()
        let builder = NodeBuilder(timestamp: serverTime)
        for (path, json) in writes {
            do throws(DataError) {
                let node = try builder.build(json, at: path, existing: syncTree.latestValue(at: path).node)
                syncTree.applyServerData(at: path, overwrites: [(.root, node)], isMerge: false, tag: nil, into: &batch)
            } catch {
                logger.warning("Cannot apply the onDisconnect write at \(path) locally: \(error.message)")
            }
        }
        raise(batch)
        for (path, _) in writes {
            abortAndRerunTransactions(relatedTo: path)
        }
    }
}
