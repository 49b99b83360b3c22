import NIOCore
import NIOPosix

/// The threads the namespaces' engines run on, one per core, each engine on one of them.
///
/// An engine reads the pages of its tree from disk where it needs them (``PageLoader``), which
/// blocks its thread for the read. On threads of their own, such reads hold up only the engines
/// that share the thread, never the cooperative pool every other task of the server runs on.
enum EngineThreads {
    private static let group = MultiThreadedEventLoopGroup(numberOfThreads: System.coreCount)

    /// The executor of an engine about to be created.
    static func next() -> any SerialExecutor {
        group.next().executor
    }
}
