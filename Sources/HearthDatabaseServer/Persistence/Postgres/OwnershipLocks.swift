import HearthPostgres
import Logging
import PostgresNIO
import Synchronization

/// A session advisory lock per namespace this node owns, held on a PostgreSQL connection of its
/// own (outside the pool, so that one session holds them all): PostgreSQL frees a session's locks as soon as the session ends, so when an owner
/// dies (its process killed, its machine gone) its namespaces' locks come free at once, long
/// before its leases run out. A node refused a namespace by a running lease tries the lock: if
/// it gets it, no live session of the owner holds it, and the node takes the namespace over
/// without waiting (``PostgresNamespaceStore/claim(_:in:logger:)``).
///
/// The locks only speed failover up; they decide nothing about the data, which the epoch
/// guards. A live owner may lack its lock (it claimed while a paused predecessor still held it,
/// or its lock connection broke): it retries at each lease renewal, and until then another node
/// may take its namespace over, which fences it.
final class OwnershipLocks: Sendable {
    private enum Command {
        case tryLock(String, CheckedContinuation<Bool, Never>)
        case unlock(String)
        /// Session number `Int` ended (PostgreSQL closed it): its locks are gone.
        case sessionEnded(Int)
    }

    /// The namespaces whose lock the current session holds; a new session holds none.
    private final class Held: Sendable {
        let namespaces = Mutex<Set<String>>([])
    }

    private let held: Held

    private let commands: AsyncStream<Command>.Continuation
    private let running: Task<Void, Never>

    init(address: PostgresAddress, logger: Logger) {
        let (stream, commands) = AsyncStream<Command>.makeStream()
        self.commands = commands
        let held = Held()
        self.held = held
        self.running = Task {
            var pending = stream.makeAsyncIterator()
            var sessionNumber = 0
            while !Task.isCancelled {
                sessionNumber += 1
                held.namespaces.withLock { $0 = [] }
                var session: PostgresConnection?
                do {
                    let connection = try await PostgresConnection.connect(
                        configuration: address.connectionConfiguration(), id: sessionNumber, logger: ClusterDatabase.quietLogger)
                    session = connection
                    // Noticed at once, not at the next command: the stores take their locks
                    // again at their next renewal (``holds(_:)``).
                    let number = sessionNumber
                    connection.closeFuture.whenComplete { _ in commands.yield(.sessionEnded(number)) }
                    while let command = await pending.next() {
                        switch command {
                        case .tryLock(let namespace, let reply):
                            if held.namespaces.withLock({ $0.contains(namespace) }) {
                                reply.resume(returning: true)
                                continue
                            }
                            do {
                                let rows = try await connection.query(
                                    "SELECT pg_try_advisory_lock(hashtextextended(\(namespace), 0))",
                                    logger: ClusterDatabase.quietLogger)
                                var locked = false
                                for try await row in rows { locked = try row.decode(Bool.self) }
                                if locked { held.namespaces.withLock { _ = $0.insert(namespace) } }
                                reply.resume(returning: locked)
                            } catch {
                                reply.resume(returning: false)
                                throw error
                            }
                        case .unlock(let namespace):
                            guard held.namespaces.withLock({ $0.remove(namespace) }) != nil else { continue }
                            let rows = try await connection.query(
                                "SELECT pg_advisory_unlock(hashtextextended(\(namespace), 0))", logger: ClusterDatabase.quietLogger)
                            for try await _ in rows {}
                        case .sessionEnded(let number):
                            guard number == sessionNumber else { continue }
                            throw PersistenceError.postgres("the session holding the locks ended")
                        }
                    }
                    try? await connection.close()
                    return
                } catch {
                    try? await session?.close()
                    logger.warning(
                        "the connection holding the namespaces' ownership locks failed; they are taken again on renewal",
                        metadata: ["error": "\(logSafe: ClusterDatabase.describe(error))"])
                    try? await Task.sleep(for: .seconds(1))
                }
            }
        }
    }

    /// Takes the lock of `namespace` for this node if no other session holds it; whether this
    /// node holds it now. `false` too when PostgreSQL does not answer within `timeout`.
    func tryLock(_ namespace: String, timeout: Duration) async -> Bool {
        do {
            return try await AnswerDeadline.run(within: timeout, orThrow: CancellationError()) { [commands] in
                await withCheckedContinuation { commands.yield(.tryLock(namespace, $0)) }
            }
        } catch {
            // Answered no: a lock taken after all must not stay held unknown to the claim.
            commands.yield(.unlock(namespace))
            return false
        }
    }

    /// Whether this node's current session holds the lock of `namespace`.
    func holds(_ namespace: String) -> Bool {
        held.namespaces.withLock { $0.contains(namespace) }
    }

    /// Frees the lock of `namespace`, if this node holds it.
    func unlock(_ namespace: String) {
        commands.yield(.unlock(namespace))
    }

    /// Stops holding any lock.
    func close() async {
        commands.finish()
        running.cancel()
        await running.value
    }
}
