import Testing

@testable import HearthAdsServer

@Suite struct TargetingTests {
    @Test func versionsCompareByNumberPartByPart() {
        let range = VersionRange(min: "2.1", max: "2.10")
        #expect(range.contains("2.9.3"))
        #expect(range.contains("2.10"))
        #expect(range.contains("2.10.0"))
        #expect(!range.contains("2.10.1"))
        #expect(!range.contains("2.0.9"))
        #expect(!range.contains("two"))
        #expect(!range.contains("+2.5"))
        #expect(!range.contains("2.-0"))
        #expect(!range.contains("2..5"))
        #expect(!range.contains(nil))
        #expect(VersionRange(min: nil, max: "17").contains("16.4.1"))
    }

    @Test func unreadableOrReversedRangesAreRefusedNamingTheBound() {
        #expect(throws: AdsError.invalidField(field: "v.min", reason: "expected a version such as 14.2")) {
            try VersionRange(min: "1.x", max: nil).validate(field: "v")
        }
        #expect(throws: AdsError.invalidField(field: "v.max", reason: "the range ends before it begins")) {
            try VersionRange(min: "3", max: "2.9").validate(field: "v")
        }
    }

    @Test func aLanguageMatchesItsRegionalLocales() throws {
        let targeting = Targeting(locales: ["en", "pt-BR"])
        func request(_ locale: String?) throws -> AdRequest {
            var request = try AdRequest.make(adUnitID: "ca-app-pub-1/2")
            request.locale = locale
            return request
        }
        #expect(targeting.matches(try request("en")))
        #expect(targeting.matches(try request("en_GB")))
        #expect(targeting.matches(try request("PT-br")))
        #expect(!targeting.matches(try request("pt-PT")))
        #expect(!targeting.matches(try request("eng")))
        #expect(!targeting.matches(try request(nil)))
    }
}

extension AdRequest {
    /// A request for a 320×50 banner of `adUnitID`, nothing else known.
    static func make(adUnitID: String) throws -> AdRequest {
        try AdRequest(body: Array(#"{"adUnitID": "\#(adUnitID)", "size": {"w": 320, "h": 50}}"#.utf8))
    }
}
