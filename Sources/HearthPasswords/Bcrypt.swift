/// bcrypt password hashes in OpenBSD's modular-crypt form:
/// `$2b$10$` + 22 characters of salt + 31 characters of hash, 60 characters in all.
///
/// The minor versions `2a`, `2b` and `2y` are computed alike, as `2b` does: the key is the
/// password's UTF-8 bytes up to the first NUL (C-string semantics, as in the C implementations),
/// NUL-terminated and cut to 72 bytes. Two historical `2a` implementations differ on rare
/// passwords: OpenBSD's wrapped the length of passwords of 255 bytes or more modulo 256, and
/// crypt_blowfish's (PHP) deliberately alters hashes of some passwords with bytes ≥ 0x80 that the
/// old sign-extension bug would have affected; such hashes do not verify here.
enum Bcrypt {
    private static let minorVersions: Set<UInt8> = [UInt8(ascii: "a"), UInt8(ascii: "b"), UInt8(ascii: "y")]
    private static let costRange = 4...31
    /// `$2b$10$` followed by the 22 salt characters.
    private static let settingLength = 29
    private static let saltLength = 16
    /// The last of the 24 bytes of ciphertext is not part of the encoding.
    private static let encodedHashLength = 23

    /// The complete modular-crypt string for `password` with the version, cost and salt of
    /// `setting` (a stored hash, or at least its first 29 characters).
    static func hash(password: [UInt8], setting: [UInt8]) throws(PasswordHashError) -> [UInt8] {
        let malformed = PasswordHashError.invalidParameter(
            "stored BCRYPT hash must be a $2a$, $2b$ or $2y$ modular-crypt string with cost 4 to 31")
        guard setting.count >= settingLength,
            setting[0] == UInt8(ascii: "$"), setting[1] == UInt8(ascii: "2"),
            minorVersions.contains(setting[2]), setting[3] == UInt8(ascii: "$"),
            setting[6] == UInt8(ascii: "$"),
            let tens = decimalDigit(setting[4]), let units = decimalDigit(setting[5]),
            costRange.contains(tens * 10 + units),
            let salt = BcryptBase64.decode(setting[7..<settingLength], byteCount: saltLength)
        else {
            throw malformed
        }
        let digest = hash(password: password, salt: salt, cost: tens * 10 + units)
        return Array(setting[0..<7]) + BcryptBase64.encode(salt) + BcryptBase64.encode(digest)
    }

    /// The 23 encoded bytes of bcrypt(cost, salt, password): "OrpheanBeholderScryDoubt"
    /// encrypted 64 times with the Eksblowfish state.
    static func hash(password: [UInt8], salt: [UInt8], cost: Int) -> [UInt8] {
        let cipher = Blowfish(cost: cost, salt: salt, key: key(password))
        var blocks = wordsBigEndian(Array("OrpheanBeholderScryDoubt".utf8))
        for _ in 0..<64 {
            cipher.encrypt(&blocks)
        }
        let bytes = blocks.flatMap { word in (0..<4).map { UInt8(truncatingIfNeeded: word >> (24 - 8 * $0)) } }
        return Array(bytes.prefix(encodedHashLength))
    }

    /// The Eksblowfish key: the bytes before the first NUL, NUL-terminated, at most 72 bytes.
    private static func key(_ password: [UInt8]) -> [UInt8] {
        let text = password.prefix { $0 != 0 }
        return Array((text + [0]).prefix(72))
    }

    private static func wordsBigEndian(_ bytes: [UInt8]) -> [UInt32] {
        stride(from: 0, to: bytes.count, by: 4).map { start in
            bytes[start..<start + 4].reduce(0) { $0 << 8 | UInt32($1) }
        }
    }

    private static func decimalDigit(_ character: UInt8) -> Int? {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(character)
            ? Int(character - UInt8(ascii: "0")) : nil
    }
}
