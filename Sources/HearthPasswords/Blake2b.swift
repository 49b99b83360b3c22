/// Unkeyed BLAKE2b (RFC 7693) with a digest of 1 to 64 bytes, as Argon2 uses it.
enum Blake2b {
    /// The initialization vector, shared with SHA-512.
    private static let iv: [UInt64] = [
        0x6A09_E667_F3BC_C908, 0xBB67_AE85_84CA_A73B, 0x3C6E_F372_FE94_F82B, 0xA54F_F53A_5F1D_36F1,
        0x510E_527F_ADE6_82D1, 0x9B05_688C_2B3E_6C1F, 0x1F83_D9AB_FB41_BD6B, 0x5BE0_CD19_137E_2179,
    ]

    /// The message word schedule of each round (rounds 10 and 11 reuse rows 0 and 1).
    private static let sigma: [[Int]] = [
        [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15],
        [14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3],
        [11, 8, 12, 0, 5, 2, 15, 13, 10, 14, 3, 6, 7, 1, 9, 4],
        [7, 9, 3, 1, 13, 12, 11, 14, 2, 6, 5, 10, 4, 0, 15, 8],
        [9, 0, 5, 7, 2, 4, 10, 15, 14, 1, 11, 12, 6, 8, 3, 13],
        [2, 12, 6, 10, 0, 11, 8, 3, 4, 13, 7, 5, 15, 14, 1, 9],
        [12, 5, 1, 15, 14, 13, 4, 10, 0, 7, 6, 3, 9, 2, 8, 11],
        [13, 11, 7, 14, 12, 1, 3, 9, 5, 0, 15, 4, 8, 6, 2, 10],
        [6, 15, 14, 9, 11, 3, 0, 8, 12, 2, 13, 7, 1, 4, 10, 5],
        [10, 2, 8, 4, 7, 6, 1, 5, 15, 11, 9, 14, 3, 12, 13, 0],
    ]

    private static let blockBytes = 128

    /// BLAKE2b-`outputByteCount`(`message`); `outputByteCount` must be in 1...64.
    static func hash(_ message: [UInt8], outputByteCount: Int) -> [UInt8] {
        precondition((1...64).contains(outputByteCount), "BLAKE2b digests are 1 to 64 bytes")
        var h = iv
        h[0] ^= 0x0101_0000 ^ UInt64(outputByteCount)
        // Every block but the last is compressed as it is; the last (possibly empty, then
        // zero-filled) is flagged as final.
        let lastStart = message.isEmpty ? 0 : (message.count - 1) / blockBytes * blockBytes
        for start in stride(from: 0, to: lastStart, by: blockBytes) {
            compress(&h, block: message[start..<start + blockBytes], processed: UInt64(start + blockBytes), final: false)
        }
        compress(&h, block: message[lastStart...], processed: UInt64(message.count), final: true)
        let bytes = h.flatMap { word in (0..<8).map { UInt8(truncatingIfNeeded: word >> (8 * $0)) } }
        return Array(bytes.prefix(outputByteCount))
    }

    /// RFC 7693's F: mixes one block (zero-padded to 128 bytes) into the state. `processed` is the
    /// byte count so far including this block; messages never reach the counter's high word.
    private static func compress(_ h: inout [UInt64], block: ArraySlice<UInt8>, processed: UInt64, final: Bool) {
        var m = [UInt64](repeating: 0, count: 16)
        for (offset, byte) in block.enumerated() {
            m[offset / 8] |= UInt64(byte) << (8 * UInt64(offset % 8))
        }
        var v = h + iv
        v[12] ^= processed
        if final {
            v[14] = ~v[14]
        }
        for round in 0..<12 {
            let s = sigma[round % 10]
            mix(&v, 0, 4, 8, 12, m[s[0]], m[s[1]])
            mix(&v, 1, 5, 9, 13, m[s[2]], m[s[3]])
            mix(&v, 2, 6, 10, 14, m[s[4]], m[s[5]])
            mix(&v, 3, 7, 11, 15, m[s[6]], m[s[7]])
            mix(&v, 0, 5, 10, 15, m[s[8]], m[s[9]])
            mix(&v, 1, 6, 11, 12, m[s[10]], m[s[11]])
            mix(&v, 2, 7, 8, 13, m[s[12]], m[s[13]])
            mix(&v, 3, 4, 9, 14, m[s[14]], m[s[15]])
        }
        for index in 0..<8 {
            h[index] ^= v[index] ^ v[index + 8]
        }
    }

    /// RFC 7693's G.
    @inline(__always)
    private static func mix(_ v: inout [UInt64], _ a: Int, _ b: Int, _ c: Int, _ d: Int, _ x: UInt64, _ y: UInt64) {
        v[a] = v[a] &+ v[b] &+ x
        v[d] = (v[d] ^ v[a]).rotatedRight(by: 32)
        v[c] = v[c] &+ v[d]
        v[b] = (v[b] ^ v[c]).rotatedRight(by: 24)
        v[a] = v[a] &+ v[b] &+ y
        v[d] = (v[d] ^ v[a]).rotatedRight(by: 16)
        v[c] = v[c] &+ v[d]
        v[b] = (v[b] ^ v[c]).rotatedRight(by: 63)
    }
}

extension UInt64 {
    /// The bits rotated `count` places towards the least significant end.
    @inline(__always)
    func rotatedRight(by count: UInt64) -> UInt64 {
        self >> count | self << (64 - count)
    }
}
