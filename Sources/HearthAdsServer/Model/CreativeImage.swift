import Crypto
import HearthCore

/// An image uploaded for creatives (`POST /ads/v1/admin/images`), named by the SHA-256 of its
/// bytes: its URL never shows other bytes, so it is served as immutable, its hash the ETag.
///
/// Only raster images are taken, recognised by their first bytes whatever the request says
/// they are: PNG, JPEG, GIF and WebP. Nothing that can run script (SVG, HTML) is ever served
/// from the server's origin.
struct CreativeImage: Sendable {
    let hash: String
    let contentType: String
    let bytes: [UInt8]

    /// The image of an upload's body; refuses an empty body or one that is not a known image.
    init(uploaded bytes: [UInt8]) throws(AdsError) {
        guard let type = Self.contentType(of: bytes) else {
            throw .invalidField(field: "(body)", reason: "expected the bytes of a PNG, JPEG, GIF or WebP image")
        }
        self.init(hash: Hex.encode(SHA256.hash(data: bytes)), contentType: type, bytes: bytes)
    }

    init(hash: String, contentType: String, bytes: [UInt8]) {
        self.hash = hash
        self.contentType = contentType
        self.bytes = bytes
    }

    /// The path the image is served at.
    var path: String { Self.path(of: hash) }

    /// The path the image of `hash` is served at.
    static func path(of hash: String) -> String { "/ads/v1/images/\(hash)" }

    /// Whether `text` can name an image: 64 lower-case hexadecimal digits.
    static func isHash(_ text: String) -> Bool {
        text.utf8.count == 64 && text.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) }
    }

    /// The media type the first bytes of `bytes` say.
    static func contentType(of bytes: [UInt8]) -> String? {
        func starts(_ prefix: [UInt8], at offset: Int = 0) -> Bool {
            bytes.count >= offset + prefix.count && Array(bytes[offset..<offset + prefix.count]) == prefix
        }
        if starts([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return "image/png" }
        if starts([0xFF, 0xD8, 0xFF]) { return "image/jpeg" }
        if starts(Array("GIF87a".utf8)) || starts(Array("GIF89a".utf8)) { return "image/gif" }
        if starts(Array("RIFF".utf8)), starts(Array("WEBP".utf8), at: 8) { return "image/webp" }
        return nil
    }
}
