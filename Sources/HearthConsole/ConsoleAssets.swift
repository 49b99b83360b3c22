import CompressNIO
import Crypto
import HearthCore
import NIOCore

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The console's page, scripts and styles, embedded in the binary at build time (see the
/// `EmbedConsoleAssets` plugin), each ready to serve: its media type, a strong ETag, and a gzip
/// form made once at start when it is smaller.
struct ConsoleAssets: Sendable {
    /// One file of the console.
    struct Asset: Sendable {
        let contentType: String
        let body: ByteBuffer
        let gzipped: ByteBuffer?
        let etag: String
    }

    private let assets: [String: Asset]

    init() {
        var assets: [String: Asset] = [:]
        for (name, base64) in Self.embedded {
            guard let data = Data(base64Encoded: base64) else { continue }
            let body = ByteBuffer(bytes: data)
            var input = body
            let gzipped = try? input.compress(with: .gzip())
            let digest = SHA256.hash(data: data)
            assets[name] = Asset(
                contentType: Self.contentType(of: name),
                body: body,
                gzipped: gzipped.flatMap { $0.readableBytes < body.readableBytes ? $0 : nil },
                etag: "\"" + Hex.encode(Array(digest.prefix(12))) + "\"")
        }
        self.assets = assets
    }

    /// The asset at `name` (a path under `Assets`, without a leading slash).
    subscript(name: String) -> Asset? { assets[name] }

    private static func contentType(of name: String) -> String {
        switch name.split(separator: ".").last {
        case "html": "text/html; charset=utf-8"
        case "js": "text/javascript; charset=utf-8"
        case "css": "text/css; charset=utf-8"
        case "svg": "image/svg+xml"
        case "png": "image/png"
        case "json": "application/json"
        default: "application/octet-stream"
        }
    }
}
