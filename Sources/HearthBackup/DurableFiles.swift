import Crypto
import HearthCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The size and SHA-256 of a file's bytes.
struct FileDigest: Equatable {
    var bytes: Int64
    var sha256: String
}

/// Blocking file operations that a backup needs: copies that are synced before they count, and
/// checksums. Call them off the cooperative pool (``BackupIO``).
enum DurableFiles {
    private static let chunk = 1 << 20

    /// Copies `source` into the new file `destination`, at most `limit` bytes of it, syncs the
    /// copy and returns its digest; `nil` when `source` does not exist.
    static func copy(_ source: String, to destination: String, limit: Int64? = nil) throws(BackupError) -> FileDigest? {
        let input = open(source, O_RDONLY | O_CLOEXEC)
        guard input >= 0 else {
            if errno == ENOENT { return nil }
            throw .io("cannot open \(source): \(errorText())")
        }
        defer { close(input) }
        let output = open(destination, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard output >= 0 else { throw .io("cannot create \(destination): \(errorText())") }
        defer { close(output) }
        var hash = SHA256()
        var total: Int64 = 0
        var buffer = [UInt8](repeating: 0, count: chunk)
        while limit.map({ total < $0 }) ?? true {
            let wanted = limit.map { min(Int64(chunk), $0 - total) } ?? Int64(chunk)
            let count = buffer.withUnsafeMutableBytes { read(input, $0.baseAddress, Int(wanted)) }
            guard count >= 0 else { throw .io("cannot read \(source): \(errorText())") }
            if count == 0 { break }
            let failure = buffer.withUnsafeBytes { bytes in
                let slice = UnsafeRawBufferPointer(rebasing: bytes[..<count])
                hash.update(bufferPointer: slice)
                return writeAll(slice, to: output)
            }
            if let failure { throw .io("cannot write \(destination): \(failure)") }
            total += Int64(count)
        }
        guard fsync(output) == 0 else { throw .io("cannot sync \(destination): \(errorText())") }
        return FileDigest(bytes: total, sha256: Hex.encode(hash.finalize()))
    }

    /// The digest of the file at `path`, or `nil` when it does not exist.
    static func digest(of path: String) throws(BackupError) -> FileDigest? {
        let input = open(path, O_RDONLY | O_CLOEXEC)
        guard input >= 0 else {
            if errno == ENOENT { return nil }
            throw .io("cannot open \(path): \(errorText())")
        }
        defer { close(input) }
        var hash = SHA256()
        var total: Int64 = 0
        var buffer = [UInt8](repeating: 0, count: chunk)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(input, $0.baseAddress, chunk) }
            guard count >= 0 else { throw .io("cannot read \(path): \(errorText())") }
            if count == 0 { break }
            buffer.withUnsafeBytes { hash.update(bufferPointer: UnsafeRawBufferPointer(rebasing: $0[..<count])) }
            total += Int64(count)
        }
        return FileDigest(bytes: total, sha256: Hex.encode(hash.finalize()))
    }

    /// The size of the file at `path`, or `nil` when there is none.
    static func size(of path: String) -> Int64? {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        return Int64(status.st_size)
    }

    /// Writes `bytes` into the new file `path` and syncs it.
    static func write(_ bytes: [UInt8], to path: String) throws(BackupError) {
        let output = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard output >= 0 else { throw .io("cannot create \(path): \(errorText())") }
        defer { close(output) }
        if let failure = bytes.withUnsafeBytes({ writeAll($0, to: output) }) { throw .io("cannot write \(path): \(failure)") }
        guard fsync(output) == 0 else { throw .io("cannot sync \(path): \(errorText())") }
    }

    /// Makes `destination` a second name of `source` (a file never changed once written); false
    /// when the file system cannot.
    static func link(_ source: String, to destination: String) -> Bool {
        Glibc.link(source, destination) == 0
    }

    /// Whether `path` is a directory; `nil` when nothing is there.
    static func isDirectory(_ path: String) -> Bool? {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        return status.st_mode & S_IFMT == S_IFDIR
    }

    /// Deletes the directory `path` if it is empty; false when it is not (or cannot be).
    static func removeEmptyDirectory(_ path: String) -> Bool {
        rmdir(path) == 0
    }

    /// Deletes the file `path`, if it exists.
    static func remove(_ path: String) throws(BackupError) {
        guard unlink(path) == 0 || errno == ENOENT else { throw .io("cannot delete \(path): \(errorText())") }
    }

    /// Makes `path` readable and writable by its owner alone: a backup holds password hashes
    /// and signing keys.
    static func restrict(_ path: String, directory: Bool = false) throws(BackupError) {
        guard chmod(path, directory ? 0o700 : 0o600) == 0 else { throw .io("cannot restrict \(path): \(errorText())") }
    }

    /// Whether `path` is `directory` or inside it, symbolic links and `..` resolved (as far as
    /// `path` exists).
    static func isSameOrInside(_ path: String, _ directory: String) -> Bool {
        let resolvedPath = resolved(path)
        let resolvedDirectory = resolved(directory)
        return resolvedPath == resolvedDirectory || resolvedPath.hasPrefix(resolvedDirectory + "/")
    }

    /// `path` with its longest existing beginning resolved by `realpath`, the rest appended.
    private static func resolved(_ path: String) -> String {
        var existing = path.hasPrefix("/") ? path : "./" + path
        var rest: [Substring] = []
        while true {
            if let real = realpath(existing, nil) {
                defer { free(real) }
                return ([String(cString: real)] + rest.reversed().map(String.init)).joined(separator: "/")
            }
            guard let slash = existing.lastIndex(of: "/") else { return path }
            rest.append(existing[existing.index(after: slash)...])
            existing = String(existing[..<slash])
            if existing.isEmpty { existing = "/" }
        }
    }

    /// Renames `source` to `destination`, replacing it.
    static func rename(_ source: String, to destination: String) throws(BackupError) {
        guard Glibc.rename(source, destination) == 0 else { throw .io("cannot rename \(source): \(errorText())") }
    }

    /// Creates `path` and its missing parents.
    static func createDirectory(_ path: String) throws(BackupError) {
        var built = path.hasPrefix("/") ? "" : "."
        for component in path.split(separator: "/") {
            built += "/" + component
            guard mkdir(built, 0o700) == 0 || errno == EEXIST else { throw .io("cannot create \(built): \(errorText())") }
        }
    }

    /// Syncs the directory `path`, so that the names created in it outlive a crash.
    static func syncDirectory(_ path: String) throws(BackupError) {
        let descriptor = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { throw .io("cannot open \(path): \(errorText())") }
        defer { close(descriptor) }
        guard fsync(descriptor) == 0 else { throw .io("cannot sync \(path): \(errorText())") }
    }

    /// Syncs `root` and every directory below it that holds one of `paths` (relative to
    /// `root`), deepest first.
    static func syncDirectories(holding paths: [String], under root: String) throws(BackupError) {
        var directories: Set<String> = [""]
        for path in paths {
            var directory = parentDirectory(of: path)
            while !directory.isEmpty, directories.insert(directory).inserted { directory = parentDirectory(of: directory) }
        }
        for directory in directories.sorted(by: { $0.count > $1.count }) {
            try syncDirectory(directory.isEmpty ? root : root + "/" + directory)
        }
    }

    /// Writes all of `bytes`; returns why it could not.
    static func writeAll(_ bytes: UnsafeRawBufferPointer, to descriptor: Int32) -> String? {
        var offset = 0
        while offset < bytes.count {
            let written = Glibc.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
            guard written > 0 else {
                if written < 0, errno == EINTR { continue }
                return errorText()
            }
            offset += written
        }
        return nil
    }

    private static func errorText() -> String { String(cString: strerror(errno)) }
}

/// The directory `path` is in ("" for a name alone).
func parentDirectory(of path: String) -> String {
    guard let slash = path.lastIndex(of: "/") else { return "" }
    return String(path[..<slash])
}
