/// Checks of object names, as GCS makes them (spec storage-api §1.2): 1–1024 bytes of UTF-8
/// without carriage returns or line feeds, neither `.` nor `..`, and not below
/// `.well-known/acme-challenge/`.
enum ObjectName {
    static let maximumBytes = 1024
    static let reservedPrefix = ".well-known/acme-challenge/"

    static func validate(_ name: String) throws(StorageError) {
        if name.isEmpty { throw .invalidObjectName("the name is empty.") }
        if name.utf8.count > maximumBytes {
            throw .invalidObjectName("the name is \(name.utf8.count) bytes long; at most \(maximumBytes) bytes of UTF-8 are allowed.")
        }
        if name.utf8.contains(where: { $0 == 0x0A || $0 == 0x0D }) {
            throw .invalidObjectName("the name contains a carriage return or line feed.")
        }
        if name == "." || name == ".." { throw .invalidObjectName("'.' and '..' are not allowed.") }
        if name.hasPrefix(reservedPrefix) { throw .invalidObjectName("it may not start with '\(reservedPrefix)'.") }
    }
}
