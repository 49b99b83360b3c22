/// A campaign's targeting read once, when the catalog changes, into the form a decision compares
/// with: lowercased platforms and keywords, parsed version ranges, normalized locales.
struct CompiledTargeting: Sendable {
    private let platforms: Set<String>?
    private let osVersions: (min: [Int]?, max: [Int]?)?
    private let appVersions: (min: [Int]?, max: [Int]?)?
    private let locales: [String]?
    private let keywords: Set<String>?

    init(_ targeting: Targeting) {
        platforms = targeting.platforms.map { Set($0.map { $0.lowercased() }) }
        osVersions = targeting.osVersions.map { ($0.min.flatMap(VersionRange.parts), $0.max.flatMap(VersionRange.parts)) }
        appVersions = targeting.appVersions.map { ($0.min.flatMap(VersionRange.parts), $0.max.flatMap(VersionRange.parts)) }
        locales = targeting.locales.map { $0.map(RequestFacts.normalizedLocale) }
        keywords = targeting.keywords.map { Set($0.map { $0.lowercased() }) }
    }

    /// Whether a request with these facts is targeted.
    func matches(_ facts: RequestFacts) -> Bool {
        if let platforms, !(facts.platform.map(platforms.contains) ?? false) { return false }
        if let osVersions, !Self.contains(osVersions, facts.osVersion) { return false }
        if let appVersions, !Self.contains(appVersions, facts.appVersion) { return false }
        if let locales {
            guard let locale = facts.locale, locales.contains(where: { locale == $0 || locale.hasPrefix($0 + "-") }) else {
                return false
            }
        }
        if let keywords, keywords.isDisjoint(with: facts.keywords) { return false }
        return true
    }

    private static func contains(_ range: (min: [Int]?, max: [Int]?), _ version: [Int]?) -> Bool {
        guard let version else { return false }
        if let low = range.min, VersionRange.compare(version, low) < 0 { return false }
        if let high = range.max, VersionRange.compare(version, high) > 0 { return false }
        return true
    }
}

/// What a decision compares targeting with, read once from the request.
struct RequestFacts: Sendable {
    let platform: String?
    let osVersion: [Int]?
    let appVersion: [Int]?
    let locale: String?
    let keywords: Set<String>

    init(_ request: AdRequest) {
        platform = request.platform?.lowercased()
        osVersion = request.osVersion.flatMap(VersionRange.parts)
        appVersion = request.appVersion.flatMap(VersionRange.parts)
        locale = request.locale.map(Self.normalizedLocale)
        keywords = Set(request.keywords.map { $0.lowercased() })
    }

    /// `pt_BR` as `pt-br`: locales compare without case, `_` as `-`.
    static func normalizedLocale(_ locale: String) -> String {
        locale.lowercased().replacingOccurrences(of: "_", with: "-")
    }
}
