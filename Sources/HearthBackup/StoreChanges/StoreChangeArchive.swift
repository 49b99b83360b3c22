import HearthCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Where a log archive (`--log-archive`) keeps the changes of the SQLite stores, beside the
/// database's log: `stores/<store's path>/<first seq>.jsonl`, one change a line
/// (`{"seq":…,"time":…,"change":…}`), appended and synced; and `blobs/<id>`, the bytes of every
/// stored object a change names, copied once. Blocking: call it off the cooperative pool.
struct StoreChangeArchive: Sendable {
    let directory: String

    /// A segment holds at most this many bytes before the next begins.
    static let segmentBytes = 16 << 20

    func storeDirectory(_ store: String) -> String { directory + "/stores/" + store }
    func blob(_ id: String) -> String { directory + "/blobs/" + id }

    /// A segment being appended to, by one task at a time (the archiver's).
    final class Segment: @unchecked Sendable {
        let path: String
        private let descriptor: Int32
        private(set) var bytes = 0

        fileprivate init(path: String) throws(BackupError) {
            descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC, 0o600)
            guard descriptor >= 0 else { throw .io("cannot open \(path): \(String(cString: strerror(errno)))") }
            self.path = path
        }

        deinit { close(descriptor) }

        /// Appends `changes` and syncs them.
        func append(_ changes: [StoreChangeLog.Change]) throws(BackupError) {
            var text = ""
            for change in changes { text += "{\"seq\":\(change.seq),\"time\":\(change.time),\"change\":\(change.change)}\n" }
            let data = Array(text.utf8)
            if let failure = data.withUnsafeBytes({ DurableFiles.writeAll($0, to: descriptor) }) {
                throw .io("cannot append to \(path): \(failure)")
            }
            guard fsync(descriptor) == 0 else { throw .io("cannot sync \(path): \(String(cString: strerror(errno)))") }
            bytes += data.count
        }
    }

    /// A new segment of `store` whose first change is `seq`, its directories synced. Its name
    /// is new even when a segment from `seq` exists (an append that failed, retried): a torn
    /// line only ever ends a segment.
    func newSegment(of store: String, from seq: Int64) throws(BackupError) -> Segment {
        let folder = storeDirectory(store)
        try createSynced(folder)
        let number = String(repeating: "0", count: max(0, 20 - String(seq).count)) + String(seq)
        let segment = try Segment(path: folder + "/" + number + "-" + String(UInt64.random(in: 0...UInt64.max), radix: 16) + ".jsonl")
        try DurableFiles.syncDirectory(folder)
        return segment
    }

    /// Creates `folder` and the archive's directories above it that are missing, each synced
    /// into its parent.
    private func createSynced(_ folder: String) throws(BackupError) {
        guard !FileManager.default.fileExists(atPath: folder) else { return }
        let parent = parentDirectory(of: folder)
        if parent.count > directory.count { try createSynced(parent) }
        try DurableFiles.createDirectory(folder)
        try DurableFiles.syncDirectory(parent)
    }

    /// Copies the object bytes at `source` as blob `id`, unless the archive has them.
    func keepBlob(_ id: String, from source: String) throws(BackupError) {
        let target = blob(id)
        guard !FileManager.default.fileExists(atPath: target) else { return }
        try createSynced(directory + "/blobs")
        // A copy an earlier attempt left unfinished.
        try DurableFiles.remove(target + ".partial")
        guard try DurableFiles.copy(source, to: target + ".partial") != nil else { return }
        try DurableFiles.rename(target + ".partial", to: target)
        try DurableFiles.syncDirectory(directory + "/blobs")
    }

    /// One archived change.
    struct Entry: Sendable {
        let seq: Int64
        let time: Int64
        let change: JSONValue
    }

    /// Every change archived for `store`, in order of `seq`, each once. A line that cannot be read
    /// (cut short: the end of a segment being appended when the archive's disk stopped) is
    /// skipped: a change it held is missing, which the restore's check of the numbering finds.
    func entries(of store: String) throws(BackupError) -> [Entry] {
        let folder = storeDirectory(store)
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).filter { $0.hasSuffix(".jsonl") }.sorted()
        var bySeq: [Int64: Entry] = [:]
        for name in names {
            guard let data = FileManager.default.contents(atPath: folder + "/" + name) else { throw .io("cannot read \(folder)/\(name)") }
            for line in data.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: true) {
                guard let entry = try? JSONParser.parse(Array(line)), case .number(.int(let seq))? = entry["seq"],
                    case .number(.int(let time))? = entry["time"], let change = entry["change"]
                else { continue }
                bySeq[seq] = Entry(seq: seq, time: time, change: change)
            }
        }
        return bySeq.values.sorted { $0.seq < $1.seq }
    }
}
