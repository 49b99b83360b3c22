/// Checks of object names (spec storage-api §1.2): 1–1024 bytes of UTF-8 without carriage
/// returns or line feeds.
enum ObjectName {
    static let maximumBytes = 1024

    static func validate(_ name: String) throws(StorageError) {
        if name.isEmpty { throw .invalidObjectName("the name is empty.") }
        if name.utf8.count > maximumBytes {
            throw .invalidObjectName("the name is \(name.utf8.count) bytes long; at most \(maximumBytes) bytes of UTF-8 are allowed.")
        }
        if name.utf8.contains(where: { $0 == 0x0A || $0 == 0x0D }) {
            throw .invalidObjectName("the name contains a carriage return or line feed.")
        }
    }
}
