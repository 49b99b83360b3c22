import HearthCore
import Hummingbird
import NIOCore

/// How the ads API answers: JSON bodies, errors as Google's APIs shape them
/// (`{"error": {"code", "status", "message", "field"}}`), `204` for no fill.
enum AdsResponses {
    static func json(_ value: some Encodable, status: HTTPResponse.Status = .ok) -> Response {
        Response(
            status: status, headers: [.contentType: "application/json; charset=utf-8", .cacheControl: "no-store"],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: AdsJSON.encode(value))))
    }

    static func error(_ error: AdsError) -> Response {
        var body: [JSONMember] = [
            JSONMember(key: "code", value: .number(.int(Int64(error.status)))),
            JSONMember(key: "status", value: .string(error.statusName)),
            JSONMember(key: "message", value: .string(error.message)),
        ]
        if let field = error.field { body.append(JSONMember(key: "field", value: .string(field))) }
        var headers: HTTPFields = [.contentType: "application/json; charset=utf-8", .cacheControl: "no-store"]
        if case .methodNotAllowed(let allowed) = error { headers[.allow] = allowed }
        return Response(
            status: HTTPResponse.Status(code: error.status), headers: headers,
            body: ResponseBody(byteBuffer: ByteBuffer(string: JSONWriter.string(.object([JSONMember(key: "error", value: .object(body))]))))
        )
    }

    /// Nothing fills the slot.
    static func noFill() -> Response {
        Response(status: .noContent, headers: [.cacheControl: "no-store"])
    }

    /// `{"ad": {…}}`, a decide's answer, written without an encoder: every decision answers one.
    static func decision(_ served: ServedAd) -> Response {
        let creative = served.creative
        var ad: [JSONMember] = [
            JSONMember(key: "campaignID", value: .string(served.campaignID)),
            JSONMember(key: "clickURL", value: .string(creative.clickURL)),
            JSONMember(key: "creativeID", value: .string(creative.creativeID)),
            JSONMember(key: "expiresAt", value: .number(.int(served.expiresAt))),
            JSONMember(key: "h", value: .number(.int(Int64(creative.h)))),
        ]
        if let html = creative.html { ad.append(JSONMember(key: "html", value: .string(html))) }
        if let imageURL = creative.imageURL { ad.append(JSONMember(key: "imageURL", value: .string(imageURL))) }
        ad.append(JSONMember(key: "kind", value: .string(creative.kind.rawValue)))
        ad.append(JSONMember(key: "refreshSeconds", value: served.refreshSeconds.map { .number(.int(Int64($0))) } ?? .null))
        ad.append(JSONMember(key: "token", value: .string(served.token)))
        ad.append(JSONMember(key: "w", value: .number(.int(Int64(creative.w)))))
        return jsonText(JSONWriter.string(.object([JSONMember(key: "ad", value: .object(ad))])))
    }

    /// An uploaded image: immutable (its URL is its hash), its hash the ETag, never sniffed or
    /// run as anything but an image; `304` when the client holds it already.
    static func image(_ image: CreativeImage, ifNoneMatch: String?, head: Bool) -> Response {
        let etag = "\"\(image.hash)\""
        let headers: HTTPFields = [
            .eTag: etag, .cacheControl: "public, max-age=31536000, immutable", .contentType: image.contentType,
            .xContentTypeOptions: "nosniff", .contentSecurityPolicy: "default-src 'none'; sandbox",
            .contentLength: String(image.bytes.count),
        ]
        // Weak comparison, as If-None-Match asks: a proxy may have weakened the tag.
        let held = ifNoneMatch?.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            .map { $0.hasPrefix("W/") ? String($0.dropFirst(2)) : $0 }
        if let held, held.contains("*") || held.contains(etag) {
            return Response(status: .notModified, headers: headers)
        }
        return Response(
            status: .ok, headers: headers, body: head ? ResponseBody() : ResponseBody(byteBuffer: ByteBuffer(bytes: image.bytes)))
    }

    /// An event's answer.
    static func counted(_ counted: Bool) -> Response {
        jsonText(counted ? #"{"counted":true}"# : #"{"counted":false}"#)
    }

    private static func jsonText(_ text: String) -> Response {
        Response(
            status: .ok, headers: [.contentType: "application/json; charset=utf-8", .cacheControl: "no-store"],
            body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
    }

    /// One campaign's line of an explanation.
    struct Verdict: Encodable {
        var campaignID: String
        var name: String
        var priority: Campaign.Priority
        var eligible: Bool
        var creativeID: String?
        var reason: String?

        init(_ verdict: AdDecider.Verdict) {
            campaignID = verdict.campaign.campaignID
            name = verdict.campaign.name
            priority = verdict.campaign.priority
            eligible = verdict.rejection == nil
            creativeID = verdict.creative?.creativeID
            reason = verdict.rejection?.description
        }
    }
}
