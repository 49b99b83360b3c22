import HTTPTypes

/// The one reading of an `Authorization` header every product shares: `Bearer <token>` as the
/// SDKs and the Admin SDKs send it, or `Firebase <token>` as the Storage SDKs do, the scheme in
/// any case (RFC 9110 §11.1). Other schemes carry no credential Hearth reads.
package enum AuthorizationHeader {
    /// The token of `fields`' `Authorization` header; `nil` without one Hearth reads, and for an
    /// empty token.
    package static func token(in fields: HTTPFields) -> String? {
        guard let value = fields[.authorization] else { return nil }
        let parts = value.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2, ["bearer", "firebase"].contains(parts[0].lowercased()) else { return nil }
        let token = parts[1].trimmingSpaces()
        return token.isEmpty ? nil : token
    }
}

extension Substring {
    fileprivate func trimmingSpaces() -> String {
        String(drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
    }
}
