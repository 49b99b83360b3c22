import Crypto
import NIOCore

/// The size, MD5 and CRC32C of bytes as they stream past, computed in one pass.
struct ContentDigest: Sendable {
    private var md5 = Insecure.MD5()
    private var crc = CRC32C()
    private(set) var size: Int64 = 0

    mutating func update(_ buffer: ByteBuffer) {
        buffer.withUnsafeReadableBytes { bytes in
            md5.update(bufferPointer: bytes)
            crc.update(bytes)
        }
        size += Int64(buffer.readableBytes)
    }

    /// The final digests; the digest can take no more bytes.
    func finish() -> (md5: [UInt8], crc32c: UInt32) {
        (Array(md5.finalize()), crc.value)
    }
}
