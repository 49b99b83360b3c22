import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

/// The two requests a banner makes of the ads server: a decision, and its events.
struct AdsServerClient: Sendable {
    /// The server's origin, `http://host:port`.
    let origin: String
    /// How long a decision may take.
    let timeout: Duration

    /// What the server answered a decide request.
    enum Decision: Sendable {
        case ad(ServedAd)
        case noFill
    }

    /// Asks for an ad with `body`; every failure is a `RequestError` of ``GADErrorDomain``.
    func decide(_ body: [String: any Sendable]) async throws(RequestError) -> Decision {
        let answer = try await post("/ads/v1/decide", body, timeout: timeout)
        switch answer.status {
        case 200:
            let data = Data(answer.body.readableBytesView)
            struct Envelope: Decodable { var ad: ServedAd }
            guard let ad = try? JSONDecoder().decode(Envelope.self, from: data).ad else {
                throw .ads(.receivedInvalidResponse, "Received invalid response: \(String(buffer: answer.body).prefix(200))")
            }
            return .ad(ad)
        case 204:
            return .noFill
        case 408:
            throw .ads(.timeout, "Request timed out.")
        case 400..<500 where answer.status != 429:
            throw .ads(.invalidRequest, "Invalid Request: \(Self.message(answer.body) ?? "status \(answer.status)")")
        default:
            throw .ads(.serverError, "Server Error: \(Self.message(answer.body) ?? "status \(answer.status)")")
        }
    }

    /// Reports `type` (`impression`, `viewable`, `click`) of the ad `token`, trying again while
    /// the server cannot be reached, fails (5xx) or asks for a retry (408, 429): five tries over
    /// about fifteen seconds plus their time. The server counts each (token, type) once, so a
    /// retry never counts twice; whether it counted this one is the server's report's business.
    func report(_ type: String, token: String) async {
        for attempt in 0..<5 {
            if attempt > 0 { try? await Task.sleep(for: .seconds(1 << (attempt - 1))) }
            if Task.isCancelled { return }
            guard let answer = try? await post("/ads/v1/events", ["token": token, "type": type], timeout: .seconds(10)) else {
                continue
            }
            // Answered, or refused for good (an expired token, say): retries would change nothing.
            if answer.status < 500 && answer.status != 408 && answer.status != 429 { return }
        }
    }

    private func post(_ path: String, _ body: [String: any Sendable], timeout: Duration) async throws(RequestError) -> (
        status: UInt, body: ByteBuffer
    ) {
        var request = HTTPClientRequest(url: origin + path)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        do {
            request.body = .bytes(ByteBuffer(bytes: try JSONSerialization.data(withJSONObject: body, options: [.sortedKeys])))
        } catch {
            throw .ads(.invalidRequest, "Invalid request: \(error)")
        }
        do {
            let deadline = NIODeadline.now() + .milliseconds(Int64(timeout / .milliseconds(1)))
            let response = try await Self.http.execute(request, deadline: deadline)
            return (response.status.code, try await response.body.collect(upTo: 1 << 20))
        } catch let error as HTTPClientError where Self.isTimeout(error) {
            throw .ads(.timeout, "Request timed out.")
        } catch is NIOTooManyBytesError {
            throw .ads(.receivedInvalidResponse, "Received invalid response: over 1 MiB.")
        } catch is CancellationError {
            throw .ads(.networkError, "Network Error: the request was cancelled.")
        } catch {
            throw .ads(.networkError, "Network Error: \(error)")
        }
    }

    /// The SDK's HTTP client: a connection that cannot be made fails the request at once (a
    /// network error), rather than being tried again until the request's deadline.
    private static let http: HTTPClient = {
        var configuration = HTTPClient.Configuration()
        configuration.connectionPool.retryConnectionEstablishment = false
        return HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
    }()

    private static func isTimeout(_ error: HTTPClientError) -> Bool {
        [.deadlineExceeded, .readTimeout, .connectTimeout, .writeTimeout].contains(error)
    }

    /// The `error.message` of a Google-style error body.
    private static func message(_ body: ByteBuffer) -> String? {
        let object = try? JSONSerialization.jsonObject(with: Data(body.readableBytesView)) as? [String: Any]
        return (object?["error"] as? [String: Any])?["message"] as? String
    }
}
