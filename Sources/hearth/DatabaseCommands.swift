import ArgumentParser
import Foundation
import HearthDatabaseServer
import HearthServer
import Logging

/// `--data-dir`, the directory that holds Hearth's data: the server's and the commands' that
/// work on it directly.
struct DataDirectoryOption: ParsableArguments {
    @Option(help: "The directory that holds Hearth's data.")
    var dataDir = "./hearth-data"
}

/// `hearth database:create NAME`: creates an empty namespace in the data directory.
struct DatabaseCreate: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "database:create",
        abstract: "Create a database namespace. In production mode only namespaces that exist are served.")

    @Argument(help: "The namespace (letters, digits, '-' and '_').")
    var name: String

    @OptionGroup var data: DataDirectoryOption

    func run() async throws {
        let database = DatabaseService(dataDirectory: data.dataDir, logger: Logger(label: "hearth"))
        do {
            print(try await database.createNamespace(name) ? "created \(name)" : "\(name) already exists")
        } catch let error as DatabaseError {
            throw ValidationError(error.message)
        }
    }
}

/// `hearth database:list`: the namespaces that exist in the data directory.
struct DatabaseList: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "database:list", abstract: "List the database namespaces.")

    @OptionGroup var data: DataDirectoryOption

    func run() throws {
        for name in try NamespaceFiles(dataDirectory: data.dataDir).names() { print(name) }
    }
}

/// `hearth database:delete NAME`: removes a namespace and all its data.
struct DatabaseDelete: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "database:delete",
        abstract: "Delete a database namespace and all its data.",
        discussion: "Stop the server that uses the data directory first: a running server keeps a namespace it has open.")

    @Argument(help: "The namespace.")
    var name: String

    @OptionGroup var data: DataDirectoryOption

    func run() throws {
        guard NamespaceFiles.isValidName(name) else { throw ValidationError(DatabaseError.invalidNamespace(name).message) }
        guard try NamespaceFiles(dataDirectory: data.dataDir).delete(name) else {
            throw CommandFailure("no namespace \(name) in \(data.dataDir)")
        }
        print("deleted \(name)")
    }
}
