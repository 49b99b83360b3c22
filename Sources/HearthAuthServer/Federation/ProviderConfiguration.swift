import HearthCore

/// The two kinds of provider configuration of Identity Toolkit v2, each a collection under
/// `projects/{p}/`: OpenID Connect (`oauthIdpConfigs`, ids `oidc.…`) and SAML
/// (`inboundSamlConfigs`, ids `saml.…`).
enum ProviderKind: Sendable, Equatable {
    case oidc, saml

    /// The kind whose collection is the path segment `collection`.
    init?(collection: String) {
        switch collection {
        case "oauthIdpConfigs": self = .oidc
        case "inboundSamlConfigs": self = .saml
        default: return nil
        }
    }

    /// The collection's path segment, also the member listing its resources.
    var collection: String { self == .oidc ? "oauthIdpConfigs" : "inboundSamlConfigs" }
    /// The query parameter that names a new resource's id.
    var idParameter: String { self == .oidc ? "oauthIdpConfigId" : "inboundSamlConfigId" }
    /// What every id of the kind starts with.
    var prefix: String { self == .oidc ? "oidc." : "saml." }
}

/// The project's provider configurations by id, kept as one setting of the ``AuthStore``.
struct ProviderConfigs: Codable, Sendable, Equatable {
    var oidc: [String: OIDCProviderConfig] = [:]
    var saml: [String: SAMLProviderConfig] = [:]
}

/// A provider configuration as the endpoints handle either kind: made and patched one
/// update-mask path at a time, then checked as a whole, so that a create, a patch with a mask
/// and a patch without one all keep the same rules.
protocol ProviderConfiguration: Codable, Sendable, Equatable {
    static var kind: ProviderKind { get }
    /// The leaf paths the kind knows (`responseType.code`). A mask naming a message
    /// (`responseType`) stands for every leaf inside it; paths of no leaf change nothing.
    static var paths: [String] { get }
    /// Where the project's configurations of this kind are kept.
    static var stored: WritableKeyPath<ProviderConfigs, [String: Self]> { get }
    /// A configuration with every field at its default.
    init()
    /// Sets the field at leaf `path` from `body`; a member `body` lacks resets the field to its
    /// default, as a masked member absent from a patch clears it.
    mutating func set(_ path: String, from body: AuthRequestBody) throws(AuthError)
    /// Refuses a configuration Identity Toolkit would not keep.
    func check() throws(AuthError)
    /// The resource's members after `name`; false switches and unset fields are left out, as
    /// Identity Toolkit leaves out proto3 defaults.
    var members: [(String, JSONValue?)] { get }
}

extension ProviderConfiguration {
    /// Refuses `value` when it is longer than `limit` characters (UTF-16 code units, as Firebase
    /// counts them), so that no configuration grows with what a caller sends.
    static func requireLength(_ value: String?, of field: String, atMost limit: Int) throws(AuthError) {
        if let value, value.utf16.count > limit { throw .code("INVALID_CONFIG", "\(field) is longer than \(limit) characters.") }
    }

    /// Refuses `value` unless it is an absolute URL (`scheme://host…`) of at most 2,048 characters.
    static func requireURL(_ value: String, of field: String) throws(AuthError) {
        guard AuthService.isAbsoluteURL(value) else { throw .code("INVALID_CONFIG", "\(field) must be a valid URL.") }
        try requireLength(value, of: field, atMost: 2048)
    }

    /// Refuses an empty `value`, or one longer than 1,024 characters.
    static func requireText(_ value: String, of field: String) throws(AuthError) {
        guard !value.isEmpty else { throw .code("INVALID_CONFIG", "\(field) must be a non-empty string.") }
        try requireLength(value, of: field, atMost: 1024)
    }
}
