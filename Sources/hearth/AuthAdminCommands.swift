import ArgumentParser
import Foundation
import HearthAuthServer
import HearthServer
import Logging

/// `hearth auth:hash-config`: the project's password hash parameters in the Firebase console's
/// format, for `firebase auth:import --hash-algo=SCRYPT …` of accounts exported from Hearth.
struct AuthHashConfig: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "auth:hash-config", abstract: "Print the password hash parameters (Firebase console format).")

    @OptionGroup var store: AuthStoreOption

    func run() async throws {
        print(try await HashConfiguration.consoleText(store: try store.location, logger: Logger(label: "hearth")))
    }
}

/// `hearth auth:service-account`: issues a service-account key file, the admin credential of
/// production: Google's auth libraries exchange it for access tokens at its `token_uri`, and the
/// Admin SDKs sign custom tokens with it.
struct AuthServiceAccount: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "auth:service-account", abstract: "Issue a service-account key file (JSON) for admin access.")

    @OptionGroup var store: AuthStoreOption

    @Option(help: "The Firebase project id the server runs with.")
    var project = "demo-hearth"

    @Option(help: "The URL clients reach the server at; the key file's token_uri points there.")
    var server = "http://127.0.0.1:9000"

    @Option(help: "Where to write the key file (readable by its owner only); standard output by default.")
    var output: String?

    @Option(help: "Revoke the key with this id (a key file's private_key_id) instead of issuing one.")
    var revoke: String?

    func run() async throws {
        let accounts = try await ServiceAccounts.open(try store.location, logger: Logger(label: "hearth"))
        if let keyID = revoke {
            let existed: Bool
            do {
                existed = try await accounts.revoke(keyID: keyID)
            } catch {
                await accounts.close()
                throw error
            }
            await accounts.close()
            guard existed else { throw ValidationError("No service-account key has the id \(keyID).") }
            print("revoked \(keyID)")
            return
        }
        let file: String
        do {
            file = try await accounts.issue(projectID: project, serverURL: server, now: Int64(Date().timeIntervalSince1970))
        } catch {
            await accounts.close()
            throw error
        }
        await accounts.close()
        guard let output else {
            print(file, terminator: "")
            return
        }
        guard FileManager.default.createFile(atPath: output, contents: Data(file.utf8), attributes: [.posixPermissions: 0o600])
        else { throw ValidationError("Could not write \(output).") }
        FileHandle.standardError.write(Data("wrote a service-account key to \(output)\n".utf8))
    }
}
