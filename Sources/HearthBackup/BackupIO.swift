import NIOCore
import NIOPosix

/// Runs the blocking work of backups and restores (file copies, checksums, store copies) on a
/// thread of their own, so that a backup taken by a running server holds none of the threads
/// its requests and its stores use.
enum BackupIO {
    /// The thread.
    static let threadPool: NIOThreadPool = {
        let pool = NIOThreadPool(numberOfThreads: 1)
        pool.start()
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
