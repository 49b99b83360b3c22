import HTTPTypes
import HearthCore
import HearthEdge
import Hummingbird
import NIOCore

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The ads server's HTTP API under `/ads/v1/`, as the node serving the ads answers it:
/// `decide` and `events` for apps, the admin API (`admin/adUnits`, `admin/creatives`,
/// `admin/campaigns`, `admin/reports`, `admin/explain`, `admin/images`) for an admin credential,
/// and uploaded images for anyone.
struct AdsAPI: Sendable {
    let service: AdsService
    let credentials: any CredentialVerifying
    /// Where users reach the server (`https://ads.example.com`), which uploaded images' URLs
    /// name; `nil`: the address a request reached.
    let publicOrigin: String?

    func handle(_ request: Request, route: AdsRoute) async throws -> Response {
        let now = service.clock.now()
        switch route {
        case .decide:
            try Self.require(.post, request)
            let ask = try AdRequest(body: try await Self.body(of: request))
            guard let served = try service.decide(ask, now: now) else { return AdsResponses.noFill() }
            return AdsResponses.decision(served)
        case .events:
            try Self.require(.post, request)
            let event = try AdEvent(body: try await Self.body(of: request))
            let counted = try await service.record(event.type, token: event.token, now: now)
            return AdsResponses.counted(counted)
        case .explain:
            try await requireAdmin(request)
            try Self.require(.post, request)
            let ask = try AdRequest(body: try await Self.body(of: request))
            return AdsResponses.json(["campaigns": try service.explain(ask, now: now).map(AdsResponses.Verdict.init)])
        case .clock:
            try await requireAdmin(request)
            switch request.method {
            case .put:
                let setting = try AdsJSON.decode(ClockSetting.self, from: try await Self.body(of: request), shape: ClockSetting.shape)
                guard let time = Campaign.milliseconds(setting.now) else {
                    throw AdsError.invalidField(field: "now", reason: "expected an ISO 8601 time")
                }
                try await service.setClock(to: time)
            case .delete:
                try await service.setClock(to: nil)
            default:
                throw AdsError.methodNotAllowed(allowed: "PUT, DELETE")
            }
            return Response(status: .noContent)
        case .reports:
            try await requireAdmin(request)
            try Self.require(.get, request)
            let query = AdReportQuery.parse(QueryString.parameters(request.uri.query ?? ""), now: now)
            let rows = try await service.report(try query.get())
            return AdsResponses.json(["rows": rows])
        case .uploadImage:
            try await requireAdmin(request)
            try Self.require(.post, request)
            let image = try CreativeImage(uploaded: try await Self.body(of: request))
            try await service.upload(image)
            return AdsResponses.json(UploadedImage(image, origin: publicOrigin ?? Self.origin(of: request)))
        case .image(let hash) where request.method == .delete:
            try await requireAdmin(request)
            try await service.deleteImage(hash: hash)
            return Response(status: .noContent)
        case .image(let hash):
            guard request.method == .get || request.method == .head else { throw AdsError.methodNotAllowed(allowed: "GET, HEAD, DELETE") }
            guard let image = try await service.store.image(hash: hash) else { throw AdsError.notFound(kind: "image", id: hash) }
            return AdsResponses.image(image, ifNoneMatch: request.headers[.ifNoneMatch], head: request.method == .head)
        case .collection(let name):
            try await requireAdmin(request)
            return try await collection(name, request)
        case .object(let name, let id):
            try await requireAdmin(request)
            return try await object(name, id: id, request)
        case .unknown:
            throw AdsError.noSuchEndpoint
        }
    }

    private func collection(_ name: String, _ request: Request) async throws -> Response {
        switch (name, request.method) {
        case ("adUnits", .get): return AdsResponses.json(["adUnits": service.list(AdUnit.self)])
        case ("creatives", .get): return AdsResponses.json(["creatives": service.list(Creative.self)])
        case ("campaigns", .get): return AdsResponses.json(["campaigns": service.list(Campaign.self)])
        case ("adUnits", .post): return AdsResponses.json(try await service.create(AdUnit.self, from: Self.body(of: request)))
        case ("creatives", .post): return AdsResponses.json(try await service.create(Creative.self, from: Self.body(of: request)))
        case ("campaigns", .post): return AdsResponses.json(try await service.create(Campaign.self, from: Self.body(of: request)))
        default: throw AdsError.methodNotAllowed(allowed: "GET, POST")
        }
    }

    private func object(_ name: String, id: String, _ request: Request) async throws -> Response {
        switch name {
        case "adUnits": try await object(AdUnit.self, id: id, request)
        case "creatives": try await object(Creative.self, id: id, request)
        default: try await object(Campaign.self, id: id, request)
        }
    }

    private func object<Record: CatalogRecord>(_ type: Record.Type, id: String, _ request: Request) async throws -> Response {
        switch request.method {
        case .get: return AdsResponses.json(try service.get(Record.self, id: id))
        case .patch: return AdsResponses.json(try await service.update(Record.self, id: id, from: Self.body(of: request)))
        case .delete:
            try await service.delete(Record.self, id: id)
            return Response(status: .noContent)
        default: throw AdsError.methodNotAllowed(allowed: "GET, PATCH, DELETE")
        }
    }

    private func requireAdmin(_ request: Request) async throws(AdsError) {
        let now = Int64(Date().timeIntervalSince1970)
        guard let token = AuthorizationHeader.token(in: request.headers), await credentials.isAdmin(token, now: now) else {
            throw .permissionDenied
        }
    }

    /// `http://host:port` (or `https://`) as the client reached the server; an authority that is
    /// not a plain host name or address is not repeated.
    private static func origin(of request: Request) -> String {
        // A request another node of the cluster passed on names where the client reached it.
        let (scheme, sent) = OwnerForwarding.clientOrigin(of: request)
        let authority = !sent.isEmpty && sent.allSatisfy { $0.isLetter || $0.isNumber || ".-[]:".contains($0) } ? sent : "localhost"
        return "\(scheme == "https" ? "https" : "http")://\(authority)"
    }

    private static func require(_ method: HTTPRequest.Method, _ request: Request) throws(AdsError) {
        guard request.method == method else { throw .methodNotAllowed(allowed: method.rawValue) }
    }

    private static func body(of request: Request) async throws(AdsError) -> [UInt8] {
        var request = request
        return Array(try await AdsEndpoint.collectBody(of: &request).readableBytesView)
    }
}

/// The answer to an image's upload: the URL creatives name it by.
struct UploadedImage: Encodable {
    var imageURL: String
    var contentType: String
    var bytes: Int

    init(_ image: CreativeImage, origin: String) {
        imageURL = origin + image.path
        contentType = image.contentType
        bytes = image.bytes.count
    }
}

/// An event report (`POST /ads/v1/events`).
struct AdEvent {
    var token: String
    var type: AdEventType

    static let shape = FieldShape.values("token", "type")

    init(body: [UInt8]) throws(AdsError) {
        let members = try AdsJSON.members(of: body)
        try Self.shape.check(.object(members), at: "")
        let fields = try JSONFields(.object(members))
        token = try fields.requiredString("token")
        guard let type = AdEventType(rawValue: try fields.requiredString("type")) else {
            throw .invalidField(field: "type", reason: "expected impression, viewable or click")
        }
        self.type = type
    }
}

/// A time a test sets the ads clock to (`PUT /ads/v1/admin/clock`, development only).
struct ClockSetting: Decodable {
    var now: String

    static let shape = FieldShape.values("now")
}
