import Crypto
import Foundation

/// Where ACME's keys and certificate live in the data directory (`tls/`, owner-only): the
/// account's key, and the certificate's key with its chain in one file, so that no crash, copy or
/// backup ever pairs a chain with another key. Each file is replaced whole (written beside,
/// synced, renamed, the directory synced).
struct ACMEFiles: Sendable {
    let directory: String

    init(dataDirectory: String) {
        directory = dataDirectory + "/tls"
    }

    var accountKeyPath: String { directory + "/acme-account-key.pem" }
    /// The certificate's key, then its chain, leaf first (PEM).
    var certificatePath: String { directory + "/certificate.pem" }

    /// The account key kept from an earlier start, or a new one, kept. A file that is there but
    /// cannot be read as a P-256 key is an error: it is never replaced.
    func accountKey() throws(ACMEError) -> ACMEAccountKey {
        guard FileManager.default.fileExists(atPath: accountKeyPath) else {
            let key = P256.Signing.PrivateKey()
            try write(key.pemRepresentation, to: accountKeyPath)
            return ACMEAccountKey(key: key)
        }
        do {
            return ACMEAccountKey(
                key: try P256.Signing.PrivateKey(pemRepresentation: try String(contentsOfFile: accountKeyPath, encoding: .utf8)))
        } catch {
            throw .cannotKeep(path: accountKeyPath, reason: "it cannot be read as a P-256 key: \(error)")
        }
    }

    /// The kept certificate file's bytes, if there is one.
    func keptCertificate() -> [UInt8]? {
        FileManager.default.contents(atPath: certificatePath).map(Array.init)
    }

    /// Keeps `pem`, a certificate's key and chain.
    func keep(_ pem: String) throws(ACMEError) {
        try write(pem, to: certificatePath)
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
        let descriptor = open(directory, O_RDONLY | O_DIRECTORY)
        guard descriptor >= 0 else { throw .cannotKeep(path: directory, reason: "cannot open it to sync (errno \(errno))") }
        defer { close(descriptor) }
        guard fsync(descriptor) == 0 else { throw .cannotKeep(path: directory, reason: "fsync failed (errno \(errno))") }
    }
}
