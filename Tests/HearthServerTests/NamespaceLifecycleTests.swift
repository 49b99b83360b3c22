import Foundation
import HearthCore
import Logging
import Testing

@testable import HearthDatabaseServer
@testable import HearthServer

/// Namespaces come into being by a write, never by a read, and close when idle.
@Suite struct NamespaceLifecycleTests {
    private func withService(
        production: Bool = false, _ body: (DatabaseService, NamespaceFiles) async throws -> Void
    ) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-ns-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let service = DatabaseService(
            dataDirectory: directory, servesOnlyExistingNamespaces: production, logger: Logger(label: "test"))
        do {
            try await body(service, NamespaceFiles(dataDirectory: directory))
        } catch {
            await service.close()
            throw error
        }
        await service.close()
    }

    @Test func readingANamespaceThatDoesNotExistCreatesNothing() async throws {
        try await withService { service, files in
            let engine = try await service.namespace("ghost", for: .signedOut, writes: false)
            #expect(try await engine.read(.root, as: .signedOut) == .null)
            #expect(!files.exists("ghost"))
            #expect(try await service.namespaceNames().isEmpty)
            _ = try await engine.set(DatabasePath("a"), .number(.int(1)), as: .signedOut)
            #expect(files.exists("ghost"))
            #expect(try await service.namespaceNames() == ["ghost"])
        }
    }

    @Test func productionServesOnlyNamespacesThatExist() async throws {
        try await withService(production: true) { service, files in
            await #expect(throws: DatabaseError.namespaceNotFound("ghost")) {
                try await service.namespace("ghost", for: .signedOut, writes: false)
            }
            await #expect(throws: DatabaseError.namespaceNotFound("ghost")) {
                try await service.namespace(
                    "ghost", for: .client(auth: .object([JSONMember(key: "uid", value: .string("ada"))])), writes: true)
            }
            #expect(!files.exists("ghost"))
            #expect(try await service.createNamespace("made"))
            #expect(try await service.namespace("made", for: .signedOut, writes: false).read() == .null)
            _ = try await service.namespace("byadmin", for: .admin, writes: true).set(.root, .bool(true), as: .admin)
            #expect(try await service.namespaceNames() == ["byadmin", "made"])
        }
    }

    @Test func idleNamespacesCloseAndReopenWithTheirData() async throws {
        try await withService { service, _ in
            _ = try await service.namespace("kept").set(DatabasePath("x"), .string("y"), as: .admin)
            _ = try await service.namespace("ghost", for: .signedOut, writes: false)
            // A namespace someone holds stays open; the others close.
            func sweepWhileHolding() async throws {
                let held = try await service.namespace("held")
                #expect(service.openNamespaceCount == 3)
                await service.closeIdleNamespaces(idleFor: .zero)
                #expect(service.openNamespaceCount == 1)
                #expect(await held.read() == .null)
            }
            try await sweepWhileHolding()
            await service.closeIdleNamespaces(idleFor: .zero)
            #expect(service.openNamespaceCount == 0)
            #expect(try await service.namespace("kept").read(DatabasePath("x")) == .value(.string("y")))
        }
    }

    @Test func aRecentlyUsedNamespaceStaysOpen() async throws {
        try await withService { service, _ in
            _ = try await service.namespace("recent")
            await service.closeIdleNamespaces(idleFor: .seconds(60))
            #expect(service.openNamespaceCount == 1)
        }
    }

    @Test func preloadedNamespacesStayOpenHoweverIdle() async throws {
        try await withService { service, _ in
            _ = try await service.namespace("main").set(.root, .bool(true), as: .admin)
            await service.preload(["main"])
            await service.closeIdleNamespaces(idleFor: .zero)
            #expect(service.openNamespaceCount == 1)
        }
    }

    @Test func aNamespaceClosingForIdlenessReopensWithItsData() async throws {
        try await withService { service, _ in
            for name in ["one", "two"] { _ = try await service.namespace(name).set(.root, .string(name), as: .admin) }
            async let sweep: Void = service.closeIdleNamespaces(idleFor: .zero)
            async let reopened = service.namespace("two").read()
            let (_, value) = try await (sweep, reopened)
            #expect(value == .value(.string("two")))
            #expect(try await service.namespace("one").read() == .value(.string("one")))
        }
    }

    @Test func productionRefusesAFailedAdminCreationToOthers() async throws {
        try await withService(production: true) { service, files in
            let engine = try await service.namespace("pending", for: .admin, writes: true)
            // A write that fails creates nothing.
            let invalid = try JSONParser.parse(#"{"b.c": 1}"#)
            await #expect(throws: DataError.self) { _ = try await engine.set(DatabasePath("a"), invalid, as: .admin) }
            #expect(!files.exists("pending"))
            await #expect(throws: DatabaseError.namespaceNotFound("pending")) {
                try await service.namespace("pending", for: .signedOut, writes: false)
            }
        }
    }
}
