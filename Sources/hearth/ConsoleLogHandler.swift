import Foundation
import HearthCore
import Logging

/// Writes log lines to standard error, one per event: as text for people (`--log-format text`)
/// or as one JSON object per line for machines (`--log-format json`), formatting metadata only
/// when a line is logged.
///
/// swift-log's `StreamLogHandler` re-renders its metadata every time a key is set, and the HTTP
/// server sets a request id on every request's logger, so that cost would be paid per request
/// even when nothing is logged.
struct ConsoleLogHandler: LogHandler {
    /// How lines are written.
    enum Format: String, CaseIterable {
        /// `2026-11-27T17:40:00Z notice hearth: key=value message`.
        case text
        /// `{"time":"…","level":"notice","product":"database","request":"…","uid":"…","message":"…",…}`:
        /// the request id and the caller's uid (once verified) of the request being served, the
        /// other metadata as further string members.
        case json
    }

    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level
    var metadataProvider: Logger.MetadataProvider?
    private let label: String
    private let format: Format

    init(label: String, level: Logger.Level, format: Format = .text, metadataProvider: Logger.MetadataProvider? = nil) {
        self.label = label
        self.logLevel = level
        self.format = format
        self.metadataProvider = metadataProvider
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        var merged = metadata.merging(metadataProvider?.get() ?? [:]) { _, new in new }
        merged.merge(event.metadata ?? [:]) { _, new in new }
        let line =
            switch format {
            case .text: textLine(event, merged)
            case .json: jsonLine(event, merged)
            }
        FileHandle.standardError.write(Data(line.utf8))
    }

    private func textLine(_ event: LogEvent, _ metadata: Logger.Metadata) -> String {
        let fields = metadata.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        return "\(Date().formatted(.iso8601)) \(event.level) \(label): \(fields.isEmpty ? "" : fields + " ")\(event.message)\n"
    }

    private func jsonLine(_ event: LogEvent, _ metadata: Logger.Metadata) -> String {
        var members = [
            JSONMember(key: "time", value: .string(Date().formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true)))),
            JSONMember(key: "level", value: .string(event.level.rawValue)),
            JSONMember(key: "product", value: .string(metadata["product"].map { "\($0)" } ?? Self.product(of: event.source))),
        ]
        for key in ["request", "uid"] {
            if let value = metadata[key] { members.append(JSONMember(key: key, value: .string("\(value)"))) }
        }
        members.append(JSONMember(key: "message", value: .string("\(event.message)")))
        // Each key once: a line's own `product` was taken above; the other fixed names are
        // kept apart.
        for (key, value) in metadata.sorted(by: { $0.key < $1.key }) where !["request", "uid", "product"].contains(key) {
            let name = ["time", "level", "message"].contains(key) ? "metadata." + key : key
            members.append(JSONMember(key: name, value: .string("\(value)")))
        }
        return JSONWriter.string(.object(members)) + "\n"
    }

    /// The product a module's lines are about.
    private static func product(of source: String) -> String {
        switch source {
        case "HearthDatabaseServer": "database"
        case "HearthAuthServer", "HearthSMTP": "auth"
        case "HearthStorageServer": "storage"
        case "HearthConsole": "console"
        default: "server"
        }
    }
}
