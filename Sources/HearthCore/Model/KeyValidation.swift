/// Firebase's rules for the names of children and the shape of paths.
public enum KeyValidation {
    /// The longest key, in UTF-8 bytes.
    public static let maximumKeyBytes = 768
    /// The deepest path, counting the keys of written data below the write location.
    public static let maximumDepth = 32

    /// Whether `key` may name a child: non-empty, at most 768 UTF-8 bytes, none of `. $ # [ ] /`
    /// and no ASCII control character.
    public static func isValidKey(_ key: String) -> Bool {
        let utf8 = key.utf8
        guard !utf8.isEmpty, utf8.count <= maximumKeyBytes else { return false }
        return !utf8.contains(where: isForbiddenByte)
    }

    /// The bytes no key may contain.
    static func isForbiddenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "."), UInt8(ascii: "$"), UInt8(ascii: "#"), UInt8(ascii: "["),
            UInt8(ascii: "]"), UInt8(ascii: "/"), 0x7F:
            return true
        default:
            return byte < 0x20
        }
    }
}
