import Foundation
import Logging
import Testing

@testable import HearthConsole

/// The console's parts that decide who gets in: administrators, the sign-in limit, and which
/// requests count as the console's own.
@Suite struct ConsoleTests {
    @Test func administratorsAreStoredHashedAndSurviveReopening() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("console-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let administrators = try await ConsoleAdministrators.open(dataDirectory: directory, logger: Logger(label: "test"))
        try await administrators.create(email: "Ada@Example.com", password: "long enough password", now: 1)
        await #expect(throws: ConsoleAdministrators.Failure.exists) {
            try await administrators.create(email: "ada@example.com", password: "another password", now: 2)
        }
        await #expect(throws: ConsoleAdministrators.Failure.weakPassword(minimumLength: 10)) {
            try await administrators.create(email: "bob@example.com", password: "short", now: 2)
        }
        await #expect(throws: ConsoleAdministrators.Failure.invalidEmail) {
            try await administrators.create(email: "bob@\nexample.com", password: "long enough password", now: 2)
        }
        await administrators.close()
        let reopened = try await ConsoleAdministrators.open(dataDirectory: directory, logger: Logger(label: "test"))
        #expect(await reopened.verify(email: "ADA@example.com", password: "long enough password"))
        #expect(await !reopened.verify(email: "ada@example.com", password: "long enough passwort"))
        #expect(await !reopened.verify(email: "nobody@example.com", password: "long enough password"))
        #expect(try await reopened.count() == 1)
        await reopened.close()
        let stored = try String(contentsOfFile: directory + "/console.sqlite", encoding: .isoLatin1)
        #expect(!stored.contains("long enough password"))
    }

    @Test func fiveFailuresLockTheAddressAndTheEmailButNotOthers() async {
        let throttle = SignInThrottle()
        for _ in 0..<SignInThrottle.allowedFailures {
            #expect(await throttle.wait(address: "10.0.0.1", email: "a@example.com") == nil)
            await throttle.recordFailure(address: "10.0.0.1", email: "a@example.com")
        }
        #expect(await throttle.wait(address: "10.0.0.1", email: "b@example.com") != nil)
        #expect(await throttle.wait(address: "10.0.0.2", email: "A@example.com") != nil)
        #expect(await throttle.wait(address: "10.0.0.2", email: "b@example.com") == nil)
    }

    @Test func aSuccessClearsTheEmailsFailuresOnly() async {
        let throttle = SignInThrottle()
        for _ in 0..<SignInThrottle.allowedFailures - 1 {
            await throttle.recordFailure(address: "10.0.0.1", email: "a@example.com")
        }
        await throttle.recordSuccess(email: "a@example.com")
        await throttle.recordFailure(address: "10.0.0.2", email: "a@example.com")
        #expect(await throttle.wait(address: "10.0.0.2", email: "a@example.com") == nil)
        await throttle.recordFailure(address: "10.0.0.1", email: "c@example.com")
        #expect(await throttle.wait(address: "10.0.0.1", email: "d@example.com") != nil)
    }

    @Test func sessionsEndAtSignOutAndCarryTheirOwnToken() async {
        let sessions = ConsoleSessions()
        let (first, session) = await sessions.start(email: "a@example.com")
        let (second, other) = await sessions.start(email: "a@example.com")
        #expect(first != second && session.csrfToken != other.csrfToken)
        #expect(await sessions.session(first)?.email == "a@example.com")
        await sessions.end(first)
        #expect(await sessions.session(first) == nil)
        #expect(await sessions.session(second) != nil)
        #expect(await sessions.session("made-up") == nil)
    }

    @Test func onlyLoopbackNamesReachAnOpenConsole() {
        for authority in ["127.0.0.1:4000", "localhost", "LOCALHOST:4000", "[::1]:4000", "[::1]"] {
            #expect(ConsoleEndpoint.isLoopback(authority: authority), "\(authority)")
        }
        for authority in ["attacker.example", "127.0.0.1.attacker.example:4000", "[::2]:4000", "", "localhost.:4000"] {
            #expect(!ConsoleEndpoint.isLoopback(authority: authority), "\(authority)")
        }
        #expect(!ConsoleEndpoint.isLoopback(authority: nil))
    }

    @Test func onlyTheApiPrefixItselfIsForwarded() {
        for path in ["/console/api", "/console/api/", "/console/api/a.json?ns=x", "/console/api?x=1"] {
            #expect(ConsoleEndpoint.isForwarded(rawPath: path), "\(path)")
        }
        for path in ["/console/apix/a.json", "/console/ap", "/console/session", "/console%2Fapi/a.json"] {
            #expect(!ConsoleEndpoint.isForwarded(rawPath: path), "\(path)")
        }
    }

    @Test func everyAssetIsEmbeddedWithItsType() throws {
        let assets = ConsoleAssets()
        for name in ["index.html", "app.js", "api.js", "data-view.js", "users-view.js", "dom.js", "keys.js", "console.css"] {
            let asset = try #require(assets[name], "\(name)")
            #expect(asset.body.readableBytes > 0)
        }
        #expect(assets["index.html"]?.contentType == "text/html; charset=utf-8")
        #expect(assets["app.js"]?.contentType == "text/javascript; charset=utf-8")
        #expect(assets["missing.js"] == nil)
    }
}
