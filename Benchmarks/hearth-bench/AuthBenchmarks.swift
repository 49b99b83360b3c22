import ArgumentParser
import CryptoExtras
import Dispatch
import HearthAuthServer
import HearthCore
import HearthPasswords
import HearthServer
import JWTKit
import Logging
import NIOCore
import Synchronization

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Authentication's hot paths against a running Hearth (best in production mode, where tokens are
/// signed): password sign-ins beside raw Firebase-scrypt hashes at the same parameters computed
/// here on every core (the reference), sign-ups, token refreshes, and ID-token verifications
/// (by `accounts:lookup`, by database reads with `auth=`, by Hearth's own credential verifier
/// run here on the server's data directory, and raw RS256 verifications with jwt-kit here).
struct AuthBenchmarks: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "auth")

    @Option var url = "http://127.0.0.1:9000"
    @Option var clients = 16
    @Option(help: "Seconds to measure each figure, after one second of warm-up.")
    var seconds = 5.0
    @Option(help: "The server's data directory: its keys and accounts are opened here to run Hearth's verifier in process.")
    var dataDir: String

    func run() async throws {
        let (host, port) = try hostAndPort(url)
        // One account per client, as real sign-ins come from different people: production counts
        // concurrent attempts on one account from one address against its lock.
        let client = makeClient(connections: 4)
        let prefix = "bench-\(UInt32.random(in: 0...UInt32.max))"
        var idToken = ""
        var refreshToken = ""
        for index in 0..<clients {
            let signUp = try await send(
                client, .POST, "\(url)/identitytoolkit.googleapis.com/v1/accounts:signUp?key=bench",
                body: #"{"email":"\#(prefix)-\#(index)@example.com","password":"bench-password","returnSecureToken":true}"#,
                headers: [("Content-Type", "application/json")])
            let account = try JSONParser.parse(Array(signUp.body.readableBytesView))
            guard signUp.status == 200, case .string(let id)? = account["idToken"], case .string(let refresh)? = account["refreshToken"]
            else {
                try await client.shutdown()
                throw BenchError(description: "sign-up failed: \(String(buffer: signUp.body))")
            }
            (idToken, refreshToken) = (id, refresh)
        }
        try await client.shutdown()
        let duration = Duration.milliseconds(Int64(seconds * 1000))

        let scrypt = rawScryptPerSecond(seconds: seconds)
        print(
            "reference raw Firebase scrypt (N=2^14, r=8, p=1), \(ProcessInfo.processInfo.activeProcessorCount) threads: \(format(scrypt, digits: 1)) hashes/s"
        )

        func load(_ name: String, clients: Int, _ build: @escaping @Sendable (Int, Int) -> ByteBuffer) async throws -> Double {
            let completed = try await KeepAliveLoad.run(
                host: host, port: port, connections: clients, warmUp: .seconds(1), duration: duration, expectedStatus: 200,
                request: build)
            let rate = Double(completed) / seconds
            print("hearth auth \(name): \(clients) clients, \(completed) in \(seconds) s: \(format(rate, digits: 1))/s")
            return rate
        }
        @Sendable func post(_ path: String, _ body: String, contentType: String = "application/json") -> ByteBuffer {
            ByteBuffer(
                string:
                    "POST \(path) HTTP/1.1\r\nHost: \(host)\r\nContent-Type: \(contentType)\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)"
            )
        }
        let signIns = try await load("password sign-ins", clients: clients) { connection, _ in
            post(
                "/identitytoolkit.googleapis.com/v1/accounts:signInWithPassword?key=bench",
                #"{"email":"\#(prefix)-\#(connection)@example.com","password":"bench-password","returnSecureToken":true}"#)
        }
        print("hearth auth password sign-ins / raw scrypt: \(format(signIns / scrypt * 100, digits: 1)) %")
        _ = try await load("anonymous sign-ups", clients: clients) { _, _ in
            post("/identitytoolkit.googleapis.com/v1/accounts:signUp?key=bench", #"{"returnSecureToken":true}"#)
        }
        _ = try await load("password sign-ups", clients: clients) { connection, sequence in
            post(
                "/identitytoolkit.googleapis.com/v1/accounts:signUp?key=bench",
                #"{"email":"u\#(connection)-\#(sequence)-\#(UInt32.random(in: 0...UInt32.max))@example.com","password":"bench-password"}"#)
        }
        let refresh = post(
            "/securetoken.googleapis.com/v1/token?key=bench", "grant_type=refresh_token&refresh_token=\(refreshToken)",
            contentType: "application/x-www-form-urlencoded")
        _ = try await load("token refreshes", clients: clients) { _, _ in refresh }
        let lookup = post("/identitytoolkit.googleapis.com/v1/accounts:lookup?key=bench", #"{"idToken":"\#(idToken)"}"#)
        _ = try await load("ID-token verifications (accounts:lookup)", clients: clients) { _, _ in lookup }
        // The default database of a production server requires sign-in, which the token gives.
        let read = ByteBuffer(string: "GET /bench/open.json?auth=\(idToken) HTTP/1.1\r\nHost: \(host)\r\n\r\n")
        _ = try await load("ID-token verifications (database GET with auth=)", clients: clients) { _, _ in read }
        let verifier = try await verifierPerSecond(idToken)
        print(
            "hearth auth ID-token verifications (Hearth's verifier in process, \(ProcessInfo.processInfo.activeProcessorCount) tasks): \(format(verifier, digits: 0))/s"
        )
        let raw = try await rawRS256VerificationsPerSecond(seconds: seconds)
        print(
            "reference raw RS256 verifications (jwt-kit, 2048-bit key), \(ProcessInfo.processInfo.activeProcessorCount) tasks: \(format(raw, digits: 0))/s"
        )
    }

    /// Firebase scrypt hashes per second at Hearth's parameters, one thread per core.
    private func rawScryptPerSecond(seconds: Double) -> Double {
        let configuration = FirebaseScrypt.generate()
        let threads = ProcessInfo.processInfo.activeProcessorCount
        let done = Mutex(0)
        let deadline = Date().addingTimeInterval(seconds)
        DispatchQueue.concurrentPerform(iterations: threads) { _ in
            var count = 0
            while Date() < deadline {
                _ = try? configuration.hash(password: "bench-password", salt: Array("0123456789abcdef".utf8))
                count += 1
            }
            done.withLock { $0 += count }
        }
        return Double(done.withLock { $0 }) / seconds
    }

    /// Verifications per second of `token` by Hearth's credential verifier (signature, claims, and
    /// the account's revocation state), opened on the server's own data directory.
    private func verifierPerSecond(_ token: String) async throws -> Double {
        let auth = try await AuthService.open(
            .dataDirectory(dataDir), settings: AuthSettings(projectID: "bench", production: true),
            now: Int64(Date().timeIntervalSince1970), logger: Logger(label: "bench"))
        let verifier = auth.credentials
        let deadline = Date().addingTimeInterval(seconds)
        let total = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<ProcessInfo.processInfo.activeProcessorCount {
                group.addTask {
                    var count = 0
                    while Date() < deadline {
                        _ = try await verifier.caller(
                            credential: token, authvar: nil, noauth: false, now: Int64(Date().timeIntervalSince1970))
                        count += 1
                    }
                    return count
                }
            }
            return try await group.reduce(0, +)
        }
        await auth.close()
        return Double(total) / seconds
    }

    /// RS256 verifications per second of a token of the size Hearth's ID tokens have.
    private func rawRS256VerificationsPerSecond(seconds: Double) async throws -> Double {
        let keys = JWTKeyCollection()
        await keys.add(rsa: try Insecure.RSA.PrivateKey(pem: BenchKey.make()), digestAlgorithm: .sha256, kid: "bench")
        let token = try await keys.sign(BenchClaims(sub: "bench-user", exp: .init(value: Date().addingTimeInterval(3600))), kid: "bench")
        let tasks = ProcessInfo.processInfo.activeProcessorCount
        let deadline = Date().addingTimeInterval(seconds)
        let total = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<tasks {
                group.addTask {
                    var count = 0
                    while Date() < deadline {
                        _ = try await keys.verify(token, as: BenchClaims.self)
                        count += 1
                    }
                    return count
                }
            }
            return try await group.reduce(0, +)
        }
        return Double(total) / seconds
    }
}

/// Claims of the raw verification reference.
private struct BenchClaims: JWTPayload {
    var sub: String
    var exp: ExpirationClaim
    func verify(using algorithm: some JWTAlgorithm) async throws { try exp.verifyNotExpired() }
}

/// A fresh RSA key for the reference.
private enum BenchKey {
    static func make() throws -> String {
        try _RSA.Signing.PrivateKey(keySize: .bits2048).pemRepresentation
    }
}
