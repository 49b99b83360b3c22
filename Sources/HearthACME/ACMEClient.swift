import AsyncHTTPClient
import NIOCore
import NIOHTTP1

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The requests of RFC 8555 to one ACME server for one account: every POST signed by the
/// account's key with a fresh nonce, sent again with the next nonce when the server refuses
/// one (§6.5), as the first after the account is registered by its key.
actor ACMEClient {
    /// An answer that is not an error.
    struct Answer: Sendable {
        let url: String
        let headers: HTTPHeaders
        let body: ByteBuffer

        /// The resource the answer created or names (`Location`).
        var location: String? { headers.first(name: "location") }

        /// How long the server asks a poller to wait, if it says.
        var retryAfter: Duration? { Self.retryAfter(in: headers) }

        /// `Retry-After` in seconds (the form ACME servers send; an HTTP date is ignored).
        static func retryAfter(in headers: HTTPHeaders) -> Duration? {
            headers.first(name: "retry-after").flatMap(Int.init).map { .seconds(max(0, $0)) }
        }

        func decoded<T: Decodable>(as type: T.Type) throws(ACMEError) -> T {
            do {
                return try JSONDecoder().decode(type, from: Data(buffer: body))
            } catch {
                throw .malformedResponse(url: url, reason: "\(error)")
            }
        }
    }

    /// Answers larger than this are refused: a certificate chain is a few KiB.
    private static let maximumAnswerBytes = 1 << 20
    /// Refused nonces in a row before a request fails.
    private static let nonceAttempts = 5

    let directoryURL: String
    let accountKey: ACMEAccountKey
    private let http: HTTPClient
    private var directory: ACMEMessages.Directory?
    private var nonce: String?
    private var accountURL: String?

    init(directoryURL: String, accountKey: ACMEAccountKey, http: HTTPClient) {
        self.directoryURL = directoryURL
        self.accountKey = accountKey
        self.http = http
    }

    /// The server's directory, read once.
    func resources() async throws(ACMEError) -> ACMEMessages.Directory {
        if let directory { return directory }
        let answer = try await send(HTTPClientRequest(url: directoryURL))
        let read = try answer.decoded(as: ACMEMessages.Directory.self)
        directory = read
        return read
    }

    /// Registers the account of the key (or finds it: registering a known key answers its URL),
    /// agreeing to the server's terms, with `contact` (`mailto:` URLs).
    func register(contact: [String]) async throws(ACMEError) {
        guard accountURL == nil else { return }
        struct NewAccount: Encodable {
            let termsOfServiceAgreed = true
            let contact: [String]
        }
        let url = try await resources().newAccount
        let answer = try await post(url, json: NewAccount(contact: contact), signedBy: nil)
        guard let location = answer.location else { throw .malformedResponse(url: url, reason: "no Location for the account") }
        accountURL = location
    }

    /// POSTs `payload` as JSON to `url`, signed by the account.
    func post(_ url: String, json payload: some Encodable) async throws(ACMEError) -> Answer {
        try await post(url, json: payload, signedBy: accountURL)
    }

    /// POST-as-GET (§6.3): reads `url` as the account.
    func read(_ url: String, accept: String? = nil) async throws(ACMEError) -> Answer {
        try await signedPost(url, payload: nil, accountURL: accountURL, accept: accept)
    }

    private func post(_ url: String, json payload: some Encodable, signedBy accountURL: String?) async throws(ACMEError) -> Answer {
        let body: Data
        do {
            body = try JSONEncoder().encode(payload)
        } catch {
            throw .malformedResponse(url: url, reason: "cannot encode the request: \(error)")
        }
        return try await signedPost(url, payload: body, accountURL: accountURL, accept: nil)
    }

    private func signedPost(_ url: String, payload: Data?, accountURL: String?, accept: String?) async throws(ACMEError) -> Answer {
        var attempt = 1
        while true {
            let nonce = try await takeNonce()
            var request = HTTPClientRequest(url: url)
            request.method = .POST
            request.headers.add(name: "Content-Type", value: "application/jose+json")
            if let accept { request.headers.add(name: "Accept", value: accept) }
            do {
                request.body = .bytes(try accountKey.sign(payload, url: url, nonce: nonce, accountURL: accountURL))
            } catch {
                throw .malformedResponse(url: url, reason: "cannot sign the request: \(error)")
            }
            do {
                return try await send(request)
            } catch .refused(_, _, let problem, _) where problem.hasPrefix(Self.badNonce) && attempt < Self.nonceAttempts {
                attempt += 1
            }
        }
    }

    private static let badNonce = "urn:ietf:params:acme:error:badNonce"

    /// A nonce the server gave and no request used yet, or a new one.
    private func takeNonce() async throws(ACMEError) -> String {
        if let nonce {
            self.nonce = nil
            return nonce
        }
        var request = HTTPClientRequest(url: try await resources().newNonce)
        request.method = .HEAD
        _ = try await send(request)
        guard let nonce else { throw .malformedResponse(url: request.url, reason: "no Replay-Nonce") }
        self.nonce = nil
        return nonce
    }

    /// Sends `request`, keeps the nonce of its answer, and returns the answer or throws its
    /// problem.
    private func send(_ request: HTTPClientRequest) async throws(ACMEError) -> Answer {
        let status: HTTPResponseStatus
        let headers: HTTPHeaders
        let body: ByteBuffer
        do {
            let response = try await http.execute(request, timeout: .seconds(30))
            status = response.status
            headers = response.headers
            body = try await response.body.collect(upTo: Self.maximumAnswerBytes)
        } catch {
            throw .unreachable(url: request.url, reason: "\(error)")
        }
        if let fresh = headers.first(name: "replay-nonce") { nonce = fresh }
        guard (200..<300).contains(status.code) else {
            let problem = (try? JSONDecoder().decode(ACMEMessages.Problem.self, from: Data(buffer: body)))?.description
            throw .refused(
                url: request.url, status: Int(status.code), problem: problem ?? String(buffer: body),
                retryAfter: Answer.retryAfter(in: headers))
        }
        return Answer(url: request.url, headers: headers, body: body)
    }
}
