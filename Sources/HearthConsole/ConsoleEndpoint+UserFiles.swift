import HTTPTypes
import HearthCore
import HearthEdge
import HearthUserFiles
import Hummingbird
import NIOCore

/// The users of Authentication as files in the formats of Firebase's `auth:export` and
/// `auth:import` (as `hearth auth:export` and `auth:import` write and read them), through the
/// Identity Toolkit's `accounts:batchGet` and `accounts:batchCreate`.
extension ConsoleEndpoint {
    static let usersExportPath = "/console/auth/users/export"
    static let usersImportPath = "/console/auth/users/import"
    static let maximumImportBytes = 64 << 20
    static let usersPerBatch = 1000

    /// `GET /console/auth/users/export?format=json|csv`: every user, a page of 1,000 at a time,
    /// streamed as the file.
    func exportUsers(_ request: Request, context: HearthRequestContext, visitor: Visitor) async -> Response {
        let (credential, format): (String, UserFileFormat)
        switch await userFileAccess(request, visitor: visitor, method: .get) {
        case .granted(let granted, let requested, _): (credential, format) = (granted, requested)
        case .refused(let response): return response
        }
        @Sendable func page(after token: String?) async -> Result<JSONValue, AccountsCallFailure> {
            let after = token.map { "&nextPageToken=\(PercentEncoding.encode($0))" } ?? ""
            return await accountsCall(
                "batchGet?maxResults=\(Self.usersPerBatch)\(after)", body: nil, credential: credential, context: context)
        }
        // The first page is read before answering, so that a refusal is an error and not a file.
        let first: JSONValue
        switch await page(after: nil) {
        case .success(let answer): first = answer
        case .failure(let problem): return ConsoleResponses.error(problem.message, status: .badGateway)
        }
        var headers = ConsoleResponses.securityHeaders()
        headers[.contentType] = format == .json ? "application/json; charset=utf-8" : "text/csv; charset=utf-8"
        headers[.contentDisposition] = "attachment; filename=\"users.\(format.rawValue)\""
        headers[.cacheControl] = "no-store"
        let body = ResponseBody { writer in
            var encoder = UserFileEncoder(format: format)
            try await writer.write(ByteBuffer(string: encoder.opening))
            var current = first
            while case .array(let users)? = current["users"], !users.isEmpty {
                try await writer.write(ByteBuffer(string: encoder.encode(users)))
                guard let token = current["nextPageToken"]?.stringValue, !token.isEmpty else { break }
                // A page that cannot be read ends the stream unfinished: the download fails
                // rather than look complete.
                current = try await page(after: token).get()
            }
            try await writer.write(ByteBuffer(string: encoder.closing))
            try await writer.finish(nil)
        }
        return Response(status: .ok, headers: headers, body: body)
    }

    /// `POST /console/auth/users/import?format=json|csv[&hashAlgo=…]` with the file as the body:
    /// the whole file is checked first (one invalid user imports nothing, `400` naming it), then
    /// sent in batches of 1,000 → `{total, imported, refusals: [{index, uid, message}]}`. The hash
    /// parameters are the CLI's flags: `hashAlgo`, `hashKey`, `saltSeparator`, `rounds`,
    /// `memCost`, `parallelization`, `blockSize`, `dkLen`, `hashInputOrder`.
    func importUsers(_ request: Request, context: HearthRequestContext, visitor: Visitor) async -> Response {
        let (credential, format, query): (String, UserFileFormat, [String: String])
        switch await userFileAccess(request, visitor: visitor, method: .post) {
        case .granted(let granted, let requested, let parameters): (credential, format, query) = (granted, requested, parameters)
        case .refused(let response): return response
        }
        let hashMembers: [JSONMember]
        do {
            hashMembers = try Self.hashParameters(query).requestMembers()
        } catch {
            return ConsoleResponses.error(error.description, status: .badRequest)
        }
        var request = request
        guard let body = try? await request.collectBody(upTo: Self.maximumImportBytes) else {
            return ConsoleResponses.error("FILE_TOO_LARGE", status: .contentTooLarge)
        }
        let converter = ImportEntryConverter(keepsPasswords: !hashMembers.isEmpty)
        let source: ImportSource
        let total: Int
        do throws(UserFileError) {
            source = try ImportSource(bytes: Array(body.readableBytesView), format: format, name: "the file")
            total = try source.checkedCount(converter)
            guard total > 0 else { throw .empty(path: "the file") }
        } catch {
            return ConsoleResponses.error(error.description, status: .badRequest)
        }
        var refusals: [ImportRefusal] = []
        var sent = 0
        do {
            var reader = try source.reader(converter)
            var batch: [JSONValue] = []
            func send() async throws {
                let answer = try await accountsCall(
                    "batchCreate", body: .object([JSONMember(key: "users", value: .array(batch))] + hashMembers),
                    credential: credential, context: context
                ).get()
                refusals += ImportRefusal.refusals(in: answer, batch: batch, offset: sent)
                sent += batch.count
                batch = []
            }
            while let entry = try reader.next() {
                batch.append(entry)
                if batch.count == Self.usersPerBatch { try await send() }
            }
            if !batch.isEmpty { try await send() }
        } catch {
            let imported = sent - refusals.count
            return ConsoleResponses.error(
                "\(error) (the users from index \(sent) on were not sent; \(imported) imported before)", status: .badGateway)
        }
        return ConsoleResponses.json(
            .object([
                JSONMember(key: "total", value: .number(.int(Int64(total)))),
                JSONMember(key: "imported", value: .number(.int(Int64(total - refusals.count)))),
                JSONMember(
                    key: "refusals",
                    value: .array(
                        refusals.map { refusal in
                            .object([
                                JSONMember(key: "index", value: .number(.int(Int64(refusal.index)))),
                                JSONMember(key: "uid", value: .string(refusal.uid)),
                                JSONMember(key: "message", value: .string(refusal.message)),
                            ])
                        })),
            ]))
    }

    /// Whether the console reads or writes a user file for a request: with the credential, the
    /// file's format and the query, or not, with the answer saying why.
    private enum UserFileAccess {
        case granted(credential: String, format: UserFileFormat, query: [String: String])
        case refused(Response)
    }

    /// The access of a user-file request, which must be of `method` and name a `format`.
    private func userFileAccess(_ request: Request, visitor: Visitor, method: HTTPRequest.Method) async -> UserFileAccess {
        guard request.method == method else { return .refused(ConsoleResponses.error("METHOD_NOT_ALLOWED", status: .methodNotAllowed)) }
        switch await productAccess(request, visitor: visitor) {
        case .refused(let response):
            return .refused(response)
        case .granted(let credential):
            let query = QueryString.parameters(request.uri.query ?? "")
            guard let format = query["format"].flatMap(UserFileFormat.init(rawValue:)) else {
                return .refused(ConsoleResponses.error("INVALID_FORMAT", status: .badRequest))
            }
            return .granted(credential: credential, format: format, query: query)
        }
    }

    /// The CLI's hash flags, from the query.
    private static func hashParameters(_ query: [String: String]) -> PasswordHashParameters {
        func number(_ name: String) -> Int? { query[name].flatMap { Int($0) } }
        func text(_ name: String) -> String? { query[name].flatMap { $0.isEmpty ? nil : $0 } }
        return PasswordHashParameters(
            algorithm: text("hashAlgo"), key: text("hashKey"), saltSeparator: text("saltSeparator"), rounds: number("rounds"),
            memoryCost: number("memCost"), parallelization: number("parallelization"), blockSize: number("blockSize"),
            derivedKeyLength: number("dkLen"), inputOrder: text("hashInputOrder"))
    }

    /// A call the console fails to make: the product refused it or answered something else than JSON.
    struct AccountsCallFailure: Error, CustomStringConvertible {
        let message: String
        var description: String { message }
    }

    /// The Identity Toolkit's `accounts:<method>` of the project, asked with `credential`: a POST
    /// of `body`, or a GET without one.
    private func accountsCall(
        _ method: String, body: JSONValue?, credential: String, context: HearthRequestContext
    ) async -> Result<JSONValue, AccountsCallFailure> {
        var head = HTTPRequest(
            method: body == nil ? .get : .post, scheme: "http", authority: "console",
            path: "/identitytoolkit.googleapis.com/v1/projects/\(PercentEncoding.encode(settings.projectID))/accounts:\(method)")
        head.headerFields[.authorization] = "Bearer \(credential)"
        var requestBody = RequestBody(buffer: ByteBuffer())
        if let body {
            head.headerFields[.contentType] = "application/json"
            requestBody = RequestBody(buffer: ByteBuffer(string: JSONWriter.string(body)))
        }
        let response = await RequestTrace.$isFromConsole.withValue(true) {
            await products(Request(head: head, body: requestBody), context)
        }
        let collected = CollectedResponseBody(limit: 256 << 20)
        do {
            try await response.body.write(collected)
        } catch {
            return .failure(AccountsCallFailure(message: "the answer to accounts:\(method) is too large"))
        }
        let json = try? JSONParser.parse(Array(collected.bytes.readableBytesView))
        guard response.status.code / 100 == 2 else {
            return .failure(
                AccountsCallFailure(
                    message: json?["error"]?["message"]?.stringValue ?? "accounts:\(method) was refused (\(response.status.code))"))
        }
        guard let json else { return .failure(AccountsCallFailure(message: "the answer to accounts:\(method) is not JSON")) }
        return .success(json)
    }
}
