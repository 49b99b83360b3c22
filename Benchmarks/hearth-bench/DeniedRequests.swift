import ArgumentParser
import AsyncHTTPClient
import NIOHTTP1

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// What a request the rules deny costs when the namespace holds `children` export-shaped
/// children (1,400,000 is about 100 MB) under root rules that require sign-in: signed-out
/// GETs and PUTs of that data, beside allowed GETs and PUTs of a small path by a signed-in user.
struct DeniedRequests: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "denied")

    @Option var url = "http://127.0.0.1:9000"
    @Option var children = 1_400_000
    @Option var iterations = 50

    func run() async throws {
        let namespace = "bench-denied-\(UInt32.random(in: 0...UInt32.max))"
        let client = makeClient(connections: 1)
        let body = LargeWrite.exportBody(children: children)
        var fill = HTTPClientRequest(url: "\(url)/data.json?ns=\(namespace)&print=silent")
        fill.method = .PUT
        fill.body = .bytes(body)
        guard try await client.execute(fill, timeout: .seconds(600)).status.code == 204 else {
            throw BenchError(description: "filling the namespace failed")
        }
        let rules = #"{"rules": {".read": "auth != null", ".write": "auth != null"}}"#
        let owner = [("Authorization", "Bearer owner")]
        try await send(client, .PUT, "\(url)/.settings/rules.json?ns=\(namespace)", body: rules, headers: owner)
        let signedIn = "auth=\(Self.unsignedToken(uid: "bench"))"
        let cases: [(String, HTTPMethod, String, UInt)] = [
            ("denied GET of the data", .GET, "data.json?ns=\(namespace)", 401),
            ("denied PUT below the data", .PUT, "data/x.json?ns=\(namespace)", 401),
            ("allowed GET of a small path", .GET, "small.json?ns=\(namespace)&\(signedIn)", 200),
            ("allowed PUT of a small path", .PUT, "small.json?ns=\(namespace)&\(signedIn)", 200),
        ]
        let megabytes = format(Double(body.readableBytes) / 1_000_000, digits: 0)
        for (name, method, path, expected) in cases {
            let timing = try await time(iterations: iterations) {
                let (status, _) = try await send(client, method, "\(url)/\(path)", body: method == .PUT ? "1" : nil)
                guard status == expected else { throw BenchError(description: "\(name) answered \(status)") }
            }
            print(
                "hearth denied: \(name), \(megabytes) MB in the namespace: p50 \(format(timing.median)) ms, p99 \(format(timing.at(0.99))) ms"
            )
        }
        try await send(client, .DELETE, "\(url)/data.json?ns=\(namespace)&print=silent", headers: owner)
        try await client.shutdown()
    }

    /// A development-mode ID token: unsigned, read for its claims as the Firebase emulator does.
    static func unsignedToken(uid: String) -> String {
        func base64URL(_ text: String) -> String {
            Data(text.utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-")
                .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        }
        return base64URL(#"{"alg":"none","typ":"JWT"}"#) + "." + base64URL(#"{"sub":"\#(uid)","user_id":"\#(uid)"}"#) + "."
    }
}
