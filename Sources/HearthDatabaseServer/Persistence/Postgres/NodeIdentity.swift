#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The identity a node owns namespaces under in a cluster (``PostgresNamespaces``), kept in its
/// data directory (`node-id`): a node restarted on the same directory reclaims the namespaces it
/// owned at once, instead of waiting for its old leases to run out. The old process, were it
/// still running, is fenced by the new epoch all the same.
package enum NodeIdentity {
    static let fileName = "node-id"

    /// The identity recorded in `dataDirectory`, recorded first if there is none.
    package static func load(dataDirectory: String) throws -> String {
        let url = URL(fileURLWithPath: dataDirectory).appendingPathComponent(fileName)
        if let data = try? Data(contentsOf: url),
            let identity = String(data: data, encoding: .utf8)?.trimmingCharacters(in: .whitespacesAndNewlines), !identity.isEmpty
        {
            return identity
        }
        try FileManager.default.createDirectory(atPath: dataDirectory, withIntermediateDirectories: true)
        let identity = UUID().uuidString.lowercased()
        try Data((identity + "\n").utf8).write(to: url, options: .atomic)
        return identity
    }
}
