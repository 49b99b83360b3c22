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

    static func unavailable() -> Response {
        Response(
            status: .serviceUnavailable, headers: [.contentType: "application/json; charset=utf-8"],
            body: ResponseBody(
                byteBuffer: ByteBuffer(
                    string: #"{"error":{"code":503,"status":"UNAVAILABLE","message":"The ads store cannot be used now."}}"#)))
    }

    /// Nothing fills the slot.
    static func noFill() -> Response {
        Response(status: .noContent, headers: [.cacheControl: "no-store"])
    }

    /// `{"ad": {…}}`, a decide's answer.
    struct Decision: Encodable {
        struct Ad: Encodable {
            var creativeID: String
            var campaignID: String
            var w: Int
            var h: Int
            var kind: Creative.Kind
            var imageURL: String?
            var html: String?
            var clickURL: String
            var refreshSeconds: Int?
            var token: String
            var expiresAt: Int64
        }

        var ad: Ad

        init(_ served: ServedAd) {
            let creative = served.creative
            ad = Ad(
                creativeID: creative.creativeID, campaignID: served.campaignID, w: creative.w, h: creative.h, kind: creative.kind,
                imageURL: creative.imageURL, html: creative.html, clickURL: creative.clickURL, refreshSeconds: served.refreshSeconds,
                token: served.token, expiresAt: served.expiresAt)
        }
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
