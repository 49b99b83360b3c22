/// bcrypt's base64: the usual bit order with the alphabet `./A-Za-z0-9` and no padding.
enum BcryptBase64 {
    private static let alphabet = Array("./ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789".utf8)

    private static let values: [UInt8: UInt32] = Dictionary(
        uniqueKeysWithValues: alphabet.enumerated().map { ($0.element, UInt32($0.offset)) })

    /// The characters for `bytes`: four per three bytes, two or three for a final partial group.
    static func encode(_ bytes: [UInt8]) -> [UInt8] {
        var output: [UInt8] = []
        var bits: UInt32 = 0
        var bitCount = 0
        for byte in bytes {
            bits = bits << 8 | UInt32(byte)
            bitCount += 8
            while bitCount >= 6 {
                bitCount -= 6
                output.append(alphabet[Int((bits >> UInt32(bitCount)) & 0x3F)])
            }
        }
        if bitCount > 0 {
            output.append(alphabet[Int((bits << UInt32(6 - bitCount)) & 0x3F)])
        }
        return output
    }

    /// The first `byteCount` bytes that `characters` encode, or nil if a character is outside the
    /// alphabet or there are too few of them. Bits left over after `byteCount` bytes are ignored.
    static func decode(_ characters: some Collection<UInt8>, byteCount: Int) -> [UInt8]? {
        var output: [UInt8] = []
        var bits: UInt32 = 0
        var bitCount = 0
        for character in characters where output.count < byteCount {
            guard let value = values[character] else { return nil }
            bits = bits << 6 | value
            bitCount += 6
            if bitCount >= 8 {
                bitCount -= 8
                output.append(UInt8(truncatingIfNeeded: bits >> UInt32(bitCount)))
            }
        }
        return output.count == byteCount ? output : nil
    }
}
