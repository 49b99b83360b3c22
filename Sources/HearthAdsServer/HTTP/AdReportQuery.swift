/// The parameters of `GET /ads/v1/admin/reports`: `from` and `to` (ISO 8601 times; the last day
/// by default), `by` (`hour`, the default, or `day`) and `group` (`campaign`, the default,
/// `creative` or `unit`).
struct AdReportQuery: Sendable {
    var fromHour: Int64
    var toHour: Int64
    var period: AdReport.Period
    var group: AdReport.Group

    /// The query, or why it was refused.
    static func parse(_ parameters: [String: String], now: Int64) -> Result<AdReportQuery, AdsError> {
        let nowHour = AdReport.hour(of: now)
        var from = nowHour - 23
        var to = nowHour
        if let text = parameters["from"] {
            guard let time = Campaign.milliseconds(text) else {
                return .failure(.invalidField(field: "from", reason: "expected an ISO 8601 time"))
            }
            from = AdReport.hour(of: time)
        }
        if let text = parameters["to"] {
            guard let time = Campaign.milliseconds(text) else {
                return .failure(.invalidField(field: "to", reason: "expected an ISO 8601 time"))
            }
            to = AdReport.hour(of: time)
        }
        guard from <= to else { return .failure(.invalidField(field: "to", reason: "the report ends before it begins")) }
        guard let period = AdReport.Period(rawValue: parameters["by"] ?? "hour") else {
            return .failure(.invalidField(field: "by", reason: "expected hour or day"))
        }
        guard let group = AdReport.Group(rawValue: parameters["group"] ?? "campaign") else {
            return .failure(.invalidField(field: "group", reason: "expected campaign, creative or unit"))
        }
        return .success(AdReportQuery(fromHour: from, toHour: to, period: period, group: group))
    }
}

extension AdsService {
    /// The counts `query` asks for; what was counted in memory is added to the store first.
    func report(_ query: AdReportQuery) async throws -> [AdReport.Row] {
        await flush()
        return try await store.report(from: query.fromHour, to: query.toHour, period: query.period, group: query.group)
    }
}
