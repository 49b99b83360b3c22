import Foundation
import HearthBackup
import HearthCore
import Logging
import NIOCore
import Testing

@testable import HearthDatabaseServer

/// `hearth backup` and `hearth restore` (``BackupWriter``, ``BackupRestorer``): a backup taken
/// while a server serves holds the data of every product and restores exactly; every backup that
/// cannot be trusted is refused before anything is written.
@Suite struct BackupTests {
    private static let logger = Logger(label: "hearth-test")

    @Test func aBackupTakenWhileServingRestoresEveryProduct() async throws {
        let server = TestServer()
        let backup = temporaryPath("backup")
        let restored = TestServer(directory: temporaryPath("restored"))
        defer {
            server.removeData()
            restored.removeData()
            try? FileManager.default.removeItem(atPath: backup)
        }
        let object = Data((0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        // What `--https` keeps: the certificate ACME obtained and the keys.
        try FileManager.default.createDirectory(atPath: server.directory + "/tls", withIntermediateDirectories: true)
        let certificate = Data("-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n".utf8)
        #expect(FileManager.default.createFile(atPath: server.directory + "/tls/certificate.pem", contents: certificate))
        #expect(FileManager.default.createFile(atPath: server.directory + "/tls/certificate.pem.new", contents: Data("torn".utf8)))
        let uid = try await server.run { client in
            try await client.request(.put, "/users/ada.json", #"{"name":"Ada","born":1815}"#)
            try await client.request(.patch, "/.json", #"{"a/x":1,"c/y":2}"#)
            let signUp = try await client.request(
                .post, "/identitytoolkit.googleapis.com/v1/accounts:signUp?key=k",
                #"{"email":"ada@example.com","password":"secret-1","returnSecureToken":true}"#)
            let upload = try await client.execute(
                uri: "/v0/b/test-project.appspot.com/o?name=files%2Fa.bin", method: .post,
                headers: [.authorization: "Bearer owner", .contentType: "application/octet-stream"],
                body: ByteBuffer(bytes: object))
            #expect(upload.status == .ok)
            let manifest = try await BackupWriter(dataDirectory: server.directory, destination: backup, logger: Self.logger).write()
            #expect(manifest.files.contains { $0.path == "auth/auth.sqlite" })
            #expect(manifest.files.contains { $0.path.hasPrefix("storage/blobs/") && $0.bytes == Int64(object.count) })
            let account = try JSONSerialization.jsonObject(with: Data(signUp.text.utf8)) as? [String: Any]
            return try #require(account?["localId"] as? String)
        }
        _ = try await BackupRestorer(source: backup, dataDirectory: restored.directory).restore()
        #expect(FileManager.default.contents(atPath: restored.directory + "/tls/certificate.pem") == certificate)
        #expect(!FileManager.default.fileExists(atPath: restored.directory + "/tls/certificate.pem.new"))
        try await restored.run { client in
            #expect(try await client.request(.get, "/users/ada.json").text == #"{"born":1815,"name":"Ada"}"#)
            #expect(try await client.request(.get, "/a/x.json").text == "1")
            #expect(try await client.request(.get, "/c/y.json").text == "2")
            let signIn = try await client.request(
                .post, "/identitytoolkit.googleapis.com/v1/accounts:signInWithPassword?key=k",
                #"{"email":"ada@example.com","password":"secret-1","returnSecureToken":true}"#)
            #expect(signIn.text.contains(uid))
            let download = try await client.request(
                .get, "/v0/b/test-project.appspot.com/o/files%2Fa.bin?alt=media", headers: [.authorization: "Bearer owner"])
            #expect(Data(buffer: download.body) == object)
        }
    }

    /// A write is acknowledged once the durable log holds it; the namespace's tables get it
    /// later. A backup holds the log, so such writes are restored too.
    @Test func writesOnlyTheDurableLogHoldsAreInTheBackup() async throws {
        let directory = temporaryPath("data")
        let backup = temporaryPath("backup")
        let restored = temporaryPath("restored")
        defer {
            for path in [directory, backup, restored] { try? FileManager.default.removeItem(atPath: path) }
        }
        let opened = try await TestNamespace.open(directory, logger: Self.logger)
        _ = try await opened.engine.set(DatabasePath("a"), .number(.int(1)), as: .admin)
        await opened.close()
        let log = try NodeLog.open(directory: NamespaceFiles(dataDirectory: directory).logDirectory, logger: Self.logger)
        try await log.append(LogBatch(namespace: "ns", firstSequence: 2, rows: [try loggedRow("b", #"{"only":"logged"}"#)]))
        let manifest = try await BackupWriter(dataDirectory: directory, destination: backup, logger: Self.logger).write()
        await log.close()
        #expect(manifest.files.contains { $0.path.hasPrefix("database/log/") })

        _ = try await BackupRestorer(source: backup, dataDirectory: restored).restore()
        let service = DatabaseService(dataDirectory: restored, logger: Self.logger)
        let engine = try await service.namespace("ns")
        #expect(JSONWriter.string(await engine.read()) == #"{"a":1,"b":{"only":"logged"}}"#)
        await service.close()
    }

    @Test func backupsThatCannotBeTrustedAreRefusedAndNothingIsWritten() async throws {
        let server = TestServer()
        let backup = temporaryPath("backup")
        defer {
            server.removeData()
            try? FileManager.default.removeItem(atPath: backup)
        }
        try await server.run { client in try await client.request(.put, "/a.json", "1") }
        let manifest = try await BackupWriter(dataDirectory: server.directory, destination: backup, logger: Self.logger).write()
        let manifestPath = backup + "/" + BackupManifest.fileName
        let original = try Data(contentsOf: URL(fileURLWithPath: manifestPath))

        func refusal(restoringInto target: String = temporaryPath("target")) async -> BackupError? {
            defer { try? FileManager.default.removeItem(atPath: target) }
            do {
                _ = try await BackupRestorer(source: backup, dataDirectory: target).restore()
                return nil
            } catch {
                #expect(((try? FileManager.default.contentsOfDirectory(atPath: target)) ?? []).allSatisfy { $0 == "keep" })
                return error
            }
        }

        // Not empty.
        let occupied = temporaryPath("occupied")
        try FileManager.default.createDirectory(atPath: occupied, withIntermediateDirectories: true)
        FileManager.default.createFile(atPath: occupied + "/keep", contents: Data())
        #expect(await refusal(restoringInto: occupied) == .targetNotEmpty(occupied))
        // Incomplete: the manifest is what a backup writes last.
        try FileManager.default.removeItem(atPath: manifestPath)
        #expect(await refusal() == .incomplete(backup))
        // From a newer format.
        try Data(String(decoding: original, as: UTF8.self).replacingOccurrences(of: "\"format\" : 1", with: "\"format\" : 2").utf8)
            .write(to: URL(fileURLWithPath: manifestPath))
        #expect(await refusal() == .newerFormat(found: 2, supported: BackupManifest.currentFormat))
        // A file changed.
        try original.write(to: URL(fileURLWithPath: manifestPath))
        let store = try #require(manifest.files.first { $0.path.hasSuffix(".sqlite") })
        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: backup + "/" + store.path))
        try handle.seek(toOffset: 200)
        try handle.write(contentsOf: Data([0xFF, 0x00, 0xFF]))
        try handle.close()
        #expect(await refusal() == .corrupt(file: store.path, reason: "does not match its checksum"))
        // A file missing.
        try FileManager.default.removeItem(atPath: backup + "/" + store.path)
        #expect(await refusal() == .corrupt(file: store.path, reason: "is missing"))
        // A manifest that lies about sizes.
        try Data(
            String(decoding: original, as: UTF8.self).replacingOccurrences(
                of: "\"bytes\" : \(store.bytes)", with: "\"bytes\" : 9223372036854775807"
            ).utf8
        ).write(to: URL(fileURLWithPath: manifestPath))
        guard case .unreadableManifest(manifestPath, let reason)? = await refusal() else {
            Issue.record("a manifest whose sizes overflow was not refused as unreadable")
            return
        }
        #expect(reason.hasSuffix("is impossible"))
        // A backup is written only into an empty directory, never into the data it copies.
        await #expect(throws: BackupError.destinationInsideData(destination: server.directory + "/b", data: server.directory)) {
            try await BackupWriter(dataDirectory: server.directory, destination: server.directory + "/b", logger: Self.logger).write()
        }
        await #expect(throws: BackupError.destinationNotEmpty(backup)) {
            try await BackupWriter(dataDirectory: server.directory, destination: backup, logger: Self.logger).write()
        }
        try? FileManager.default.removeItem(atPath: occupied)
    }
}

private func temporaryPath(_ name: String) -> String {
    FileManager.default.temporaryDirectory.appendingPathComponent("hearth-\(name)-\(UUID().uuidString)").path
}

/// What a schedule deletes and counts: only backups it named and began, never a manifest it
/// cannot read, never a backup dated in the future as the newest.
@Suite struct BackupScheduleTests {
    private func makeBackup(_ directory: String, _ name: String, marker: Bool = true, manifest: String?) throws {
        let path = directory + "/" + name
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        if marker { FileManager.default.createFile(atPath: path + "/" + BackupManifest.markerName, contents: Data()) }
        if let manifest { FileManager.default.createFile(atPath: path + "/" + BackupManifest.fileName, contents: Data(manifest.utf8)) }
    }

    private func manifest(began: Int64, format: Int = 1) -> String {
        #"{"format":\#(format),"began":\#(began),"completed":\#(began),"files":[]}"#
    }

    @Test func pruningDeletesOnlyItsOwnOldAndIncompleteBackups() throws {
        let directory = temporaryPath("schedule")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try makeBackup(directory, "hearth-data", marker: false, manifest: nil)
        try makeBackup(directory, "hearth-keep-me", manifest: nil)
        try makeBackup(directory, "hearth-20260101T000000Z", manifest: manifest(began: 1))
        try makeBackup(directory, "hearth-20260102T000000Z", manifest: manifest(began: 2))
        try makeBackup(directory, "hearth-20260103T000000Z", manifest: manifest(began: 3))
        try makeBackup(directory, "hearth-20260104T000000Z", manifest: nil)
        try makeBackup(directory, "hearth-20260105T000000Z", manifest: manifest(began: 5, format: 2))
        try makeBackup(directory, "hearth-20260106T000000Z", marker: false, manifest: nil)
        let schedule = BackupSchedule(directory: directory, interval: .seconds(60), keep: 2)
        schedule.prune()
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: directory).sorted() == [
                "hearth-20260102T000000Z", "hearth-20260103T000000Z", "hearth-20260105T000000Z", "hearth-20260106T000000Z",
                "hearth-data", "hearth-keep-me",
            ])
        #expect(schedule.completeBackups(beganBy: 2).map(\.manifest.began) == [2])
    }

    @Test func aBackupDirectoryMayNotHoldOrSitInTheData() {
        let schedule = { (directory: String) in BackupSchedule(directory: directory, interval: .seconds(1), keep: 1) }
        #expect(schedule("/srv/hearth").refusal(forDataDirectory: "/srv/hearth") != nil)
        #expect(schedule("/srv/hearth/data/backups").refusal(forDataDirectory: "/srv/hearth/data") != nil)
        #expect(schedule("/srv").refusal(forDataDirectory: "/srv/hearth/data") != nil)
        #expect(schedule("/srv/backups").refusal(forDataDirectory: "/srv/hearth/data") == nil)
        #expect(schedule("/srv/hearth/data2").refusal(forDataDirectory: "/srv/hearth/data") == nil)
    }
}
