import Logging
import NIOPosix
import Synchronization

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A copy of the node's durable log kept in a directory of its own (`--log-archive`), segment by
/// segment under the same names, for restores to a point in time.
///
/// The log hands over each run of bytes once it has synced them (``take(_:segment:)``); a thread
/// of the archive's own writes what is waiting into the segments' copies and syncs them, so the
/// archive lags the log by about one sync and never slows a commit. The log deletes a segment
/// only once the archive holds all of it (``holdsAll(of:)``). Opening the archive completes the
/// copies of the segments a crash left behind (``complete(segment:with:)``).
final class LogArchive: Sendable {
    let directory: String
    private let logger: Logger
    private let reporting: Reporting
    /// The lock file, held while the archive is open: one process at a time writes an archive.
    private let lock: Int32
    private let thread: NIOThreadPool
    private let state = Mutex(State())

    private struct State {
        /// Bytes taken and not yet written, in order, with their segment's number.
        var waiting: [(segment: Int, bytes: [UInt8])] = []
        /// When the oldest of them was taken.
        var oldestWaiting: ContinuousClock.Instant?
        /// Their bytes together.
        var waitingBytes = 0
        /// Segments closed by the log, whose last bytes are among those waiting or written.
        var closing: Set<Int> = []
        /// Closed segments whose every byte is written and synced.
        var archived: Set<Int> = []
        var isWriting = false
        var failure: PersistenceError?
        /// Called once a closed segment is wholly archived.
        var onArchived: (@Sendable () -> Void)?
    }

    /// Opens the archive in `directory`, which must exist (an archive belongs on a disk of its
    /// own, mounted there), holding its lock for this process and checking that it holds the
    /// history of the data directory recording its archive at `recordedIdentity`
    /// (``LogArchiveIdentity``).
    init(
        directory: String, recordedIdentity: String, logger: Logger, reporting: Reporting = Reporting()
    ) throws(PersistenceError) {
        var status = stat()
        guard stat(directory, &status) == 0, status.st_mode & S_IFMT == S_IFDIR else {
            throw .log("the log archive \(directory) does not exist: create it, on another disk, first")
        }
        let lock = open(directory + "/lock", O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard lock >= 0 else { throw .log("cannot open the log archive's lock file: \(LogFiles.errorText())") }
        guard flock(lock, LOCK_EX | LOCK_NB) == 0 else {
            Glibc.close(lock)
            throw .log("another Hearth process archives into \(directory)")
        }
        do {
            let holdsSegments = ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [])
                .contains { NodeLog.segmentNumber($0) != nil }
            _ = try LogArchiveIdentity.check(archive: directory, recorded: recordedIdentity, holdsSegments: holdsSegments)
        } catch {
            Glibc.close(lock)
            throw error
        }
        self.directory = directory
        self.lock = lock
        self.logger = logger
        self.reporting = reporting
        self.thread = NIOThreadPool(numberOfThreads: 1)
        thread.start()
    }

    /// Where the archive reports how it keeps up.
    struct Reporting: Sendable {
        /// Told how long after being taken each run of bytes was synced.
        var lag: @Sendable (Duration) -> Void = { _ in }
        /// Told once the archive cannot be written any more.
        var failed: @Sendable () -> Void = {}
    }

    /// The highest number of a segment the archive holds, 0 when it holds none: the log numbers
    /// its new segments after it, so that a copy is never written twice.
    func lastSegmentNumber() -> Int {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return names.compactMap(NodeLog.segmentNumber).max() ?? 0
    }

    /// Tells the archive whom to call when a segment becomes wholly archived.
    func whenArchived(_ callback: @escaping @Sendable () -> Void) {
        state.withLock { $0.onArchived = callback }
    }

    /// Why the archive stopped, once a write or a sync of it failed.
    var failure: PersistenceError? { state.withLock { $0.failure } }

    /// Makes the copy of segment `number` hold exactly `bytes` (the whole records of the log's
    /// segment), at opening, before any write: a crash may have left it short, or with a record
    /// cut short at its end. A copy that is not a beginning of `bytes` is another history's, and
    /// is refused, never changed.
    func complete(segment number: Int, with bytes: [UInt8]) throws(PersistenceError) {
        let path = NodeLog.path(of: number, in: directory)
        let copy = FileManager.default.contents(atPath: path).map { [UInt8]($0) } ?? []
        let archived = NodeLogRecord.decodeAll(copy).validBytes
        guard archived <= bytes.count, copy[..<archived] == bytes[..<archived] else {
            throw .log("the log archive's copy of segment \(number) (\(path)) differs from the log's: another history's archive")
        }
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw .log("cannot open \(path): \(Self.errorText())") }
        defer { Glibc.close(descriptor) }
        // What follows the whole records of the copy was never synced whole.
        guard ftruncate(descriptor, off_t(archived)) == 0, lseek(descriptor, off_t(archived), SEEK_SET) >= 0 else {
            throw .log("cannot resize \(path): \(Self.errorText())")
        }
        try LogFiles.write(Array(bytes[archived...]), to: descriptor, what: path)
        guard fdatasync(descriptor) == 0 else { throw .log("cannot sync \(path): \(Self.errorText())") }
        try LogFiles.syncDirectory(directory, what: directory)
        state.withLock { _ = $0.archived.insert(number) }
    }

    /// The most bytes that may wait for the archive's disk (one batch larger than that may wait
    /// alone): past them the archive counts as failed (the log keeps its segments until a restart
    /// copies them) rather than hold the writes of a slow disk in memory.
    static let backlogLimit = 256 << 20

    /// Takes `bytes` the log has just synced at the end of segment `number`.
    func take(_ bytes: [UInt8], segment number: Int) {
        let fellBehind = state.withLock { state -> Bool in
            guard state.failure == nil, !state.waiting.isEmpty, state.waitingBytes + bytes.count > Self.backlogLimit else { return false }
            state.failure = .log("the log archive fell more than \(Self.backlogLimit >> 20) MiB behind the log")
            state.waiting = []
            state.waitingBytes = 0
            return true
        }
        if fellBehind {
            logger.critical("the log archive fell behind its log; the log keeps its segments until a restart copies them")
            reporting.failed()
            return
        }
        let starts = state.withLock { state -> Bool in
            guard state.failure == nil else { return false }
            state.waiting.append((number, bytes))
            state.waitingBytes += bytes.count
            state.oldestWaiting = state.oldestWaiting ?? .now
            guard !state.isWriting else { return false }
            state.isWriting = true
            return true
        }
        if starts { thread.submit { _ in self.writeWaiting() } }
    }

    /// Records that the log closed segment `number`: no byte of it comes after those taken.
    func closed(segment number: Int) {
        let archivedNow = state.withLock { state -> Bool in
            // After a failure the bytes taken since are lost: the log keeps the segment, and the
            // next start copies it whole.
            if state.failure != nil || state.waiting.contains(where: { $0.segment == number }) || state.isWriting {
                state.closing.insert(number)
                return false
            }
            state.archived.insert(number)
            return true
        }
        if archivedNow { state.withLock { $0.onArchived }?() }
    }

    /// Whether every byte of the closed segment `number` is archived and synced.
    func holdsAll(of number: Int) -> Bool {
        state.withLock { $0.archived.contains(number) }
    }

    /// Forgets a segment the log deleted.
    func forget(_ number: Int) {
        state.withLock { _ = $0.archived.remove(number) }
    }

    /// Waits for the bytes taken to be written, then stops the thread.
    func close() async {
        while state.withLock({ $0.isWriting }) { try? await Task.sleep(for: .milliseconds(1)) }
        try? await thread.shutdownGracefully()
        Glibc.close(lock)
    }

    /// Writes and syncs what waits, until nothing does (on the archive's thread). After each
    /// round, the closed segments none of whose bytes still wait are wholly archived: the log
    /// closes a segment only after handing over its last bytes.
    private func writeWaiting() {
        while true {
            let (runs, taken) = state.withLock { state -> ([(segment: Int, bytes: [UInt8])], ContinuousClock.Instant?) in
                defer {
                    state.waiting = []
                    state.waitingBytes = 0
                    state.oldestWaiting = nil
                }
                return (state.waiting, state.oldestWaiting)
            }
            do throws(PersistenceError) {
                for segment in Set(runs.map(\.segment)).sorted() {
                    try append(runs.filter { $0.segment == segment }.flatMap(\.bytes), toSegment: segment)
                }
            } catch {
                logger.critical(
                    "the log archive cannot be written; the log keeps its segments until a restart copies them",
                    metadata: ["error": "\(error)"])
                reporting.failed()
                state.withLock { state in
                    state.failure = error
                    state.waiting = []
                    state.waitingBytes = 0
                    state.isWriting = false
                }
                return
            }
            if let taken { reporting.lag(.now - taken) }
            let (finished, callback, isDone) = state.withLock { state -> (Bool, (@Sendable () -> Void)?, Bool) in
                let done = state.closing.filter { number in !state.waiting.contains { $0.segment == number } }
                state.closing.subtract(done)
                state.archived.formUnion(done)
                if state.waiting.isEmpty { state.isWriting = false }
                return (!done.isEmpty, state.onArchived, !state.isWriting)
            }
            if finished { callback?() }
            if isDone { return }
        }
    }

    /// Appends `bytes` to the copy of segment `number` and syncs it (and the directory, when the
    /// copy is new).
    private func append(_ bytes: [UInt8], toSegment number: Int) throws(PersistenceError) {
        let path = NodeLog.path(of: number, in: directory)
        let descriptor = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw .log("cannot open \(path): \(Self.errorText())") }
        defer { Glibc.close(descriptor) }
        let isNew = lseek(descriptor, 0, SEEK_END) == 0
        try LogFiles.write(bytes, to: descriptor, what: path)
        guard fdatasync(descriptor) == 0 else { throw .log("cannot sync \(path): \(Self.errorText())") }
        if isNew { try LogFiles.syncDirectory(directory, what: directory) }
    }

    private static func errorText() -> String { LogFiles.errorText() }
}
