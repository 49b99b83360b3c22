/// How imported password hashes were computed: the hash description shared by one
/// `accounts:batchCreate` request (Firebase's `hashAlgorithm`, `signerKey`, `saltSeparator`,
/// `rounds`, `memoryCost`, `cpuMemCost`, `blockSize`, `parallelization`, `dkLen`,
/// `passwordHashOrder` and `argon2Parameters`).
///
/// Only the parameters the chosen algorithm uses are read; the others are ignored.
public struct PasswordHashAlgorithm: Sendable, Equatable, Codable {
    /// Firebase's algorithm names (the raw values).
    public enum Name: String, Sendable, Codable, CaseIterable {
        case scrypt = "SCRYPT"
        case standardScrypt = "STANDARD_SCRYPT"
        case bcrypt = "BCRYPT"
        case pbkdf2SHA256 = "PBKDF2_SHA256"
        case pbkdfSHA1 = "PBKDF_SHA1"
        case hmacSHA512 = "HMAC_SHA512"
        case hmacSHA256 = "HMAC_SHA256"
        case hmacSHA1 = "HMAC_SHA1"
        case hmacMD5 = "HMAC_MD5"
        case sha512 = "SHA512"
        case sha256 = "SHA256"
        case sha1 = "SHA1"
        case md5 = "MD5"
        case argon2 = "ARGON2"
    }

    /// Whether the salt comes before or after the password in the hashed message (Firebase's
    /// `passwordHashOrder`). Unspecified means salt first for the plain digests and password first
    /// for the HMACs.
    public enum InputOrder: String, Sendable, Codable {
        case unspecified = "UNSPECIFIED_ORDER"
        case saltAndPassword = "SALT_AND_PASSWORD"
        case passwordAndSalt = "PASSWORD_AND_SALT"
    }

    /// Firebase's `argon2Parameters`.
    public struct Argon2Parameters: Sendable, Equatable, Codable {
        /// The Argon2 variant.
        public enum HashType: String, Sendable, Codable, CaseIterable {
            case argon2d = "ARGON2_D"
            case argon2i = "ARGON2_I"
            case argon2id = "ARGON2_ID"
        }

        /// The Argon2 version: 0x10, or 0x13 (the current one, RFC 9106).
        public enum Version: String, Sendable, Codable, CaseIterable {
            case version10 = "VERSION_10"
            case version13 = "VERSION_13"
        }

        public var hashType: HashType
        /// Passes over memory (t), 1...16.
        public var iterations: Int
        /// Memory in KiB (m), at most 32768 and at least 8 × parallelism.
        public var memoryCostKib: Int
        /// Lanes (p), 1...16.
        public var parallelism: Int
        /// Tag length in bytes, 4...1024.
        public var hashLengthBytes: Int
        public var version: Version
        /// Argon2's associated data X, if any.
        public var associatedData: [UInt8]?

        public init(
            hashType: HashType,
            iterations: Int,
            memoryCostKib: Int,
            parallelism: Int,
            hashLengthBytes: Int,
            version: Version = .version13,
            associatedData: [UInt8]? = nil
        ) {
            self.hashType = hashType
            self.iterations = iterations
            self.memoryCostKib = memoryCostKib
            self.parallelism = parallelism
            self.hashLengthBytes = hashLengthBytes
            self.version = version
            self.associatedData = associatedData
        }
    }

    public var name: Name
    /// The key for SCRYPT (encrypted signer key) and the HMACs (HMAC key).
    public var signerKey: [UInt8]?
    /// Appended to every user's salt, for every algorithm that uses a salt.
    public var saltSeparator: [UInt8]?
    /// SCRYPT's r, PBKDF iterations, or the number of digest applications for SHA*/MD5.
    public var rounds: Int?
    /// SCRYPT's log2 N.
    public var memoryCost: Int?
    /// STANDARD_SCRYPT's N itself (not a logarithm).
    public var cpuMemCost: Int?
    /// STANDARD_SCRYPT's r.
    public var blockSize: Int?
    /// STANDARD_SCRYPT's p.
    public var parallelization: Int?
    /// STANDARD_SCRYPT's output length.
    public var dkLen: Int?
    public var inputOrder: InputOrder
    public var argon2: Argon2Parameters?

    public init(
        name: Name,
        signerKey: [UInt8]? = nil,
        saltSeparator: [UInt8]? = nil,
        rounds: Int? = nil,
        memoryCost: Int? = nil,
        cpuMemCost: Int? = nil,
        blockSize: Int? = nil,
        parallelization: Int? = nil,
        dkLen: Int? = nil,
        inputOrder: InputOrder = .unspecified,
        argon2: Argon2Parameters? = nil
    ) {
        self.name = name
        self.signerKey = signerKey
        self.saltSeparator = saltSeparator
        self.rounds = rounds
        self.memoryCost = memoryCost
        self.cpuMemCost = cpuMemCost
        self.blockSize = blockSize
        self.parallelization = parallelization
        self.dkLen = dkLen
        self.inputOrder = inputOrder
        self.argon2 = argon2
    }
}
