import Foundation
import Logging

/// Writes log lines to standard error, formatting metadata only when a line is logged.
///
/// swift-log's `StreamLogHandler` re-renders its metadata every time a key is set, and the HTTP
/// server sets a request id on every request's logger, so that cost would be paid per request
/// even when nothing is logged.
struct ConsoleLogHandler: LogHandler {
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level
    private let label: String

    init(label: String, level: Logger.Level) {
        self.label = label
        self.logLevel = level
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let merged = metadata.merging(event.metadata ?? [:]) { _, new in new }
        let fields = merged.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        let timestamp = Date().formatted(.iso8601)
        let line = "\(timestamp) \(event.level) \(label): \(fields.isEmpty ? "" : fields + " ")\(event.message)\n"
        FileHandle.standardError.write(Data(line.utf8))
    }
}
