import CoreMetrics
import Metrics

/// The traffic figures of one server, kept with swift-metrics in the factory the server was
/// given (Prometheus's, exported at `/metrics`), and read by the console's traffic view there.
///
/// Each figure is a counter or a meter incremented where the work happens; none takes a lock on
/// the data path.
package struct TrafficMetrics: Sendable {
    /// Open connections on the main port, of every kind.
    package let connections: Meter
    /// Open realtime sessions (WebSocket and long-polling).
    package let realtimeSessions: Meter
    /// Realtime messages received.
    package let realtimeMessages: Counter
    /// Active database listeners (realtime listens and REST event streams).
    package let listeners: Meter
    /// Database reads: each REST or realtime get, query and listen.
    package let databaseReads: Counter
    /// Database writes applied.
    package let databaseWrites: Counter
    /// Reads of the database's pages that found them in memory, and those that read the disk.
    package let databaseCacheHits: Counter
    package let databaseCacheMisses: Counter
    /// Bytes the database's pages in memory take, by estimate.
    package let databaseCacheBytes: Meter
    /// Bytes received and sent on the main port.
    package let receivedBytes: Counter
    package let sentBytes: Counter
    /// Requests refused by rules, by product and path.
    package let denials: DenialTally
    /// When the newest complete backup began (seconds since 1970), and its bytes.
    package let backupBegan: Meter
    package let backupBytes: Meter
    /// Scheduled backups that failed.
    package let backupFailures: Counter
    /// How long after the durable log synced a write its archive synced it too.
    private let logArchiveLag: Timer
    /// Times the log archive could not be written (it then stops until a restart).
    package let logArchiveFailures: Counter
    private let factory: any MetricsFactory

    /// Figures kept in `factory`; the default keeps none (a server in a test).
    package init(factory: any MetricsFactory = NOOPMetricsHandler.instance) {
        self.factory = factory
        connections = Meter(label: "hearth_connections", dimensions: [], factory: factory)
        realtimeSessions = Meter(label: "hearth_realtime_sessions", dimensions: [], factory: factory)
        realtimeMessages = Counter(label: "hearth_realtime_messages_total", dimensions: [], factory: factory)
        listeners = Meter(label: "hearth_database_listeners", dimensions: [], factory: factory)
        databaseReads = Counter(label: "hearth_database_reads_total", dimensions: [], factory: factory)
        databaseWrites = Counter(label: "hearth_database_writes_total", dimensions: [], factory: factory)
        databaseCacheHits = Counter(label: "hearth_database_cache_hits_total", dimensions: [], factory: factory)
        databaseCacheMisses = Counter(label: "hearth_database_cache_misses_total", dimensions: [], factory: factory)
        databaseCacheBytes = Meter(label: "hearth_database_cache_bytes", dimensions: [], factory: factory)
        receivedBytes = Counter(label: "hearth_received_bytes_total", dimensions: [], factory: factory)
        sentBytes = Counter(label: "hearth_sent_bytes_total", dimensions: [], factory: factory)
        backupBegan = Meter(label: "hearth_backup_last_began_seconds", dimensions: [], factory: factory)
        backupBytes = Meter(label: "hearth_backup_last_bytes", dimensions: [], factory: factory)
        backupFailures = Counter(label: "hearth_backup_failures_total", dimensions: [], factory: factory)
        logArchiveLag = Timer(label: "hearth_log_archive_lag_seconds", dimensions: [], factory: factory)
        logArchiveFailures = Counter(label: "hearth_log_archive_failures_total", dimensions: [], factory: factory)
        denials = DenialTally(
            counters: ["database", "storage"].map { product in
                (product, Counter(label: "hearth_rules_denials_total", dimensions: [("product", product)], factory: factory))
            })
    }

    /// Records that the log archive synced a write `lag` after the durable log did.
    package func recordLogArchiveLag(_ lag: Duration) {
        logArchiveLag.recordNanoseconds(lag.components.seconds * 1_000_000_000 + lag.components.attoseconds / 1_000_000_000)
    }

    /// The HTTP request counters of `product`, one per status class.
    package func requests(of product: String) -> RequestCounters {
        RequestCounters(product: product, factory: factory)
    }
}

/// `hearth_http_requests_total{product, code}` for one product, `code` being the status class
/// (`2xx` … `5xx`; the rare informational answer counts as `2xx`).
package struct RequestCounters: Sendable {
    private let byClass: [Counter]

    init(product: String, factory: any MetricsFactory) {
        byClass = (2...5).map { digit in
            Counter(
                label: "hearth_http_requests_total", dimensions: [("product", product), ("code", "\(digit)xx")],
                factory: factory)
        }
    }

    /// Counts one answer with `status`.
    package func count(status: Int) {
        byClass[min(max(status / 100, 2), 5) - 2].increment()
    }
}
