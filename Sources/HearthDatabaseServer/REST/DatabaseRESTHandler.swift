import HearthCore
import HearthEdge
import HearthRules
import Hummingbird
import NIOCore

/// The Realtime Database REST API (protocol §11) and its streaming form (§12).
///
/// Parses the request, hands the operation to the namespace's ``NamespaceEngine`` and renders
/// the answer with Firebase's statuses, headers and error texts. Knows nothing of how data is
/// stored or fanned out.
package struct DatabaseRESTHandler: Sendable {
    let database: DatabaseService
    /// The namespace used when a request names none: `<project>-default-rtdb`.
    let defaultNamespace: String
    let eventStream: EventStream
    /// The largest body a write may carry.
    let maximumWriteBytes: Int
    /// Reads the credentials requests present.
    let credentials: any CredentialVerifying

    package init(
        database: DatabaseService, defaultNamespace: String, eventStream: EventStream, maximumWriteBytes: Int,
        credentials: any CredentialVerifying
    ) {
        self.database = database
        self.defaultNamespace = defaultNamespace
        self.eventStream = eventStream
        self.maximumWriteBytes = maximumWriteBytes
        self.credentials = credentials
    }

    package func respond(to request: Request, context: HearthRequestContext) async -> Response {
        let transport: WriteTransport = RequestTrace.isFromConsole ? .console : .rest
        return await WriteTransport.$current.withValue(transport) { await respondAs(request, context: context) }
    }

    private func respondAs(_ request: Request, context: HearthRequestContext) async -> Response {
        do {
            return try await handle(request, context: context)
        } catch let error as RESTError {
            return RESTResponse.error(error)
        } catch DatabaseError.servedElsewhere(let address) {
            // The node that owns the namespace answers.
            guard !OwnerForwarding.isForwarded(request) else {
                return RESTResponse.error(RESTError(.serviceUnavailable, "The namespace is moving between nodes; retry."))
            }
            do {
                return try await OwnerForwarding.forward(request, to: address, maximumBodyBytes: maximumWriteBytes)
            } catch is NIOTooManyBytesError {
                return RESTResponse.error(RESTError(DatabaseError.invalidData(.tooBig)))
            } catch {
                database.ownerUnreachable(Self.namespace(of: request, default: defaultNamespace))
                context.logger.error(
                    "the node owning the namespace did not answer", metadata: ["owner": "\(address)", "error": "\(logSafe: error)"])
                return RESTResponse.error(RESTError(.serviceUnavailable, "The node serving the namespace is unavailable; retry."))
            }
        } catch let error as DatabaseError {
            if case .unavailable(let reason) = error {
                context.logger.error("database unavailable", metadata: ["reason": "\(logSafe: reason)"])
            }
            return RESTResponse.error(RESTError(error))
        } catch {
            context.logger.error("request failed", metadata: ["error": "\(logSafe: error)"])
            return RESTResponse.error(RESTError(.internalServerError, "Internal server error."))
        }
    }

    /// The namespace `request` names (`ns=`), or `defaultNamespace`.
    private static func namespace(of request: Request, default defaultNamespace: String) -> String {
        parameters(of: request)["ns"].flatMap { $0.isEmpty ? nil : $0 } ?? defaultNamespace
    }

    private func handle(_ request: Request, context: HearthRequestContext) async throws -> Response {
        if request.method == .options { return RESTResponse.crossOrigin.preflight(request, headers: RESTResponse.headers()) }
        let parameters = Self.parameters(of: request)
        let method = try Self.effectiveMethod(request, parameters)
        let target = try RESTTarget.parse(request.uri.path)
        let namespaceName = Self.namespace(of: request, default: defaultNamespace)
        let caller = try await RESTCredential.caller(of: request, parameters: parameters, verifier: credentials)

        switch target {
        case .notFound:
            throw RESTError(.notFound, "Not found: database URLs end in .json")
        case .databases:
            return try await listDatabases(method)
        case .history(let path):
            let engine = try await database.namespace(namespaceName, for: caller, writes: false)
            return try await HistoryEndpoint.respond(method: method, path: path, parameters: parameters, caller: caller, engine: engine)
        case .rules:
            let engine = try await database.namespace(namespaceName, for: caller, writes: Self.writes(method))
            return try await RulesEndpoint.respond(
                method: method, request: request, parameters: parameters, caller: caller, engine: engine, context: context)
        case .data(let path):
            let engine = try await database.namespace(namespaceName, for: caller, writes: Self.writes(method))
            var request = request
            let body = try await collectBody(&request)
            let options = try RESTOptions(parameters)
            switch method {
            case .get:
                guard body.readableBytes == 0 else { throw RESTError.badRequest("A GET request may not carry a body.") }
                return try await get(request, path: path, options: options, caller: caller, engine: engine, context: context)
            case .put:
                let value = try Self.refusingInvalidData { () throws(DataError) in try WriteValue.prepare(Self.parseJSON(body), at: path) }
                return try await put(request, path: path, value: value, options: options, caller: caller, engine: engine)
            case .post:
                let value = try Self.refusingInvalidData { () throws(DataError) in
                    try WriteValue.prepare(Self.parseJSON(body), forChildOf: path)
                }
                let name = try await engine.push(path, value, as: caller)
                if options.print == .silent { return RESTResponse.noContent() }
                var writer = JSONWriter(pretty: options.print == .pretty)
                writer.writeObject(key: "name", string: name)
                return RESTResponse.json(writer.bytes)
            case .patch:
                return try await patch(path: path, json: Self.parseBody(body), options: options, caller: caller, engine: engine)
            case .delete:
                return try await put(request, path: path, value: .null, options: options, caller: caller, engine: engine)
            default:
                throw RESTError(.methodNotAllowed, "Method not allowed: use GET, PUT, POST, PATCH or DELETE.")
            }
        }
    }

    // MARK: Reads

    private func get(
        _ request: Request, path: DatabasePath, options: RESTOptions, caller: Caller, engine: NamespaceEngine,
        context: HearthRequestContext
    ) async throws -> Response {
        if request.headers[.accept]?.contains("text/event-stream") == true {
            guard path.priorityOwner == nil else { throw RESTError(DatabaseError.invalidPath) }
            var rendering = options.rendering
            rendering.pretty = false  // an event's data must stay on one line
            let credentials = credentials
            let lapse = RESTCredential.token(of: request, parameters: Self.parameters(of: request)).map { token in
                { @Sendable in await credentials.lapse(of: token, authvar: nil, noauth: false) != nil }
            }
            return try await eventStream.response(
                engine: engine, location: path, query: options.query, rendering: rendering, caller: caller, lapse: lapse,
                context: context)
        }
        // One read, authorised with the query the client sent: rules may read `query.*`.
        let node: Node
        if let query = options.query {
            node = .build(children: try await engine.query(path, query, as: caller).map { ($0.key, $0.value) })
        } else {
            node = try await engine.read(path, as: caller)
        }
        return Self.respond(with: node, to: request, options: options)
    }

    /// The answer to a read of `node`: its ETag when asked for, shallow, silent, JSONP or as a
    /// download as `options` say.
    private static func respond(with node: Node, to request: Request, options: RESTOptions) -> Response {
        var node = node
        var headers = HTTPFields()
        // Hashing a large node is costly: only when the client asks for an ETag.
        if request.headers[.firebaseETag] == "true" || request.headers[.ifNoneMatch] != nil {
            let etag = ETag.of(node)
            if request.headers[.ifNoneMatch] == etag {
                var headers = RESTResponse.headers()
                headers[.eTag] = etag
                return Response(status: .notModified, headers: headers)
            }
            headers[.eTag] = etag
        }
        if options.shallow { node = Self.shallow(node) }
        if options.print == .silent { return RESTResponse.noContent(extraHeaders: headers) }
        var bytes = JSONWriter.render(node, options.rendering)
        if let callback = options.callback {
            bytes = Array((callback + "(").utf8) + bytes + Array(");".utf8)
            headers[.contentType] = "application/javascript; charset=utf-8"
        }
        if let download = options.download {
            headers[.contentDisposition] = "attachment; filename=\"\(download.replacingOccurrences(of: "\"", with: ""))\""
        }
        var response = RESTResponse.json(bytes)
        for field in headers { response.headers[field.name] = field.value }
        return response
    }

    /// Each child of an object becomes `true`; leaves and null are returned as they are.
    private static func shallow(_ node: Node) -> Node {
        guard case .object(let children, _) = node else { return node }
        return .make(
            children: ChildMap(sortedEntries: children.map { ($0.key, Node.value(.bool(true))) }), priority: nil)
    }

    private func listDatabases(_ method: HTTPRequest.Method) async throws -> Response {
        guard method == .get else { throw RESTError(.methodNotAllowed, "Method not allowed: use GET.") }
        var writer = JSONWriter()
        writer.writeRaw("[")
        for (index, name) in try await database.namespaceNames().enumerated() {
            if index > 0 { writer.writeRaw(",") }
            writer.writeObject(key: "name", string: name)
        }
        writer.writeRaw("]")
        return RESTResponse.json(writer.bytes)
    }

    // MARK: Writes

    private func put(
        _ request: Request, path: DatabasePath, value: WriteValue, options: RESTOptions, caller: Caller, engine: NamespaceEngine
    ) async throws -> Response {
        let ifMatch = request.headers[.ifMatch]
        let wantsETag = request.headers[.firebaseETag] == "true" || ifMatch != nil
        switch try await engine.set(path, value, ifMatch: ifMatch.map(WritePrecondition.etag), as: caller) {
        case .written(let node):
            var headers = HTTPFields()
            if wantsETag { headers[.eTag] = ETag.of(node) }
            if options.print == .silent { return RESTResponse.noContent(extraHeaders: headers) }
            return RESTResponse.json(JSONWriter.render(node, options.rendering), extraHeaders: headers)
        case .preconditionFailed(let current):
            var headers = HTTPFields()
            headers[.eTag] = ETag.of(current)
            return RESTResponse.json(
                JSONWriter.render(current, options.rendering), status: .preconditionFailed, extraHeaders: headers)
        }
    }

    /// A PATCH body is an object of relative paths; `null` deletes the location.
    private func patch(
        path: DatabasePath, json: JSONValue, options: RESTOptions, caller: Caller, engine: NamespaceEngine
    ) async throws -> Response {
        guard path.priorityOwner == nil else { throw RESTError(DatabaseError.invalidPath) }
        switch json {
        case .null:
            _ = try await engine.set(path, .null, as: caller)
        case .object(let members):
            var entries: [(DatabasePath, WriteValue)] = []
            for member in members {
                guard let relative = try? DatabasePath(writeLocation: member.key), !relative.isRoot else {
                    throw RESTError(DatabaseError.invalidData(.invalidKey(member.key, member.position)))
                }
                let value = try Self.refusingInvalidData { () throws(DataError) in
                    try WriteValue.prepare(member.value, at: path.appending(relative))
                }
                entries.append((relative, value))
            }
            try await engine.update(path, entries, as: caller)
        default:
            throw RESTError.badRequest(DataError.unparseable.message)
        }
        if options.print == .silent { return RESTResponse.noContent() }
        var writer = JSONWriter(pretty: options.print == .pretty)
        writer.write(json)
        return RESTResponse.json(writer.bytes)
    }

    // MARK: Request parsing

    /// The query parameters (see ``QueryString/parameters(_:)``).
    private static func parameters(of request: Request) -> [String: String] {
        QueryString.parameters(request.uri.query ?? "")
    }

    /// Whether a request with `method` writes (and so may create its namespace).
    private static func writes(_ method: HTTPRequest.Method) -> Bool {
        [.put, .post, .patch, .delete].contains(method)
    }

    /// POST with `X-HTTP-Method-Override` or `x-http-method-override=` acts as that method.
    private static func effectiveMethod(_ request: Request, _ parameters: [String: String]) throws(RESTError) -> HTTPRequest.Method {
        guard request.method == .post,
            let override = request.headers[.methodOverride] ?? parameters["x-http-method-override"]
        else { return request.method }
        switch override.uppercased() {
        case "PUT": return .put
        case "PATCH": return .patch
        case "DELETE": return .delete
        case "GET": return .get
        case "POST": return .post
        default: throw RESTError(.methodNotAllowed, "Method not allowed: \(override) cannot override POST.")
        }
    }

    private func collectBody(_ request: inout Request) async throws -> ByteBuffer {
        do {
            return try await request.collectBody(upTo: maximumWriteBytes)
        } catch is NIOTooManyBytesError {
            throw RESTError(DatabaseError.invalidData(.tooBig))
        }
    }

    private static func parseBody(_ body: ByteBuffer) throws(RESTError) -> JSONValue {
        try refusingInvalidData { () throws(DataError) in try parseJSON(body) }
    }

    private static func parseJSON(_ body: ByteBuffer) throws(DataError) -> JSONValue {
        do {
            return try JSONParser.parse(Array(body.readableBytesView))
        } catch {
            throw .unparseable
        }
    }

    /// Runs `work` (parsing a body, or building a write's value before it reaches the
    /// namespace's writer: see ``WriteValue``) and answers invalid data with Firebase's error.
    private static func refusingInvalidData<T>(_ work: () throws(DataError) -> T) throws(RESTError) -> T {
        do {
            return try work()
        } catch {
            throw RESTError(DatabaseError.invalidData(error))
        }
    }

}
