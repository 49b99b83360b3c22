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
            descriptor = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
            guard descriptor >= 0 else { throw .io("cannot open \(path): \(String(cString: strerror(errno)))") }
            self.path = path
        }

        deinit { close(descriptor) }

        /// Appends `changes` and syncs them.
        func append(_ changes: [StoreChangeLog.Change]) throws(BackupError) {
            var text = ""
            for change in changes { text += "{\"seq\":\(change.seq),\"time\":\(change.time),\"change\":\(change.change)}\n" }
            let data = Array(text.utf8)
            var written = 0
            while written < data.count {
                let result = data[written...].withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
                guard result > 0 else { throw .io("cannot append to \(path): \(String(cString: strerror(errno)))") }
                written += result
            }
            guard fsync(descriptor) == 0 else { throw .io("cannot sync \(path): \(String(cString: strerror(errno)))") }
            bytes += data.count
        }
    }

    /// A new segment of `store` whose first change is `seq`, its directory synced.
    func newSegment(of store: String, from seq: Int64) throws(BackupError) -> Segment {
        let folder = storeDirectory(store)
        try DurableFiles.createDirectory(folder)
        let name = String(repeating: "0", count: max(0, 20 - String(seq).count)) + String(seq) + ".jsonl"
        let segment = try Segment(path: folder + "/" + name)
        try DurableFiles.syncDirectory(folder)
        return segment
    }

    /// Copies the object bytes at `source` as blob `id`, unless the archive has them.
    func keepBlob(_ id: String, from source: String) throws(BackupError) {
        let target = blob(id)
        guard !FileManager.default.fileExists(atPath: target) else { return }
        try DurableFiles.createDirectory(directory + "/blobs")
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

    /// Every change archived for `store`, in order of `seq`, each once. A line cut short (the
    /// end of a segment being appended when the archive's disk stopped) ends its segment.
    func entries(of store: String) throws(BackupError) -> [Entry] {
        let folder = storeDirectory(store)
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).filter { $0.hasSuffix(".jsonl") }.sorted()
        var bySeq: [Int64: Entry] = [:]
        for name in names {
            guard let data = FileManager.default.contents(atPath: folder + "/" + name) else { throw .io("cannot read \(folder)/\(name)") }
            for line in data.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: true) {
                guard let entry = try? JSONParser.parse(Array(line)), case .number(.int(let seq))? = entry["seq"],
                    case .number(.int(let time))? = entry["time"], let change = entry["change"]
                else { break }
                bySeq[seq] = Entry(seq: seq, time: time, change: change)
            }
        }
        return bySeq.values.sorted { $0.seq < $1.seq }
    }
}
