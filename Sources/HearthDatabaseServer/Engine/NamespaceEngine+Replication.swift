import HearthCore

extension NamespaceEngine {
    // MARK: On the owner

    /// Sends `follower` (a relay's link) the durable tree and then every durable batch, in
    /// commit order, until the namespace closes, the follower falls
    /// ``Replication/followerBuffer`` messages behind, or its stream ends. A namespace that is
    /// never replicated (embedded storage), or closed, ends the stream at once.
    func followReplication(_ follower: AsyncStream<ReplicationMessage>.Continuation) {
        guard let tree = replication.durableTree, !replication.isFinished else {
            follower.finish()
            return
        }
        follower.yield(.snapshot(sequence: durableSequence, tree: tree, rules: currentRules().source))
        let number = replication.add(follower)
        follower.onTermination = { [weak self] _ in
            Task { await self?.stopReplicating(to: number) }
        }
    }

    private func stopReplicating(to number: Int) {
        replication.remove(number)
    }

    // MARK: On a relay's replica

    /// Applies what the owner sent: the listeners of the replica get the events the owner's
    /// listeners got, in the same order; the writes waiting for this point are answered.
    func applyReplicated(_ message: ReplicationMessage) {
        switch message {
        case .snapshot(let sequence, let tree, _):
            replay(ReplicatedWrite(shape: .init(path: .root, mergedLocations: nil), changes: [(.root, tree)]))
            durableSequence = sequence
        case .batch(let batch):
            guard batch.lastSequence > durableSequence else { return }
            for write in batch.writes { replay(write) }
            durableSequence = batch.lastSequence
        case .rules, .keepAlive:
            return
        }
        replication.reached(durableSequence)
    }

    private func replay(_ write: ReplicatedWrite) {
        let applied = write.applied(to: root)
        root = applied.after
        indexes.apply(applied)
        deliver(listeners.deliveries(for: applied) { key in window(key.location, key.query, isUnindexed: key.isUnindexed) })
        changeFeed.publish(applied.touchedPaths)
    }

    /// Returns once the replica holds write `sequence` (at once when the replica closes).
    func replicated(through sequence: Int64) async {
        guard durableSequence < sequence, !replication.isFinished else { return }
        await withCheckedContinuation { replication.wait(for: sequence, $0) }
    }
}
