import Crypto
import CryptoExtras

/// Standard scrypt (RFC 7914), as used both by Firebase's modified scrypt and by `STANDARD_SCRYPT`.
enum Scrypt {
    /// Derives `length` bytes with scrypt. `costN` must be a power of two greater than 1.
    static func derive(
        password: [UInt8],
        salt: [UInt8],
        costN: Int,
        blockSize: Int,
        parallelism: Int,
        length: Int
    ) throws(PasswordHashError) -> [UInt8] {
        do {
            let key = try KDF.Scrypt.deriveKey(
                from: password,
                salt: salt,
                outputByteCount: length,
                rounds: costN,
                blockSize: blockSize,
                parallelism: parallelism
            )
            return key.withUnsafeBytes { Array($0) }
        } catch {
            throw .computationFailed(
                "scrypt refused N=\(costN), r=\(blockSize), p=\(parallelism), dkLen=\(length)"
            )
        }
    }
}
