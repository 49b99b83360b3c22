import Crypto
import HearthCore
import HearthSupport
import Logging
import NIOCore
import SQLiteNIO
import Synchronization

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The durable state of the ads server: one SQLite database, `<data dir>/ads/ads.sqlite`, in WAL
/// mode with `synchronous=FULL` (``DurableSQLite``).
///
/// - `units`, `creatives`, `campaigns`: the catalog, one JSON record per row.
/// - `settings`: the key tokens are signed with.
/// - `events`: one row per (token, event type) counted, so that each counts once whatever the
///   retries; inserting one adds it to `counts` in the same statement (a trigger), so that an
///   event acknowledged is counted, durably, exactly once.
/// - `counts`: per hour (since 1970), campaign, creative and unit: requests, fills,
///   impressions, viewable impressions, clicks and invalid events. Requests and fills of
///   requests that filled nothing have an empty campaign and creative.
/// - `viewer_impressions`: the impressions counted of campaigns with a frequency cap, per viewer
///   and with their time, for the caps (the same trigger adds them).
final class SQLiteAdsStore: AdsStore {
    let connection: SQLiteConnection
    /// Every write, one at a time: SQLite commits a statement's changes only once no other
    /// writing statement of the connection is active, so two at once could see one answered
    /// before it is durable.
    private let writes = MutationQueue()
    private let health = StoreHealth()
    private let events: EventCommitter

    private init(connection: SQLiteConnection, clock: AdsClock) {
        self.connection = connection
        self.events = EventCommitter(
            batches: SQLiteEventBatches(connection: connection, writes: writes, health: health), clock: clock)
    }

    /// Where the store of `dataDirectory` is kept.
    static func path(dataDirectory: String) -> String { dataDirectory + "/ads/ads.sqlite" }

    /// Opens the store of `dataDirectory`; events are stamped with `clock`'s time.
    static func open(dataDirectory: String, clock: AdsClock, logger: Logger) async throws -> SQLiteAdsStore {
        try FileManager.default.createDirectory(atPath: dataDirectory + "/ads", withIntermediateDirectories: true)
        let connection = try await DurableSQLite.open(
            path: path(dataDirectory: dataDirectory),
            schema: [
                // Statements' journals in memory: an insert with its triggers, in a transaction
                // of several, would otherwise write one to a file of its own.
                "PRAGMA temp_store=MEMORY",
                "CREATE TABLE IF NOT EXISTS units (id TEXT PRIMARY KEY, record TEXT NOT NULL) WITHOUT ROWID",
                "CREATE TABLE IF NOT EXISTS creatives (id TEXT PRIMARY KEY, record TEXT NOT NULL) WITHOUT ROWID",
                "CREATE TABLE IF NOT EXISTS campaigns (id TEXT PRIMARY KEY, record TEXT NOT NULL) WITHOUT ROWID",
                "CREATE TABLE IF NOT EXISTS settings (name TEXT PRIMARY KEY, value BLOB NOT NULL) WITHOUT ROWID",
                "CREATE TABLE IF NOT EXISTS images (hash TEXT PRIMARY KEY, type TEXT NOT NULL, bytes BLOB NOT NULL) WITHOUT ROWID",
                """
                CREATE TABLE IF NOT EXISTS counts (hour INTEGER NOT NULL, campaign TEXT NOT NULL, creative TEXT NOT NULL,
                  unit TEXT NOT NULL, requests INTEGER NOT NULL DEFAULT 0, fills INTEGER NOT NULL DEFAULT 0,
                  impressions INTEGER NOT NULL DEFAULT 0, viewable INTEGER NOT NULL DEFAULT 0,
                  clicks INTEGER NOT NULL DEFAULT 0, invalid INTEGER NOT NULL DEFAULT 0,
                  PRIMARY KEY (hour, campaign, creative, unit)) WITHOUT ROWID
                """,
                """
                CREATE TABLE IF NOT EXISTS events (token TEXT NOT NULL, type TEXT NOT NULL, time INTEGER NOT NULL,
                  hour INTEGER NOT NULL, campaign TEXT NOT NULL, creative TEXT NOT NULL, unit TEXT NOT NULL, viewer TEXT,
                  counted INTEGER NOT NULL, PRIMARY KEY (token, type)) WITHOUT ROWID
                """,
                "CREATE INDEX IF NOT EXISTS events_by_hour ON events (hour)",
                """
                CREATE TABLE IF NOT EXISTS viewer_impressions (viewer TEXT NOT NULL, campaign TEXT NOT NULL,
                  time INTEGER NOT NULL)
                """,
                "CREATE INDEX IF NOT EXISTS viewer_impressions_by_time ON viewer_impressions (time)",
                """
                CREATE TRIGGER IF NOT EXISTS keep_viewer_impression AFTER INSERT ON events
                WHEN NEW.type = 'impression' AND NEW.viewer IS NOT NULL AND NEW.counted = 1 BEGIN
                  INSERT INTO viewer_impressions (viewer, campaign, time) VALUES (NEW.viewer, NEW.campaign, NEW.time);
                END
                """,
                """
                CREATE TRIGGER IF NOT EXISTS count_event AFTER INSERT ON events WHEN NEW.counted = 1 BEGIN
                  INSERT INTO counts (hour, campaign, creative, unit, impressions, viewable, clicks)
                  VALUES (NEW.hour, NEW.campaign, NEW.creative, NEW.unit, NEW.type = 'impression', NEW.type = 'viewable',
                    NEW.type = 'click')
                  ON CONFLICT (hour, campaign, creative, unit) DO UPDATE SET
                    impressions = impressions + (NEW.type = 'impression'), viewable = viewable + (NEW.type = 'viewable'),
                    clicks = clicks + (NEW.type = 'click');
                END
                """,
            ], logger: logger)
        return SQLiteAdsStore(connection: connection, clock: clock)
    }

    func close() async {
        try? await connection.close()
    }

    func unavailability() async -> String? {
        if let reason = health.unavailability { return reason }
        return await DurableSQLite.unavailability(of: connection)
    }

    // MARK: The catalog

    func records(in table: String) async throws -> [String] {
        try await connection.query("SELECT record FROM \(table) ORDER BY id").map { $0.column("record")?.string ?? "" }
    }

    /// Stores `record` as row `id` of `table` (`units`, `creatives`, `campaigns`).
    func put(_ record: some Encodable & Sendable, id: String, in table: String) async throws {
        try await write(
            "INSERT OR REPLACE INTO \(table) (id, record) VALUES (?1, ?2)",
            [
                .text(id), .text(String(decoding: AdsJSON.encode(record), as: UTF8.self)),
            ])
    }

    func delete(id: String, from table: String) async throws {
        try await write("DELETE FROM \(table) WHERE id = ?1", [.text(id)])
    }

    /// Runs one writing statement, alone.
    func write(_ sql: String, _ bindings: [SQLiteData]) async throws {
        try await writes.run { [connection, health] in
            try health.check()
            _ = try await connection.query(sql, bindings)
        }
    }

    // MARK: Tokens

    /// The key tokens are signed with, made at the first start.
    func tokenKey() async throws -> SymmetricKey {
        let made = SymmetricKey(size: .bits256).withUnsafeBytes { Array($0) }
        try await write(
            "INSERT INTO settings (name, value) VALUES ('token-key', ?1) ON CONFLICT (name) DO NOTHING",
            [.blob(ByteBuffer(bytes: made))])
        let stored = try await connection.query("SELECT value FROM settings WHERE name = 'token-key'")
        guard let blob = stored.first?.column("value")?.blob else { throw AdsStoreError.corruptRow }
        return SymmetricKey(data: Array(blob.readableBytesView))
    }

    // MARK: Counting

    func record(_ type: AdEventType, of token: AdToken, campaign: Campaign?, ledger: DeliveryLedger) async throws -> AdEventOutcome {
        try await events.record(EventCommitter.Event(type: type, token: token, campaign: campaign, ledger: ledger))
    }

    func deliveries(now: Int64, viewsSince since: Int64) async throws -> AdDeliveries {
        var deliveries = AdDeliveries()
        let todayHour = DeliveryLedger.day(of: now) * 24
        for row in try await connection.query(
            """
            SELECT campaign, SUM(impressions) AS impressions, SUM(clicks) AS clicks,
              SUM(CASE WHEN hour >= ?1 AND hour < ?1 + 24 THEN impressions ELSE 0 END) AS impressions_today,
              SUM(CASE WHEN hour >= ?1 AND hour < ?1 + 24 THEN clicks ELSE 0 END) AS clicks_today
            FROM counts WHERE campaign <> '' GROUP BY campaign
            """, [.integer(Int(todayHour))])
        {
            func number(_ name: String) -> Int { row.column(name)?.integer ?? 0 }
            deliveries.campaigns[row.column("campaign")?.string ?? ""] = AdDeliveries.Figures(
                impressions: number("impressions"), clicks: number("clicks"), impressionsToday: number("impressions_today"),
                clicksToday: number("clicks_today"))
        }
        for row in try await connection.query(
            "SELECT viewer, campaign, time FROM viewer_impressions WHERE time >= ?1 ORDER BY time", [.integer(Int(since))])
        {
            guard let viewer = row.column("viewer")?.string, let campaign = row.column("campaign")?.string,
                let time = row.column("time")?.integer
            else { throw AdsStoreError.corruptRow }
            deliveries.views.append((viewer, campaign, Int64(time)))
        }
        return deliveries
    }

    func forgetViews(before time: Int64) async throws {
        try await write("DELETE FROM viewer_impressions WHERE time < ?1", [.integer(Int(time))])
    }

    func forgetEvents(before hour: Int64) async throws {
        try await write("DELETE FROM events WHERE hour < ?1", [.integer(Int(hour))])
    }

    func add(_ tally: AdTally) async throws {
        try await write(
            """
            INSERT INTO counts (hour, campaign, creative, unit, requests, fills, invalid)
            SELECT value->>0, value->>1, value->>2, value->>3, value->>4, value->>5, value->>6 FROM json_each(?1) WHERE true
            ON CONFLICT (hour, campaign, creative, unit) DO UPDATE SET requests = requests + excluded.requests,
              fills = fills + excluded.fills, invalid = invalid + excluded.invalid
            """, [.text(JSONWriter.string(tally.rows))])
    }

    func report(from: Int64, to: Int64, period: AdReport.Period, group: AdReport.Group) async throws -> [AdReport.Row] {
        let (bucket, key) = (period.bucket, group.rawValue)
        // Read in turn with the writes, so that no row of a transaction yet to commit is counted.
        return try await writes.run { [connection] in
            try await connection.query(
                """
                SELECT \(bucket) AS bucket, \(key) AS key, SUM(requests) AS requests, SUM(fills) AS fills,
                  SUM(impressions) AS impressions, SUM(viewable) AS viewable, SUM(clicks) AS clicks, SUM(invalid) AS invalid
                FROM counts WHERE hour >= ?1 AND hour <= ?2 GROUP BY bucket, key ORDER BY bucket, key
                """, [.integer(Int(from)), .integer(Int(to))]
            ).map { row in
                func number(_ name: String) -> Int { row.column(name)?.integer ?? 0 }
                return AdReport.Row(
                    hour: Int64(number("bucket")), key: row.column("key")?.string ?? "", requests: number("requests"),
                    fills: number("fills"), impressions: number("impressions"), viewable: number("viewable"),
                    clicks: number("clicks"), invalid: number("invalid"))
            }
        }
    }
}

/// Whether the ads store can still be written: once a transaction could not be rolled back, no
/// write may run (it would join that transaction, and be answered without being durable).
final class StoreHealth: Sendable {
    private let failure = Mutex<String?>(nil)

    func fail(_ reason: String) {
        failure.withLock { $0 = $0 ?? reason }
    }

    var unavailability: String? { failure.withLock { $0 } }

    func check() throws {
        if let reason = unavailability { throw AdsStoreError.unavailable(reason) }
    }
}
