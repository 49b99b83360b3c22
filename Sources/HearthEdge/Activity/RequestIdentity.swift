import HTTPTypes
import HearthCore
import Logging
import Synchronization

/// Which request the current task serves, and whom for: carried into every log line written while
/// it is served (``metadataProvider``), and answered in the `X-Request-Id` header so that a client
/// or a load balancer can name it.
///
/// The id is the one a load balancer sent in `X-Request-Id` when it is short and plain, else a
/// new one of 16 hexadecimal digits.
package final class RequestIdentity: Sendable {
    /// The header that carries a request's id, both ways.
    package static let header = HTTPField.Name("X-Request-Id")!

    /// The identity of the request the current task serves.
    @TaskLocal package static var current: RequestIdentity?

    package let id: String
    private let caller = Mutex<String?>(nil)

    /// The identity of a request that came with `headers`.
    package init(headers: HTTPFields) {
        if let sent = headers[Self.header], Self.isPlain(sent) {
            id = sent
        } else {
            let random = UInt64.random(in: 0...UInt64.max)
            let digits = String(random, radix: 16)
            id = String(repeating: "0", count: 16 - digits.count) + digits
        }
    }

    /// Records whom the request acts for, once a product has verified its credential.
    package func noteCaller(_ established: Caller) {
        let name: String? =
            switch established {
            case .admin: "admin"
            case .client(let auth): auth["uid"].flatMap { if case .string(let uid) = $0 { uid } else { nil } }
            }
        caller.withLock { $0 = name }
    }

    /// `request` (the id) and, once known, `uid` (or `admin`) for every line logged while a
    /// request is served.
    package static let metadataProvider = Logger.MetadataProvider {
        guard let identity = current else { return [:] }
        var metadata: Logger.Metadata = ["request": .string(identity.id)]
        if let caller = identity.caller.withLock({ $0 }) { metadata["uid"] = .string(caller) }
        return metadata
    }

    /// Whether `text` may serve as an id: 1 to 64 letters, digits, `-`, `_` or `.`.
    private static func isPlain(_ text: String) -> Bool {
        (1...64).contains(text.utf8.count)
            && text.utf8.allSatisfy { byte in
                (byte >= 0x30 && byte <= 0x39) || (byte | 0x20 >= 0x61 && byte | 0x20 <= 0x7A) || byte == 0x2D || byte == 0x5F
                    || byte == 0x2E
            }
    }
}
