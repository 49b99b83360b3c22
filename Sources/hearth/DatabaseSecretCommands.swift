import ArgumentParser
import Foundation
import HearthAuthServer
import HearthServer
import Logging

/// `hearth database:secret create|list|revoke`: the database secrets, Firebase's legacy admin
/// credential (`auth=<secret>`), which production accepts in place of `owner`.
struct DatabaseSecret: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "database:secret",
        abstract: "Manage database secrets: admin credentials for the Realtime Database, sent as auth=<secret>.",
        subcommands: [Create.self, List.self, Revoke.self])

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Create a secret and print it (it is not shown again).")
        @OptionGroup var store: AuthStoreOption

        func run() async throws {
            try await withSecrets(store) { secrets in
                let (id, secret) = try await secrets.create(now: Int64(Date().timeIntervalSince1970))
                print(secret)
                FileHandle.standardError.write(Data("created database secret \(id)\n".utf8))
            }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the secrets' ids and creation times.")
        @OptionGroup var store: AuthStoreOption

        func run() async throws {
            try await withSecrets(store) { secrets in
                for (id, createdAt) in try await secrets.list() {
                    print("\(id)  \(Date(timeIntervalSince1970: TimeInterval(createdAt)).formatted(.iso8601))")
                }
            }
        }
    }

    struct Revoke: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Revoke a secret, by its id; it stops working at once.")
        @Argument(help: "The id `list` shows (the secret's first 8 characters).")
        var id: String
        @OptionGroup var store: AuthStoreOption

        func run() async throws {
            try await withSecrets(store) { secrets in
                guard try await secrets.revoke(id: id) else { throw ValidationError("No database secret has the id \(id).") }
                print("revoked \(id)")
            }
        }
    }
}

private func withSecrets(_ store: AuthStoreOption, _ body: (DatabaseSecrets) async throws -> Void) async throws {
    let secrets = try await DatabaseSecrets.open(try store.location, logger: Logger(label: "hearth"))
    do {
        try await body(secrets)
    } catch {
        await secrets.close()
        throw error
    }
    await secrets.close()
}
