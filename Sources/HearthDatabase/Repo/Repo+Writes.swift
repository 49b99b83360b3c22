import Foundation
import HearthCore

/// How a write reports back: an error, or nil when the server accepted it.
typealias WriteCompletion = @Sendable ((any Error)?) -> Void

extension Repo {
    /// A set at `path` (`setValue`, `removeValue`, `setPriority`) of `json`, validated by the
    /// caller (spec §17.2.2).
    func set(_ json: JSONValue, at path: DatabasePath, completion: WriteCompletion?) {
        queue.async { [self] in
            let node: Node
            do throws(DataError) {
                node = try NodeBuilder(timestamp: serverTime).build(
                    json, at: path, existing: syncTree.latestValue(at: path).node)
            } catch {
                completeNow(completion, error: DatabaseErrors.invalidArgument(error.message))
                return
            }
            let id = nextWriteID
            nextWriteID += 1
            diskCache?.saveWrite(DiskCache.StoredWrite(id: id, path: path, kind: .overwrite, json: json))
            var batch = EventBatch()
            syncTree.applyUserWrite(UserWrite(id: id, path: path, change: .overwrite(node), isVisible: true), into: &batch)
            raise(batch)
            sendSet(id: id, json, at: path, completion: completion)
            abortAndRerunTransactions(relatedTo: path)
        }
    }

    private func sendSet(id: Int, _ json: JSONValue, at path: DatabasePath, completion: WriteCompletion?) {
        connection.put(path: path, data: json) { [weak self] status, reason in
            self?.writeAnswered(id: id, path: path, status: status, reason: reason, completion: completion)
        }
    }

    private func sendUpdate(id: Int, _ data: JSONValue, at path: DatabasePath, completion: WriteCompletion?) {
        connection.merge(path: path, data: data) { [weak self] status, reason in
            self?.writeAnswered(id: id, path: path, status: status, reason: reason, completion: completion)
        }
    }

    /// A multi-path update at `path`: each entry's path is relative to it (spec §17.2.2).
    func update(_ entries: [(path: DatabasePath, json: JSONValue)], at path: DatabasePath, completion: WriteCompletion?) {
        queue.async { [self] in
            guard !entries.isEmpty else {
                completeNow(completion, error: nil)
                return
            }
            var resolved: [(path: DatabasePath, node: Node)] = []
            let builder = NodeBuilder(timestamp: serverTime)
            for entry in entries {
                let target = path.appending(entry.path)
                do throws(DataError) {
                    resolved.append(
                        (entry.path, try builder.build(entry.json, at: target, existing: syncTree.latestValue(at: target).node)))
                } catch {
                    completeNow(completion, error: DatabaseErrors.invalidArgument(error.message))
                    return
                }
            }
            let id = nextWriteID
            nextWriteID += 1
            let data = JSONValue.object(entries.map { JSONMember(key: $0.path.slashless, value: $0.json) })
            diskCache?.saveWrite(DiskCache.StoredWrite(id: id, path: path, kind: .merge, json: data))
            var batch = EventBatch()
            syncTree.applyUserWrite(UserWrite(id: id, path: path, change: .merge(resolved), isVisible: true), into: &batch)
            raise(batch)
            sendUpdate(id: id, data, at: path, completion: completion)
            abortAndRerunTransactions(relatedTo: path, changing: entries.map { path.appending($0.path) })
        }
    }

    /// The server's answer to a set or update: the write leaves the write tree (reverted when
    /// refused), then its completion runs (spec §17.3). The connection logs refusals.
    private func writeAnswered(id: Int, path: DatabasePath, status: String, reason: String?, completion: WriteCompletion?) {
        diskCache?.removeWrite(id: id)
        var batch = EventBatch()
        syncTree.removeUserWrite(id: id, into: &batch)
        let error: NSError? = status == "ok" ? nil : DatabaseErrors.error(status: status, reason: reason)
        if let completion { batch.callback { completion(error) } }
        raise(batch)
        if error != nil { rerunTransactions(relatedTo: path) }
    }

    /// Runs a completion on the callback queue without a server round trip; an error without a
    /// completion to hear it is logged.
    func completeNow(_ completion: WriteCompletion?, error: (any Error)?) {
        guard let completion else {
            if let error { logger.error("\(error.localizedDescription)") }
            return
        }
        let error = error.map { $0 as NSError }
        callbackQueue.async { completion(error) }
    }

    /// `purgeOutstandingWrites()` (spec §17.10.8): every pending write is dropped and reverted,
    /// transactions abort, and queued requests complete with `write_canceled`.
    func purgeOutstandingWrites() {
        queue.async { [self] in
            diskCache?.removeAllWrites()
            var batch = EventBatch()
            _ = syncTree.removeAllUserWrites(into: &batch)
            raise(batch)
            abortAllTransactions(status: "write_canceled")
            connection.purgeOutstandingWrites()
        }
    }

    /// Re-applies and re-sends the writes a previous run left unacknowledged on disk, in order;
    /// their completions died with that run (spec §17.11.4).
    func restoreWrites() {
        guard let stored = diskCache?.loadWrites(), !stored.isEmpty else { return }
        var batch = EventBatch()
        let builder = NodeBuilder(timestamp: serverTime)
        for write in stored {
            let change: UserWrite.Change
            do throws(DataError) {
                switch write.kind {
                case .overwrite:
                    change = .overwrite(try builder.build(write.json, at: write.path, existing: syncTree.latestValue(at: write.path).node))
                case .merge:
                    guard case .object(let members) = write.json else { continue }
                    var entries: [(path: DatabasePath, node: Node)] = []
                    for member in members {
                        guard let relative = try? DatabasePath(writeLocation: member.key) else { continue }
                        let target = write.path.appending(relative)
                        entries.append(
                            (relative, try builder.build(member.value, at: target, existing: syncTree.latestValue(at: target).node)))
                    }
                    change = .merge(entries)
                }
            } catch {
                logger.warning("Dropping a stored write to \(write.path) that cannot be applied: \(error.message)")
                diskCache?.removeWrite(id: write.id)
                continue
            }
            syncTree.applyUserWrite(UserWrite(id: write.id, path: write.path, change: change, isVisible: true), into: &batch)
            switch write.kind {
            case .overwrite: sendSet(id: write.id, write.json, at: write.path, completion: nil)
            case .merge: sendUpdate(id: write.id, write.json, at: write.path, completion: nil)
            }
            nextWriteID = max(nextWriteID, write.id + 1)
        }
        raise(batch)
    }
}
