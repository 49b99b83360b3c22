/// Checks of bucket names by GCS's naming rules: lowercase letters, digits, `-`, `_` and `.`;
/// a letter or digit first and last; 3–63 characters, or up to 222 when dotted with every
/// dot-separated part 1–63 characters (so no `..`); not an IPv4 address.
///
/// The names Firebase projects use pass (`<project>.appspot.com`, `<project>.firebasestorage.app`,
/// the bare project ID of `@firebase/rules-unit-testing`). GCS's reservations of `goog…` and
/// `google` are not enforced: they protect Google's namespace, not Hearth's.
enum BucketName {
    static func validate(_ name: String) throws(StorageError) {
        guard isValid(name) else { throw .invalidBucketName(name) }
    }

    static func isValid(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        func isAlphanumeric(_ byte: UInt8) -> Bool {
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
        }
        guard let first = bytes.first, let last = bytes.last, isAlphanumeric(first), isAlphanumeric(last) else { return false }
        guard bytes.allSatisfy({ isAlphanumeric($0) || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: ".") })
        else { return false }
        let parts = name.split(separator: ".", omittingEmptySubsequences: false)
        guard bytes.count >= 3, bytes.count <= (parts.count == 1 ? 63 : 222), parts.allSatisfy({ (1...63).contains($0.count) })
        else { return false }
        let isIPv4 = parts.count == 4 && parts.allSatisfy { part in part.count <= 3 && part.allSatisfy(\.isASCIIDigit) }
        return !isIPv4
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}
