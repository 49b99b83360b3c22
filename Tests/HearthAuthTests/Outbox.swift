import AsyncHTTPClient
import Foundation
import HearthTestSupport
import HearthTesting
import Testing

/// An email action the development server "sent": its code and link.
struct OutboxEntry {
    let code: String
    let link: String

    /// The value of the link's query parameter `name`.
    func linkParameter(_ name: String) -> String? {
        URLComponents(string: link)?.queryItems?.first { $0.name == name }?.value
    }
}

/// The one unused out-of-band code of `type` sent to `email`, from the development outbox
/// (which lists codes in no particular order).
func outboxEntry(_ server: TestHearth, email: String, type: String) async throws -> OutboxEntry {
    let codes = try await emulatorListing(server, "oobCodes")
    let matching = codes.filter { $0["email"] as? String == email && $0["requestType"] as? String == type }
    try #require(matching.count == 1)
    let entry = matching[0]
    return OutboxEntry(code: try #require(entry["oobCode"] as? String), link: try #require(entry["oobLink"] as? String))
}

/// The code the development server "sent by SMS" for `verificationID`.
func phoneCode(_ server: TestHearth, verificationID: String) async throws -> String {
    let codes = try await emulatorListing(server, "verificationCodes")
    return try #require(codes.first { $0["sessionInfo"] as? String == verificationID }?["code"] as? String)
}

/// The entries of the development server's `GET /emulator/v1/projects/demo-sdk/<listing>`
/// (`oobCodes`, `verificationCodes`), each answered under the listing's name.
private func emulatorListing(_ server: TestHearth, _ listing: String) async throws -> [[String: Any]] {
    let response = try await HTTPClient.shared.execute(
        HTTPClientRequest(url: "http://127.0.0.1:\(server.port)/emulator/v1/projects/demo-sdk/\(listing)"), timeout: .seconds(10))
    let body = try await response.body.collect(upTo: 1 << 20)
    let answer = try JSONSerialization.jsonObject(with: Data(body.readableBytesView)) as? [String: Any]
    return try #require(answer?[listing] as? [[String: Any]])
}
