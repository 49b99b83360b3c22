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

/// Which history a log archive holds: an id written in the archive (`archive-id`) and recorded in
/// the data directory whose log it copies (`database/archive-id`), so that one archive never
/// mixes two histories — another data directory's, or this one's before it was restored from a
/// backup (a new history, which needs an archive of its own) — and so that an empty directory
/// where the archive's disk should be mounted is not taken for the archive.
enum LogArchiveIdentity {
    static let fileName = "archive-id"

    /// Checks that the archive in `archive` holds the history of the data directory that records
    /// its archive at `recorded`, writing the id on both sides when both are new; returns the id.
    static func check(archive: String, recorded: String, holdsSegments: Bool) throws(PersistenceError) -> String {
        let archived = read(archive + "/" + fileName)
        let ours = read(recorded)
        switch (archived, ours) {
        case (let archived?, let ours?) where archived == ours:
            return ours
        case (let archived?, nil) where !holdsSegments:
            try write(archived, to: recorded)
            return archived
        case (nil, nil) where !holdsSegments:
            let id = UUID().uuidString.lowercased()
            try write(id, to: archive + "/" + fileName)
            try write(id, to: recorded)
            return id
        case (nil, _?):
            throw .log(
                "the log archive \(archive) does not hold this data directory's history (is its disk mounted?); "
                    + "to begin a new archive there, delete \(recorded)")
        default:
            throw .log(
                "the log archive \(archive) holds another history (another data directory's, or this one's before "
                    + "a restore): give this data directory an archive directory of its own")
        }
    }

    /// The id a file holds, or `nil` when there is none.
    static func read(_ path: String) -> String? {
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        return String(decoding: data, as: UTF8.self).split(whereSeparator: \.isWhitespace).first.map(String.init)
    }

    private static func write(_ id: String, to path: String) throws(PersistenceError) {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw .log("cannot write \(path): \(LogFiles.errorText())") }
        defer { Glibc.close(descriptor) }
        try LogFiles.write(Array((id + "\n").utf8), to: descriptor, what: path)
        guard fsync(descriptor) == 0 else { throw .log("cannot sync \(path): \(LogFiles.errorText())") }
    }
}
