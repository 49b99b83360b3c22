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

    @Test func tokenIDsAreUniqueAndSortByTheTimeTheyWereMade() {
        let times: [Int64] = [0, 1, 999, 1_000, 1_790_000_000_000, 1_790_000_000_001, 1_790_000_003_600]
        let ids = times.map { AdsService.tokenID(at: $0) }
        #expect(ids.allSatisfy { $0.count == 32 && $0.allSatisfy(\.isHexDigit) })
        #expect(ids == ids.sorted())
        // The same millisecond: the same prefix, the random rest telling them apart.
        let together = (0..<1000).map { _ in AdsService.tokenID(at: 1_790_000_000_000) }
        #expect(Set(together).count == 1000)
        #expect(Set(together.map { $0.prefix(12) }) == [Substring(ids[4].prefix(12))])
    }
}
