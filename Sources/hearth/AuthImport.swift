import ArgumentParser
import Foundation
import HearthCore
import HearthUserFiles

/// `hearth auth:import FILE`: imports users from a JSON or CSV file, as Firebase's
/// `firebase auth:import` does, into a running Hearth, in batches of 1,000.
struct AuthImport: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "auth:import",
        abstract: "Import users from a file in the format of Firebase's auth:import into a running Hearth.",
        discussion: """
            The whole file is checked before any user is sent, so a file with an invalid user imports nothing. \
            Users are numbered from 0 in file order in messages.
            """)

    static let batchSize = 1000

    @Argument(help: "The file: {\"users\": [...]} in JSON, or CSV lines of 52 columns.")
    var file: String

    @Option(help: "The file's format (default: from its extension).")
    var format: UserFileFormat?

    @OptionGroup var hash: HashOptions

    @OptionGroup var server: AuthServerOptions

    func validate() throws {
        _ = try UserFileFormat.of(file, explicit: format)
    }

    func run() async throws {
        let hashDescription = try hash.requestMembers()
        if hashDescription.isEmpty {
            FileHandle.standardError.write(
                Data("No hash algorithm specified (--hash-algo): password users are imported without passwords.\n".utf8))
        }
        let converter = ImportEntryConverter(keepsPasswords: !hashDescription.isEmpty)
        let source = try ImportSource(path: file, format: try UserFileFormat.of(file, explicit: format))
        let total = try source.checkedCount(converter)
        guard total > 0 else { throw UserFileError.empty(path: file) }

        var upload = Upload(server: server, hashDescription: hashDescription, total: total, fileSize: source.size)
        var reader = try source.reader(converter)
        var batch: [JSONValue] = []
        while let entry = try reader.next() {
            batch.append(entry)
            if batch.count == Self.batchSize {
                try await upload.send(batch, readUpTo: reader.bytesRead)
                batch = []
            }
        }
        if !batch.isEmpty { try await upload.send(batch, readUpTo: reader.bytesRead) }
        try upload.finish()
    }
}

/// The batches of one import on their way to the server: reports each user the server refused
/// and, for a file of more than one batch, a progress bar.
private struct Upload {
    let server: AuthServerOptions
    let hashDescription: [JSONMember]
    let total: Int
    let progress: ProgressBar?
    private var sent = 0
    private var failed = 0
    private var bytesShown = 0

    init(server: AuthServerOptions, hashDescription: [JSONMember], total: Int, fileSize: Int) {
        self.server = server
        self.hashDescription = hashDescription
        self.total = total
        progress = total > AuthImport.batchSize ? ProgressBar("importing", total: fileSize) : nil
    }

    /// Sends the users that follow those already sent; `bytes` is how much of the file they take up to.
    mutating func send(_ batch: [JSONValue], readUpTo bytes: Int) async throws {
        let answer: JSONValue
        do {
            answer = try await server.call("batchCreate", body: .object([JSONMember(key: "users", value: .array(batch))] + hashDescription))
        } catch {
            progress?.finish("stopped")
            let imported = sent - failed
            throw CommandFailure(
                "\(error) (the users at indexes \(sent) to \(sent + batch.count - 1); \(imported) user\(imported == 1 ? " was" : "s were") imported before)"
            )
        }
        let refusals = ImportRefusal.refusals(in: answer, batch: batch, offset: sent)
        if !refusals.isEmpty {
            // The report goes on its own lines, not into the bar's.
            if progress != nil { FileHandle.standardError.write(Data("\n".utf8)) }
            for refusal in refusals {
                FileHandle.standardError.write(Data("user at index \(refusal.index) (uid \(refusal.uid)): \(refusal.message)\n".utf8))
            }
            failed += refusals.count
        }
        sent += batch.count
        progress?.advance(by: bytes - bytesShown)
        bytesShown = bytes
    }

    /// Prints the summary; throws when a user was not imported.
    func finish() throws {
        progress?.finish("\(sent) users sent")
        guard failed == 0 else { throw CommandFailure("\(failed) of \(total) users were not imported.") }
        print("Imported \(total) user\(total == 1 ? "" : "s").")
    }
}
