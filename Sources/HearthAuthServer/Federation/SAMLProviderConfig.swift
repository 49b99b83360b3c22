import HearthCore

/// A SAML identity provider of the project, the project being the relying party (Identity
/// Toolkit v2 `InboundSamlConfig`, the Admin SDKs' `SAMLProviderConfig`).
struct SAMLProviderConfig: ProviderConfiguration {
    static let kind = ProviderKind.saml
    static let paths = [
        "displayName", "enabled", "idpConfig.idpEntityId", "idpConfig.ssoUrl", "idpConfig.signRequest",
        "idpConfig.idpCertificates", "spConfig.spEntityId", "spConfig.callbackUri",
    ]
    static var stored: WritableKeyPath<ProviderConfigs, [String: SAMLProviderConfig]> { \.saml }
    /// The most certificates one provider may have (a current one and those it rotates to).
    static let maximumCertificates = 10

    var displayName: String?
    var enabled = false
    var idpEntityId = ""
    var ssoUrl = ""
    /// Whether requests to the provider are signed.
    var signRequest = false
    /// The provider's X.509 certificates (PEM), which sign its assertions.
    var idpCertificates: [String] = []
    var spEntityId = ""
    var callbackUri = ""

    mutating func set(_ path: String, from body: AuthRequestBody) throws(AuthError) {
        let (source, key) = try body.member(path)
        switch path {
        case "displayName": displayName = try source.string(key)
        case "enabled": enabled = try source.bool(key) ?? false
        case "idpConfig.idpEntityId": idpEntityId = try source.string(key) ?? ""
        case "idpConfig.ssoUrl": ssoUrl = try source.string(key) ?? ""
        case "idpConfig.signRequest": signRequest = try source.bool(key) ?? false
        case "idpConfig.idpCertificates":
            idpCertificates = []
            for certificate in try source.objects(key) { idpCertificates.append(try certificate.string("x509Certificate") ?? "") }
        case "spConfig.spEntityId": spEntityId = try source.string(key) ?? ""
        case "spConfig.callbackUri": callbackUri = try source.string(key) ?? ""
        default: break
        }
    }

    func check() throws(AuthError) {
        try Self.requireLength(displayName, of: "displayName", atMost: 256)
        try Self.requireText(idpEntityId, of: "idpConfig.idpEntityId")
        try Self.requireURL(ssoUrl, of: "idpConfig.ssoUrl")
        guard (1...Self.maximumCertificates).contains(idpCertificates.count), !idpCertificates.contains(where: \.isEmpty) else {
            throw .code(
                "INVALID_CONFIG",
                "idpConfig.idpCertificates must hold 1 to \(Self.maximumCertificates) non-empty x509Certificate values.")
        }
        for certificate in idpCertificates {
            try Self.requireLength(certificate, of: "idpConfig.idpCertificates.x509Certificate", atMost: 16384)
        }
        try Self.requireText(spEntityId, of: "spConfig.spEntityId")
        try Self.requireURL(callbackUri, of: "spConfig.callbackUri")
    }

    var members: [(String, JSONValue?)] {
        [
            ("displayName", displayName.map(JSONValue.string)),
            ("enabled", enabled ? .bool(true) : nil),
            (
                "idpConfig",
                .members([
                    ("idpEntityId", .string(idpEntityId)),
                    ("ssoUrl", .string(ssoUrl)),
                    ("signRequest", signRequest ? .bool(true) : nil),
                    (
                        "idpCertificates",
                        .array(idpCertificates.map { .object([JSONMember(key: "x509Certificate", value: .string($0))]) })
                    ),
                ])
            ),
            ("spConfig", .members([("spEntityId", .string(spEntityId)), ("callbackUri", .string(callbackUri))])),
        ]
    }
}
