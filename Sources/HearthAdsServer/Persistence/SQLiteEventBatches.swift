import HearthCore
import HearthSupport
import SQLiteNIO

/// Commits batches of events into the SQLite ads store (``EventCommitter``): one
/// `BEGIN IMMEDIATE` transaction each, in turn with the store's other writes; the triggers add
/// the counted ones to the counts and the viewers' impressions. A transaction whose rollback
/// fails leaves the store refusing writes.
struct SQLiteEventBatches: EventBatches {
    let connection: SQLiteConnection
    let writes: MutationQueue
    let health: StoreHealth

    func commit(tokens: [String], decide: (Set<String>) -> [KeptEvent]) async throws {
        // Entered and left by hand: `decide` cannot be handed over as a `@Sendable` closure.
        await writes.enter()
        do {
            try await transaction(tokens: tokens, decide: decide)
        } catch {
            await writes.leave()
            throw error
        }
        await writes.leave()
    }

    private func transaction(tokens: [String], decide: (Set<String>) -> [KeptEvent]) async throws {
        try health.check()
        _ = try await connection.query("BEGIN IMMEDIATE")
        do {
            let kept = decide(try await reported(of: tokens))
            if !kept.isEmpty {
                _ = try await connection.query(
                    """
                    INSERT INTO events (token, type, time, hour, campaign, creative, unit, viewer, counted)
                    SELECT value->>0, value->>1, value->>2, value->>3, value->>4, value->>5, value->>6, value->>7, value->>8
                    FROM json_each(?1)
                    """, [.text(JSONWriter.string(.array(kept.map(\.json))))])
            }
            _ = try await connection.query("COMMIT")
        } catch {
            do {
                _ = try await connection.query("ROLLBACK")
            } catch let rollback {
                health.fail("a transaction of ads events could not be rolled back: \(rollback)")
            }
            throw error
        }
    }

    /// The (token, type) pairs of `tokens` reported before, as ``KeptEvent/key(token:type:)`` keys.
    private func reported(of tokens: [String]) async throws -> Set<String> {
        let rows = try await connection.query(
            "SELECT token, type FROM events WHERE token IN (SELECT value FROM json_each(?1))",
            [.text(JSONWriter.string(.array(tokens.map { .string($0) })))])
        return Set(rows.map { "\($0.column("token")?.string ?? "") \($0.column("type")?.string ?? "")" })
    }
}
