/// Where the writes of every namespace become durable before their writers are answered.
///
/// A namespace's store appends each batch of writes it commits — the batch's log rows
/// (``WriteLog``), numbered from the namespace's next sequence number — and answers the writers
/// once ``append(_:)`` returns. The store then folds its batches into its own tables, off the
/// commit path, and reports how far those tables are durable (``checkpointed(_:through:)``); the
/// log may then forget what it held for that namespace. Batches that arrive together are made
/// durable together, whichever namespaces they belong to.
///
/// ``NodeLog`` keeps the log in segment files beside the namespaces' SQLite files.
protocol DurableLog: Sendable {
    /// Makes `batch` durable; returns once it is, or throws and keeps nothing of it.
    func append(_ batch: LogBatch) async throws(PersistenceError)

    /// Records that the tables of `namespace` hold every row through `sequence` durably.
    func checkpointed(_ namespace: String, through sequence: Int64)

    /// Whether every write must reach the log whole, however large: when the log is archived for
    /// restores to a point in time. Otherwise a write too large for the log goes into its
    /// namespace's tables straight.
    var keepsEveryWrite: Bool { get }

    /// The batches of `namespace` the log held when it was opened and that no checkpoint has
    /// covered since: what a crash may have kept out of the namespace's tables, in order.
    func unfoldedBatches(of namespace: String) -> [LogBatch]
}

/// The log rows of one namespace's commit, numbered from `firstSequence`.
struct LogBatch: Sendable, Equatable {
    let namespace: String
    let firstSequence: Int64
    /// Each row's JSON text (``WriteLog/Row``).
    let rows: [String]

    /// The sequence number of the last row.
    var lastSequence: Int64 { firstSequence + Int64(rows.count) - 1 }
}
