#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The identity a node owns namespaces under in a cluster (``PostgresNamespaces``), kept in its
/// data directory (`node-id`): a node restarted on the same directory reclaims the namespaces it
/// owned at once, instead of waiting for its old leases to run out. The old process, were it
/// still running, is fenced by the new epoch all the same. The file stays locked while the
/// process runs, so that two processes never share an identity.
package enum NodeIdentity {
    static let fileName = "node-id"

    /// Why the identity cannot be had.
    package enum Failure: Error, CustomStringConvertible {
        case unusable(String, errno: Int32)
        case inUse(String)

        package var description: String {
            switch self {
            case .unusable(let path, let errno): "\(path): \(String(cString: strerror(errno)))"
            case .inUse(let path): "\(path) is locked: another Hearth process serves this data directory"
            }
        }
    }

    /// The identity recorded in `dataDirectory`, recorded first if there is none; the file is
    /// locked until the process ends.
    package static func load(dataDirectory: String) throws -> String {
        try FileManager.default.createDirectory(atPath: dataDirectory, withIntermediateDirectories: true)
        let path = dataDirectory + "/" + fileName
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw Failure.unusable(path, errno: errno) }
        // Deliberately never closed: closing would release the lock.
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            let failure = errno
            close(descriptor)
            throw failure == EWOULDBLOCK ? Failure.inUse(path) : Failure.unusable(path, errno: failure)
        }
        var buffer = [UInt8](repeating: 0, count: 128)
        let count = read(descriptor, &buffer, buffer.count)
        guard count >= 0 else { throw Failure.unusable(path, errno: errno) }
        let recorded = String(decoding: buffer.prefix(count), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        // A crash while the file was first written may have left anything but an identity there.
        if UUID(uuidString: recorded) != nil { return recorded }
        let identity = UUID().uuidString.lowercased()
        let line = Array((identity + "\n").utf8)
        guard ftruncate(descriptor, 0) == 0, pwrite(descriptor, line, line.count, 0) == line.count, fsync(descriptor) == 0 else {
            throw Failure.unusable(path, errno: errno)
        }
        return identity
    }
}
