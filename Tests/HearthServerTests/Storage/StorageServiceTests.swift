import Foundation
import HTTPTypes
import HearthCore
import HearthEdge
import Hummingbird
import HummingbirdTesting
import Testing

@testable import HearthStorageServer
@testable import HearthServer

/// Storage through the v0 API of a live server: listings, overwrites and what survives a
/// restart (spec storage-api §4, §6).
@Suite struct StorageServiceTests {
    static let objects = "/v0/b/demo.appspot.com/o"

    @discardableResult
    static func upload(_ client: some TestClientProtocol, _ name: String, _ body: String) async throws -> TestResponse {
        let response = try await client.request(
            .post, "\(objects)?name=\(PercentEncoding.encode(name))", body, headers: [.contentType: "text/plain"])
        #expect(response.status == .ok, "\(response.text)")
        return response
    }

    static func json(_ response: TestResponse) throws -> JSONValue { try JSONParser.parse(response.text) }

    @Test func listingsMergeItemsAndFoldersInNameOrderAndPageThroughBoth() async throws {
        let server = TestServer()
        defer { server.removeData() }
        try await server.run { client in
            for name in ["l/a", "l/b/1", "l/b/2", "l/c", "l/d/x", "l/e", "l//hidden", "l/f/"] {
                try await Self.upload(client, name, "x")
            }
            var entries: [String] = []
            var token: String?
            var pages = 0
            repeat {
                let page = try Self.json(
                    try await client.request(
                        .get, "\(Self.objects)?prefix=l%2F&delimiter=%2F&maxResults=2" + (token.map { "&pageToken=\($0)" } ?? "")))
                guard case .array(let prefixes)? = page["prefixes"], case .array(let items)? = page["items"] else {
                    Issue.record("no arrays in \(page)")
                    return
                }
                #expect(prefixes.count + items.count <= 2)
                entries += prefixes.compactMap { if case .string(let p) = $0 { p } else { nil } }
                entries += items.compactMap { if case .string(let name)? = $0["name"] { name } else { nil } }
                if case .string(let next)? = page["nextPageToken"] { token = next } else { token = nil }
                pages += 1
            } while token != nil && pages < 10
            // `l//hidden` has an empty segment and is not listed; `l/f/` shows as a folder.
            #expect(entries.sorted() == ["l/a", "l/b/", "l/c", "l/d/", "l/e", "l/f/"])
            #expect(pages == 3)
            let bad = try await client.request(.get, "\(Self.objects)?prefix=l&delimiter=%2F")
            #expect(bad.status == .badRequest)
            #expect(
                bad.text
                    == #"{"error":{"code":400,"message":"The prefix parameter is required to be empty or ends with a single / character."}}"#
            )
        }
    }

    @Test func anOverwriteReplacesTheObjectAndRemovesTheOldBytes() async throws {
        let server = TestServer()
        defer { server.removeData() }
        try await server.run { client in
            let first = try Self.json(try await Self.upload(client, "o/file", "first"))
            let second = try Self.json(try await Self.upload(client, "o/file", "second version"))
            #expect(first["generation"] != second["generation"])
            #expect(second["metageneration"] == .string("1"))
            #expect(first["downloadTokens"] != second["downloadTokens"])
            let download = try await client.request(.get, "\(Self.objects)/o%2Ffile?alt=media")
            #expect(download.text == "second version")
        }
        let blobs = try FileManager.default.subpathsOfDirectory(atPath: server.directory + "/storage/blobs")
            .filter { $0.contains("/") }
        #expect(blobs.count == 1)
    }

    @Test func aBlobNoObjectNamesIsRemovedAtTheNextStart() async throws {
        let server = TestServer()
        defer { server.removeData() }
        try await server.run { client in try await Self.upload(client, "kept", "bytes") }
        let orphan = server.directory + "/storage/blobs/ab/abcdef"
        try FileManager.default.createDirectory(atPath: server.directory + "/storage/blobs/ab", withIntermediateDirectories: true)
        FileManager.default.createFile(atPath: orphan, contents: Data("left by a crash".utf8))
        try await server.run { client in
            let download = try await client.request(.get, "\(Self.objects)/kept?alt=media")
            #expect(download.text == "bytes")
        }
        #expect(!FileManager.default.fileExists(atPath: orphan))
    }

    @Test func aResumableUploadContinuesAfterARestart() async throws {
        let server = TestServer()
        defer { server.removeData() }
        let uploadURL: String = try await server.run { client in
            let start = try await client.request(
                .post, "\(Self.objects)?name=r%2Fdoc", #"{"name":"r/doc","contentType":"text/plain"}"#,
                headers: [
                    .googUploadProtocol: "resumable", .googUploadCommand: "start", .googUploadHeaderContentLength: "10",
                    .contentType: "application/json",
                ])
            #expect(start.headers[.googUploadStatus] == "active")
            let url = try #require(start.headers[.googUploadURL])
            let path = String(url[try #require(url.range(of: "/v0/"))!.lowerBound...])
            let chunk = try await client.request(
                .post, path, "01234", headers: [.googUploadCommand: "upload", .googUploadOffset: "0"])
            #expect(chunk.headers[.googUploadSizeReceived] == "5")
            return path
        }
        try await server.run { client in
            let query = try await client.request(.post, uploadURL, headers: [.googUploadCommand: "query"])
            #expect(query.headers[.googUploadStatus] == "active")
            #expect(query.headers[.googUploadSizeReceived] == "5")
            let finish = try await client.request(
                .post, uploadURL, "56789", headers: [.googUploadCommand: "upload, finalize", .googUploadOffset: "5"])
            #expect(finish.status == .ok)
            #expect(finish.headers[.googUploadStatus] == "final")
            #expect(try Self.json(finish)["size"] == .string("10"))
            #expect(try await client.request(.get, "\(Self.objects)/r%2Fdoc?alt=media").text == "0123456789")
            let again = try await client.request(.post, uploadURL, headers: [.googUploadCommand: "upload", .googUploadOffset: "10"])
            #expect(again.status == .badRequest)
            #expect(again.headers[.googUploadStatus] == "final")
        }
    }

    @Test func aFinalizeShortOfTheDeclaredSizeIsRefused() async throws {
        let server = TestServer()
        defer { server.removeData() }
        try await server.run { client in
            let start = try await client.request(
                .post, "\(Self.objects)?name=short", "{}",
                headers: [.googUploadProtocol: "resumable", .googUploadCommand: "start", .googUploadHeaderContentLength: "10"])
            let url = try #require(start.headers[.googUploadURL])
            let path = String(url[try #require(url.range(of: "/v0/"))!.lowerBound...])
            let finish = try await client.request(
                .post, path, "abc", headers: [.googUploadCommand: "upload, finalize", .googUploadOffset: "0"])
            #expect(finish.status == .badRequest)
            #expect(try await client.request(.get, "\(Self.objects)/short").status == .notFound)
        }
    }
}
