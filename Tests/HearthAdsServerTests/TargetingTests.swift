import Testing

@testable import HearthAdsServer

@Suite struct TargetingTests {
    @Test func versionsCompareByNumberPartByPart() throws {
        func targeted(_ version: String?, min: String? = "2.1", max: String? = "2.10") throws -> Bool {
            var request = try AdRequest.make(adUnitID: "ca-app-pub-1/2")
            request.appVersion = version
            return CompiledTargeting(Targeting(appVersions: VersionRange(min: min, max: max))).matches(RequestFacts(request))
        }
        #expect(try targeted("2.9.3"))
        #expect(try targeted("2.10"))
        #expect(try targeted("2.10.0"))
        #expect(try !targeted("2.10.1"))
        #expect(try !targeted("2.0.9"))
        #expect(try !targeted("two"))
        #expect(try !targeted("+2.5"))
        #expect(try !targeted("2.-0"))
        #expect(try !targeted("2..5"))
        #expect(try !targeted(nil))
        #expect(try targeted("16.4.1", min: nil, max: "17"))
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
        let targeting = CompiledTargeting(Targeting(locales: ["en", "pt-BR"]))
        func request(_ locale: String?) throws -> RequestFacts {
            var request = try AdRequest.make(adUnitID: "ca-app-pub-1/2")
            request.locale = locale
            return RequestFacts(request)
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
