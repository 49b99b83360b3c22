import HearthCore
import HearthEdge
import Testing

@testable import HearthAuthServer
@testable import HearthServer

/// The database's credential checks: what development believes, and what production trusts.
@Suite struct CredentialVerifierTests {
    private let now: Int64 = 1_800_000_000

    private func withAuth(production: Bool, _ body: (AuthService) async throws -> Void) async throws {
        try await withAuthService(production: production, now: now, body)
    }

    /// Adds user `uid` and returns an ID token minted for it `age` seconds ago.
    private func token(for uid: String, in auth: AuthService, age: Int64 = 0, change: (inout UserRecord) -> Void = { _ in })
        async throws -> String
    {
        var user = UserRecord(localId: uid, createdAt: (now - 7200) * 1000)
        change(&user)
        try await auth.directory.change { (state: inout AuthDirectory.State) throws(AuthError) in state.users.put(user) }
        let session = RefreshSession(
            localId: uid, provider: "password", projectId: "test-project", authTime: now - age, issuedAt: now - age)
        return try await auth.tokens.idToken(for: user, session: session, now: now - age)
    }

    @Test func developmentReadsCredentialsAsTheEmulator() async throws {
        try await withAuth(production: false) { auth in
            let verifier = auth.credentials
            #expect(try await verifier.caller(credential: "owner", authvar: nil, noauth: false, now: now).0 == .admin)
            #expect(try await verifier.caller(credential: "owner", authvar: nil, noauth: true, now: now).0 == .signedOut)
            let override = JSONValue.object([JSONMember(key: "uid", value: .string("u1"))])
            #expect(try await verifier.caller(credential: "owner", authvar: override, noauth: false, now: now).0 == .client(auth: override))
            await #expect(throws: CredentialFailure.invalid) {
                try await verifier.caller(credential: "garbage", authvar: nil, noauth: false, now: now)
            }
            // An unsigned emulator token: claims with sub, exp and a provider, believed until exp.
            func token(expiring expiry: Int64) -> String {
                UnverifiedJWT.unsigned(
                    .object([
                        JSONMember(key: "sub", value: .string("alice")), JSONMember(key: "exp", value: .number(.int(expiry))),
                        JSONMember(
                            key: "firebase",
                            value: .object([JSONMember(key: "sign_in_provider", value: .string("anonymous"))])),
                    ]))
            }
            let (identity, expires) = try await verifier.caller(
                credential: token(expiring: now + 60), authvar: nil, noauth: false, now: now)
            #expect(expires == now + 60)
            await #expect(throws: CredentialFailure.expired) {
                try await verifier.caller(credential: token(expiring: now), authvar: nil, noauth: false, now: now)
            }
            #expect(identity.authVariable["uid"] == .string("alice"))
            #expect(identity.authVariable["provider"] == .string("anonymous"))
            #expect(identity.authVariable["token"]?["sub"] == .string("alice"))
        }
    }

    @Test func productionTrustsOnlyTokensItSignedForLiveUsers() async throws {
        try await withAuth(production: true) { auth in
            let verifier = auth.credentials
            let valid = try await token(for: "ada", in: auth)
            let (caller, expires) = try await verifier.caller(credential: valid, authvar: nil, noauth: false, now: now)
            #expect(caller.authVariable["uid"] == .string("ada"))
            #expect(caller.authVariable["provider"] == .string("password"))
            #expect(expires == now + 3600)

            let expired = try await token(for: "bob", in: auth, age: 3601)
            let revoked = try await token(for: "cy", in: auth, age: 10) { $0.validSince = now }
            let disabled = try await token(for: "dee", in: auth) { $0.disabled = true }
            let unsigned = UnverifiedJWT.unsigned(UnverifiedJWT.decode(valid)!.claims.json)
            var tampered = valid.split(separator: ".").map(String.init)
            tampered[1] = Base64URL.encode(JSONWriter.string(.object([JSONMember(key: "sub", value: .string("eve"))])).utf8)
            await #expect(throws: CredentialFailure.expired) {
                try await verifier.caller(credential: expired, authvar: nil, noauth: false, now: now)
            }
            for refused in [revoked, disabled, unsigned, tampered.joined(separator: "."), "owner"] {
                await #expect(throws: CredentialFailure.invalid) {
                    try await verifier.caller(credential: refused, authvar: nil, noauth: false, now: now)
                }
            }
        }
    }

    @Test func aDatabaseSecretIsAdminUntilRevoked() async throws {
        try await withAuth(production: true) { auth in
            let secrets = DatabaseSecrets(store: auth.directory.store)
            let (id, secret) = try await secrets.create(now: now)
            #expect(try await auth.credentials.caller(credential: secret, authvar: nil, noauth: false, now: now).0 == .admin)
            // As any admin credential, it acts as the override it is given, or as nobody.
            let override = JSONValue.object([JSONMember(key: "uid", value: .string("svc"))])
            #expect(
                try await auth.credentials.caller(credential: secret, authvar: override, noauth: false, now: now).0
                    == .client(auth: override))
            #expect(try await auth.credentials.caller(credential: secret, authvar: nil, noauth: true, now: now).0 == .signedOut)
            #expect(try await secrets.list().map(\.id) == [id])
            #expect(try await secrets.revoke(id: id))
            await #expect(throws: CredentialFailure.invalid) {
                try await auth.credentials.caller(credential: secret, authvar: nil, noauth: false, now: now)
            }
        }
    }
}
