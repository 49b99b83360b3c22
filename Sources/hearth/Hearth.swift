import ArgumentParser
import NIOCore
import NIOPosix

/// The `hearth` command line.
@main
struct Hearth: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hearth",
        abstract: "A self-hosted backend that speaks Firebase's protocols.",
        subcommands: [Serve.self, RulesCheck.self, RulesTest.self],
        defaultSubcommand: Serve.self)

    /// Runs Swift concurrency on the server's event loops instead of a separate thread pool, so
    /// that a request moving between its connection, tasks and the namespace's actor does not
    /// wake another thread at each step. This must happen before the first task starts.
    static func main() async {
        NIOSingletons.unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor()
        await main(nil)
    }
}
