import NIOPosix

/// Runs the blocking file work of backups and restores on NIO's thread pool, off the cooperative
/// threads a server answers requests on.
enum BackupIO {
    static func run<Result: Sendable>(_ work: @escaping @Sendable () throws(BackupError) -> Result) async throws(BackupError) -> Result {
        do {
            return try await NIOThreadPool.singleton.runIfActive { try work() }
        } catch let error as BackupError {
            throw error
        } catch {
            throw .io("\(error)")
        }
    }
}
