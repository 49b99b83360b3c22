import ArgumentParser
import Foundation
import HearthAdsServer
import HearthAuthServer
import HearthDatabaseServer
import HearthPostgres
import HearthStorageServer
import Logging

/// `hearth migrate --to-postgres URL`: moves a single node's data directory into PostgreSQL, for
/// `hearth serve --postgres URL`.
struct Migrate: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate",
        abstract: "Move a data directory's namespaces, accounts, Storage and ads into PostgreSQL.",
        discussion: """
            Stop the server that uses the data directory, and every node of the cluster, first. The target database \
            must hold no data yet, or be one this data directory's migration began and did not finish, with no node \
            started on it since: running the command again resumes it. Every namespace, the accounts with their keys \
            and sessions, every object's bytes and the ads store are read back from PostgreSQL and compared.
            """)

    @Option(help: ArgumentHelp("The PostgreSQL database to move into (postgres://user:password@host:port/database).", valueName: "url"))
    var toPostgres: String

    @Option(help: "Put Storage's bytes in this directory every node shares, rather than in PostgreSQL (as `serve --blob-dir`).")
    var blobDir: String?

    @OptionGroup var data: DataDirectoryOption

    /// The file in the data directory that names it to the migration's ledger.
    static let identityFile = "migration-id"

    func validate() throws {
        do {
            _ = try PostgresAddress(url: toPostgres)
        } catch {
            throw ValidationError("--to-postgres: \(error)")
        }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: data.dataDir, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw ValidationError("no data directory at \(data.dataDir)")
        }
    }

    func run() async throws {
        let address = try PostgresAddress(url: toPostgres)
        let logger = Logger(label: "hearth")
        // First, so that a data directory a server uses is refused before anything is written.
        let database = try await DatabaseMigration.open(dataDirectory: data.dataDir, logger: logger)
        let ledger: MigrationLedger
        do {
            ledger = try await MigrationLedger.open(address)
        } catch {
            await database.close()
            throw error
        }
        do {
            try await move(database, into: address, ledger: ledger, logger: logger)
            await ledger.close()
            await database.close()
        } catch {
            await ledger.close()
            await database.close()
            throw error
        }
        say("moved \(data.dataDir) into PostgreSQL: start every node with --postgres")
    }

    private func move(_ database: DatabaseMigration, into address: PostgresAddress, ledger: MigrationLedger, logger: Logger)
        async throws
    {
        let source = try identity()
        if let entry = try await ledger.entry(of: source) {
            guard !entry.finished else {
                say("\(data.dataDir) was moved into this database already: nothing to do")
                return
            }
            try await checkResumable(entry, ledger: ledger)
            say("resuming the migration begun before")
        } else {
            try await checkEmpty(address, logger: logger)
            try await checkNoNodeServes(ledger)
            try await ledger.begin(source, blobDirectory: blobDir)
        }
        let namespaces = try await database.copy(to: address, logger: logger) { name in
            say("database namespace \(name): copied")
        }
        say("database: \(namespaces.count) namespaces copied and read back")
        let accounts = try await AuthMigration.copy(from: data.dataDir, to: address, logger: logger)
        say("authentication: \(accounts) accounts, with their sessions and keys, copied and read back")
        let objects = try await StorageMigration.copy(from: data.dataDir, to: address, blobDirectory: blobDir, logger: logger)
        say("storage: \(objects.objects) objects (\(objects.bytes) bytes) copied, each read back and checked against its checksums")
        let ads = try await AdsMigration.copy(from: data.dataDir, to: address, logger: logger)
        say("ads: \(ads) units, creatives and campaigns, with the counts, events and token key, copied and read back")
        try await ledger.finish(source)
    }

    /// Refuses to resume a migration once a node served the database, or with the bytes going
    /// elsewhere than where it put them.
    private func checkResumable(_ entry: MigrationLedger.Entry, ledger: MigrationLedger) async throws {
        guard entry.blobDirectory == blobDir else {
            throw MigrationError.refused(
                "the migration began with Storage's bytes \(entry.blobDirectory.map { "in \($0)" } ?? "in PostgreSQL"): resume it so")
        }
        try await checkNoNodeServes(ledger)
        let served = try await ledger.nodesThatServed(besides: entry.earlierOwners)
        guard served.isEmpty else {
            throw MigrationError.refused(
                "nodes served this database since the migration began (\(served.joined(separator: ", "))): it cannot be resumed over what they wrote"
            )
        }
    }

    private func checkNoNodeServes(_ ledger: MigrationLedger) async throws {
        let serving = try await ledger.servingNodes()
        guard serving.isEmpty else {
            throw MigrationError.refused("nodes serve this database now (\(serving.joined(separator: ", "))): stop them first")
        }
    }

    /// Writes a line at once, unbuffered also into a pipe, so that whoever follows the migration
    /// sees where it is.
    private func say(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }

    /// The data directory's name in the ledger, made at its first migration.
    private func identity() throws -> String {
        let path = data.dataDir + "/" + Self.identityFile
        if let existing = FileManager.default.contents(atPath: path).map({ String(decoding: $0, as: UTF8.self) }),
            !existing.isEmpty
        {
            return existing.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        let made = UUID().uuidString.lowercased()
        try Data((made + "\n").utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
        return made
    }

    /// Refuses a target that holds data already.
    private func checkEmpty(_ address: PostgresAddress, logger: Logger) async throws {
        var held: [String] = []
        if try await !DatabaseMigration.holdsNoData(address, logger: logger) { held.append("database data") }
        if try await !AuthMigration.holdsNoAccounts(address) { held.append("accounts") }
        if try await !StorageMigration.holdsNoObjects(address) { held.append("Storage objects") }
        if try await !AdsMigration.holdsNoAds(address) { held.append("ads") }
        guard held.isEmpty else {
            throw CommandFailure(
                "PostgreSQL already holds \(held.joined(separator: ", ")) that no migration of \(data.dataDir) wrote: migrate into an empty database"
            )
        }
    }
}
