import HearthCore

/// How imported password hashes were made, as the Firebase CLI's flags say (auth spec §9.2,
/// §9.4; each field is named after its flag), checked as the CLI checks them. Each algorithm
/// takes only its own parameters; the others are not sent, as with the CLI.
package struct PasswordHashParameters: Sendable {
    /// `--hash-algo`: without it, users are imported without their passwords.
    package var algorithm: String?
    /// `--hash-key` (base64): the key of SCRYPT and the HMAC algorithms.
    package var key: String?
    /// `--salt-separator` (base64), SCRYPT's.
    package var saltSeparator: String?
    /// `--rounds`.
    package var rounds: Int?
    /// `--mem-cost`: SCRYPT's memory cost, or STANDARD_SCRYPT's CPU/memory cost N.
    package var memoryCost: Int?
    /// `--parallelization`, `--block-size`, `--dk-len`: STANDARD_SCRYPT's p, r and key length.
    package var parallelization: Int?
    package var blockSize: Int?
    package var derivedKeyLength: Int?
    /// `--hash-input-order`: SALT_FIRST or PASSWORD_FIRST.
    package var inputOrder: String?

    package init(
        algorithm: String? = nil, key: String? = nil, saltSeparator: String? = nil, rounds: Int? = nil, memoryCost: Int? = nil,
        parallelization: Int? = nil, blockSize: Int? = nil, derivedKeyLength: Int? = nil, inputOrder: String? = nil
    ) {
        self.algorithm = algorithm
        self.key = key
        self.saltSeparator = saltSeparator
        self.rounds = rounds
        self.memoryCost = memoryCost
        self.parallelization = parallelization
        self.blockSize = blockSize
        self.derivedKeyLength = derivedKeyLength
        self.inputOrder = inputOrder
    }

    /// Parameters the CLI would refuse, with its message.
    package struct Invalid: Error, CustomStringConvertible {
        package let description: String

        init(_ description: String) {
            self.description = description
        }
    }

    /// The hash description that goes with every batch: `hashAlgorithm`, its parameters (bytes in
    /// URL-safe base64) and `passwordHashOrder`; empty without an algorithm.
    package func requestMembers() throws(Invalid) -> [JSONMember] {
        guard let given = algorithm else { return [] }
        let algorithm = given.uppercased()
        var members = [JSONMember(key: "hashAlgorithm", value: .string(algorithm))]
        func add(_ key: String, _ value: Int) {
            members.append(JSONMember(key: key, value: .number(.int(Int64(value)))))
        }
        func addBytes(_ key: String, _ text: String, flag: String) throws(Invalid) {
            guard let bytes = UserFileBase64.decode(text) else { throw Invalid("--\(flag) must be base64.") }
            members.append(JSONMember(key: key, value: .string(UserFileBase64.urlSafe(bytes))))
        }
        func requiredKey() throws(Invalid) -> String {
            guard let key, !key.isEmpty else {
                throw Invalid("Must provide hash key (base64 encoded) for hash algorithm \(given): --hash-key.")
            }
            return key
        }
        func checkedRounds(_ range: ClosedRange<Int>) throws(Invalid) -> Int {
            guard let rounds, range.contains(rounds) else {
                throw Invalid(
                    "Must provide valid rounds (\(range.lowerBound)..\(range.upperBound)) for hash algorithm \(given): --rounds.")
            }
            return rounds
        }
        switch algorithm {
        case "HMAC_SHA512", "HMAC_SHA256", "HMAC_SHA1", "HMAC_MD5":
            try addBytes("signerKey", try requiredKey(), flag: "hash-key")
        case "MD5":
            add("rounds", try checkedRounds(0...8192))
        case "SHA1", "SHA256", "SHA512":
            add("rounds", try checkedRounds(1...8192))
        case "PBKDF_SHA1", "PBKDF2_SHA256":
            add("rounds", try checkedRounds(0...120_000))
        case "SCRYPT":
            try addBytes("signerKey", try requiredKey(), flag: "hash-key")
            if let saltSeparator, !saltSeparator.isEmpty { try addBytes("saltSeparator", saltSeparator, flag: "salt-separator") }
            add("rounds", try checkedRounds(1...8))
            guard let memoryCost, (1...14).contains(memoryCost) else {
                throw Invalid("Must provide valid memory cost (1..14) for hash algorithm \(given): --mem-cost.")
            }
            add("memoryCost", memoryCost)
        case "STANDARD_SCRYPT":
            guard let memoryCost, let parallelization, let blockSize, let derivedKeyLength else {
                throw Invalid("STANDARD_SCRYPT needs --mem-cost (N), --block-size, --parallelization and --dk-len.")
            }
            add("cpuMemCost", memoryCost)
            add("parallelization", parallelization)
            add("blockSize", blockSize)
            add("dkLen", derivedKeyLength)
        case "BCRYPT":
            break
        default:
            throw Invalid(
                "Unsupported hash algorithm \(given): use SCRYPT, STANDARD_SCRYPT, BCRYPT, PBKDF2_SHA256, PBKDF_SHA1, HMAC_SHA512, "
                    + "HMAC_SHA256, HMAC_SHA1, HMAC_MD5, SHA512, SHA256, SHA1 or MD5.")
        }
        if let order = inputOrder {
            switch order.uppercased() {
            case "SALT_FIRST": members.append(JSONMember(key: "passwordHashOrder", value: .string("SALT_AND_PASSWORD")))
            case "PASSWORD_FIRST": members.append(JSONMember(key: "passwordHashOrder", value: .string("PASSWORD_AND_SALT")))
            default: throw Invalid("Unknown --hash-input-order \(order): use SALT_FIRST or PASSWORD_FIRST.")
            }
        }
        return members
    }
}
