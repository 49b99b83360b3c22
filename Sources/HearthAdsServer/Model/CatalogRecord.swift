import HearthCore

/// One kind of object of the catalog the admin API manages: ad units, creatives, campaigns.
protocol CatalogRecord: Codable, Equatable, Sendable {
    /// Its name in messages and errors (`adUnit`).
    static var kind: String { get }
    /// The store's table (``AdsStore``).
    static var table: String { get }
    /// The field of its id (`adUnitID`).
    static var idField: String { get }
    /// The fields a client sends.
    static var shape: FieldShape { get }
    /// The fields a new one has unless the client sends them.
    static var defaults: [JSONMember] { get }
    /// Whether the server makes the id (creatives, campaigns) or the client gives it (ad units).
    static var serverAssignsID: Bool { get }
    /// Whether it stays as it is while a campaign uses it (a creative: what was served and
    /// counted must stay what it was).
    static var isFixedWhileUsed: Bool { get }

    var id: String { get }

    /// Refuses a record that contradicts itself or names what `catalog` does not hold.
    func validate(in catalog: AdCatalog) throws(AdsError)

    static func all(in catalog: AdCatalog) -> [String: Self]
    /// The campaigns that name record `id`.
    static func users(of id: String, in catalog: AdCatalog) -> [String]
    static func put(_ record: Self, in catalog: inout AdCatalog)
    static func remove(_ id: String, from catalog: inout AdCatalog)
}

extension AdUnit: CatalogRecord {
    static let kind = "adUnit"
    static let table = "units"
    static let idField = "adUnitID"
    static let shape = FieldShape.object([
        "adUnitID": .value, "name": .value, "refreshSeconds": .value, "sizes": .list(.values("w", "h")),
    ])
    static let defaults: [JSONMember] = []
    static let serverAssignsID = false
    static let isFixedWhileUsed = false
    var id: String { adUnitID }

    /// Also refuses sizes that would leave a campaign of the unit with a creative that fits none
    /// of its units.
    func validate(in catalog: AdCatalog) throws(AdsError) {
        try validate()
        for campaignID in catalog.campaigns(using: adUnitID) {
            guard let campaign = catalog.campaigns[campaignID], let misfit = campaign.misfit(in: catalog) else { continue }
            throw .invalidField(
                field: "sizes",
                reason: "campaign \(campaignID) shows a \(misfit.w)x\(misfit.h) creative that would fit none of its ad units")
        }
    }

    static func all(in catalog: AdCatalog) -> [String: AdUnit] { catalog.units }
    static func users(of id: String, in catalog: AdCatalog) -> [String] { catalog.campaigns(using: id) }
    static func put(_ record: AdUnit, in catalog: inout AdCatalog) { catalog.put(record) }
    static func remove(_ id: String, from catalog: inout AdCatalog) { catalog.removeUnit(id) }
}

extension Creative: CatalogRecord {
    static let kind = "creative"
    static let table = "creatives"
    static let idField = "creativeID"
    static let shape = FieldShape.values("w", "h", "kind", "imageURL", "html", "clickURL")
    static let defaults: [JSONMember] = []
    static let serverAssignsID = true
    static let isFixedWhileUsed = true
    var id: String { creativeID }

    func validate(in catalog: AdCatalog) throws(AdsError) { try validate() }
    static func all(in catalog: AdCatalog) -> [String: Creative] { catalog.creatives }
    static func users(of id: String, in catalog: AdCatalog) -> [String] { catalog.campaigns(creative: id) }
    static func put(_ record: Creative, in catalog: inout AdCatalog) { catalog.put(record) }
    static func remove(_ id: String, from catalog: inout AdCatalog) { catalog.removeCreative(id) }
}

extension Campaign: CatalogRecord {
    static let kind = "campaign"
    static let table = "campaigns"
    static let idField = "campaignID"
    static let defaults: [JSONMember] = [
        JSONMember(key: "status", value: .string(Status.active.rawValue)), JSONMember(key: "weight", value: .number(.int(1))),
    ]
    static let serverAssignsID = true
    static let isFixedWhileUsed = false
    var id: String { campaignID }

    /// Also refuses units and creatives that do not exist.
    func validate(in catalog: AdCatalog) throws(AdsError) {
        try validate()
        if let index = adUnitIDs.firstIndex(where: { catalog.units[$0] == nil }) {
            throw .invalidField(field: "adUnitIDs[\(index)]", reason: "no ad unit '\(adUnitIDs[index])'")
        }
        if let index = creativeIDs.firstIndex(where: { catalog.creatives[$0] == nil }) {
            throw .invalidField(field: "creativeIDs[\(index)]", reason: "no creative '\(creativeIDs[index])'")
        }
        if let misfit = misfit(in: catalog), let index = creativeIDs.firstIndex(of: misfit.creativeID) {
            let sizes = adUnitIDs.compactMap { catalog.units[$0]?.sizes }.joined().map { "\($0.w)x\($0.h)" }
            throw .invalidField(
                field: "creativeIDs[\(index)]",
                reason: "a \(misfit.w)x\(misfit.h) creative fits none of the campaign's ad units (\(sizes.joined(separator: ", ")))")
        }
    }

    /// The first of the campaign's creatives that fits none of its units.
    func misfit(in catalog: AdCatalog) -> Creative? {
        let units = adUnitIDs.compactMap { catalog.units[$0] }
        guard !units.isEmpty else { return nil }
        return creativeIDs.lazy.compactMap { catalog.creatives[$0] }.first { creative in
            !units.contains { $0.fits(AdSize(w: creative.w, h: creative.h)) }
        }
    }

    static func all(in catalog: AdCatalog) -> [String: Campaign] { catalog.campaigns }
    static func users(of id: String, in catalog: AdCatalog) -> [String] { [] }
    static func put(_ record: Campaign, in catalog: inout AdCatalog) { catalog.put(record) }
    static func remove(_ id: String, from catalog: inout AdCatalog) { catalog.removeCampaign(id) }
}
