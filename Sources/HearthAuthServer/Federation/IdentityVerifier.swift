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
/// configured client ids, expiry) and Facebook access tokens with the Graph API (`debug_token`
/// for the configured app, then `me` for the profile). Development accepts the emulator's fake
/// credentials (§7.4): a JSON object or any JWT, whose claims are believed.
actor IdentityVerifier {
    let settings: IdentityProviderSettings
    let production: Bool
    private var googleKeys: (collection: JWTKeyCollection, expires: Int64)?

    init(settings: IdentityProviderSettings, production: Bool) {
        self.settings = settings
        self.production = production
    }

    /// The identity behind the credential fields of a sign-in (`id_token`, `access_token`, …).
    func identity(providerId: String, credential: [String: String], now: Int64) async throws(AuthError) -> FederatedIdentity {
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
        default:
            throw .code("OPERATION_NOT_ALLOWED", "The identity provider configuration is not found.")
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
        let invalid = AuthError.code("INVALID_IDP_RESPONSE", "The Google ID token is invalid or expired.")
        let claims: JWTClaims
        do {
            claims = try await googleKeyCollection(now: now).verify(token, as: JWTClaims.self)
        } catch let error as AuthError {
            throw error
        } catch {
            throw invalid
        }
        guard let issuer = claims.string("iss"), ["accounts.google.com", "https://accounts.google.com"].contains(issuer),
            let audience = claims.string("aud"), settings.googleClientIDs.contains(audience),
            let expiry = claims.seconds("exp"), expiry > now,
            let identity = FederatedIdentity.fromClaims(claims.json, providerId: "google.com")
        else { throw invalid }
        return identity
    }

    /// Google's keys, fetched again once the cache time of the last response has passed.
    private func googleKeyCollection(now: Int64) async throws -> JWTKeyCollection {
        if let cached = googleKeys, cached.expires > now { return cached.collection }
        let (body, headers) = try await Self.fetch(settings.googleKeysURL)
        let collection = JWTKeyCollection()
        try await collection.add(jwksJSON: String(decoding: body, as: UTF8.self))
        googleKeys = (collection, now + Self.maxAge(headers["cache-control"].first))
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
}
