import HearthEdge
import Hummingbird

/// The pieces of a request Storage reads besides its route.
enum StorageRequestParts {
    /// Query parameters with form decoding (`+` is a space), as google-cloud-storage encodes
    /// them; the last occurrence of a name wins.
    static func parameters(of request: Request) -> [String: String] {
        guard let query = request.uri.query, !query.isEmpty else { return [:] }
        var parameters: [String: String] = [:]
        for pair in query.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = PercentDecoding.decode(Array(parts[0].utf8), plusIsSpace: true) else { continue }
            let value = parts.count > 1 ? PercentDecoding.decode(Array(parts[1].utf8), plusIsSpace: true) ?? String(parts[1]) : ""
            parameters[name] = value
        }
        return parameters
    }

    /// `http://host:port` (or `https://`) as the client reached the server, for URLs given back
    /// to it.
    static func baseURL(of request: Request, fallbackHost: String) -> String {
        "\(request.head.scheme == "https" ? "https" : "http")://\(request.head.authority ?? fallbackHost)"
    }

    /// Collects a small body (metadata JSON, control requests), refusing one past `limit`.
    static func collect(_ request: inout Request, limit: Int = 1 << 20) async throws -> [UInt8] {
        do {
            let buffer = try await request.collectBody(upTo: limit)
            return Array(buffer.readableBytesView)
        } catch {
            throw StorageError.badRequest("The request body is too large.")
        }
    }
}
