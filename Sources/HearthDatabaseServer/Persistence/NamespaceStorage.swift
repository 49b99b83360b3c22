import HearthCore

/// Where one namespace's writes become durable, and where its history and settings are kept: its
/// SQLite file beside the node's durable log (``NamespaceStore``), or PostgreSQL
/// (``PostgresNamespaceStore``). ``NamespaceEngine`` commits into it from one commit loop at a
/// time.
protocol NamespaceStorage: AnyObject, Sendable {
    /// The sequence number of the last write logged (0 before the first).
    var lastSequence: Int64 { get }
    /// The time of the newest write ever logged (0 before the first), as it was at opening.
    var lastLoggedTime: Int64 { get }
    /// Where the tree's pages are read, or `nil` when the tree is held whole in memory.
    var pageSource: PageSource? { get }

    /// The tree as stored, and how many writes a crash had left out of it and opening replayed.
    func openTree() async throws -> (tree: Node, replayed: Int)

    /// Logs `writes`, which made the subtrees at `paths` equal to those of `tree`: returns the
    /// sequence number of the last one once they are durable.
    func commit(_ writes: [LoggedWrite], paths: [DatabasePath], tree: Node) async throws -> Int64

    /// Calls `observer` with the last write folded into the stored tree after each compaction
    /// from now on: what was written up to there may become pages again.
    func observeFolds(_ observer: @escaping @Sendable (Int64) -> Void)

    /// Calls `observer` once if the store is lost for good while open: another node took the
    /// namespace over, or a commit failed and the tree in memory holds writes the store never
    /// will. The namespace must then be opened anew.
    func observeLoss(_ observer: @escaping @Sendable () -> Void)

    /// Up to `limit` log rows before row `sequence`, newest first.
    func logRows(before sequence: Int64, limit: Int) async throws -> [WriteLog.StoredRow]

    /// The time before which the log keeps no history (ms since 1970; 0: since the beginning).
    func historyBegins() async throws -> Int64

    /// A stored setting (for example the rules document), or `nil`.
    func setting(_ name: String) async throws -> String?

    /// Stores a setting durably.
    func setSetting(_ name: String, _ value: String) async throws

    /// Makes every write committed durable in the stored tree, and closes the storage.
    func close() async
}
