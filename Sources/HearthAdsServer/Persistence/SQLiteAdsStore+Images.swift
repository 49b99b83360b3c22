import NIOCore
import SQLiteNIO

/// The images uploaded for creatives, in table `images`, one row per content hash.
extension SQLiteAdsStore {
    /// Keeps `image`; one with the same bytes is kept already.
    func put(_ image: CreativeImage) async throws {
        try await write(
            "INSERT INTO images (hash, type, bytes) VALUES (?1, ?2, ?3) ON CONFLICT (hash) DO NOTHING",
            [.text(image.hash), .text(image.contentType), .blob(ByteBuffer(bytes: image.bytes))])
    }

    /// The image of hash `hash`, if one was uploaded.
    func image(hash: String) async throws -> CreativeImage? {
        let rows = try await connection.query("SELECT type, bytes FROM images WHERE hash = ?1", [.text(hash)])
        guard let row = rows.first, let type = row.column("type")?.string, let bytes = row.column("bytes")?.blob else { return nil }
        return CreativeImage(hash: hash, contentType: type, bytes: Array(bytes.readableBytesView))
    }

    /// Removes the image of hash `hash`.
    func deleteImage(hash: String) async throws {
        try await write("DELETE FROM images WHERE hash = ?1", [.text(hash)])
    }
}
