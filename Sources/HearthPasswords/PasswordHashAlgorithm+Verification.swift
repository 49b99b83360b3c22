import Crypto
import CryptoExtras

extension PasswordHashAlgorithm {
    /// The longest stored hash a PBKDF2 description verifies: its output length is taken from the
    /// stored value, and each further 32 or 20 bytes costs another full run of the iterations.
    static let maxPBKDF2HashLength = 1024

    /// Whether `password` produces `hash` with this algorithm and `salt` (constant-time compare).
    ///
    /// Never throws: invalid parameters or malformed stored values simply do not match. The salt
    /// separator, if any, is appended to `salt` for every algorithm; `salt` is unused by BCRYPT,
    /// whose stored value is the whole modular-crypt string.
    public func matches(password: String, hash: [UInt8], salt: [UInt8]) -> Bool {
        guard let computed = try? computedHash(password: password, salt: salt, stored: hash) else {
            return false
        }
        return ConstantTime.equal(computed, hash)
    }

    /// What the stored hash should be; `stored` supplies BCRYPT's setting and PBKDF2's length.
    private func computedHash(
        password: String, salt userSalt: [UInt8], stored: [UInt8]
    ) throws(PasswordHashError) -> [UInt8] {
        try validate()
        let password = Array(password.utf8)
        let salt = userSalt + (saltSeparator ?? [])
        switch name {
        case .scrypt:
            return try firebaseScrypt().hash(passwordBytes: password, salt: userSalt)
        case .standardScrypt:
            let parameters = try standardScryptParameters()
            return try Scrypt.derive(
                password: password,
                salt: salt,
                costN: parameters.costN,
                blockSize: parameters.blockSize,
                parallelism: parameters.parallelism,
                length: parameters.length
            )
        case .bcrypt:
            return try Bcrypt.hash(password: password, setting: stored)
        case .pbkdf2SHA256:
            return try pbkdf2(password: password, salt: salt, function: .sha256, length: stored.count)
        case .pbkdfSHA1:
            return try pbkdf2(password: password, salt: salt, function: .insecureSHA1, length: stored.count)
        case .hmacSHA512:
            return try hmac(SHA512.self, password: password, salt: salt)
        case .hmacSHA256:
            return try hmac(SHA256.self, password: password, salt: salt)
        case .hmacSHA1:
            return try hmac(Insecure.SHA1.self, password: password, salt: salt)
        case .hmacMD5:
            return try hmac(Insecure.MD5.self, password: password, salt: salt)
        case .sha512:
            return iteratedDigest(SHA512.self, password: password, salt: salt)
        case .sha256:
            return iteratedDigest(SHA256.self, password: password, salt: salt)
        case .sha1:
            return iteratedDigest(Insecure.SHA1.self, password: password, salt: salt)
        case .md5 where rounds == 0:
            let digest = Insecure.MD5.hash(data: digestMessage(password: password, salt: salt))
            return digest.flatMap { byte in [Self.hexDigits[Int(byte >> 4)], Self.hexDigits[Int(byte & 0x0F)]] }
        case .md5:
            return iteratedDigest(Insecure.MD5.self, password: password, salt: salt)
        case .argon2:
            let parameters = try argon2Parameters()
            return Argon2.hash(
                password: password,
                salt: salt,
                associatedData: parameters.associatedData ?? [],
                iterations: parameters.iterations,
                memoryKiB: parameters.memoryCostKib,
                parallelism: parameters.parallelism,
                tagLength: parameters.hashLengthBytes,
                variant: Argon2.Variant(parameters.hashType),
                version: Argon2.Version(parameters.version)
            )
        }
    }

    /// PBKDF2 with the stored hash's length. Firebase admits 0 rounds, which PBKDF2 does not
    /// define; it is taken as a single iteration (what implementations that run the first
    /// iteration unconditionally compute).
    private func pbkdf2(
        password: [UInt8], salt: [UInt8], function: KDF.Insecure.PBKDF2.HashFunction, length: Int
    ) throws(PasswordHashError) -> [UInt8] {
        guard (1...Self.maxPBKDF2HashLength).contains(length) else {
            throw .invalidParameter(
                "stored \(name.rawValue) hash must be 1 to \(Self.maxPBKDF2HashLength) bytes (got \(length))")
        }
        do {
            let key = try KDF.Insecure.PBKDF2.deriveKey(
                from: password,
                salt: salt,
                using: function,
                outputByteCount: length,
                unsafeUncheckedRounds: max(rounds ?? 1, 1)
            )
            return key.withUnsafeBytes { Array($0) }
        } catch {
            throw .computationFailed("PBKDF2 refused \(name.rawValue) with \(length) output bytes")
        }
    }

    /// HMAC keyed with the signer key, over password‖salt (salt‖password for SALT_AND_PASSWORD).
    private func hmac<Function: HashFunction>(
        _: Function.Type, password: [UInt8], salt: [UInt8]
    ) throws(PasswordHashError) -> [UInt8] {
        let message = inputOrder == .saltAndPassword ? salt + password : password + salt
        let key = SymmetricKey(data: try hmacKey())
        return Array(HMAC<Function>.authenticationCode(for: message, using: key))
    }

    /// `rounds` applications of the digest, the first to salt‖password (password‖salt for
    /// PASSWORD_AND_SALT) and each further one to the previous digest.
    private func iteratedDigest<Function: HashFunction>(
        _: Function.Type, password: [UInt8], salt: [UInt8]
    ) -> [UInt8] {
        var digest = Array(Function.hash(data: digestMessage(password: password, salt: salt)))
        for _ in 1..<max(rounds ?? 1, 1) {
            digest = Array(Function.hash(data: digest))
        }
        return digest
    }

    /// The plain digests' message: salt first unless the order says password first.
    private func digestMessage(password: [UInt8], salt: [UInt8]) -> [UInt8] {
        inputOrder == .passwordAndSalt ? password + salt : salt + password
    }

    /// ASCII lowercase hexadecimal digits, for MD5's `rounds = 0` text form.
    private static let hexDigits = Array("0123456789abcdef".utf8)
}
