extension PasswordHashAlgorithm {
    /// Hearth's bounds for `STANDARD_SCRYPT`, which Firebase's SDKs and CLI leave unchecked: they
    /// admit the usual parameter sets (up to N = 2^20, r = 8) while keeping one verification's
    /// memory and time bounded. r ≤ 16 also keeps p = 1 within the memory limit that
    /// swift-crypto's scrypt sets (128 · N · r · p bytes plus one page).
    enum StandardScryptLimits {
        static let blockSize = 1...16
        static let parallelization = 1...16
        static let dkLen = 1...1024
        /// The largest table scrypt may allocate: 128 · r · N bytes.
        static let memoryBytes = 1 << 30
    }

    /// The ranges Firebase's SDKs and CLI enforce.
    enum Ranges {
        static let pbkdfRounds = 0...120_000
        static let shaRounds = 1...8192
        static let md5Rounds = 0...8192
        static let argon2Iterations = 1...16
        static let argon2Parallelism = 1...16
        static let argon2HashLength = 4...1024
        static let argon2MaxMemoryKib = 32768
    }

    /// Checks that the parameters this algorithm needs are present and within Firebase's ranges
    /// (and, for `STANDARD_SCRYPT`, within ``StandardScryptLimits``); the error message names the
    /// parameter and its range.
    public func validate() throws(PasswordHashError) {
        switch name {
        case .scrypt:
            try firebaseScrypt().validate()
        case .standardScrypt:
            _ = try standardScryptParameters()
        case .bcrypt:
            return
        case .pbkdf2SHA256, .pbkdfSHA1:
            _ = try required(rounds, "rounds", in: Ranges.pbkdfRounds)
        case .hmacSHA512, .hmacSHA256, .hmacSHA1, .hmacMD5:
            _ = try hmacKey()
        case .sha512, .sha256, .sha1:
            _ = try required(rounds, "rounds", in: Ranges.shaRounds)
        case .md5:
            _ = try required(rounds, "rounds", in: Ranges.md5Rounds)
        case .argon2:
            _ = try argon2Parameters()
        }
    }

    /// The SCRYPT description as a project configuration (a missing separator is empty).
    func firebaseScrypt() throws(PasswordHashError) -> FirebaseScrypt {
        guard let signerKey, !signerKey.isEmpty else {
            throw .invalidParameter("signerKey is required for SCRYPT")
        }
        guard let rounds else {
            throw .invalidParameter("rounds is required for SCRYPT (1 to 8)")
        }
        guard let memoryCost else {
            throw .invalidParameter("memoryCost is required for SCRYPT (1 to 14)")
        }
        return FirebaseScrypt(
            signerKey: signerKey,
            saltSeparator: saltSeparator ?? [],
            rounds: rounds,
            memoryCost: memoryCost
        )
    }

    /// STANDARD_SCRYPT's N, r, p and output length, checked.
    func standardScryptParameters() throws(PasswordHashError) -> (
        costN: Int, blockSize: Int, parallelism: Int, length: Int
    ) {
        let blockSize = try required(blockSize, "blockSize", in: StandardScryptLimits.blockSize)
        let parallelism = try required(
            parallelization, "parallelization", in: StandardScryptLimits.parallelization)
        let length = try required(dkLen, "dkLen", in: StandardScryptLimits.dkLen)
        guard let costN = cpuMemCost else {
            throw .invalidParameter("cpuMemCost is required for STANDARD_SCRYPT (a power of two, at least 2)")
        }
        guard costN >= 2, costN & (costN - 1) == 0 else {
            throw .invalidParameter("cpuMemCost must be a power of two, at least 2, for STANDARD_SCRYPT (got \(costN))")
        }
        // RFC 7914 requires N < 2^(128·r/8).
        if 16 * blockSize < Int.bitWidth - 1, costN >= 1 << (16 * blockSize) {
            throw .invalidParameter(
                "cpuMemCost must be less than 2^(16·blockSize) for STANDARD_SCRYPT (got \(costN) with blockSize \(blockSize))"
            )
        }
        guard costN <= StandardScryptLimits.memoryBytes / (128 * blockSize) else {
            throw .invalidParameter(
                "cpuMemCost × blockSize × 128 must be at most \(StandardScryptLimits.memoryBytes) bytes for STANDARD_SCRYPT (got cpuMemCost \(costN), blockSize \(blockSize))"
            )
        }
        return (costN, blockSize, parallelism, length)
    }

    /// The HMAC key, which must be present and non-empty.
    func hmacKey() throws(PasswordHashError) -> [UInt8] {
        guard let signerKey, !signerKey.isEmpty else {
            throw .invalidParameter("signerKey is required for \(name.rawValue)")
        }
        return signerKey
    }

    /// The Argon2 parameters, checked.
    func argon2Parameters() throws(PasswordHashError) -> Argon2Parameters {
        guard let argon2 else {
            throw .invalidParameter("argon2Parameters are required for ARGON2")
        }
        _ = try required(argon2.iterations, "argon2Parameters.iterations", in: Ranges.argon2Iterations)
        let lanes = try required(
            argon2.parallelism, "argon2Parameters.parallelism", in: Ranges.argon2Parallelism)
        _ = try required(
            argon2.hashLengthBytes, "argon2Parameters.hashLengthBytes", in: Ranges.argon2HashLength)
        // Argon2 needs at least two blocks per segment: 8 KiB per lane.
        _ = try required(
            argon2.memoryCostKib, "argon2Parameters.memoryCostKib",
            in: (8 * lanes)...Ranges.argon2MaxMemoryKib)
        return argon2
    }

    /// `value`, if present and inside `range`.
    private func required(
        _ value: Int?, _ parameter: String, in range: ClosedRange<Int>
    ) throws(PasswordHashError) -> Int {
        guard let value else {
            throw .invalidParameter(
                "\(parameter) is required for \(name.rawValue) (\(range.lowerBound) to \(range.upperBound))")
        }
        guard range.contains(value) else {
            throw .invalidParameter(
                "\(parameter) must be between \(range.lowerBound) and \(range.upperBound) for \(name.rawValue) (got \(value))"
            )
        }
        return value
    }
}
