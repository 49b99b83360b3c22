import ArgumentParser
import HearthCore
import HearthUserFiles

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

    /// The hash description that goes with every batch (see ``PasswordHashParameters``).
    func requestMembers() throws -> [JSONMember] {
        let parameters = PasswordHashParameters(
            algorithm: hashAlgo, key: hashKey, saltSeparator: saltSeparator, rounds: rounds, memoryCost: memCost,
            parallelization: parallelization, blockSize: blockSize, derivedKeyLength: dkLen, inputOrder: hashInputOrder)
        do {
            return try parameters.requestMembers()
        } catch {
            throw ValidationError(error.description)
        }
    }
}
