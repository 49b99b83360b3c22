import HearthCore

/// One batch of writes as `hearth_commit` takes it (``PostgresSchema``): the leaf rows to delete
/// and to write, and the log rows to append, each as parallel arrays of text.
///
/// Plain arrays, not a JSON document: PostgreSQL's JSON functions refuse a string holding
/// `\u0000` (text cannot hold that character), and values may hold it. Each value here is the
/// value's JSON text, in which it stays escaped.
struct PostgresCommitBatch: LeafRowOperations {
    /// Rows deleted with every row below them.
    private(set) var deletedSubtrees: [String] = []
    /// Rows deleted alone.
    private(set) var deletedRows: [String] = []
    /// The rows written, and their values' JSON text.
    private(set) var keys: [String] = []
    private(set) var values: [String] = []
    /// The log rows: sequence numbers, times and JSON text.
    private(set) var sequences: [Int64] = []
    private(set) var times: [Int64] = []
    private(set) var entries: [String] = []

    mutating func deleteSubtree(_ key: String) {
        deletedSubtrees.append(key)
    }

    mutating func deleteRow(_ key: String) {
        deletedRows.append(key)
    }

    mutating func put(_ row: LeafRows.Row) {
        keys.append(row.key)
        var writer = JSONWriter()
        writer.write(row.value)
        values.append(String(decoding: writer.bytes, as: UTF8.self))
    }

    /// Appends the log row `row`.
    mutating func appendLog(_ row: WriteLog.StoredRow) {
        sequences.append(row.sequence)
        times.append(row.time)
        entries.append(row.text)
    }
}
