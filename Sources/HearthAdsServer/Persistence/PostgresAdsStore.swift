import Crypto
import HearthCore
import HearthPostgres
import HearthSupport
import NIOCore
import PostgresNIO
import Synchronization

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The ads store of a cluster, in its PostgreSQL database: the tables of ``SQLiteAdsStore``,
/// named `hearth_ads_…`, written only by the node that holds the ads lease (``ClusteredAds``).
///
/// Every write is a transaction that first checks the lease (``ClusterLease/fenced(on:_:)``): a node
/// that lost it writes nothing more, and a node taking it over waits for the transactions under
/// way to end, then reads all they wrote. The writes run one at a time, so that no two of them
/// wait for each other's rows. A write whose outcome is unknown (it failed or went unanswered)
/// leaves the store refusing writes and calls `lost`: what the service holds in memory may
/// differ from the database, and the service is opened anew from it (``ClusteredAds``).
final class PostgresAdsStore: AdsStore {
    static let schema = [
        "CREATE TABLE IF NOT EXISTS hearth_ads_units (id text PRIMARY KEY, record text NOT NULL)",
        "CREATE TABLE IF NOT EXISTS hearth_ads_creatives (id text PRIMARY KEY, record text NOT NULL)",
        "CREATE TABLE IF NOT EXISTS hearth_ads_campaigns (id text PRIMARY KEY, record text NOT NULL)",
        "CREATE TABLE IF NOT EXISTS hearth_ads_settings (name text PRIMARY KEY, value bytea NOT NULL)",
        "CREATE TABLE IF NOT EXISTS hearth_ads_images (hash text PRIMARY KEY, type text NOT NULL, bytes bytea NOT NULL)",
        """
        CREATE TABLE IF NOT EXISTS hearth_ads_counts (hour bigint NOT NULL, campaign text NOT NULL, creative text NOT NULL,
          unit text NOT NULL, requests bigint NOT NULL DEFAULT 0, fills bigint NOT NULL DEFAULT 0,
          impressions bigint NOT NULL DEFAULT 0, viewable bigint NOT NULL DEFAULT 0, clicks bigint NOT NULL DEFAULT 0,
          invalid bigint NOT NULL DEFAULT 0, PRIMARY KEY (hour, campaign, creative, unit))
        """,
        """
        CREATE TABLE IF NOT EXISTS hearth_ads_events (token text NOT NULL, type text NOT NULL, time bigint NOT NULL,
          hour bigint NOT NULL, campaign text NOT NULL, creative text NOT NULL, unit text NOT NULL, viewer text,
          counted boolean NOT NULL, PRIMARY KEY (token, type))
        """,
        "CREATE INDEX IF NOT EXISTS hearth_ads_events_by_hour ON hearth_ads_events (hour)",
        "CREATE TABLE IF NOT EXISTS hearth_ads_viewer_impressions (viewer text NOT NULL, campaign text NOT NULL, time bigint NOT NULL)",
        "CREATE INDEX IF NOT EXISTS hearth_ads_viewer_impressions_by_time ON hearth_ads_viewer_impressions (time)",
    ]

    /// How long PostgreSQL lets a transaction of the store wait for its next statement before
    /// it ends the session: a serving node stopped or cut off between two statements would
    /// otherwise keep the lease's row locked, and no other node could take the lease over.
    static let idleTransactionTimeout: Duration = .seconds(5)

    private let writer: FencedWriter
    private var database: ClusterDatabase { writer.database }
    private let events: EventCommitter

    /// The store in `database` (whose ``schema`` exists), written under `lease`; `lost` is called
    /// once when a write's outcome is unknown.
    init(database: ClusterDatabase, lease: any ClusterLease, clock: AdsClock, lost: @escaping @Sendable () -> Void) {
        let writer = FencedWriter(database: database, lease: lease, lost: lost)
        self.writer = writer
        self.events = EventCommitter(batches: PostgresEventBatches(writer: writer), clock: clock)
    }

    // MARK: The catalog

    func records(in table: String) async throws -> [String] {
        try await database.query("SELECT record FROM hearth_ads_\(unescaped: table) ORDER BY id").map { try $0.decode(String.self) }
    }

    func put(_ record: some Encodable & Sendable, id: String, in table: String) async throws {
        let text = String(decoding: AdsJSON.encode(record), as: UTF8.self)
        try await writer.write([
            """
            INSERT INTO hearth_ads_\(unescaped: table) (id, record) VALUES (\(id), \(text))
            ON CONFLICT (id) DO UPDATE SET record = EXCLUDED.record
            """
        ])
    }

    func delete(id: String, from table: String) async throws {
        try await writer.write(["DELETE FROM hearth_ads_\(unescaped: table) WHERE id = \(id)"])
    }

    // MARK: Tokens

    func tokenKey() async throws -> SymmetricKey {
        let made = ByteBuffer(bytes: SymmetricKey(size: .bits256).withUnsafeBytes { Array($0) })
        try await writer.write([
            "INSERT INTO hearth_ads_settings (name, value) VALUES ('token-key', \(made)) ON CONFLICT (name) DO NOTHING"
        ])
        guard let row = try await database.query("SELECT value FROM hearth_ads_settings WHERE name = 'token-key'").first else {
            throw AdsStoreError.corruptRow
        }
        return SymmetricKey(data: Array(try row.decode(ByteBuffer.self).readableBytesView))
    }

    // MARK: Counting

    func record(_ type: AdEventType, of token: AdToken, campaign: Campaign?, ledger: DeliveryLedger) async throws -> AdEventOutcome {
        try await events.record(EventCommitter.Event(type: type, token: token, campaign: campaign, ledger: ledger))
    }

    func deliveries(now: Int64, viewsSince since: Int64) async throws -> AdDeliveries {
        var deliveries = AdDeliveries()
        let todayHour = DeliveryLedger.day(of: now) * 24
        for row in try await database.query(
            """
            SELECT campaign, SUM(impressions)::bigint, SUM(clicks)::bigint,
              SUM(CASE WHEN hour >= \(todayHour) AND hour < \(todayHour) + 24 THEN impressions ELSE 0 END)::bigint,
              SUM(CASE WHEN hour >= \(todayHour) AND hour < \(todayHour) + 24 THEN clicks ELSE 0 END)::bigint
            FROM hearth_ads_counts WHERE campaign <> '' GROUP BY campaign
            """)
        {
            let (campaign, impressions, clicks, impressionsToday, clicksToday) = try row.decode(
                (String, Int64, Int64, Int64, Int64).self)
            deliveries.campaigns[campaign] = AdDeliveries.Figures(
                impressions: Int(impressions), clicks: Int(clicks), impressionsToday: Int(impressionsToday),
                clicksToday: Int(clicksToday))
        }
        for row in try await database.query(
            "SELECT viewer, campaign, time FROM hearth_ads_viewer_impressions WHERE time >= \(since) ORDER BY time")
        {
            let (viewer, campaign, time) = try row.decode((String, String, Int64).self)
            deliveries.views.append((viewer, campaign, time))
        }
        return deliveries
    }

    func forgetViews(before time: Int64) async throws {
        try await deleteInSteps(from: "hearth_ads_viewer_impressions", where: "time < \(time)")
    }

    func forgetEvents(before hour: Int64) async throws {
        try await deleteInSteps(from: "hearth_ads_events", where: "hour < \(hour)")
    }

    /// The most rows one transaction of ``deleteInSteps(from:where:)`` deletes.
    static let deletionStep = 10_000

    /// Deletes the rows of `table` that match `condition`, ``deletionStep`` at a time, each step
    /// a transaction of its own: a transaction holds the lease's row, and one deleting an
    /// hour's events at once would keep every other node's claim waiting.
    private func deleteInSteps(from table: String, where condition: String) async throws {
        while true {
            let rows = try await writer.write([
                """
                WITH gone AS (
                  DELETE FROM \(unescaped: table) WHERE ctid = ANY(ARRAY(
                    SELECT ctid FROM \(unescaped: table) WHERE \(unescaped: condition) LIMIT \(Self.deletionStep)))
                  RETURNING 1
                )
                SELECT count(*) FROM gone
                """
            ])
            guard let deleted = try rows.first?.decode(Int64.self), deleted == Self.deletionStep else { return }
        }
    }

    func add(_ tally: AdTally) async throws {
        try await writer.write([
            """
            INSERT INTO hearth_ads_counts AS c (hour, campaign, creative, unit, requests, fills, invalid)
            SELECT (value->>0)::bigint, value->>1, value->>2, value->>3, (value->>4)::bigint, (value->>5)::bigint,
              (value->>6)::bigint
            FROM json_array_elements(\(JSONWriter.string(tally.rows))::json)
            ON CONFLICT (hour, campaign, creative, unit) DO UPDATE SET requests = c.requests + EXCLUDED.requests,
              fills = c.fills + EXCLUDED.fills, invalid = c.invalid + EXCLUDED.invalid
            """
        ])
    }

    func report(from: Int64, to: Int64, period: AdReport.Period, group: AdReport.Group) async throws -> [AdReport.Row] {
        let (bucket, key) = (period.bucket, group.rawValue)
        return try await database.query(
            """
            SELECT \(unescaped: bucket) AS bucket, \(unescaped: key) AS key, SUM(requests)::bigint, SUM(fills)::bigint,
              SUM(impressions)::bigint, SUM(viewable)::bigint, SUM(clicks)::bigint, SUM(invalid)::bigint
            FROM hearth_ads_counts WHERE hour >= \(from) AND hour <= \(to) GROUP BY bucket, key ORDER BY bucket, \(unescaped: key) COLLATE "C"
            """
        ).map { row in
            let (hour, key, requests, fills, impressions, viewable, clicks, invalid) = try row.decode(
                (Int64, String, Int64, Int64, Int64, Int64, Int64, Int64).self)
            return AdReport.Row(
                hour: hour, key: key, requests: Int(requests), fills: Int(fills), impressions: Int(impressions),
                viewable: Int(viewable), clicks: Int(clicks), invalid: Int(invalid))
        }
    }

    // MARK: Images

    func put(_ image: CreativeImage) async throws {
        try await writer.write([
            """
            INSERT INTO hearth_ads_images (hash, type, bytes) VALUES (\(image.hash), \(image.contentType), \(ByteBuffer(bytes: image.bytes)))
            ON CONFLICT (hash) DO NOTHING
            """
        ])
    }

    func image(hash: String) async throws -> CreativeImage? {
        guard let row = try await database.query("SELECT type, bytes FROM hearth_ads_images WHERE hash = \(hash)").first else {
            return nil
        }
        let (type, bytes) = try row.decode((String, ByteBuffer).self)
        return CreativeImage(hash: hash, contentType: type, bytes: Array(bytes.readableBytesView))
    }

    func deleteImage(hash: String) async throws {
        try await writer.write(["DELETE FROM hearth_ads_images WHERE hash = \(hash)"])
    }

    func unavailability() async -> String? {
        if let reason = writer.failure { return reason }
        return await database.unavailability()
    }

    /// Gives the lease up; the database stays open for the next owner (``ClusteredAds``).
    func close() async {
        await writer.lease.release()
    }
}

/// The writes of a ``PostgresAdsStore``: one transaction at a time, each fenced by the lease and
/// answered within a deadline; the first whose outcome is unknown stops them all.
final class FencedWriter: Sendable {
    let database: ClusterDatabase
    let lease: any ClusterLease
    private let lost: @Sendable () -> Void
    private let writes = MutationQueue()
    private let failed = Mutex<String?>(nil)

    /// How long a transaction waits for its answer: a little longer than PostgreSQL lets one
    /// statement run.
    static let deadline = ClusterDatabase.statementTimeout + .seconds(5)

    init(database: ClusterDatabase, lease: any ClusterLease, lost: @escaping @Sendable () -> Void) {
        self.database = database
        self.lease = lease
        self.lost = lost
    }

    /// Why writes are refused, once one failed.
    var failure: String? { failed.withLock { $0 } }

    /// Runs `queries` in one transaction, fenced by the lease; the rows the last one answers.
    @discardableResult
    func write(_ queries: [PostgresQuery]) async throws -> [PostgresRow] {
        try await writes.run { [self] in
            if let failure { throw AdsStoreError.unavailable(failure) }
            do {
                return try await AnswerDeadline.run(
                    within: Self.deadline, orThrow: AdsStoreError.unavailable("PostgreSQL gave no answer within \(Self.deadline)")
                ) { [database, lease] in
                    try await database.client.withTransaction(logger: ClusterDatabase.quietLogger) { connection in
                        var last: [PostgresRow] = []
                        try await lease.fenced(on: connection) {
                            for query in queries {
                                last = try await connection.query(query, logger: ClusterDatabase.quietLogger).collect()
                            }
                        }
                        return last
                    }
                }
            } catch {
                let reason = ClusterDatabase.describe(error)
                let isFirst = failed.withLock { failed in
                    defer { failed = failed ?? reason }
                    return failed == nil
                }
                if isFirst { lost() }
                throw AdsStoreError.unavailable(reason)
            }
        }
    }
}

/// Commits batches of events into the PostgreSQL ads store (``EventCommitter``): the pairs
/// reported before are read first (the batches run one at a time on the one node that writes
/// events), then the kept rows, their counts and the viewers' impressions are written in one
/// fenced transaction.
struct PostgresEventBatches: EventBatches {
    let writer: FencedWriter

    func commit(tokens: [String], decide: (Set<String>) -> [KeptEvent]) async throws {
        if let failure = writer.failure { throw AdsStoreError.unavailable(failure) }
        let known = try await writer.database.query(
            "SELECT token, type FROM hearth_ads_events WHERE token = ANY(\(tokens))"
        ).map { row in
            let (token, type) = try row.decode((String, String).self)
            return "\(token) \(type)"
        }
        let kept = decide(Set(known))
        guard !kept.isEmpty else { return }
        let rows = JSONWriter.string(.array(kept.map(\.json)))
        try await writer.write([
            """
            INSERT INTO hearth_ads_events (token, type, time, hour, campaign, creative, unit, viewer, counted)
            SELECT value->>0, value->>1, (value->>2)::bigint, (value->>3)::bigint, value->>4, value->>5, value->>6, value->>7,
              (value->>8)::int = 1
            FROM json_array_elements(\(rows)::json)
            """,
            """
            INSERT INTO hearth_ads_counts AS c (hour, campaign, creative, unit, impressions, viewable, clicks)
            SELECT (value->>3)::bigint, value->>4, value->>5, value->>6,
              count(*) FILTER (WHERE value->>1 = 'impression'), count(*) FILTER (WHERE value->>1 = 'viewable'),
              count(*) FILTER (WHERE value->>1 = 'click')
            FROM json_array_elements(\(rows)::json) WHERE (value->>8)::int = 1
            GROUP BY 1, 2, 3, 4
            ON CONFLICT (hour, campaign, creative, unit) DO UPDATE SET impressions = c.impressions + EXCLUDED.impressions,
              viewable = c.viewable + EXCLUDED.viewable, clicks = c.clicks + EXCLUDED.clicks
            """,
            """
            INSERT INTO hearth_ads_viewer_impressions (viewer, campaign, time)
            SELECT value->>7, value->>4, (value->>2)::bigint FROM json_array_elements(\(rows)::json)
            WHERE value->>1 = 'impression' AND (value->>8)::int = 1 AND value->>7 IS NOT NULL
            """,
        ])
    }
}
