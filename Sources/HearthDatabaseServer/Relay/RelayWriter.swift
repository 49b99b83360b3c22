import HearthCore
import HearthEdge

/// Where the writes of a relay's realtime session go: to the namespace's owner through the
/// relay's link. A write is answered once the owner made it durable and the relay's replica
/// holds it, so that the session's own listens see it before its `ok`, as on the owner. Without
/// a replica (the onDisconnect writes of a session whose node lost the namespace), once the
/// owner made it durable.
///
/// A write whose link fails is not answered: the link's failure closes the session's
/// connection, and the client sends the write again when it reconnects, as after any lost
/// connection. onDisconnect writes, which have no client left to resend them, fail instead.
struct RelayWriter: NamespaceWriter {
    let link: OwnerLink
    let replica: NamespaceEngine?

    func set(
        _ path: DatabasePath, _ value: WriteValue, ifMatch precondition: WritePrecondition?, as caller: Caller,
        then completion: @escaping @Sendable (Result<WriteAcceptance, DatabaseError>) -> Void
    ) throws(DatabaseError) {
        forward(.set(path, value, precondition), as: caller) { outcome in
            switch outcome {
            case .written: completion(.success(.written))
            case .preconditionFailed: completion(.success(.preconditionFailed))
            case .refused(let error): completion(.failure(error))
            }
        }
    }

    func update(
        _ path: DatabasePath, _ entries: [(DatabasePath, WriteValue)], as caller: Caller,
        then completion: @escaping DurabilityHandler
    ) throws(DatabaseError) {
        forward(.update(path, entries), as: caller) { outcome in
            if case .refused(let error) = outcome { completion(error) } else { completion(nil) }
        }
    }

    func apply(_ writes: [QueuedWrite], as caller: Caller) async throws(DatabaseError) {
        let replica = replica
        let failure = await withCheckedContinuation { (continuation: CheckedContinuation<DatabaseError?, Never>) in
            link.forward(ForwardedWrite(caller: caller, transport: WriteTransport.current, operation: .apply(writes))) { answer in
                switch answer {
                case .success((.refused(let error), _)): continuation.resume(returning: error)
                case .success((_, let sequence)):
                    await replica?.replicated(through: sequence)
                    continuation.resume(returning: nil)
                case .failure(let error): continuation.resume(returning: error)
                }
            }
        }
        if let failure { throw failure }
    }

    /// Writes the link closed before sending did not land; those in a post that failed may have.
    func failedWithoutLanding(_ failure: DatabaseError) -> Bool {
        failure == ForwardingQueue.notSent
    }

    /// Forwards `operation` for `caller`; `answer` runs once the owner's outcome is known and
    /// the replica holds what it wrote.
    private func forward(
        _ operation: ForwardedWrite.Operation, as caller: Caller,
        answer: @escaping @Sendable (ForwardedWrite.Outcome) -> Void
    ) {
        let replica = replica
        link.forward(ForwardedWrite(caller: caller, transport: WriteTransport.current, operation: operation)) { result in
            guard case .success((let outcome, let sequence)) = result else { return }
            // A refused compare-and-set too: the client retries on the value the replica sends.
            await replica?.replicated(through: sequence)
            answer(outcome)
        }
    }
}
