import NIOCore
import NIOPosix

#if canImport(Glibc)
    import Glibc
#endif

/// Runs the blocking work of backups and restores (file copies, checksums, store copies) on a
/// thread of their own, so that a backup taken by a running server holds none of the threads
/// its requests and its stores use. The thread runs in Linux's idle scheduling class: when the
/// machine is busy, serving comes first and the backup takes longer.
enum BackupIO {
    /// The thread.
    static let threadPool: NIOThreadPool = {
        let pool = NIOThreadPool(numberOfThreads: 1)
        pool.start()
        pool.submit { _ in
            #if canImport(Glibc)
                // SCHED_IDLE of <sched.h>, which Swift does not import.
                let idleScheduling: Int32 = 5
                var parameters = sched_param(sched_priority: 0)
                _ = pthread_setschedparam(pthread_self(), idleScheduling, &parameters)
            #endif
        }
        return pool
    }()

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
