import ArgumentParser
import Foundation
import HearthCore
import HearthUserFiles

/// `hearth auth:export FILE`: writes the users of a running Hearth to a JSON or CSV file, as
/// Firebase's `firebase auth:export` does, a page of 1,000 at a time.
struct AuthExport: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "auth:export",
        abstract: "Export the users of a running Hearth to a file in the format of Firebase's auth:export.",
        discussion: """
            Password hashes are exported for users whose password Hearth hashed itself: they can be imported \
            elsewhere with --hash-algo SCRYPT and this server's hash parameters.
            """)

    @Argument(help: "The file to write (.json or .csv).")
    var file: String

    @Option(help: "The file's format (default: from its extension).")
    var format: UserFileFormat?

    @OptionGroup var server: AuthServerOptions

    func validate() throws {
        _ = try UserFileFormat.of(file, explicit: format)
    }

    func run() async throws {
        var output = try UserFileWriter(path: file, format: try UserFileFormat.of(file, explicit: format))
        var exported = 0
        var pageToken: String?
        repeat {
            let page = try await server.call(
                "batchGet", query: [("maxResults", "1000")] + (pageToken.map { [("nextPageToken", $0)] } ?? []))
            guard case .array(let users)? = page["users"], !users.isEmpty else { break }
            try output.write(users)
            exported += users.count
            // No total is known in advance: a running count stands in for a bar.
            FileHandle.standardError.write(Data("\rexporting users: \(exported)".utf8))
            pageToken = page["nextPageToken"]?.stringValue
        } while pageToken?.isEmpty == false
        try output.close()
        if exported > 0 { FileHandle.standardError.write(Data("\n".utf8)) }
        print("Exported \(exported) user\(exported == 1 ? "" : "s") to \(file).")
    }
}
