import Foundation
import HearthCore

extension Repo {
    /// Starts a transaction (spec §17.8.1). The block runs on the worker queue, at once on the
    /// latest local value and again whenever that value turns out stale.
    func startTransaction(
        at path: DatabasePath, update: Transaction.Update, completion: Transaction.Completion?, appliesLocally: Bool
    ) {
        let handle = observe(.all(at: path), eventType: nil, onEvent: { _, _ in }, onCancel: nil)
        queue.async { [self] in
            let input = syncTree.latestValue(at: path).node
            let transaction = Transaction(
                path: path, update: update, completion: completion,
                appliesLocally: appliesLocally, observerHandle: handle, writeID: nextWriteID, input: input, output: .null)
            guard let output = transaction.run(on: input, serverTime: serverTime) else {
                removeTransactionObserver(transaction)
                var batch = EventBatch()
                if let completion { batch.callback { completion(nil, false, self.makeSnapshot(path, input)) } }
                raise(batch)
                return
            }
            nextWriteID += 1
            transaction.output = output
            transactions.append(transaction)
            var batch = EventBatch()
            syncTree.applyUserWrite(
                UserWrite(id: transaction.writeID, path: path, change: .overwrite(output), isVisible: appliesLocally),
                into: &batch)
            raise(batch)
            sendReadyTransactions()
        }
    }

    /// Sends every unit of transactions that is ready: the top-most transaction paths, each with
    /// all transactions at or below it, when all of them wait to be sent (spec §17.8.2).
    func sendReadyTransactions() {
        let paths = transactions.map(\.path)
        let roots = Set(paths.filter { path in !paths.contains { $0 != path && $0.contains(path) } })
        for root in roots.sorted(by: { $0.description < $1.description }) {
            let members = transactions.filter { root.contains($0.path) }
            guard members.allSatisfy(\.isRunnable) else { continue }
            send(members, at: root)
        }
    }

    private func send(_ members: [Transaction], at root: DatabasePath) {
        let base = syncTree.latestValue(at: root, excluding: Set(members.map(\.writeID))).node
        let hash = NodeHash.hash(base)
        var data = base
        for member in members {
            member.status = .sent
            member.retryCount += 1
            data = data.updatingChild(at: root.relativePath(to: member.path)!, with: member.output)
        }
        connection.put(path: root, data: data.exportJSON, hash: hash) { [weak self] status, reason in
            self?.transactionsAnswered(members, at: root, status: status, reason: reason)
        }
    }

    private func transactionsAnswered(_ sent: [Transaction], at root: DatabasePath, status: String, reason: String?) {
        // A purge may have ended some already; each completes once.
        let members = sent.filter { !$0.isCompleted }
        switch status {
        case "ok":
            var batch = EventBatch()
            for member in members {
                member.status = .completed
                if let completion = member.completion {
                    let snapshot = makeSnapshot(member.path, member.output)
                    batch.callback { completion(nil, true, snapshot) }
                }
            }
            for member in members { syncTree.removeUserWrite(id: member.writeID, into: &batch) }
            raise(batch)
            finish(members)
            sendReadyTransactions()
        case "datastale":
            var batch = EventBatch()
            for member in members {
                switch member.status {
                case .sent: member.status = .run
                case .sentNeedsAbort(let reason): abort(member, error: DatabaseErrors.error(status: reason), snapshot: nil, into: &batch)
                case .run, .completed: break
                }
            }
            raise(batch)
            finish(members.filter(\.isCompleted))
            rerunTransactions(at: root)
        default:
            let error = DatabaseErrors.error(
                status: status, reason: status == "disconnect" ? "Client was disconnected while running a transaction" : reason)
            var batch = EventBatch()
            for member in members { abort(member, error: error, snapshot: member.input, into: &batch) }
            raise(batch)
            finish(members)
            sendReadyTransactions()
        }
    }

    /// The location whose transactions a change at `path` affects: the top-most transaction
    /// path at or above it, else `path` itself.
    func transactionRoot(for path: DatabasePath) -> DatabasePath {
        transactions.map(\.path).filter { $0.contains(path) }.min { $0.count < $1.count } ?? path
    }

    /// Reruns the waiting transactions related to `path` on the latest data (spec §17.8.4–5).
    func rerunTransactions(relatedTo path: DatabasePath) {
        rerunTransactions(at: transactionRoot(for: path))
    }

    /// Reruns the waiting transactions at or below `root`; sent ones await their answer.
    private func rerunTransactions(at root: DatabasePath) {
        guard !transactions.isEmpty else { return }
        let members = transactions.filter { root.contains($0.path) }
        guard !members.isEmpty else { return }
        var excluded = Set(members.map(\.writeID))
        var batch = EventBatch()
        for member in members {
            switch member.status {
            case .run where member.retryCount >= Transaction.maximumRetries:
                abort(member, error: DatabaseErrors.error(status: "maxretry"), snapshot: member.input, into: &batch)
            case .run:
                let input = syncTree.latestValue(at: member.path, excluding: excluded).node
                if let output = member.run(on: input, serverTime: serverTime) {
                    let oldID = member.writeID
                    excluded.remove(oldID)
                    member.writeID = nextWriteID
                    nextWriteID += 1
                    member.output = output
                    syncTree.applyUserWrite(
                        UserWrite(id: member.writeID, path: member.path, change: .overwrite(output), isVisible: member.appliesLocally),
                        into: &batch)
                    syncTree.removeUserWrite(id: oldID, into: &batch)
                } else {
                    abort(member, error: nil, snapshot: input, into: &batch)
                }
            case .sent, .sentNeedsAbort, .completed:
                break
            }
        }
        raise(batch)
        finish(members.filter(\.isCompleted))
        sendReadyTransactions()
    }

    /// A set, update or fired onDisconnect write at `path`: related transactions abort with
    /// `set` (unsent ones now, sent ones unless the server accepts them), then the others the
    /// change affects rerun (spec §17.8.6).
    /// For an update, `changed` names the locations it writes: only transactions related to
    /// one of them abort.
    func abortAndRerunTransactions(relatedTo path: DatabasePath, changing changed: [DatabasePath]? = nil) {
        let root = transactionRoot(for: path)
        for location in changed ?? [path] { abortTransactions(relatedTo: location) }
        rerunTransactions(at: root)
    }

    private func abortTransactions(relatedTo path: DatabasePath) {
        var batch = EventBatch()
        var finished: [Transaction] = []
        for transaction in transactions where transaction.path.contains(path) || path.contains(transaction.path) {
            switch transaction.status {
            case .run:
                abort(transaction, error: DatabaseErrors.error(status: "set"), snapshot: nil, into: &batch)
                finished.append(transaction)
            case .sent:
                transaction.status = .sentNeedsAbort(reason: "set")
            case .sentNeedsAbort, .completed:
                break
            }
        }
        raise(batch)
        finish(finished)
    }

    /// Aborts every transaction (`purgeOutstandingWrites`).
    func abortAllTransactions(status: String) {
        var batch = EventBatch()
        let all = transactions
        for transaction in all.reversed() where !transaction.isCompleted {
            abort(transaction, error: DatabaseErrors.error(status: status), snapshot: nil, into: &batch)
        }
        raise(batch)
        finish(all)
    }

    private func abort(_ transaction: Transaction, error: NSError?, snapshot: Node?, into batch: inout EventBatch) {
        transaction.status = .completed
        syncTree.removeUserWrite(id: transaction.writeID, into: &batch)
        if let completion = transaction.completion {
            let snapshot = snapshot.map { makeSnapshot(transaction.path, $0) }
            batch.callback { completion(error, false, snapshot) }
        }
    }

    /// Removes finished transactions from the queue, with their observers.
    private func finish(_ finished: [Transaction]) {
        guard !finished.isEmpty else { return }
        transactions.removeAll { transaction in finished.contains { $0 === transaction } }
        for transaction in finished { removeTransactionObserver(transaction) }
    }

    private func removeTransactionObserver(_ transaction: Transaction) {
        syncTree.remove(handle: transaction.observerHandle)
        updateListens()
    }
}
