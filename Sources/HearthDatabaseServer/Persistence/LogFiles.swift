#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The system calls the durable log and its archive make on their files, with the error each
/// failure becomes.
enum LogFiles {
    /// Writes all of `bytes` at `descriptor`'s position; `what` names the file in the error.
    static func write(_ bytes: [UInt8], to descriptor: Int32, what: String) throws(PersistenceError) {
        var written = 0
        while written < bytes.count {
            let count = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress! + written, bytes.count - written) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { throw .log("cannot write \(what): \(errorText())") }
            written += count
        }
    }

    /// Syncs the directory `path`, so that the files created in it outlive a crash.
    static func syncDirectory(_ path: String, what: String) throws(PersistenceError) {
        let folder = Glibc.open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        defer { if folder >= 0 { Glibc.close(folder) } }
        guard folder >= 0, fsync(folder) == 0 else { throw .log("cannot sync \(what): \(errorText())") }
    }

    /// The text of the last system call's error.
    static func errorText() -> String {
        String(cString: strerror(errno))
    }
}
