import ArgumentParser
import HearthCore

/// The Firebase CLI's flags that say how the imported password hashes were made (auth spec
/// §9.2, §9.4), checked as the CLI checks them. Each algorithm takes only its own parameters;
/// the others are not sent, as with the CLI.
struct HashOptions: ParsableArguments {
    @Option(
        help: """
            The algorithm the password hashes were made with: SCRYPT, STANDARD_SCRYPT, BCRYPT, PBKDF2_SHA256, PBKDF_SHA1, \
            HMAC_SHA512, HMAC_SHA256, HMAC_SHA1, HMAC_MD5, SHA512, SHA256, SHA1 or MD5. Without it, users are imported \
            without their passwords.
            """)
    var hashAlgo: String?

    @Option(help: "The key of SCRYPT and the HMAC algorithms (base64).")
    var hashKey: String?

    @Option(help: "The salt separator of SCRYPT (base64).")
    var saltSeparator: String?

    @Option(help: "Rounds: SCRYPT 1–8, SHA* 1–8192, MD5 0–8192, PBKDF* 0–120000.")
    var rounds: Int?

    @Option(help: "SCRYPT's memory cost (1–14), or STANDARD_SCRYPT's CPU/memory cost N.")
    var memCost: Int?

    @Option(help: "STANDARD_SCRYPT's parallelization p.")
    var parallelization: Int?

    @Option(help: "STANDARD_SCRYPT's block size r.")
    var blockSize: Int?

    @Option(help: "STANDARD_SCRYPT's derived key length in bytes.")
    var dkLen: Int?

    @Option(help: "SALT_FIRST or PASSWORD_FIRST: the order in which salt and password are hashed (MD5, SHA*, HMAC_*).")
    var hashInputOrder: String?

    func validate() throws {
        _ = try requestMembers()
    }

    /// The hash description that goes with every batch: `hashAlgorithm`, its parameters (bytes in
    /// URL-safe base64) and `passwordHashOrder`; empty without `--hash-algo`.
    func requestMembers() throws -> [JSONMember] {
        guard let given = hashAlgo else { return [] }
        let algorithm = given.uppercased()
        var members = [JSONMember(key: "hashAlgorithm", value: .string(algorithm))]
        func add(_ key: String, _ value: Int) {
            members.append(JSONMember(key: key, value: .number(.int(Int64(value)))))
        }
        func addBytes(_ key: String, _ text: String, flag: String) throws {
            guard let bytes = UserFileBase64.decode(text) else { throw ValidationError("--\(flag) must be base64.") }
            members.append(JSONMember(key: key, value: .string(UserFileBase64.urlSafe(bytes))))
        }
        func key() throws -> String {
            guard let hashKey, !hashKey.isEmpty else {
                throw ValidationError("Must provide hash key (base64 encoded) for hash algorithm \(given): --hash-key.")
            }
            return hashKey
        }
        func checkedRounds(_ range: ClosedRange<Int>) throws -> Int {
            guard let rounds, range.contains(rounds) else {
                throw ValidationError(
                    "Must provide valid rounds (\(range.lowerBound)..\(range.upperBound)) for hash algorithm \(given): --rounds.")
            }
            return rounds
        }
        switch algorithm {
        case "HMAC_SHA512", "HMAC_SHA256", "HMAC_SHA1", "HMAC_MD5":
            try addBytes("signerKey", try key(), flag: "hash-key")
        case "MD5":
            add("rounds", try checkedRounds(0...8192))
        case "SHA1", "SHA256", "SHA512":
            add("rounds", try checkedRounds(1...8192))
        case "PBKDF_SHA1", "PBKDF2_SHA256":
            add("rounds", try checkedRounds(0...120_000))
        case "SCRYPT":
            try addBytes("signerKey", try key(), flag: "hash-key")
            if let saltSeparator, !saltSeparator.isEmpty { try addBytes("saltSeparator", saltSeparator, flag: "salt-separator") }
            add("rounds", try checkedRounds(1...8))
            guard let memCost, (1...14).contains(memCost) else {
                throw ValidationError("Must provide valid memory cost (1..14) for hash algorithm \(given): --mem-cost.")
            }
            add("memoryCost", memCost)
        case "STANDARD_SCRYPT":
            guard let memCost, let parallelization, let blockSize, let dkLen else {
                throw ValidationError("STANDARD_SCRYPT needs --mem-cost (N), --block-size, --parallelization and --dk-len.")
            }
            add("cpuMemCost", memCost)
            add("parallelization", parallelization)
            add("blockSize", blockSize)
            add("dkLen", dkLen)
        case "BCRYPT":
            break
        default:
            throw ValidationError(
                "Unsupported hash algorithm \(given): use SCRYPT, STANDARD_SCRYPT, BCRYPT, PBKDF2_SHA256, PBKDF_SHA1, HMAC_SHA512, "
                    + "HMAC_SHA256, HMAC_SHA1, HMAC_MD5, SHA512, SHA256, SHA1 or MD5.")
        }
        if let order = hashInputOrder {
            switch order.uppercased() {
            case "SALT_FIRST": members.append(JSONMember(key: "passwordHashOrder", value: .string("SALT_AND_PASSWORD")))
            case "PASSWORD_FIRST": members.append(JSONMember(key: "passwordHashOrder", value: .string("PASSWORD_AND_SALT")))
            default: throw ValidationError("Unknown --hash-input-order \(order): use SALT_FIRST or PASSWORD_FIRST.")
            }
        }
        return members
    }
}
