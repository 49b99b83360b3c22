import Crypto
import CryptoExtras
import HearthCore
import HearthEdge
import JWTKit
import Synchronization
import X509

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The RSA keys that sign ID tokens and session cookies, kept in the auth store and rotated.
///
/// A new key signs from the moment it is made; older keys stay published (JWKS and X.509 map,
/// auth spec §4.3) until every token they signed has expired: a session cookie lives up to
/// 14 days.
///
/// Signing goes through the actor (it may rotate); verifying does not: every request checks a
/// token, so ``verify(_:)`` runs on the caller's thread against a snapshot of the public keys,
/// and enters the actor only for a token naming a key it does not know.
///
/// Nodes sharing a store share the keys: a rotation replaces the stored set only if it is still
/// the one the rotating node read (the first node to rotate wins; the others read its keys), and
/// a node shown a token signed by a key it does not know reads the stored keys again
/// (``verify(_:)``).
actor SigningKeys {
    /// One stored key pair, with the self-signed certificate the X.509 map publishes.
    struct StoredKey: Codable, Sendable {
        var kid: String
        /// Seconds since 1970.
        var createdAt: Int64
        var privateKeyPEM: String
        var certificatePEM: String
    }

    /// The setting the keys are stored in.
    static let settingName = "signing-keys"
    static let rotationInterval: Int64 = 7 * 24 * 3600
    /// How long a retired key stays published: the longest a token lives (a session cookie).
    static let retention: Int64 = 14 * 24 * 3600 + 3600

    private let store: any AuthStore
    private var keys: [StoredKey]
    /// When the keys other nodes stored were last read, and the reading under way, which
    /// callers that come meanwhile wait for.
    private var lastRead: ContinuousClock.Instant?
    private var reading: Task<Void, Never>?
    /// How many times the keys in use were replaced: a reading that saw an older set than a
    /// rotation made meanwhile does not bring it back.
    private var replacements = 0
    /// How often at most the stored keys are read again (for a token naming an unknown key, or
    /// to publish them).
    private static let readingInterval: Duration = .seconds(1)
    private var collection: JWTKeyCollection
    /// The public keys by `kid`, for verification outside the actor.
    private nonisolated let publicKeys: Mutex<[String: _RSA.Signing.PublicKey]>
    /// The rotation under way, which concurrent signers wait for.
    private var rotation: Task<Void, any Error>?

    private init(store: any AuthStore, keys: [StoredKey], collection: JWTKeyCollection) throws {
        self.store = store
        self.keys = keys
        self.collection = collection
        self.publicKeys = Mutex(try Self.publicKeys(of: keys))
    }

    /// Loads the stored keys, making the first one if there is none.
    static func open(store: any AuthStore, now: Int64) async throws -> SigningKeys {
        let stored = try await store.setting(settingName, as: [StoredKey].self) ?? []
        let keys = try SigningKeys(store: store, keys: stored, collection: try await collection(of: stored))
        try await keys.rotateIfDue(now: now)
        return keys
    }

    /// Signs `claims` with the newest key (RS256, with its `kid`, and `type` as the header's
    /// `typ`), rotating first if it is due.
    func sign(_ claims: JWTClaims, type: String = "JWT", now: Int64) async throws -> String {
        try await rotateIfDue(now: now)
        guard let newest = keys.last else { throw SigningKeysError.noKey }
        return try await collection.sign(claims, kid: JWKIdentifier(string: newest.kid), header: ["typ": .string(type)])
    }

    /// The claims of `token` if one of the published keys signed it with RS256 (its header naming
    /// the key's `kid`), once learned if another node published it; `nil` otherwise.
    nonisolated func verify(_ token: String) async -> JWTClaims? {
        if let claims = verifyWithKnownKeys(token) { return claims }
        return await learnKey(of: token) ? verifyWithKnownKeys(token) : nil
    }

    private nonisolated func verifyWithKnownKeys(_ token: String) -> JWTClaims? {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let (header, claims) = UnverifiedJWT.decode(token), header["alg"] == .string("RS256"),
            case .string(let kid)? = header["kid"], let key = publicKeys.withLock({ $0[kid] }),
            let signature = Base64URL.decode(parts[2])
        else { return nil }
        let signed = token.utf8.prefix(parts[0].utf8.count + 1 + parts[1].utf8.count)
        let valid = key.isValidSignature(
            _RSA.Signing.RSASignature(rawRepresentation: signature), for: Array(signed), padding: .insecurePKCS1v1_5)
        return valid ? claims : nil
    }

    /// `{"keys":[{"kty":"RSA","alg":"RS256","use":"sig","kid":…,"n":…,"e":…}]}`, with the keys
    /// other nodes stored.
    func jwks() async throws -> JSONValue {
        await readStoredKeys()
        return .object([
            JSONMember(
                key: "keys",
                value: .array(
                    try keys.map { key in
                        let publicKey = try Insecure.RSA.PrivateKey(pem: key.privateKeyPEM).publicKey
                        let (modulus, exponent) = try publicKey.getKeyPrimitives()
                        return .object([
                            JSONMember(key: "kty", value: .string("RSA")),
                            JSONMember(key: "alg", value: .string("RS256")),
                            JSONMember(key: "use", value: .string("sig")),
                            JSONMember(key: "kid", value: .string(key.kid)),
                            JSONMember(key: "n", value: .string(Base64URL.encode(modulus))),
                            JSONMember(key: "e", value: .string(Base64URL.encode(exponent))),
                        ])
                    }))
        ])
    }

    /// `{"<kid>":"-----BEGIN CERTIFICATE-----\n…"}`, as Google publishes its token keys, with the
    /// keys other nodes stored.
    func certificates() async -> JSONValue {
        await readStoredKeys()
        return .object(keys.map { JSONMember(key: $0.kid, value: .string($0.certificatePEM)) })
    }

    /// Rotates when the newest key is due for replacement or a retired key's time is up. Calls
    /// that find a rotation under way wait for it rather than start another.
    private func rotateIfDue(now: Int64) async throws {
        let expiring = keys.contains { $0.createdAt + Self.rotationInterval + Self.retention <= now }
        guard expiring || (keys.last.map { now - $0.createdAt >= Self.rotationInterval } ?? true) else { return }
        if let rotation {
            try await rotation.value
            return
        }
        let task = Task { try await self.rotate(now: now) }
        rotation = task
        defer { rotation = nil }
        try await task.value
    }

    /// Builds the new key set, stores it, then switches to it all at once: a signature never
    /// names a key the collection it is made with does not hold. When another node rotated
    /// first, its keys are taken instead.
    private func rotate(now: Int64) async throws {
        var updated = keys.filter { $0.createdAt + Self.rotationInterval + Self.retention > now }
        if updated.last.map({ now - $0.createdAt >= Self.rotationInterval }) ?? true {
            updated.append(try Self.makeKey(now: now))
        }
        if try await store.replaceSetting(Self.settingName, expected: keys.isEmpty ? nil : keys, with: updated) {
            try await use(updated)
        } else {
            try await use(try await store.setting(Self.settingName, as: [StoredKey].self) ?? [])
        }
    }

    /// Switches to `updated` all at once.
    private func use(_ updated: [StoredKey]) async throws {
        let newCollection = try await Self.collection(of: updated)
        let published = try Self.publicKeys(of: updated)
        keys = updated
        collection = newCollection
        publicKeys.withLock { $0 = published }
        replacements += 1
    }

    /// Reads the stored keys again if `token` names a key this node does not know (another node
    /// rotated); whether it learned that key.
    private func learnKey(of token: String) async -> Bool {
        guard store.isShared, let (header, _) = UnverifiedJWT.decode(token), case .string(let kid)? = header["kid"],
            publicKeys.withLock({ $0[kid] == nil })
        else { return false }
        await readStoredKeys()
        return publicKeys.withLock { $0[kid] != nil }
    }

    /// Takes the keys other nodes stored (a shared store), reading them at most once per
    /// ``readingInterval``.
    private func readStoredKeys() async {
        guard store.isShared else { return }
        if let reading {
            await reading.value
            return
        }
        if let lastRead, ContinuousClock.now - lastRead < Self.readingInterval { return }
        lastRead = .now
        let task = Task {
            let before = replacements
            guard let stored = try? await store.setting(Self.settingName, as: [StoredKey].self), !stored.isEmpty,
                replacements == before
            else { return }
            try? await use(stored)
        }
        reading = task
        await task.value
        reading = nil
    }

    private static func publicKeys(of keys: [StoredKey]) throws -> [String: _RSA.Signing.PublicKey] {
        var publicKeys: [String: _RSA.Signing.PublicKey] = [:]
        for key in keys { publicKeys[key.kid] = try _RSA.Signing.PrivateKey(pemRepresentation: key.privateKeyPEM).publicKey }
        return publicKeys
    }

    private static func collection(of keys: [StoredKey]) async throws -> JWTKeyCollection {
        let collection = JWTKeyCollection()
        for key in keys {
            await collection.add(
                rsa: try Insecure.RSA.PrivateKey(pem: key.privateKeyPEM), digestAlgorithm: .sha256,
                kid: JWKIdentifier(string: key.kid))
        }
        return collection
    }

    /// A fresh 2048-bit key and a self-signed certificate valid for as long as it is published.
    private static func makeKey(now: Int64) throws -> StoredKey {
        let privateKey = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        let kid = Hex.encode(SHA256.hash(data: privateKey.publicKey.derRepresentation).prefix(20))
        let name = try DistinguishedName { CommonName("securetoken.hearth") }
        let start = Date(timeIntervalSince1970: TimeInterval(now - 3600))
        let certificate = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(),
            publicKey: Certificate.PublicKey(privateKey.publicKey),
            notValidBefore: start,
            notValidAfter: start.addingTimeInterval(TimeInterval(rotationInterval + retention + 2 * 3600)),
            issuer: name, subject: name, signatureAlgorithm: .sha256WithRSAEncryption,
            extensions: Certificate.Extensions {},
            issuerPrivateKey: Certificate.PrivateKey(privateKey))
        return StoredKey(
            kid: kid, createdAt: now, privateKeyPEM: privateKey.pemRepresentation,
            certificatePEM: try certificate.serializeAsPEM().pemString + "\n")
    }
}

/// Why a token could not be signed.
enum SigningKeysError: Error {
    case noKey
}
