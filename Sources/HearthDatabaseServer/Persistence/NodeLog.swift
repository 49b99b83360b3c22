import Logging
import NIOPosix
import Synchronization

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

/// The node's ``DurableLog``: segment files under `<data dir>/database/log/`, appended to by
/// one thread of its own.
///
/// Batches appended while the thread writes and syncs wait in a queue, and the next write takes
/// them all: one `write` and one `fdatasync` for every batch that arrived meanwhile, whichever
/// namespaces they belong to (group commit). A segment past ``segmentBytes`` is closed and the
/// next one begun; a closed segment is deleted once every namespace with a batch in it has
/// checkpointed past that batch. Opening reads every segment left, up to the first record cut
/// short (``NodeLogRecord``), and offers their batches to the namespaces
/// (``unfoldedBatches(of:)``). A close once every namespace has checkpointed leaves no segment.
final class NodeLog: DurableLog {
    /// The size past which a segment is closed and the next begun.
    static let segmentBytes = 16 << 20

    let directory: String
    private let logger: Logger
    private let thread: NIOThreadPool
    private let state: Mutex<State>
    /// The open segment, touched only by the thread that writes (and by ``close()`` after it).
    private let writer: Mutex<SegmentWriter>
    /// The lock file, held while the log is open: one process at a time writes a log.
    private let lock: Int32
    /// Where the log is copied for restores to a point in time, if anywhere: a segment is deleted
    /// only once the archive holds all of it.
    private let archive: LogArchive?

    /// An append waiting for the next write.
    private struct Waiting {
        let bytes: [UInt8]
        let namespace: String
        let lastSequence: Int64
        let continuation: CheckedContinuation<PersistenceError?, Never>
    }

    /// A segment: its number, and the last sequence number of each namespace's batches in it.
    private struct Segment {
        let number: Int
        var lastSequences: [String: Int64] = [:]

        func isCovered(by checkpoints: [String: Int64]) -> Bool {
            lastSequences.allSatisfy { namespace, last in (checkpoints[namespace] ?? 0) >= last }
        }
    }

    private struct State {
        var waiting: [Waiting] = []
        var isWriting = false
        /// Set by a failed write or sync: no later append may succeed, as what the failed sync
        /// covered is unknown.
        var failure: PersistenceError?
        var isClosed = false
        /// Closed segments not deleted yet, oldest first.
        var closed: [Segment] = []
        /// The segment being written.
        var current: Segment
        /// How far each namespace's tables are durable.
        var checkpoints: [String: Int64] = [:]
        /// The batches read at opening that no checkpoint has covered yet, by namespace.
        var unfolded: [String: [LogBatch]] = [:]
    }

    /// The open segment file.
    private struct SegmentWriter {
        var descriptor: Int32
        var number: Int
        var size: Int
    }

    private init(directory: String, lock: Int32, state: State, writer: SegmentWriter, archive: LogArchive?, logger: Logger) {
        self.directory = directory
        self.lock = lock
        self.archive = archive
        self.state = Mutex(state)
        self.writer = Mutex(writer)
        self.logger = logger
        self.thread = NIOThreadPool(numberOfThreads: 1)
        thread.start()
        archive?.whenArchived { [weak self] in self?.retireCoveredSegments() }
    }

    /// Opens the log in `directory`, creating it if needed, and reads the segments a previous
    /// run left; with an `archive`, completes its copies of them first.
    static func open(directory: String, archive: LogArchive? = nil, logger: Logger) throws(PersistenceError) -> NodeLog {
        var state = State(current: Segment(number: 0))
        let lock = try lockDirectory(directory)
        do {
            let numbers = try FileManager.default.contentsOfDirectory(atPath: directory).compactMap(segmentNumber).sorted()
            for number in numbers {
                let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path(of: number, in: directory))))
                let (batches, validBytes) = NodeLogRecord.decodeAll(bytes)
                if validBytes < bytes.count {
                    // The segment open when the server stopped: its last record was never synced
                    // whole, so no write of it was acknowledged.
                    logger.info(
                        "a segment of the durable log ends in a record cut short",
                        metadata: ["segment": "\(number)", "bytes dropped": "\(bytes.count - validBytes)"])
                }
                try archive?.complete(segment: number, with: Array(bytes[..<validBytes]))
                var segment = Segment(number: number)
                for batch in batches where !batch.rows.isEmpty {
                    segment.lastSequences[batch.namespace] = max(segment.lastSequences[batch.namespace] ?? 0, batch.lastSequence)
                    state.unfolded[batch.namespace, default: []].append(batch)
                }
                state.closed.append(segment)
            }
            state.current = Segment(number: max(numbers.last ?? 0, archive?.lastSegmentNumber() ?? 0) + 1)
        } catch {
            Glibc.close(lock)
            throw .log("cannot read the durable log in \(directory): \(error)")
        }
        do {
            let writer = try createSegment(state.current.number, in: directory)
            return NodeLog(directory: directory, lock: lock, state: state, writer: writer, archive: archive, logger: logger)
        } catch {
            Glibc.close(lock)
            throw error
        }
    }

    /// Creates `directory` if needed and takes its lock file; fails when another process holds
    /// it.
    private static func lockDirectory(_ directory: String) throws(PersistenceError) -> Int32 {
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            throw .log("cannot create \(directory): \(error)")
        }
        let lock = Glibc.open(directory + "/lock", O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard lock >= 0 else { throw .log("cannot open the durable log's lock file: \(errorText())") }
        guard flock(lock, LOCK_EX | LOCK_NB) == 0 else {
            Glibc.close(lock)
            throw .log("another Hearth process is using the data directory of \(directory)")
        }
        return lock
    }

    // MARK: DurableLog

    var keepsEveryWrite: Bool { archive != nil }

    /// Why appends fail, once a write or a sync has failed or the log is closed.
    var unavailability: PersistenceError? {
        state.withLock { $0.failure ?? ($0.isClosed ? .log("the durable log is closed") : nil) }
    }

    func append(_ batch: LogBatch) async throws(PersistenceError) {
        guard !batch.rows.isEmpty else { return }
        var bytes: [UInt8] = []
        NodeLogRecord.encode(batch, into: &bytes)
        let error = await withCheckedContinuation { (continuation: CheckedContinuation<PersistenceError?, Never>) in
            let startsWriting = state.withLock { state -> Bool in
                if let failure = state.failure ?? (state.isClosed ? .log("the durable log is closed") : nil) {
                    continuation.resume(returning: failure)
                    return false
                }
                state.waiting.append(
                    Waiting(bytes: bytes, namespace: batch.namespace, lastSequence: batch.lastSequence, continuation: continuation))
                guard !state.isWriting else { return false }
                state.isWriting = true
                return true
            }
            if startsWriting { thread.submit { _ in self.writeWaiting() } }
        }
        if let error { throw error }
    }

    func checkpointed(_ namespace: String, through sequence: Int64) {
        state.withLock { state in
            state.checkpoints[namespace] = max(state.checkpoints[namespace] ?? 0, sequence)
            if let batches = state.unfolded[namespace] {
                let left = batches.filter { $0.lastSequence > sequence }
                state.unfolded[namespace] = left.isEmpty ? nil : left
            }
        }
        retireCoveredSegments()
    }

    /// Deletes the closed segments, oldest first, that every namespace has checkpointed past and
    /// the archive (if any) holds whole.
    private func retireCoveredSegments() {
        let retired = state.withLock { state -> [Int] in
            let covered = state.closed.prefix { segment in
                segment.isCovered(by: state.checkpoints) && archive?.holdsAll(of: segment.number) != false
            }.map(\.number)
            state.closed.removeFirst(covered.count)
            return covered
        }
        for number in retired {
            unlink(Self.path(of: number, in: directory))
            archive?.forget(number)
        }
    }

    func unfoldedBatches(of namespace: String) -> [LogBatch] {
        state.withLock { $0.unfolded[namespace] ?? [] }
    }

    /// The namespaces with batches read at opening that no checkpoint has covered yet.
    var namespacesWithUnfoldedBatches: [String] {
        state.withLock { Array($0.unfolded.keys) }
    }

    /// Refuses further appends, waits for the write under way, and closes the open segment;
    /// deletes every segment when every namespace has checkpointed all it appended.
    func close() async {
        while state.withLock({ state in
            state.isClosed = true
            return state.isWriting
        }) {
            try? await Task.sleep(for: .milliseconds(1))
        }
        let current = writer.withLock { writer in
            Glibc.close(writer.descriptor)
            writer.descriptor = -1
            return writer.number
        }
        if let archive {
            archive.closed(segment: current)
            await archive.close()
        }
        let segments = state.withLock { state -> [Int]? in
            let all = state.closed + [state.current]
            return all.allSatisfy { $0.isCovered(by: state.checkpoints) && archive?.holdsAll(of: $0.number) != false }
                ? all.map(\.number) : nil
        }
        for number in segments ?? [] { unlink(Self.path(of: number, in: directory)) }
        Glibc.close(lock)
        try? await thread.shutdownGracefully()
    }

    // MARK: Writing

    /// Writes and syncs every waiting append, until none waits (on the log's thread).
    private func writeWaiting() {
        while true {
            let batch = state.withLock { state -> [Waiting]? in
                guard !state.waiting.isEmpty else {
                    state.isWriting = false
                    return nil
                }
                defer { state.waiting = [] }
                return state.waiting
            }
            guard let batch else { return }
            let error = writer.withLock { writer -> PersistenceError? in
                do throws(PersistenceError) {
                    if writer.size >= Self.segmentBytes { try beginNextSegment(&writer) }
                    var bytes: [UInt8] = []
                    bytes.reserveCapacity(batch.reduce(0) { $0 + $1.bytes.count })
                    for waiting in batch { bytes.append(contentsOf: waiting.bytes) }
                    try LogFiles.write(bytes, to: writer.descriptor, what: "the durable log")
                    guard fdatasync(writer.descriptor) == 0 else { throw .log("fdatasync failed: \(Self.errorText())") }
                    writer.size += bytes.count
                    archive?.take(bytes, segment: writer.number)
                    return nil
                } catch {
                    return error
                }
            }
            state.withLock { state in
                if let error {
                    state.failure = error
                } else {
                    for waiting in batch {
                        state.current.lastSequences[waiting.namespace] = max(
                            state.current.lastSequences[waiting.namespace] ?? 0, waiting.lastSequence)
                    }
                }
            }
            if let error { logger.critical("the durable log cannot be written", metadata: ["error": "\(error)"]) }
            for waiting in batch { waiting.continuation.resume(returning: error) }
        }
    }

    /// Closes the open segment and begins the next one.
    private func beginNextSegment(_ writer: inout SegmentWriter) throws(PersistenceError) {
        let next = try Self.createSegment(writer.number + 1, in: directory)
        Glibc.close(writer.descriptor)
        archive?.closed(segment: writer.number)
        writer = next
        state.withLock { state in
            state.closed.append(state.current)
            state.current = Segment(number: next.number)
        }
        retireCoveredSegments()
    }

    /// Creates segment `number` and syncs the directory, so that the file outlives a crash.
    private static func createSegment(_ number: Int, in directory: String) throws(PersistenceError) -> SegmentWriter {
        let descriptor = Glibc.open(path(of: number, in: directory), O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw .log("cannot create a segment of the durable log: \(errorText())") }
        do {
            try LogFiles.syncDirectory(directory, what: "the durable log's folder")
        } catch {
            Glibc.close(descriptor)
            throw error
        }
        return SegmentWriter(descriptor: descriptor, number: number, size: 0)
    }

    private static func errorText() -> String { LogFiles.errorText() }

    static func path(of number: Int, in directory: String) -> String {
        let digits = String(number)
        return "\(directory)/\(String(repeating: "0", count: max(0, 16 - digits.count)))\(digits).log"
    }

    /// The number of the segment file named `fileName`, if it is one.
    static func segmentNumber(_ fileName: String) -> Int? {
        guard fileName.hasSuffix(".log"), fileName.count == 20 else { return nil }
        return Int(fileName.dropLast(4))
    }
}
