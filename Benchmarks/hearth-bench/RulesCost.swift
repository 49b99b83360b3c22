import ArgumentParser

/// The cost of rules: durable realtime writes and realtime listens by signed-in users, each
/// working in its own `users/<uid>` subtree, once under open rules and once under the tutorial
/// rules (owner-only `users/$uid` with a `.validate` on item titles), in two fresh namespaces.
struct RulesCost: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "rules")

    @Option var url = "http://127.0.0.1:9000"
    @Option var clients = 50
    @Option(help: "Seconds to measure each workload, after two seconds of warm-up.")
    var seconds = 10.0

    static let openRules = #"{"rules": {".read": true, ".write": true}}"#
    static let tutorialRules = """
        {"rules": {"users": {"$uid": {
          ".read": "auth != null && auth.uid == $uid", ".write": "auth != null && auth.uid == $uid",
          "items": {"$item_id": {"title": {".validate": "newData.isString() && newData.val().length > 0"}}}}}}}
        """

    func run() async throws {
        let suffix = String(UInt32.random(in: 0...UInt32.max), radix: 36)
        for (workload, isWrite) in [("durable writes", true), ("listens", false)] {
            var rates: [Double] = []
            for (name, rules) in [("open", Self.openRules), ("tutorial", Self.tutorialRules)] {
                let namespace = "rules-\(name)-\(isWrite ? "w" : "l")-\(suffix)"
                try await setRules(rules, namespace: namespace)
                let rate = try await measure(namespace: namespace, write: isWrite)
                rates.append(rate)
                print("hearth rules: \(workload), \(name) rules, \(clients) clients: \(format(rate, digits: 0))/s")
            }
            print("hearth rules: \(workload) under the tutorial rules: \(format(rates[1] / rates[0] * 100))% of open rules")
        }
    }

    private func setRules(_ rules: String, namespace: String) async throws {
        let client = makeClient(connections: 1)
        let (status, body) = try await send(
            client, .PUT, "\(url)/.settings/rules.json?ns=\(namespace)", body: rules, headers: [("Authorization", "Bearer owner")])
        try await client.shutdown()
        guard status == 200 else { throw BenchError(description: "setting rules failed: \(String(buffer: body))") }
    }

    /// Requests answered per second by `clients` connections looping for `seconds`.
    private func measure(namespace: String, write: Bool) async throws -> Double {
        let (host, port) = try hostAndPort(url)
        let clock = ContinuousClock()
        let measureFrom = clock.now + .seconds(2)
        let stopAt = measureFrom + .milliseconds(Int64(seconds * 1000))
        let tally = RealtimeConnections.Tally()
        let role: RealtimeConnections.Role =
            write ? .userWriter(measureFrom: measureFrom, stopAt: stopAt) : .userListener(measureFrom: measureFrom, stopAt: stopAt)
        let channels = try await RealtimeConnections.open(
            count: clients, host: host, port: port, namespace: namespace, role: role, tally: tally)
        for channel in channels { try await channel.closeFuture.get() }
        if let failure = tally.failure.withLock({ $0 }) { throw BenchError(description: failure) }
        return Double(tally.completed.withLock { $0 }) / seconds
    }
}
