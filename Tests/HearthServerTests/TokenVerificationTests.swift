import HearthCore
import HearthEdge
import Testing

@testable import HearthAuthServer
@testable import HearthServer

/// Production's ID-token checks against forged and misused tokens: each is refused whatever else
/// about it is right. Tokens are signed with the server's own keys where the attack needs a valid
/// signature, so that only the claim under test is wrong.
@Suite struct TokenVerificationTests {
    private let now: Int64 = 1_800_000_000

    private func withTokens(_ body: (TokenService, SigningKeys) async throws -> Void) async throws {
        try await withAuthService(production: true, now: now) { auth in try await body(auth.tokens, auth.tokens.keys) }
    }

    /// Valid ID-token claims for uid `ada`, with `changes` applied.
    private func claims(_ changes: [String: JSONValue] = [:], removing removed: [String] = []) -> JWTClaims {
        var members: [String: JSONValue] = [
            "iss": .string("https://securetoken.google.com/test-project"), "aud": .string("test-project"),
            "sub": .string("ada"), "user_id": .string("ada"), "iat": .number(.int(now)), "exp": .number(.int(now + 3600)),
            "auth_time": .number(.int(now)),
        ]
        members.merge(changes) { _, new in new }
        for key in removed { members[key] = nil }
        return JWTClaims(.object(members.sorted { $0.key < $1.key }.map { JSONMember(key: $0.key, value: $0.value) }))
    }

    @Test func aTokenSignedWithTheRightClaimsIsAccepted() async throws {
        try await withTokens { tokens, keys in
            let token = try await keys.sign(claims(), now: now)
            #expect(try await tokens.verify(token, now: now).string("sub") == "ada")
        }
    }

    @Test func signedTokensWithAWrongClaimAreRefused() async throws {
        try await withTokens { tokens, keys in
            let wrong: [(String, JWTClaims)] = [
                ("wrong audience", claims(["aud": .string("other-project")])),
                ("wrong issuer", claims(["iss": .string("https://securetoken.google.com/other-project")])),
                ("session-cookie issuer", claims(["iss": .string("https://session.firebase.google.com/test-project")])),
                ("custom-token audience", claims(["aud": .string(AuthService.customTokenAudience)])),
                ("not yet valid", claims(["iat": .number(.int(now + 3600)), "exp": .number(.int(now + 7200))])),
                ("no subject", claims(removing: ["sub"])),
                ("subject too long", claims(["sub": .string(String(repeating: "a", count: 129))])),
                ("no expiry", claims(removing: ["exp"])),
            ]
            for (attack, claims) in wrong {
                let token = try await keys.sign(claims, now: now)
                await #expect(throws: TokenService.Failure.invalid, "\(attack)") {
                    try await tokens.verify(token, now: now)
                }
            }
            let expired = try await keys.sign(claims(["exp": .number(.int(now - 1))]), now: now)
            await #expect(throws: TokenService.Failure.expired) { try await tokens.verify(expired, now: now) }
        }
    }

    @Test func unsignedTamperedAndForeignTokensAreRefused() async throws {
        try await withTokens { tokens, keys in
            let genuine = try await keys.sign(claims(), now: now)
            var parts = genuine.split(separator: ".").map(String.init)
            let unsigned = UnverifiedJWT.unsigned(claims().json)
            parts[1] = Base64URL.encode(JSONWriter.string(claims(["sub": .string("eve")]).json).utf8)
            let tampered = parts.joined(separator: ".")
            let stripped = genuine.split(separator: ".").prefix(2).joined(separator: ".") + "."
            // Signed by a key of another server (the same code, another data directory).
            var foreign = ""
            try await withTokens { _, otherKeys in foreign = try await otherKeys.sign(claims(), now: now) }
            for (attack, token) in [("alg none", unsigned), ("tampered", tampered), ("stripped", stripped), ("foreign key", foreign)] {
                await #expect(throws: TokenService.Failure.invalid, "\(attack)") {
                    try await tokens.verify(token, now: now)
                }
            }
        }
    }

    @Test func keysRotateAndRetiredKeysStayPublishedForTheLongestTokenLifetime() async throws {
        try await withTokens { tokens, keys in
            let first = try await keys.sign(claims(), now: now)
            let later = now + SigningKeys.rotationInterval + 60
            let second = try await keys.sign(claims(["iat": .number(.int(later)), "exp": .number(.int(later + 3600))]), now: later)
            let kids = { (token: String) in UnverifiedJWT.decode(token)!.header["kid"] }
            #expect(kids(first) != kids(second))
            guard case .array(let published) = try await keys.jwks()["keys"] else { throw TokenTestError.noKeys }
            #expect(published.count == 2)
            // A token of the retired key still verifies while the key is published.
            #expect(try await tokens.verify(first, now: now + 100).string("sub") == "ada")
            let muchLater = later + SigningKeys.rotationInterval + SigningKeys.retention
            _ = try await keys.sign(claims(), now: muchLater)
            guard case .array(let remaining) = try await keys.jwks()["keys"] else { throw TokenTestError.noKeys }
            #expect(!remaining.contains { $0["kid"] == kids(first) })
        }
    }

    private enum TokenTestError: Error {
        case noKeys
    }
}
