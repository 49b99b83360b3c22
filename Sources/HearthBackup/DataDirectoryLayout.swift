#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Where each product keeps its durable state in a data directory, as paths relative to it. A
/// backup holds the same paths, so that restoring is copying them back.
enum DataDirectoryLayout {
    /// The stores that are one SQLite file each, besides the database's namespaces.
    static let fixedStores = ["auth/auth.sqlite", "console.sqlite", storageStore, "ads/ads.sqlite"]
    static let storageStore = "storage/storage.sqlite"
    static let namespacesDirectory = "database"
    /// The database's durable log (segment files), which holds the writes its namespaces' files
    /// may not hold yet.
    static let logDirectory = "database/log"

    /// Where the data directory records the log archive it archives into.
    static let archiveIdentity = "database/archive-id"

    /// The id of the log archive `dataDirectory` archives into, if any.
    static func archiveIdentity(of dataDirectory: String) -> String? {
        guard let data = FileManager.default.contents(atPath: dataDirectory + "/" + archiveIdentity) else { return nil }
        return String(decoding: data, as: UTF8.self).split(whereSeparator: \.isWhitespace).first.map(String.init)
    }

    /// Where `hearth serve --https` keeps the certificate ACME obtained, its key and the ACME
    /// account's key.
    static let tlsDirectory = "tls"

    /// The keys and certificates in ``tlsDirectory`` (files being replaced excluded).
    static func tlsFiles(in dataDirectory: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: dataDirectory + "/" + tlsDirectory)) ?? [])
            .filter { $0.hasSuffix(".pem") }.sorted().map { tlsDirectory + "/" + $0 }
    }

    /// The file of a stored object's bytes (`BlobDirectory` of Storage).
    static func blob(_ id: String) -> String { "storage/blobs/\(id.prefix(2))/\(id)" }

    /// The ids of the stored objects' files in `dataDirectory`.
    static func blobs(in dataDirectory: String) -> [String] {
        let root = dataDirectory + "/storage/blobs"
        let fileManager = FileManager.default
        return ((try? fileManager.contentsOfDirectory(atPath: root)) ?? []).sorted().flatMap { prefix in
            ((try? fileManager.contentsOfDirectory(atPath: root + "/" + prefix)) ?? []).filter { $0.hasPrefix(prefix) }.sorted()
        }
    }

    /// The SQLite stores present in `dataDirectory`: the fixed ones, then every namespace.
    static func stores(in dataDirectory: String) -> [String] {
        let namespaces = ((try? FileManager.default.contentsOfDirectory(atPath: dataDirectory + "/" + namespacesDirectory)) ?? [])
            .filter { $0.hasSuffix(".sqlite") }.sorted().map { namespacesDirectory + "/" + $0 }
        return (fixedStores + namespaces).filter { FileManager.default.fileExists(atPath: dataDirectory + "/" + $0) }
    }

    /// The segments of the durable log in `dataDirectory`, oldest first.
    static func logSegments(in dataDirectory: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: dataDirectory + "/" + logDirectory)) ?? [])
            .filter { $0.hasSuffix(".log") }.sorted().map { logDirectory + "/" + $0 }
    }

    /// The bytes `relativePaths` take in `dataDirectory`, write-ahead logs of stores included.
    static func bytes(of relativePaths: [String], in dataDirectory: String) -> Int64 {
        relativePaths.reduce(0) { total, path in
            let file = dataDirectory + "/" + path
            return total + (DurableFiles.size(of: file) ?? 0) + (DurableFiles.size(of: file + "-wal") ?? 0)
        }
    }
}
