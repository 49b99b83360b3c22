import Logging
import PostgresNIO

/// A pool of connections to the PostgreSQL database of a cluster, run until ``close()``, with
/// the few habits every Hearth product keeps there: a server-side statement timeout on every
/// connection, answers awaited no longer than a deadline, schema creation one node at a time,
/// and PostgreSQL's own messages in errors rather than in the log.
package final class ClusterDatabase: Sendable {
    /// PostgreSQL's own messages about each query, which Hearth does not log.
    package static let quietLogger = Logger(label: "hearth.postgres", factory: { _ in SwiftLogNoOpLogHandler() })
    /// How long PostgreSQL lets one statement run before it cancels it.
    package static let statementTimeout: Duration = .seconds(25)
    /// A lock number no other user of the database is likely to take: it serialises the schema's
    /// creation between nodes starting together.
    static let creationLock: Int64 = 0x4845_4152_5448  // "HEARTH"

    package let client: PostgresClient
    private let running: Task<Void, Never>

    /// A pool to the database at `address`. With `idleTransactionTimeout`, PostgreSQL ends a
    /// session that leaves a transaction open that long without sending a statement (its
    /// process stopped, its network cut), so that the rows it locked come free.
    package init(_ address: PostgresAddress, idleTransactionTimeout: Duration? = nil) {
        var configuration = address.clientConfiguration
        configuration.options.additionalStartupParameters = [
            ("statement_timeout", "\(Self.statementTimeout.components.seconds)s")
        ]
        if let idleTransactionTimeout {
            configuration.options.additionalStartupParameters.append(
                ("idle_in_transaction_session_timeout", "\(idleTransactionTimeout.components.seconds)s"))
        }
        let client = PostgresClient(configuration: configuration, backgroundLogger: Self.quietLogger)
        self.client = client
        self.running = Task { await client.run() }
    }

    /// Runs `statements` in one transaction while no other node runs its own: creating what is
    /// missing (`CREATE … IF NOT EXISTS`) is then safe from every node at once.
    package func createSchema(_ statements: [String]) async throws {
        try await client.withTransaction(logger: Self.quietLogger) { connection in
            _ = try await connection.query("SELECT pg_advisory_xact_lock(\(Self.creationLock))", logger: Self.quietLogger)
            for statement in statements {
                _ = try await connection.query(PostgresQuery(unsafeSQL: statement), logger: Self.quietLogger)
            }
        }
    }

    /// The rows of `query`, read whole, or `timeout` thrown once `limit` has passed without an
    /// answer (PostgreSQL out of reach, the pool waiting for a connection however long); whether
    /// a query that timed out took effect is then unknown.
    package func rows(
        _ query: PostgresQuery, within limit: Duration, orThrow timeout: any Error
    ) async throws -> [PostgresRow] {
        try await AnswerDeadline.run(within: limit, orThrow: timeout) { [client] in
            var rows: [PostgresRow] = []
            for try await row in try await client.query(query, logger: Self.quietLogger) { rows.append(row) }
            return rows
        }
    }

    /// How long ``query(_:within:)`` waits for an answer unless told otherwise.
    package static let answerTimeout: Duration = .seconds(10)

    /// The rows of `query`; PostgreSQL's failures, and no answer within `limit`, become
    /// ``ClusterDatabaseError/unavailable(_:)``.
    package func query(
        _ query: PostgresQuery, within limit: Duration = answerTimeout
    ) async throws(ClusterDatabaseError) -> [PostgresRow] {
        do {
            return try await rows(
                query, within: limit, orThrow: ClusterDatabaseError.unavailable("no answer within \(limit)"))
        } catch let error as ClusterDatabaseError {
            throw error
        } catch {
            throw .unavailable(Self.describe(error))
        }
    }

    /// A pool to the database at `address` whose `schema` is created (``createSchema(_:)``).
    package static func open(
        _ address: PostgresAddress, schema: [String], idleTransactionTimeout: Duration? = nil
    ) async throws(ClusterDatabaseError) -> ClusterDatabase {
        let database = ClusterDatabase(address, idleTransactionTimeout: idleTransactionTimeout)
        do {
            try await database.createSchema(schema)
        } catch {
            await database.close()
            throw .unavailable(describe(error))
        }
        return database
    }

    /// Why the database cannot be used now, or `nil` when it can.
    package func unavailability() async -> String? {
        do {
            _ = try await query("SELECT 1")
            return nil
        } catch {
            return "\(error)"
        }
    }

    package func close() async {
        running.cancel()
        await running.value
    }

    /// What PostgreSQL said, with its SQLSTATE: the client's own description hides both.
    package static func describe(_ error: any Error) -> String {
        guard let error = error as? PSQLError else { return "\(error)" }
        if let message = error.serverInfo?[.message] {
            return "\(message) (SQLSTATE \(error.serverInfo?[.sqlState] ?? "?"))"
        }
        return "\(error.code)"
    }
}

/// Why the cluster's database could not answer.
package enum ClusterDatabaseError: Error, CustomStringConvertible {
    /// PostgreSQL refused, failed or did not answer; what it said.
    case unavailable(String)

    package var description: String {
        switch self {
        case .unavailable(let reason): "PostgreSQL: \(reason)"
        }
    }
}
