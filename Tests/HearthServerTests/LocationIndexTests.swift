import HearthCore
import NIOCore
import Testing

@testable import HearthDatabaseServer
@testable import HearthServer

/// The location index finds exactly the listen groups a write's paths touch.
@Suite struct LocationIndexTests {
    private struct Format: EventFormat {
        func encode(_ change: ViewChange, location: DatabasePath, query: QueryParams) -> ByteBuffer { ByteBuffer() }
    }

    private func group(_ path: String) throws -> ListenKey {
        ListenKey(location: try DatabasePath(path), query: .all, format: AnyEventFormat(base: Format()), isUnindexed: false)
    }

    /// What a scan of every group would return.
    private func touching(_ paths: [DatabasePath], among groups: [ListenKey]) -> Set<ListenKey> {
        Set(groups.filter { group in paths.contains { $0.contains(group.location) || group.location.contains($0) } })
    }

    @Test func findsGroupsAtAboveAndBelowTheWrittenPaths() throws {
        let index = LocationIndex()
        let groups = try ["/", "/a", "/a/b", "/a/b/c", "/a/x", "/d"].map(group)
        for group in groups { index.insert(group) }
        let paths = [try DatabasePath("a/b")]
        #expect(index.groups(touching: paths) == Set(try ["/", "/a", "/a/b", "/a/b/c"].map(group)))
        #expect(index.groups(touching: [try DatabasePath("q/r")]) == [try group("/")])
    }

    @Test func agreesWithAScanOfEveryGroupOnRandomPaths() throws {
        var generator = SystemRandomNumberGenerator()
        func randomPath() -> DatabasePath {
            let depth = Int.random(in: 0...4, using: &generator)
            return DatabasePath(validatedKeys: (0..<depth).map { _ in ChildKey(["a", "b", "c"].randomElement(using: &generator)!) })
        }
        let index = LocationIndex()
        var groups: [ListenKey] = []
        for _ in 0..<60 {
            let group = ListenKey(location: randomPath(), query: .all, format: AnyEventFormat(base: Format()), isUnindexed: false)
            if !groups.contains(group) {
                groups.append(group)
                index.insert(group)
            }
        }
        for removed in groups.prefix(20) { index.remove(removed) }
        let remaining = Array(groups.dropFirst(20))
        for _ in 0..<200 {
            let paths = (0..<Int.random(in: 1...3, using: &generator)).map { _ in randomPath() }
            #expect(index.groups(touching: paths) == touching(paths, among: remaining))
        }
    }
}
