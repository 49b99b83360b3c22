import NIOCore
import NIOPosix

#if canImport(Glibc)
    import Glibc
#endif

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Runs the blocking work of backups and restores (file copies, checksums, store copies) on a
/// thread of their own, so that a backup taken by a running server holds none of the threads
/// its requests and its stores use. The thread runs at a low priority (`nice` 19, the lowest): when the
/// machine is busy, serving comes first and the backup takes longer, but it still advances.
enum BackupIO {
    /// The thread.
    static let threadPool: NIOThreadPool = {
        let pool = NIOThreadPool(numberOfThreads: 1)
        pool.start()
        pool.submit { _ in lowerPriority() }
        return pool
    }()

    /// Lowers the calling thread's priority to `nice` 19 (Linux gives each thread its own; its id
    /// is read from `/proc/thread-self`, as Swift does not import `gettid`).
    private static func lowerPriority() {
        #if canImport(Glibc)
            guard let link = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/thread-self"),
                let thread = link.split(separator: "/").last.flatMap({ id_t($0) })
            else { return }
            _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), thread, 19)
        #endif
    }

    /// The event loop the stores' copies answer on.
    static var eventLoop: any EventLoop { MultiThreadedEventLoopGroup.singleton.any() }

    static func run<Result: Sendable>(_ work: @escaping @Sendable () throws(BackupError) -> Result) async throws(BackupError) -> Result {
        do {
            return try await threadPool.runIfActive { try work() }
        } catch let error as BackupError {
            throw error
        } catch {
            throw .io("\(error)")
        }
    }
}
