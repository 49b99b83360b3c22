import ArgumentParser
import AsyncHTTPClient
import Foundation
import HearthApp
import HearthDatabase

/// The Swift SDK (`HearthDatabase`) as an app uses it: events per second delivered to a child
/// listener and to a value listener, time from `observe` to the first event, and `setValue`
/// writes per second with completion blocks.
struct SDKBenchmarks: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "sdk")

    @Option var url = "http://127.0.0.1:9000"
    @Option var namespace = "bench"
    @Option var children = 100_000
    @Option var writes = 20_000
    @Option var observes = 200

    func run() async throws {
        let client = makeClient(connections: 2)
        try await childEvents(client)
        try await childStream()
        try await valueEvents()
        try await firstEvent(client)
        try await writesWithCompletions()
        try await client.shutdown()
    }

    private func database(_ name: String) -> Database {
        let options = FirebaseOptions(googleAppID: "1:1:ios:1", gcmSenderID: "1")
        options.databaseURL = "\(url)?ns=\(namespace)"
        let appName = "\(name)-\(UUID().uuidString)"
        FirebaseApp.configure(name: appName, options: options)
        return Database.database(app: FirebaseApp.app(name: appName)!)
    }

    /// A `.childAdded` observer receiving `children` new children from one REST write.
    private func childEvents(_ client: HTTPClient) async throws {
        let reference = database("child-events").reference().child("sdk/children")
        try await reference.removeValue()
        let counter = EventCounter(target: children)
        reference.observe(.childAdded) { _ in counter.tick() }
        _ = await reference.observeSingleEvent(of: .value)
        let body = (0..<children).map { "\"c\($0)\":{\"n\":\($0)}" }.joined(separator: ",")
        let clock = ContinuousClock()
        let start = clock.now
        try await send(client, .PUT, "\(url)/sdk/children.json?ns=\(namespace)&print=silent", body: "{\(body)}")
        let acknowledged = clock.now
        let (first, last) = try await counter.finished()
        let total = seconds(last - start)
        let delivery = seconds(last - first)
        print(
            "hearth sdk: child listener, one write of \(children) children: \(format(Double(children) / total, digits: 0)) events/s from the write's start to the last event (\(format(total * 1000)) ms, server included); last event \(format(seconds(last - acknowledged) * 1000)) ms after the server acknowledged the write; the events themselves arrived within \(format(delivery * 1000)) ms"
        )
    }

    /// A `.childAdded` observer on one client while another adds `writes` children one write
    /// at a time (sent without waiting for each answer).
    private func childStream() async throws {
        let reader = database("stream-reader").reference().child("sdk/stream")
        let writer = database("stream-writer").reference().child("sdk/stream")
        try await writer.removeValue()
        let counter = EventCounter(target: writes)
        reader.observe(.childAdded) { _ in counter.tick() }
        _ = await reader.observeSingleEvent(of: .value)
        let clock = ContinuousClock()
        let start = clock.now
        for index in 0..<writes { writer.child("c\(index)").setValue(index, withCompletionBlock: nil) }
        let (first, last) = try await counter.finished()
        print(
            "hearth sdk: child listener, \(writes) single-child writes from another client: \(format(Double(writes) / seconds(last - first), digits: 0)) events/s (first to last event); \(format(seconds(last - start) * 1000)) ms from the first write"
        )
    }

    /// A `.value` observer on a leaf that another client sets `writes` times.
    private func valueEvents() async throws {
        let reader = database("value-reader").reference().child("sdk/leaf")
        let writer = database("value-writer").reference().child("sdk/leaf")
        try await writer.setValue(-1)
        let counter = EventCounter(target: writes)
        reader.observe(.value) { snapshot in
            if let value = snapshot.value as? Int, value >= 0 { counter.tick() }
        }
        _ = await reader.observeSingleEvent(of: .value)
        let clock = ContinuousClock()
        let start = clock.now
        let acknowledged = EventCounter(target: writes)
        for value in 0..<writes { writer.setValue(value) { _, _ in acknowledged.tick() } }
        _ = try await acknowledged.finished()
        let (first, last) = try await counter.finished(orAtLeast: 1)
        let received = counter.count
        print(
            "hearth sdk: value listener: \(received) of \(writes) values received (the server may coalesce), \(format(Double(received) / seconds(last - first), digits: 0)) events/s; \(format(seconds(last - start) * 1000)) ms from the first write"
        )
    }

    /// Time from `observe` on a fresh location to its first event, on a connected client.
    private func firstEvent(_ client: HTTPClient) async throws {
        let database = database("first-event")
        _ = try await database.reference().child("sdk/warm").getData()
        var samples: [Double] = []
        for index in 0..<observes {
            try await send(client, .PUT, "\(url)/sdk/first/\(index).json?ns=\(namespace)&print=silent", body: "{\"a\":1}")
            let clock = ContinuousClock()
            let start = clock.now
            _ = await database.reference().child("sdk/first/\(index)").observeSingleEvent(of: .value)
            samples.append(seconds(clock.now - start) * 1000)
        }
        let percentiles = Percentiles(samples)
        print(
            "hearth sdk: observe to first value event (server round trip): p50 \(format(percentiles.median)) ms, p99 \(format(percentiles.at(0.99))) ms over \(observes) locations"
        )
    }

    /// `setValue` with completion blocks from one client: all sent at once, and one at a time.
    private func writesWithCompletions() async throws {
        let reference = database("writes").reference().child("sdk/writes")
        _ = try await reference.getData()
        let clock = ContinuousClock()
        let counter = EventCounter(target: writes)
        let start = clock.now
        for index in 0..<writes { reference.child("w\(index % 1000)").setValue(index) { _, _ in counter.tick() } }
        let (_, last) = try await counter.finished()
        let pipelined = Double(writes) / seconds(last - start)
        let sequentialCount = 2_000
        let sequentialStart = clock.now
        for index in 0..<sequentialCount { try await reference.child("s").setValue(index) }
        let sequential = Double(sequentialCount) / seconds(clock.now - sequentialStart)
        print(
            "hearth sdk: setValue with completion blocks: \(format(pipelined, digits: 0)) writes/s pipelined (\(writes) writes), \(format(sequential, digits: 0)) writes/s awaiting each"
        )
    }

    private func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}

/// Counts events from callback queues and reports when the first and the last arrived.
private final class EventCounter: @unchecked Sendable {
    private let lock = NSLock()
    private let target: Int
    private(set) var count = 0
    private var first: ContinuousClock.Instant?
    private var last: ContinuousClock.Instant?

    init(target: Int) {
        self.target = target
    }

    func tick() {
        let now = ContinuousClock.now
        lock.withLock {
            count += 1
            if first == nil { first = now }
            last = now
        }
    }

    /// Waits until `target` events arrived (or, with `orAtLeast`, until events stop coming
    /// after at least that many), up to five minutes.
    func finished(orAtLeast minimum: Int? = nil) async throws -> (ContinuousClock.Instant, ContinuousClock.Instant) {
        let deadline = ContinuousClock.now + .seconds(300)
        var previous = -1
        while ContinuousClock.now < deadline {
            let (count, first, last) = lock.withLock { (self.count, self.first, self.last) }
            if count >= target, let first, let last { return (first, last) }
            if let minimum, count >= minimum, count == previous, let first, let last { return (first, last) }
            previous = count
            try await Task.sleep(for: .milliseconds(minimum == nil ? 1 : 500))
        }
        throw BenchError(description: "only \(count) of \(target) events arrived")
    }
}
