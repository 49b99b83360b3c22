import HTTPTypes
import HearthCore

extension AuthService {
    /// The most configurations one list page holds (the Admin SDKs' largest `max_results`).
    static let providerPageSize = 100

    /// `/v2/projects/{p}/oauthIdpConfigs[/{id}]` and `/v2/projects/{p}/inboundSamlConfigs[/{id}]`
    /// (admins only): list (`GET`, `pageSize`, `pageToken`) and create (`POST` with
    /// `?oauthIdpConfigId=` / `?inboundSamlConfigId=`) on the collection; get, patch (`updateMask`)
    /// and delete on one configuration. Tenant paths act on the project's configurations.
    func providerConfigs(_ kind: ProviderKind, id: String?, method: HTTPRequest.Method, body: AuthRequestBody)
        async throws(AuthError) -> JSONValue
    {
        switch kind {
        case .oidc: try await providerConfigs(OIDCProviderConfig.self, id: id, method: method, body: body)
        case .saml: try await providerConfigs(SAMLProviderConfig.self, id: id, method: method, body: body)
        }
    }

    private func providerConfigs<Config: ProviderConfiguration>(
        _: Config.Type, id: String?, method: HTTPRequest.Method, body: AuthRequestBody
    ) async throws(AuthError) -> JSONValue {
        switch (id, method) {
        case (nil, .get): return try await listProviders(Config.self, body)
        case (nil, .post):
            let id = try Self.providerID(try body.string(Config.kind.idParameter), Config.self)
            var config = Config()
            for path in Config.paths { try config.set(path, from: body) }
            try config.check()
            try await directory.change { (state: inout AuthDirectory.State) throws(AuthError) in
                var providers = state.providers
                guard providers[keyPath: Config.stored][id] == nil else { throw .configurationExists }
                providers[keyPath: Config.stored][id] = config
                state.setProviders(providers)
            }
            return render(config, id: id)
        case (let id?, .get):
            let id = try Self.providerID(id, Config.self)
            guard let config = try await directory.read({ $0.providers[keyPath: Config.stored][id] }) else {
                throw .configurationNotFound
            }
            return render(config, id: id)
        case (let id?, .patch):
            let id = try Self.providerID(id, Config.self)
            let paths = try Self.patchedPaths(Config.self, body)
            let config = try await directory.change { (state: inout AuthDirectory.State) throws(AuthError) -> Config in
                var providers = state.providers
                guard var config = providers[keyPath: Config.stored][id] else { throw .configurationNotFound }
                for path in paths { try config.set(path, from: body) }
                try config.check()
                providers[keyPath: Config.stored][id] = config
                state.setProviders(providers)
                return config
            }
            return render(config, id: id)
        case (let id?, .delete):
            let id = try Self.providerID(id, Config.self)
            try await directory.change { (state: inout AuthDirectory.State) throws(AuthError) in
                var providers = state.providers
                guard providers[keyPath: Config.stored].removeValue(forKey: id) != nil else { throw .configurationNotFound }
                state.setProviders(providers)
            }
            return .object([])
        default:
            throw .notFound
        }
    }

    /// A page of configurations in id order, after the id `pageToken` (the last id of the page
    /// before); `{}` when none is left, as Identity Toolkit answers an empty list.
    private func listProviders<Config: ProviderConfiguration>(_: Config.Type, _ body: AuthRequestBody) async throws(AuthError)
        -> JSONValue
    {
        // A malformed size or token reads as none, as Identity Toolkit's lists do.
        let size = (try? body.int64("pageSize")) ?? nil
        let limit = size.map { (1...Int64(Self.providerPageSize)).contains($0) ? Int($0) : Self.providerPageSize }
        let after = ((try? body.string("pageToken")) ?? nil) ?? ""
        let configs = try await directory.read { $0.providers[keyPath: Config.stored] }
        let ids = configs.keys.filter { $0 > after }.sorted()
        let page = ids.prefix(limit ?? Self.providerPageSize)
        return .members([
            (Config.kind.collection, page.isEmpty ? nil : .array(page.map { render(configs[$0]!, id: $0) })),
            ("nextPageToken", page.count < ids.count ? page.last.map(JSONValue.string) : nil),
        ])
    }

    private func render<Config: ProviderConfiguration>(_ config: Config, id: String) -> JSONValue {
        .members([("name", .string("projects/\(settings.projectID)/\(Config.kind.collection)/\(id)"))] + config.members)
    }

    /// `id` when it names a configuration of `Config`'s kind: its prefix, then letters, digits,
    /// `-`, `_` or `.`, 128 characters in all at most (ids stand in paths and page tokens as they are).
    private static func providerID<Config: ProviderConfiguration>(_ id: String?, _: Config.Type) throws(AuthError) -> String {
        let prefix = Config.kind.prefix
        guard let id, id.hasPrefix(prefix), id.utf8.count > prefix.utf8.count, id.utf8.count <= 128,
            id.utf8.allSatisfy(isProviderIDByte)
        else {
            throw .code(
                "INVALID_PROVIDER_ID", "The provider id must start with \"\(prefix)\" followed by letters, digits, '-', '_' or '.'.")
        }
        return id
    }

    private static func isProviderIDByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
            UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."):
            true
        default: false
        }
    }

    /// The leaf paths a patch sets: those its `updateMask` names (comma-separated; a message
    /// stands for its leaves), or without a mask every leaf the body carries.
    private static func patchedPaths<Config: ProviderConfiguration>(_: Config.Type, _ body: AuthRequestBody) throws(AuthError)
        -> [String]
    {
        guard let mask = try body.string("updateMask") else {
            var present: [String] = []
            for path in Config.paths {
                let (object, key) = try body.member(path)
                if object.has(key) { present.append(path) }
            }
            return present
        }
        let named = mask.split(separator: ",").map { AuthRequestBody.camelCase(String($0.filter { $0 != " " })) }
        return Config.paths.filter { path in named.contains { path == $0 || path.hasPrefix($0 + ".") } }
    }
}
