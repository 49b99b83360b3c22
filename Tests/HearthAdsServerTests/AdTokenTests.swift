import Crypto
import Testing

@testable import HearthAdsServer

@Suite struct AdTokenTests {
    let key = SymmetricKey(size: .bits256)
    let token = AdToken(
        id: "0123456789abcdef0123456789abcdef", campaignID: "c", creativeID: "r", adUnitID: "ca-app-pub-1/2",
        viewerKey: "viewer", expiresAt: 10_000)

    @Test func aSignedTokenVerifiesUntilItExpires() throws {
        let text = token.signed(with: key)
        #expect(try AdToken.verify(text, with: key, now: 9_999) == token)
        #expect(throws: AdToken.Refusal.expired(token)) { try AdToken.verify(text, with: key, now: 10_000) }
    }

    @Test func anotherKeysOrAChangedTokenIsForged() {
        let text = token.signed(with: key)
        #expect(throws: AdToken.Refusal.forged) { try AdToken.verify(text, with: SymmetricKey(size: .bits256), now: 0) }
        var longer = token
        longer.expiresAt = 1 << 40
        let (payload, signature) = (longer.signed(with: key).split(separator: ".")[0], text.split(separator: ".")[1])
        #expect(throws: AdToken.Refusal.forged) { try AdToken.verify("\(payload).\(signature)", with: key, now: 0) }
        for garbage in ["", ".", "a.b.c", "no-dot"] {
            #expect(throws: AdToken.Refusal.forged) { try AdToken.verify(garbage, with: key, now: 0) }
        }
    }
}
