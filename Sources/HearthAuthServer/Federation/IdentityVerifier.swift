import AsyncHTTPClient
import Crypto
import HearthCore
import HearthEdge
import JWTKit
import NIOCore
import NIOHTTP1

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Checks the credential a client got from an identity provider and says who it stands for
/// (auth spec §7).
///
/// Production verifies Google ID tokens against Google's keys (RS256, issuer, one of the
/// configured client ids, expiry), Facebook access tokens with the Graph API (`debug_token` for
/// the configured app, then `me` for the profile), Apple ID tokens against Apple's keys (and the
/// hash of the raw nonce), and the ID tokens of the project's OpenID Connect configurations
/// (`oidc.*`) against the keys their issuer's discovery document names, redeeming an
/// authorization code first for configurations of the code flow. SAML (`saml.*`) is refused.
/// Development accepts the emulator's fake credentials (§7.4): a JSON object or any JWT, whose
/// claims are believed.
actor IdentityVerifier {
    let settings: IdentityProviderSettings
    let production: Bool
    /// Signing keys by JWKS URL.
    private var keySets: [String: KeySet] = [:]
    /// OpenID discovery documents by issuer, with the time they expire.
    private var discoveries: [String: (document: JSONValue, expires: Int64)] = [:]

    /// A provider's signing keys, as last fetched.
    private struct KeySet {
        var collection: JWTKeyCollection
        /// The `kid`s of the keys, to tell a rotated-in key from a forged one.
        var kids: Set<String>
        var expires: Int64
        /// When keys were last fetched for a `kid` they lacked.
        var refetchedForUnknownKey: Int64?
    }

    /// How soon keys are fetched again for a token whose `kid` they lack, in seconds.
    static let unknownKeyRefetchInterval: Int64 = 60
    /// How far in the future a token's `iat` may be, for clocks that disagree a little.
    static let clockSkew: Int64 = 300
    static let appleIssuer = "https://appleid.apple.com"

    static let configurationNotFound = AuthError.code(
        "OPERATION_NOT_ALLOWED", "The identity provider configuration is not found.")
    static let configurationDisabled = AuthError.code("OPERATION_NOT_ALLOWED", "The identity provider configuration is disabled.")
    static let nonceMissing = AuthError.code("MISSING_OR_INVALID_NONCE", "Nonce is missing in the request.")
    static let nonceMismatch = AuthError.code(
        "MISSING_OR_INVALID_NONCE", "Duplicate credential received. Please try again with a new credential.")
    static let issuerUnreachable = AuthError.code(
        "INVALID_IDP_RESPONSE", "Error connecting to the given credential's issuer.")

    init(settings: IdentityProviderSettings, production: Bool) {
        self.settings = settings
        self.production = production
    }

    /// The identity behind the credential fields of a sign-in (`id_token`, `access_token`,
    /// `code`, `nonce`, …). `oidc` is the project's configuration of an `oidc.*` provider (`nil`
    /// when it has none); `requestUri` is where a code flow's authorization answered.
    func identity(
        providerId: String, credential: [String: String], requestUri: String, oidc: OIDCProviderConfig?, now: Int64
    ) async throws(AuthError) -> FederatedIdentity {
        guard production else { return try Self.emulatorIdentity(providerId: providerId, credential: credential) }
        switch providerId {
        case "google.com":
            guard let token = credential["id_token"] else {
                throw .code("INVALID_IDP_RESPONSE", "Google sign-in needs an id_token.")
            }
            return try await googleIdentity(token, now: now)
        case "facebook.com":
            guard let token = credential["access_token"] else {
                throw .code("INVALID_IDP_RESPONSE", "Facebook sign-in needs an access_token.")
            }
            return try await facebookIdentity(token, now: now)
        case "apple.com":
            return try await appleIdentity(credential, now: now)
        case _ where providerId.hasPrefix("oidc."):
            guard let oidc else { throw Self.configurationNotFound }
            guard oidc.enabled else { throw Self.configurationDisabled }
            return try await oidcIdentity(providerId: providerId, config: oidc, credential: credential, requestUri: requestUri, now: now)
        case _ where providerId.hasPrefix("saml."):
            throw .code(
                "OPERATION_NOT_ALLOWED",
                "SAML sign-in is not supported by this server: it does not verify the XML signatures of SAML assertions.")
        default:
            throw Self.configurationNotFound
        }
    }

    // MARK: Development

    private static func emulatorIdentity(providerId: String, credential: [String: String]) throws(AuthError) -> FederatedIdentity {
        guard let token = credential["id_token"] ?? credential["access_token"] else {
            throw .notImplemented("The Auth Emulator does not support \(providerId) sign-in without an id_token or access_token.")
        }
        let claims: JSONValue
        if token.hasPrefix("{") {
            guard let parsed = try? JSONParser.parse(token), case .object = parsed else {
                throw .code(
                    "INVALID_IDP_RESPONSE",
                    "Unable to parse id_token: \(token) ((Auth Emulator failed to parse fake id_token as strict JSON.))")
            }
            claims = parsed
        } else if let (_, decoded) = UnverifiedJWT.decode(token) {
            claims = decoded.json
        } else {
            throw .notImplemented("The Auth Emulator does not support \(providerId) sign-in with credentials.")
        }
        switch claims["sub"] {
        case .string?: break
        case nil, .null?:
            throw .code(
                "INVALID_IDP_RESPONSE",
                #"Invalid Idp Response: id_token missing required fields. ((Missing "sub" field. This field is required and must be a unique identifier.))"#
            )
        default: throw .code("INVALID_IDP_RESPONSE", #"((The "sub" field must be a string.))"#)
        }
        return FederatedIdentity.fromClaims(claims, providerId: providerId)!
    }

    // MARK: Google

    private func googleIdentity(_ token: String, now: Int64) async throws(AuthError) -> FederatedIdentity {
        guard !settings.googleClientIDs.isEmpty else {
            throw .code("OPERATION_NOT_ALLOWED", "Google sign-in is not configured (--google-client-id).")
        }
        let claims = try await verifiedClaims(
            token, keysURL: settings.googleKeysURL, issuers: ["accounts.google.com", "https://accounts.google.com"],
            audiences: settings.googleClientIDs, now: now,
            invalid: .code("INVALID_IDP_RESPONSE", "The Google ID token is invalid or expired."))
        guard let identity = FederatedIdentity.fromClaims(claims.json, providerId: "google.com") else {
            throw .code("INVALID_IDP_RESPONSE", "The Google ID token is invalid or expired.")
        }
        return identity
    }

    // MARK: Apple

    /// Sign in with Apple: an ID token of Apple's for one of the configured bundle or service
    /// ids, whose `nonce` claim is the SHA-256 (hex) of the raw nonce the client sends.
    private func appleIdentity(_ credential: [String: String], now: Int64) async throws(AuthError) -> FederatedIdentity {
        guard !settings.appleClientIDs.isEmpty else {
            throw .code("OPERATION_NOT_ALLOWED", "Sign in with Apple is not configured (--apple-client-id).")
        }
        guard let token = credential["id_token"] else {
            throw .code("INVALID_IDP_RESPONSE", "Sign in with Apple needs an id_token.")
        }
        let invalid = AuthError.code("INVALID_IDP_RESPONSE", "The Apple ID token is invalid or expired.")
        let claims = try await verifiedClaims(
            token, keysURL: settings.appleKeysURL, issuers: [Self.appleIssuer], audiences: settings.appleClientIDs, now: now,
            invalid: invalid)
        try Self.checkNonce(of: claims, raw: credential["nonce"])
        guard let identity = FederatedIdentity.fromClaims(claims.json, providerId: "apple.com") else { throw invalid }
        return identity
    }

    // MARK: OpenID Connect

    /// An `oidc.*` sign-in: the `id_token` sent, or the one the provider's token endpoint gives
    /// for the `code` sent (code-flow configurations), checked against the issuer's keys.
    private func oidcIdentity(
        providerId: String, config: OIDCProviderConfig, credential: [String: String], requestUri: String, now: Int64
    ) async throws(AuthError) -> FederatedIdentity {
        let invalid = AuthError.code("INVALID_IDP_RESPONSE", "The OIDC ID token is invalid or expired.")
        let discovery = try await discoveryDocument(issuer: config.issuer, now: now)
        guard case .string(let keysURL)? = discovery["jwks_uri"] else { throw Self.issuerUnreachable }
        var token = credential["id_token"]
        var obtained: [String: String] = [:]
        if token == nil, let code = credential["code"], config.codeResponse, let secret = config.clientSecret, !secret.isEmpty {
            obtained = try await redeem(code, discovery: discovery, config: config, secret: secret, requestUri: requestUri)
            token = obtained["id_token"]
        }
        guard let token else {
            throw .code("INVALID_IDP_RESPONSE", "OIDC sign-in needs an id_token, or a code for a code-flow configuration.")
        }
        let claims = try await verifiedClaims(
            token, keysURL: keysURL, issuers: [config.issuer], audiences: [config.clientId], now: now, invalid: invalid)
        try Self.checkNonce(of: claims, raw: credential["nonce"])
        guard var identity = FederatedIdentity.fromClaims(claims.json, providerId: providerId) else { throw invalid }
        identity.obtainedCredential = obtained
        return identity
    }

    /// The issuer's OpenID discovery document (`<issuer>/.well-known/openid-configuration`),
    /// cached for as long as its `Cache-Control` allows (an hour without one).
    private func discoveryDocument(issuer: String, now: Int64) async throws(AuthError) -> JSONValue {
        if let cached = discoveries[issuer], cached.expires > now { return cached.document }
        let base = issuer.hasSuffix("/") ? String(issuer.dropLast()) : issuer
        do {
            let (body, headers) = try await Self.fetch("\(base)/.well-known/openid-configuration")
            let document = try JSONParser.parse(body)
            guard case .object = document else { throw Self.issuerUnreachable }
            discoveries[issuer] = (document, now + Self.maxAge(headers["cache-control"].first))
            return document
        } catch {
            throw Self.issuerUnreachable
        }
    }

    /// Exchanges an authorization code at the discovery document's `token_endpoint`
    /// (`client_secret_post`, or `client_secret_basic` when that alone is supported): the
    /// answer's `id_token` and `access_token`.
    private func redeem(
        _ code: String, discovery: JSONValue, config: OIDCProviderConfig, secret: String, requestUri: String
    ) async throws(AuthError) -> [String: String] {
        let refused = AuthError.code("INVALID_IDP_RESPONSE", "The OIDC provider did not redeem the authorization code.")
        guard case .string(let endpoint)? = discovery["token_endpoint"] else { throw refused }
        var methods: [String] = []
        if case .array(let supported)? = discovery["token_endpoint_auth_methods_supported"] {
            methods = supported.compactMap { if case .string(let method) = $0 { method } else { nil } }
        }
        let basic = !methods.isEmpty && !methods.contains("client_secret_post") && methods.contains("client_secret_basic")
        var form = [("grant_type", "authorization_code"), ("code", code), ("redirect_uri", requestUri)]
        var request = HTTPClientRequest(url: endpoint)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
        request.headers.add(name: "Accept", value: "application/json")
        if basic {
            let pair = "\(PercentEncoding.encode(config.clientId)):\(PercentEncoding.encode(secret))"
            request.headers.add(name: "Authorization", value: "Basic \(Data(pair.utf8).base64EncodedString())")
        } else {
            form += [("client_id", config.clientId), ("client_secret", secret)]
        }
        request.body = .bytes(
            ByteBuffer(string: form.map { "\($0)=\(PercentEncoding.encode($1))" }.joined(separator: "&")))
        let answer: JSONValue
        do {
            let response = try await HTTPClient.shared.execute(request, timeout: .seconds(10))
            let body = try await response.body.collect(upTo: 1024 * 1024)
            guard response.status == .ok else { throw refused }
            answer = try JSONParser.parse(Array(body.readableBytesView))
        } catch {
            throw refused
        }
        guard case .string(let idToken)? = answer["id_token"] else { throw refused }
        var obtained = ["id_token": idToken]
        if case .string(let accessToken)? = answer["access_token"] { obtained["access_token"] = accessToken }
        return obtained
    }

    // MARK: Signed ID tokens

    /// The claims of an RS256 ID token signed by a key of `keysURL`, issued by one of `issuers`
    /// for one of `audiences` (`aud` a string or a list holding one), not expired, and not issued
    /// in the future; `invalid` otherwise.
    private func verifiedClaims(
        _ token: String, keysURL: String, issuers: Set<String>, audiences: Set<String>, now: Int64, invalid: AuthError
    ) async throws(AuthError) -> JWTClaims {
        guard let header = UnverifiedJWT.header(of: token), header["alg"] == .string("RS256") else { throw invalid }
        var kid: String?
        if case .string(let value)? = header["kid"] { kid = value }
        let claims: JWTClaims
        do {
            claims = try await keyCollection(keysURL, kid: kid, now: now).verify(token, as: JWTClaims.self)
        } catch {
            throw invalid
        }
        let audienceMatches: Bool =
            switch claims.json["aud"] {
            case .string(let audience)?: audiences.contains(audience)
            case .array(let list)?: list.contains { if case .string(let audience) = $0 { audiences.contains(audience) } else { false } }
            default: false
            }
        guard let issuer = claims.string("iss"), issuers.contains(issuer), audienceMatches,
            let expiry = claims.seconds("exp"), expiry > now,
            let issued = claims.seconds("iat"), issued <= now + Self.clockSkew
        else { throw invalid }
        return claims
    }

    /// Refuses an ID token whose `nonce` claim is not the SHA-256 (hex) of the raw nonce sent, as
    /// Firebase does: a claimed nonce needs one sent, and a nonce sent needs one claimed.
    static func checkNonce(of claims: JWTClaims, raw: String?) throws(AuthError) {
        switch (claims.string("nonce"), raw) {
        case (nil, nil): return
        case (_?, nil): throw nonceMissing
        case (let claimed, let raw?): guard claimed == Hex.sha256(raw) else { throw nonceMismatch }
        }
    }

    /// The keys of `url`, fetched again once the cache time of the last response has passed, or
    /// for a `kid` they lack (a rotated-in key), this at most once a ``unknownKeyRefetchInterval``
    /// so that tokens of made-up kids cannot make Hearth hammer the provider.
    private func keyCollection(_ url: String, kid: String?, now: Int64) async throws -> JWTKeyCollection {
        var refetchedForUnknownKey: Int64?
        if let cached = keySets[url] {
            refetchedForUnknownKey = cached.refetchedForUnknownKey
            if cached.expires > now {
                if kid.map(cached.kids.contains) ?? true { return cached.collection }
                if let last = cached.refetchedForUnknownKey, now - last < Self.unknownKeyRefetchInterval {
                    return cached.collection
                }
                refetchedForUnknownKey = now
            }
        }
        let (body, headers) = try await Self.fetch(url)
        // Keys JWTKit cannot use for RS256 (EC, encryption keys) are left out, so that they do not
        // spoil the set.
        guard case .array(let keys)? = try JSONParser.parse(body)["keys"] else { throw IdentityVerifierError.malformedKeys }
        let usable = keys.filter { $0["kty"] == .string("RSA") && $0["use"] != .string("enc") }
        let collection = JWTKeyCollection()
        try await collection.add(jwksJSON: JSONWriter.string(.object([JSONMember(key: "keys", value: .array(usable))])))
        let kids = Set(usable.compactMap { key -> String? in if case .string(let kid)? = key["kid"] { kid } else { nil } })
        keySets[url] = KeySet(
            collection: collection, kids: kids, expires: now + Self.maxAge(headers["cache-control"].first),
            refetchedForUnknownKey: refetchedForUnknownKey)
        return collection
    }

    /// `max-age` of a `Cache-Control` header, in seconds (an hour when absent).
    static func maxAge(_ cacheControl: String?) -> Int64 {
        for directive in (cacheControl ?? "").split(separator: ",") {
            let parts = directive.trimmingCharacters(in: .whitespaces).split(separator: "=", maxSplits: 1)
            if parts.count == 2, parts[0] == "max-age", let seconds = Int64(parts[1]) { return seconds }
        }
        return 3600
    }

    // MARK: Facebook

    private func facebookIdentity(_ token: String, now: Int64) async throws(AuthError) -> FederatedIdentity {
        guard let appID = settings.facebookAppID, let secret = settings.facebookAppSecret else {
            throw .code("OPERATION_NOT_ALLOWED", "Facebook sign-in is not configured (--facebook-app-id).")
        }
        let invalid = AuthError.code("INVALID_IDP_RESPONSE", "The Facebook access token is invalid or expired.")
        let graph = settings.facebookGraphURL.hasSuffix("/") ? String(settings.facebookGraphURL.dropLast()) : settings.facebookGraphURL
        let check: JSONValue
        let profile: JSONValue
        do {
            let appToken = PercentEncoding.encode("\(appID)|\(secret)")
            check = try JSONParser.parse(
                try await Self.fetch("\(graph)/debug_token?input_token=\(PercentEncoding.encode(token))&access_token=\(appToken)").0)
            guard let data = check["data"], data["is_valid"] == .bool(true), data["app_id"] == .string(appID) else {
                throw invalid
            }
            if case .number(let expiry)? = data["expires_at"], expiry.doubleValue > 0, Int64(expiry.doubleValue) <= now {
                throw invalid
            }
            let proof = Hex.encode(
                HMAC<SHA256>.authenticationCode(for: Array(token.utf8), using: SymmetricKey(data: Array(secret.utf8))))
            profile = try JSONParser.parse(
                try await Self.fetch(
                    "\(graph)/me?fields=id,name,email,first_name,last_name,picture&access_token=\(PercentEncoding.encode(token))&appsecret_proof=\(proof)"
                ).0)
        } catch let error as AuthError {
            throw error
        } catch {
            throw invalid
        }
        guard case .string(let id)? = profile["id"] else { throw invalid }
        func text(_ key: String) -> String? {
            if case .string(let value)? = profile[key] { return value }
            return nil
        }
        var photo: String?
        if case .string(let url)? = profile["picture"]?["data"]?["url"] { photo = url }
        return FederatedIdentity(
            providerId: "facebook.com", rawId: id, email: text("email")?.lowercased(), emailVerified: false,
            displayName: text("name"), photoUrl: photo, firstName: text("first_name"), lastName: text("last_name"),
            rawUserInfo: profile)
    }

    /// GETs `url`: the body and headers of a 200 answer; throws otherwise.
    private static func fetch(_ url: String) async throws -> ([UInt8], HTTPHeaders) {
        let response = try await HTTPClient.shared.execute(HTTPClientRequest(url: url), timeout: .seconds(10))
        let body = try await response.body.collect(upTo: 1024 * 1024)
        guard response.status == .ok else { throw IdentityVerifierError.unexpectedStatus(Int(response.status.code)) }
        return (Array(body.readableBytesView), response.headers)
    }
}

/// A provider's server answered unexpectedly.
enum IdentityVerifierError: Error {
    case unexpectedStatus(Int)
    /// A JWKS without a `keys` list.
    case malformedKeys
}
