import HearthCore

/// The admin API's changes of the catalog: each is validated against the whole catalog, stored,
/// then put in force; a refused one changes nothing.
extension AdsService {
    /// Every record of kind `Record`, by id.
    func list<Record: CatalogRecord>(_ type: Record.Type) -> [Record] {
        Record.all(in: currentCatalog).values.sorted { $0.id < $1.id }
    }

    func get<Record: CatalogRecord>(_ type: Record.Type, id: String) throws(AdsError) -> Record {
        guard let record = Record.all(in: currentCatalog)[id] else { throw .notFound(kind: Record.kind, id: id) }
        return record
    }

    /// Creates a record from `body`; the record created, with its id.
    func create<Record: CatalogRecord>(_ type: Record.Type, from body: [UInt8]) async throws -> Record {
        try await change { catalog in
            let id = Record.serverAssignsID ? AdsService.randomID() : nil
            let record = try AdsJSON.decode(
                Record.self, from: body, shape: Record.shape, over: Record.defaults,
                fixed: id.map { [JSONMember(key: Record.idField, value: .string($0))] } ?? [])
            guard Record.all(in: catalog)[record.id] == nil else { throw AdsError.alreadyExists(record.id) }
            return try await self.save(record, in: catalog)
        }
    }

    /// Changes the fields `body` names of record `id`; the record as changed.
    func update<Record: CatalogRecord>(_ type: Record.Type, id: String, from body: [UInt8]) async throws -> Record {
        try await change { catalog in
            guard let stored = Record.all(in: catalog)[id] else { throw AdsError.notFound(kind: Record.kind, id: id) }
            let record = try AdsJSON.decode(
                Record.self, from: body, shape: .object(Record.shape.fields.filter { $0.key != Record.idField }),
                over: AdsJSON.members(of: stored), fixed: [JSONMember(key: Record.idField, value: .string(stored.id))])
            let users = Record.isFixedWhileUsed && record != stored ? Record.users(of: id, in: catalog) : []
            guard users.isEmpty else { throw AdsError.inUse(id: id, campaigns: users) }
            return try await self.save(record, in: catalog)
        }
    }

    /// Removes record `id`, unless a campaign names it.
    func delete<Record: CatalogRecord>(_ type: Record.Type, id: String) async throws {
        try await change { catalog in
            guard Record.all(in: catalog)[id] != nil else { throw AdsError.notFound(kind: Record.kind, id: id) }
            let users = Record.users(of: id, in: catalog)
            guard users.isEmpty else { throw AdsError.inUse(id: id, campaigns: users) }
            try await self.store.delete(id: id, from: Record.table)
            var changed = catalog
            Record.remove(id, from: &changed)
            return (changed, ())
        }
    }

    /// Validates `record` against `catalog` with it in, stores it, and gives the catalog with it.
    private func save<Record: CatalogRecord>(_ record: Record, in catalog: AdCatalog) async throws -> (AdCatalog, Record) {
        var changed = catalog
        Record.put(record, in: &changed)
        try record.validate(in: changed)
        try await store.put(record, id: record.id, in: Record.table)
        return (changed, record)
    }
}
