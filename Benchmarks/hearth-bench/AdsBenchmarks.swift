import ArgumentParser
import AsyncHTTPClient
import Foundation
import NIOCore
import Synchronization

/// The ads server: `decide` with `campaigns` live campaigns on one ad unit (mixed priorities,
/// weights and targeting, so that every decision weighs them all), then durable `events`
/// (impressions of distinct tokens, each committed before its answer), each over `clients`
/// keep-alive connections. Prints rates and latency percentiles. Then a simulated day of a paced
/// campaign (``PacedDay``), which moves the server's test clock to 2030 for good.
struct AdsBenchmarks: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "ads")

    @Option var url = "http://127.0.0.1:9000"
    @Option var campaigns = 1000
    @Option var clients = 50
    @Option(help: "Seconds to measure each, after one second of warm-up.")
    var seconds = 10.0
    @Option(help: "Tokens gathered for the events (each impression reports a token not reported before).")
    var tokens = 60000
    @Option(help: "The daily goal of the simulated day's paced campaign.")
    var pacedGoal = 5000

    static let unit = "ca-app-pub-1000000000000000/1000000000"
    static let owner = [("Authorization", "Bearer owner"), ("Content-Type", "application/json")]

    func run() async throws {
        let (host, port) = try hostAndPort(url)
        let client = makeClient(connections: clients)
        do {
            try await makeCatalog(client)
            try await measureDecide(host: host, port: port)
            let gathered = try await gatherTokens(client)
            try await measureEvents(host: host, port: port, tokens: gathered)
            try await PacedDay(url: url, goal: pacedGoal).measure(client)
            try await client.shutdown()
        } catch {
            try? await client.shutdown()
            throw error
        }
    }

    /// One unit, three creatives, and `campaigns` campaigns on it: a tenth sponsorships targeted
    /// at a keyword no request sends, three tenths contracts targeted at iOS, the rest house
    /// campaigns for everyone, with weights from 1 to 10; a tenth of them with a daily goal
    /// that is never reached (its pace and reservations are still kept), a tenth with a
    /// frequency cap per viewer.
    private func makeCatalog(_ client: HTTPClient) async throws {
        func create(_ path: String, _ body: String) async throws -> ByteBuffer {
            let (status, answer) = try await send(client, .POST, "\(url)/ads/v1/admin/\(path)", body: body, headers: Self.owner)
            guard status == 200 else { throw BenchError(description: "\(path): \(status) \(String(buffer: answer))") }
            return answer
        }
        _ = try await create("adUnits", #"{"adUnitID": "\#(Self.unit)", "name": "Bench", "refreshSeconds": 60}"#)
        var creatives: [String] = []
        for (w, h) in [(320, 50), (320, 100), (728, 90)] {
            let answer = try await create(
                "creatives",
                #"{"w": \#(w), "h": \#(h), "kind": "image", "imageURL": "https://a.example/\#(w).png", "clickURL": "https://a.example"}"#)
            let object = try JSONSerialization.jsonObject(with: Data(buffer: answer)) as? [String: Any]
            creatives.append(object?["creativeID"] as? String ?? "")
        }
        let creativeList = creatives.map { "\"\($0)\"" }.joined(separator: ",")
        for index in 0..<campaigns {
            let (priority, targeting) =
                switch index % 10 {
                case 0: ("sponsorship", #", "targeting": {"keywords": ["never-sent"]}"#)
                case 1, 2, 3: ("contract", #", "targeting": {"platforms": ["ios"], "osVersions": {"min": "15"}}"#)
                case 4: ("house", #", "goal": {"metric": "impressions", "daily": 1000000000}"#)
                case 5: ("house", #", "frequencyCap": {"impressions": 1000, "windowSeconds": 3600}"#)
                default: ("house", "")
                }
            _ = try await create(
                "campaigns",
                #"{"name": "c\#(index)", "priority": "\#(priority)", "weight": \#(index % 10 + 1), "adUnitIDs": ["\#(Self.unit)"], "creativeIDs": [\#(creativeList)]\#(targeting)}"#
            )
        }
    }

    private func decideBody(_ connection: Int, _ sequence: Int) -> String {
        let platform = (connection + sequence) % 2 == 0 ? "ios" : "android"
        return
            #"{"adUnitID": "\#(Self.unit)", "size": {"w": 320, "h": 50}, "platform": "\#(platform)", "osVersion": "17.1", "keywords": ["news"], "viewerKey": "v\#(connection)-\#(sequence % 100)"}"#
    }

    private func measureDecide(host: String, port: Int) async throws {
        let outcome = try await KeepAliveLoad.measure(
            host: host, port: port, connections: clients, warmUp: .seconds(1), duration: .milliseconds(Int64(seconds * 1000)),
            expectedStatus: 200
        ) { [self] connection, sequence in
            let body = decideBody(connection, sequence)
            var request = ByteBuffer()
            request.writeString("POST /ads/v1/decide HTTP/1.1\r\nHost: \(host)\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)")
            return request
        }
        report("decide, \(campaigns) campaigns", outcome)
    }

    /// `tokens` tokens, from decisions made `clients` at a time.
    private func gatherTokens(_ client: HTTPClient) async throws -> [String] {
        let perClient = (tokens + clients - 1) / clients
        return try await withThrowingTaskGroup(of: [String].self) { group in
            for connection in 0..<clients {
                group.addTask { [self] in
                    var gathered: [String] = []
                    for sequence in 0..<perClient {
                        let (status, answer) = try await send(client, .POST, "\(url)/ads/v1/decide", body: decideBody(connection, sequence))
                        guard status == 200, let object = try JSONSerialization.jsonObject(with: Data(buffer: answer)) as? [String: Any],
                            let ad = object["ad"] as? [String: Any], let token = ad["token"] as? String
                        else { throw BenchError(description: "decide answered \(status)") }
                        gathered.append(token)
                    }
                    return gathered
                }
            }
            var all: [String] = []
            for try await gathered in group { all += gathered }
            return all
        }
    }

    /// Impressions of distinct tokens, each connection reporting its own share.
    private func measureEvents(host: String, port: Int, tokens: [String]) async throws {
        let perConnection = tokens.count / clients
        let exhausted = Mutex(false)
        let outcome = try await KeepAliveLoad.measure(
            host: host, port: port, connections: clients, warmUp: .seconds(1), duration: .milliseconds(Int64(seconds * 1000)),
            expectedStatus: 200
        ) { connection, sequence in
            if sequence >= perConnection { exhausted.withLock { $0 = true } }
            let body = #"{"token": "\#(tokens[connection * perConnection + sequence % perConnection])", "type": "impression"}"#
            var request = ByteBuffer()
            request.writeString("POST /ads/v1/events HTTP/1.1\r\nHost: \(host)\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)")
            return request
        }
        report("events (durable impressions)", outcome)
        if exhausted.withLock({ $0 }) {
            print("  (some connections ran out of tokens and reported duplicates: gather more with --tokens)")
        }
    }

    private func report(_ what: String, _ outcome: KeepAliveLoad.Outcome) {
        let latencies = outcome.latencies
        print(
            "hearth ads \(what): \(clients) clients, \(outcome.completed) requests in \(seconds) s: "
                + "\(format(Double(outcome.completed) / seconds, digits: 0))/s; latency ms p50 \(format(latencies.median)) "
                + "p90 \(format(latencies.at(0.9))) p99 \(format(latencies.at(0.99))) max \(format(latencies.at(1)))")
    }
}
