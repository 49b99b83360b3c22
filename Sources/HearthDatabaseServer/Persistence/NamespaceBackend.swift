import HearthCore

/// Where a server keeps its namespaces: SQLite files under the data directory beside the node's
/// durable log (``EmbeddedNamespaces``), or PostgreSQL, shared by every node of a cluster
/// (``PostgresNamespaces``).
protocol NamespaceBackend: Sendable {
    /// Makes the backend ready to open namespaces (the durable log opened, the schema made), and
    /// fails if it cannot be.
    func prepare() async throws

    /// Whether namespace `name` exists (has a store).
    func exists(_ name: String) async throws -> Bool

    /// The names of the namespaces that exist, sorted.
    func names() async throws -> [String]

    /// Creates namespace `name`, empty, unless it exists; whether it was new.
    func create(_ name: String) async throws -> Bool

    /// Opens the store of namespace `name`; `nil` when it does not exist and opening does not
    /// create it (its first commit will). The tree's pages stay loaded where `listened` says,
    /// when the store reads its tree page by page.
    func open(_ name: String, listened: ListenedPaths) async throws -> (any NamespaceStorage)?

    /// Makes the store of namespace `name`, which does not exist yet, at its first commit.
    func storeFactory(_ name: String, listened: ListenedPaths) -> StoreFactory

    /// Forgets which node was last found to own namespace `name`: that node did not answer, and
    /// the next use asks anew (and may take the namespace over).
    func forgetOwner(of name: String)

    /// Why no namespace can take writes now, or `nil` when they can: cheap enough for every
    /// probe of `/readyz`.
    func unavailability() async -> String?

    /// Closes what the backend holds beside the namespaces' stores; those are closed first.
    func close() async
}
