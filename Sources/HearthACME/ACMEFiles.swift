import Crypto
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Where ACME's keys and certificate live in the data directory (`tls/`), owner-only, each
/// replaced whole (written beside, synced, renamed) so that a crash leaves the old or the new.
struct ACMEFiles: Sendable {
    let directory: String

    init(dataDirectory: String) {
        directory = dataDirectory + "/tls"
    }

    var accountKeyPath: String { directory + "/acme-account-key.pem" }
    var certificatePath: String { directory + "/certificate.pem" }
    var keyPath: String { directory + "/certificate-key.pem" }

    /// The account key kept from an earlier start, or a new one, kept.
    func accountKey() throws(ACMEError) -> ACMEAccountKey {
        if let text = try? String(contentsOfFile: accountKeyPath, encoding: .utf8) {
            do {
                return ACMEAccountKey(key: try P256.Signing.PrivateKey(pemRepresentation: text))
            } catch {
                throw .cannotKeep(path: accountKeyPath, reason: "it holds no P-256 key: \(error)")
            }
        }
        let key = P256.Signing.PrivateKey()
        try write(key.pemRepresentation, to: accountKeyPath)
        return ACMEAccountKey(key: key)
    }

    /// Keeps an issued certificate. A crash between the two files leaves a chain whose key does
    /// not match, which is refused when read: a new certificate is then obtained.
    func keep(_ issued: CertificateOrder.Issued) throws(ACMEError) {
        try write(issued.key.pemRepresentation, to: keyPath)
        try write(issued.chainPEM, to: certificatePath)
    }

    /// Writes `text` to `path`, owner-only, in place of what was there.
    private func write(_ text: String, to path: String) throws(ACMEError) {
        let staging = path + ".new"
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            guard chmod(directory, 0o700) == 0,
                FileManager.default.createFile(atPath: staging, contents: Data(text.utf8), attributes: [.posixPermissions: 0o600])
            else { throw ACMEError.cannotKeep(path: staging, reason: "cannot create it") }
            let handle = try FileHandle(forUpdating: URL(fileURLWithPath: staging))
            try handle.synchronize()
            try handle.close()
        } catch {
            throw .cannotKeep(path: staging, reason: "\(error)")
        }
        guard rename(staging, path) == 0 else { throw .cannotKeep(path: path, reason: "rename failed (errno \(errno))") }
    }
}
