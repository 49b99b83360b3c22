/// The resources of an ACME server (RFC 8555 §7.1), as far as Hearth reads them.
enum ACMEMessages {
    /// The directory: where each request goes.
    struct Directory: Decodable, Sendable {
        let newNonce: String
        let newAccount: String
        let newOrder: String
    }

    /// An identifier a certificate is for; Hearth asks for DNS names only.
    struct Identifier: Codable, Sendable, Equatable {
        let type: String
        let value: String

        static func dns(_ name: String) -> Identifier { Identifier(type: "dns", value: name) }
    }

    /// An order for one certificate.
    struct Order: Decodable, Sendable {
        let status: String
        let authorizations: [String]
        let finalize: String
        let certificate: String?
        let error: Problem?
    }

    /// The server's authorization of the account for one identifier.
    struct Authorization: Decodable, Sendable {
        let status: String
        let identifier: Identifier
        let challenges: [Challenge]
    }

    /// One way of proving control of an identifier.
    struct Challenge: Decodable, Sendable {
        let type: String
        let url: String
        let status: String
        let token: String?
        let error: Problem?
    }

    /// An error document (RFC 7807), as ACME sends them.
    struct Problem: Decodable, Sendable, CustomStringConvertible {
        let type: String
        let detail: String?

        var description: String { detail.map { "\(type): \($0)" } ?? type }

        /// The nonce was refused; the request may be sent again with the new one (§6.5).
        var isBadNonce: Bool { type == "urn:ietf:params:acme:error:badNonce" }
    }
}
