import ArgumentParser

/// `hearth-bench`: load generators for the figures in docs/benchmarks.md. Build with `-c release`.
@main
struct HearthBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hearth-bench",
        abstract: "Measure a running Hearth.",
        subcommands: [
            RESTWrites.self, StreamFanout.self, LargeNode.self, Startup.self, RealtimeWrites.self, RealtimeFanout.self, RealtimeIdle.self,
            RulesCost.self, LargeWrite.self, DeniedRequests.self, AuthBenchmarks.self, SDKBenchmarks.self, StorageBenchmarks.self,
            AdsBenchmarks.self,
        ])
}
