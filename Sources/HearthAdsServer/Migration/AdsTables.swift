import HearthCore
import HearthPostgres
import NIOCore
import PostgresNIO
import SQLiteNIO

/// The tables of an ads store, as a migration reads and writes them: every row as text, in
/// the same form whichever store it comes from, so that what was copied can be compared with
/// what is read back.
struct AdsTables: Equatable, Sendable {
    /// A column's type, and so how its values are written as text.
    enum Kind: Sendable {
        case text
        /// Decimal digits.
        case integer
        /// Bytes, in lowercase hex.
        case bytes
        /// `1` or `0` (an integer in SQLite, a boolean in PostgreSQL).
        case flag
    }

    /// One table: its name without the PostgreSQL prefix (`hearth_ads_`), and its columns.
    struct Table: Sendable {
        var name: String
        var columns: [(name: String, kind: Kind)]
    }

    static let tables: [Table] = [
        Table(name: "units", columns: [("id", .text), ("record", .text)]),
        Table(name: "creatives", columns: [("id", .text), ("record", .text)]),
        Table(name: "campaigns", columns: [("id", .text), ("record", .text)]),
        Table(name: "settings", columns: [("name", .text), ("value", .bytes)]),
        Table(name: "images", columns: [("hash", .text), ("type", .text), ("bytes", .bytes)]),
        Table(
            name: "counts",
            columns: [
                ("hour", .integer), ("campaign", .text), ("creative", .text), ("unit", .text), ("requests", .integer),
                ("fills", .integer), ("impressions", .integer), ("viewable", .integer), ("clicks", .integer), ("invalid", .integer),
            ]),
        Table(
            name: "events",
            columns: [
                ("token", .text), ("type", .text), ("time", .integer), ("hour", .integer), ("campaign", .text), ("creative", .text),
                ("unit", .text), ("viewer", .text), ("counted", .flag),
            ]),
        Table(name: "viewer_impressions", columns: [("viewer", .text), ("campaign", .text), ("time", .integer)]),
    ]

    /// Each table's rows by its name, sorted, each value as text (`nil` for SQL's `NULL`).
    var rows: [String: [[String?]]] = [:]

    /// How many rows the catalog holds: units, creatives and campaigns.
    var catalogRows: Int {
        ["units", "creatives", "campaigns"].reduce(0) { $0 + (rows[$1]?.count ?? 0) }
    }

    /// Whether no table holds a row.
    var isEmpty: Bool { rows.values.allSatisfy(\.isEmpty) }

    /// The first table whose rows differ from `other`'s, with both counts.
    func difference(from other: AdsTables) -> String {
        for table in Self.tables where rows[table.name] != other.rows[table.name] {
            return "\(table.name): \(rows[table.name]?.count ?? 0) copied, \(other.rows[table.name]?.count ?? 0) read back"
        }
        return "no table"
    }

    /// Puts `table`'s rows in, sorted so that stores that return them in different orders
    /// compare equal.
    mutating func set(_ table: String, _ unsorted: [[String?]]) {
        rows[table] = unsorted.sorted { left, right in
            for (a, b) in zip(left, right) where a != b {
                return (a ?? "") < (b ?? "") || (a == nil && b != nil)
            }
            return false
        }
    }
}

// MARK: SQLite

extension AdsTables {
    /// Every row of the SQLite store open on `connection`.
    static func read(_ connection: SQLiteConnection) async throws -> AdsTables {
        var tables = AdsTables()
        for table in Self.tables {
            let columns = table.columns.map(\.name).joined(separator: ", ")
            let rows = try await connection.query("SELECT \(columns) FROM \(table.name)")
            tables.set(
                table.name,
                rows.map { row in
                    table.columns.map { column in
                        switch row.column(column.name) ?? .null {
                        case .text(let text): text
                        case .integer(let number): String(number)
                        case .float(let number): String(Int64(number))
                        case .blob(let bytes): Hex.encode(Array(bytes.readableBytesView))
                        case .null: nil
                        }
                    }
                })
        }
        return tables
    }
}

// MARK: PostgreSQL

extension AdsTables {
    /// The most rows one statement inserts.
    static let page = 1000

    /// Every row of the ads tables of the PostgreSQL database `connection` is on.
    static func read(_ connection: PostgresConnection) async throws -> AdsTables {
        var tables = AdsTables()
        for table in Self.tables {
            let columns = table.columns.map { column in
                switch column.kind {
                case .text: column.name
                case .integer: "\(column.name)::text"
                case .bytes: "encode(\(column.name), 'hex')"
                case .flag: "CASE WHEN \(column.name) THEN '1' ELSE '0' END"
                }
            }
            let rows = try await connection.query(
                PostgresQuery(unsafeSQL: "SELECT \(columns.joined(separator: ", ")) FROM hearth_ads_\(table.name)"),
                logger: ClusterDatabase.quietLogger
            ).collect()
            tables.set(
                table.name,
                try rows.map { row in
                    try row.map { cell in try cell.decode(String?.self) }
                })
        }
        return tables
    }

    /// Replaces every row of the ads tables of the PostgreSQL database `connection` is on with
    /// these, in the transaction open on it.
    func write(_ connection: PostgresConnection) async throws {
        for table in Self.tables {
            _ = try await connection.query(
                PostgresQuery(unsafeSQL: "DELETE FROM hearth_ads_\(table.name)"), logger: ClusterDatabase.quietLogger)
            let values = table.columns.enumerated().map { index, column in
                switch column.kind {
                case .text: "value->>\(index)"
                case .integer: "(value->>\(index))::bigint"
                case .bytes: "decode(value->>\(index), 'hex')"
                case .flag: "(value->>\(index)) = '1'"
                }
            }
            let all = rows[table.name] ?? []
            for start in stride(from: 0, to: all.count, by: Self.page) {
                let page = all[start..<min(start + Self.page, all.count)].map { row in
                    JSONValue.array(row.map { $0.map { .string($0) } ?? .null })
                }
                var query = PostgresQuery(
                    unsafeSQL: """
                        INSERT INTO hearth_ads_\(table.name) (\(table.columns.map(\.name).joined(separator: ", ")))
                        SELECT \(values.joined(separator: ", ")) FROM json_array_elements($1::json)
                        """)
                query.binds.append(JSONWriter.string(.array(Array(page))))
                _ = try await connection.query(query, logger: ClusterDatabase.quietLogger)
            }
        }
    }
}
