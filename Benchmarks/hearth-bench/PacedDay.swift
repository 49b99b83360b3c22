import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

/// A simulated day of a campaign with a daily impressions goal, alone on an ad unit of its own,
/// under the server's test clock (development mode): ten decisions a simulated minute, each
/// fill's impression reported at once, more demand than the goal. Prints what was delivered by
/// each quarter of the day against the even pace, and the day's total against the goal, which
/// must never be passed. The clock only moves forward: it is left at the day's end, and the
/// server should serve nothing else afterwards.
struct PacedDay {
    let url: String
    let goal: Int

    static let unit = "ca-app-pub-1000000000000000/1000000001"
    static let decisionsPerMinute = 10
    /// 2030-01-01T00:00:00Z, in milliseconds.
    static let dayStart: Int64 = 1_893_456_000_000

    func measure(_ client: HTTPClient) async throws {
        try await admin(client, .POST, "adUnits", #"{"adUnitID": "\#(Self.unit)", "name": "Paced day", "refreshSeconds": null}"#)
        let creative = try await admin(
            client, .POST, "creatives",
            #"{"w": 320, "h": 50, "kind": "image", "imageURL": "https://a.example/paced.png", "clickURL": "https://a.example"}"#)
        guard let creativeID = (try JSONSerialization.jsonObject(with: Data(buffer: creative)) as? [String: Any])?["creativeID"] as? String
        else { throw BenchError(description: "the creative has no id") }
        try await admin(
            client, .POST, "campaigns",
            #"{"name": "Paced day", "priority": "house", "adUnitIDs": ["\#(Self.unit)"], "creativeIDs": ["\#(creativeID)"], "goal": {"metric": "impressions", "daily": \#(goal)}}"#
        )
        var delivered = 0
        var quarters: [String] = []
        for minute in 0..<1440 {
            try await admin(
                client, .PUT, "clock", #"{"now": "2030-01-01T\#(Self.twoDigits(minute / 60)):\#(Self.twoDigits(minute % 60)):00Z"}"#)
            for _ in 0..<Self.decisionsPerMinute {
                let (status, answer) = try await send(
                    client, .POST, "\(url)/ads/v1/decide", body: #"{"adUnitID": "\#(Self.unit)", "size": {"w": 320, "h": 50}}"#)
                guard status == 200 else { continue }
                guard let ad = (try JSONSerialization.jsonObject(with: Data(buffer: answer)) as? [String: Any])?["ad"] as? [String: Any],
                    let token = ad["token"] as? String
                else { throw BenchError(description: "decide answered no token") }
                let (eventStatus, counted) = try await send(
                    client, .POST, "\(url)/ads/v1/events", body: #"{"token": "\#(token)", "type": "impression"}"#)
                guard eventStatus == 200, String(buffer: counted).contains("true") else {
                    throw BenchError(description: "an impression was not counted: \(eventStatus) \(String(buffer: counted))")
                }
                delivered += 1
            }
            if (minute + 1) % 360 == 0 {
                let pace = Double(goal) * Double(minute + 1) / 1440
                let deviation = (Double(delivered) - pace) / pace * 100
                quarters.append(
                    "by \(Self.twoDigits((minute + 1) / 60)):00 \(delivered) (pace \(Int(pace)), \(format(deviation, digits: 1))%)")
            }
        }
        print(
            "hearth ads paced day, daily goal \(goal), \(Self.decisionsPerMinute * 1440) decisions: "
                + quarters.joined(separator: "; ") + "; \(delivered > goal ? "OVER the goal" : "never over the goal")")
    }

    @discardableResult
    private func admin(_ client: HTTPClient, _ method: HTTPMethod, _ path: String, _ body: String?) async throws -> ByteBuffer {
        let (status, answer) = try await send(client, method, "\(url)/ads/v1/admin/\(path)", body: body, headers: AdsBenchmarks.owner)
        guard status == 200 || status == 204 else { throw BenchError(description: "\(path): \(status) \(String(buffer: answer))") }
        return answer
    }

    private static func twoDigits(_ number: Int) -> String {
        number < 10 ? "0\(number)" : "\(number)"
    }
}
