import HTTPTypes
import HearthEdge
import Hummingbird
import Logging

/// Storage's HTTP surface: the Firebase v0 API (spec storage-api §1–§8), the GCS JSON API subset
/// the Admin SDKs use (§9), and the emulator's control endpoints (§1.6). Parses requests into
/// ``StorageService`` operations and renders their results; every response carries CORS headers.
package struct StorageEndpoint: Sendable {
    let service: StorageService
    let credentials: StorageCredentials
    /// `host:port` for URLs when a request names no host.
    let fallbackHost: String

    package init(service: StorageService, credentials: StorageCredentials, fallbackHost: String) {
        self.service = service
        self.credentials = credentials
        self.fallbackHost = fallbackHost
    }

    package func respond(to request: Request, context: HearthRequestContext) async -> Response {
        let route = StorageRoute(path: request.uri.path)
        let cloud = Self.isCloud(route)
        let response: Response
        do {
            response = try await handle(request, route: route, context: context)
        } catch let error as StorageError {
            response = StorageResponses.error(error, cloud: cloud)
        } catch {
            context.logger.error("storage request failed", metadata: ["error": "\(logSafe: error)"])
            response = StorageResponses.error(.badRequest("The request could not be completed: \(error)"), cloud: cloud)
        }
        return StorageResponses.withCORS(response, request: request)
    }

    private static func isCloud(_ route: StorageRoute) -> Bool {
        switch route {
        case .cloudBuckets, .cloudBucket, .cloudObjects, .cloudObject, .cloudCopy, .cloudObjectACL, .cloudUpload, .cloudDownload: true
        default: false
        }
    }

    private func handle(_ request: Request, route: StorageRoute, context: HearthRequestContext) async throws -> Response {
        if request.method == .options { return StorageResponses.crossOrigin.preflight(request) }
        for bucket in route.buckets { try BucketName.validate(bucket) }
        let parameters = StorageRequestParts.parameters(of: request)
        let baseURL = StorageRequestParts.baseURL(of: request, fallbackHost: fallbackHost)
        switch route {
        case .firebaseRoot:
            return StorageResponses.json(Array(#"{"emulator":"storage"}"#.utf8))
        case .firebaseObjects, .firebaseObject:
            // Without rules even admin and download-token requests are refused (spec §8.2).
            guard service.rules.isLoaded else { throw StorageError.noRuleset }
            let api = FirebaseStorageAPI(
                service: service, credentials: credentials, baseURL: baseURL,
                clientAddress: context.channel.remoteAddress?.ipAddress ?? "unknown")
            return try await api.respond(to: request, route: route, parameters: parameters)
        case .control(let name):
            guard !service.settings.production else { throw StorageError.objectNotFound(bucket: "", name: "") }
            return try await StorageControl(service: service).respond(to: request, name: name)
        case .invalid:
            throw StorageError.badRequest("Invalid HTTP method/URL pair.")
        default:
            if service.settings.production, try await credentials.caller(of: request) != .admin {
                throw StorageError.missingAdminCredentials
            }
            let api = CloudStorageAPI(service: service, baseURL: baseURL)
            return try await api.respond(to: request, route: route, parameters: parameters)
        }
    }
}
