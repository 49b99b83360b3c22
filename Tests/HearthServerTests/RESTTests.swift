import Foundation
import HearthCore
import Hummingbird
import HummingbirdTesting
import Testing

@testable import HearthDatabaseServer
@testable import HearthServer

/// The REST API as Firebase documents it (protocol §11, verification list §15 items 22–38).
@Suite struct RESTTests {
    @Test func putGetDeleteAndSilentWrites() async throws {
        let server = TestServer()
        defer { server.removeData() }
        try await server.run { client in
            let put = try await client.request(.put, "/a.json?ns=test", "{\"b\":1}")
            #expect(put.status == .ok)
            #expect(put.text == "{\"b\":1}")
            #expect(put.headers[.contentType] == "application/json; charset=utf-8")
            #expect(put.headers[.cacheControl] == "no-cache")
            let silent = try await client.request(.put, "/a/c.json?ns=test&print=silent", "true")
            #expect(silent.status == .noContent)
            #expect(silent.body.readableBytes == 0)
            #expect(try await client.request(.get, "/a.json?ns=test").text == "{\"b\":1,\"c\":true}")
            #expect(try await client.request(.get, "/missing.json?ns=test").text == "null")
            let delete = try await client.request(.delete, "/a.json?ns=test")
            #expect(delete.status == .ok)
            #expect(delete.text == "null")
            #expect(try await client.request(.get, "/a.json?ns=test").text == "null")
        }
    }

    @Test func namespacesAreSeparateAndTheDefaultIsNamedAfterTheProject() async throws {
        let server = TestServer()
        defer { server.removeData() }
        try await server.run { client in
            try await client.request(.put, "/x.json?ns=one", "1")
            try await client.request(.put, "/x.json", "2")
            #expect(try await client.request(.get, "/x.json?ns=one").text == "1")
            #expect(try await client.request(.get, "/x.json?ns=test-project-default-rtdb").text == "2")
            #expect(try await client.request(.get, "/x.json?ns=").text == "2")
            let list = try await client.request(.get, "/.inspect/databases.json?ns=test-project").text
            #expect(list == "[{\"name\":\"one\"},{\"name\":\"test-project-default-rtdb\"}]")
        }
    }

    @Test func pushCreatesChronologicalIDs() async throws {
        let server = TestServer()
        defer { server.removeData() }
        try await server.run { client in
            let before = Int64(Date().timeIntervalSince1970 * 1000)
            var names: [String] = []
            for value in ["\"x\"", "\"y\"", "\"z\""] {
                let response = try await client.request(.post, "/list.json?ns=test", value)
                #expect(response.status == .ok)
                guard case .string(let name)? = try JSONParser.parse(response.text)["name"] else {
                    Issue.record("no name in \(response.text)")
                    return
                }
                #expect(name.count == 20)
                names.append(name)
            }
            #expect(names == names.sorted())
            // The first eight characters encode the server's clock at the push, in milliseconds.
            let after = Int64(Date().timeIntervalSince1970 * 1000)
            let earliest = String(decoding: PushIDGenerator.timestampPrefix(before), as: UTF8.self)
            let latest = String(decoding: PushIDGenerator.timestampPrefix(after), as: UTF8.self)
            #expect(String(names[0].prefix(8)) >= earliest && String(names[2].prefix(8)) <= latest)
            #expect(try await client.request(.get, "/list/\(names[1]).json?ns=test").text == "\"y\"")
        }
    }

    @Test func patchUpdatesOnlyTheNamedPaths() async throws {
        let server = TestServer()
        defer { server.removeData() }
        try await server.run { client in
            try await client.request(.put, "/u.json?ns=test", "{\"k\":{\"x\":0,\"keep\":1},\"y\":2,\"z\":3}")
            let patch = try await client.request(.patch, "/u.json?ns=test", "{\"k/x\":1,\"y\":null}")
            #expect(patch.status == .ok)
            #expect(patch.text == "{\"k/x\":1,\"y\":null}")
            #expect(try await client.request(.get, "/u.json?ns=test").text == "{\"k\":{\"keep\":1,\"x\":1},\"z\":3}")
            try await client.request(.patch, "/u.json?ns=test", "null")
            #expect(try await client.request(.get, "/u.json?ns=test").text == "null")
        }
    }

    @Test func etagsAndConditionalRequests() async throws {
        let server = TestServer()
        defer { server.removeData() }
        try await server.run { client in
            let missing = try await client.request(.get, "/a.json?ns=test", headers: [.firebaseETag: "true"])
            #expect(missing.headers[.eTag] == "null_etag")
            let created = try await client.request(.put, "/a.json?ns=test", "{\"x\":1}", headers: [.ifMatch: "null_etag"])
            #expect(created.status == .ok)
            #expect(created.headers[.eTag] == "LkoDN24bwRWG2p4jGZoe8M/Acf8=")
            let conflict = try await client.request(.put, "/a.json?ns=test", "5", headers: [.ifMatch: "wrong"])
            #expect(conflict.status == .preconditionFailed)
            #expect(conflict.text == "{\"x\":1}")
            #expect(conflict.headers[.eTag] == "LkoDN24bwRWG2p4jGZoe8M/Acf8=")
            let replaced = try await client.request(.put, "/a.json?ns=test", "5", headers: [.ifMatch: "LkoDN24bwRWG2p4jGZoe8M/Acf8="])
            #expect(replaced.status == .ok)
            #expect(replaced.headers[.eTag] == NodeHash.hash(.value(.number(.int(5)))))
            let notModified = try await client.request(.get, "/a.json?ns=test", headers: [.ifNoneMatch: replaced.headers[.eTag]!])
            #expect(notModified.status == .notModified)
            #expect(notModified.body.readableBytes == 0)
            let modified = try await client.request(.get, "/a.json?ns=test", headers: [.ifNoneMatch: "other"])
            #expect(modified.status == .ok)
            #expect(modified.text == "5")
            #expect(modified.headers[.eTag] == replaced.headers[.eTag])
        }
    }

    @Test func shallowExportArraysAndMethodOverride() async throws {
        let server = TestServer()
        defer { server.removeData() }
        try await server.run { client in
            try await client.request(
                .put, "/.json?ns=test",
                "{\"dinosaurs\":{\"a\":1},\"scores\":{\"b\":2},\"leaf\":\"x\",\"arr\":{\"0\":\"a\",\"1\":\"b\"},\"sparse\":{\"0\":\"a\",\"5\":\"b\"},\"p\":{\".value\":1,\".priority\":7}}"
            )
            #expect(
                try await client.request(.get, "/.json?ns=test&shallow=true").text
                    == "{\"arr\":true,\"dinosaurs\":true,\"leaf\":true,\"p\":true,\"scores\":true,\"sparse\":true}")
            #expect(try await client.request(.get, "/leaf.json?ns=test&shallow=true").text == "\"x\"")
            #expect(try await client.request(.get, "/arr.json?ns=test").text == "[\"a\",\"b\"]")
            #expect(try await client.request(.get, "/sparse.json?ns=test").text == "{\"0\":\"a\",\"5\":\"b\"}")
            #expect(try await client.request(.get, "/p.json?ns=test").text == "1")
            #expect(try await client.request(.get, "/p.json?ns=test&format=export").text == "{\".value\":1,\".priority\":7}")
            #expect(try await client.request(.get, "/.json?ns=test&shallow=true&limitToFirst=1").text == "{\"arr\":true}")
            let override = try await client.request(.post, "/leaf.json?ns=test", headers: [.methodOverride: "DELETE"])
            #expect(override.status == .ok)
            #expect(try await client.request(.get, "/leaf.json?ns=test").text == "null")
            try await client.request(.post, "/arr.json?ns=test&x-http-method-override=PUT", "7")
            #expect(try await client.request(.get, "/arr.json?ns=test").text == "7")
            #expect(try await client.request(.get, "/p.json?ns=test&callback=cb").text == "cb(1);")
            #expect(try await client.request(.get, "/p.json?ns=test&print=pretty").text == "1")
            #expect(try await client.request(.get, "/scores.json?ns=test&print=pretty").text == "{\n  \"b\" : 2\n}")
        }
    }

    @Test func serverValuesResolveOnTheServer() async throws {
        let server = TestServer()
        defer { server.removeData() }
        try await server.run { client in
            let before = Int64(Date().timeIntervalSince1970 * 1000)
            try await client.request(.put, "/t.json?ns=test", "{\".sv\":\"timestamp\"}")
            let after = Int64(Date().timeIntervalSince1970 * 1000)
            let stored = try await client.request(.get, "/t.json?ns=test").text
            #expect(Int64(stored).map { $0 >= before && $0 <= after } == true)
            try await client.request(.put, "/n.json?ns=test", "7")
            try await client.request(.patch, "/.json?ns=test", "{\"n\":{\".sv\":{\"increment\":5}},\"m\":{\".sv\":{\"increment\":2}}}")
            #expect(try await client.request(.get, "/n.json?ns=test").text == "12")
            #expect(try await client.request(.get, "/m.json?ns=test").text == "2")
        }
    }

    @Test func queries() async throws {
        let server = TestServer()
        defer { server.removeData() }
        try await server.run { client in
            try await client.request(.put, "/s.json?ns=test", "{\"a\":{\"v\":3},\"b\":{\"v\":1},\"c\":{\"v\":2}}")
            let unindexed = try await client.request(.get, "/s.json?ns=test&orderBy=%22v%22")
            #expect(unindexed.status == .badRequest)
            #expect(unindexed.text == errorBody("Index not defined, add \".indexOn\": \"v\", for path \"/s\", to the rules"))
            let rules = "{\"rules\":{\".read\":true,\".write\":true,\"s\":{\".indexOn\":[\"v\",\".value\"]}}}"
            #expect(
                try await client.request(.put, "/.settings/rules.json?ns=test", rules, headers: [.authorization: "Bearer owner"]).status
                    == .ok)
            #expect(
                try await client.request(.get, "/s.json?ns=test&orderBy=%22v%22&limitToLast=2").text == "{\"a\":{\"v\":3},\"c\":{\"v\":2}}")
            #expect(try await client.request(.get, "/s.json?ns=test&orderBy=%22v%22&equalTo=1").text == "{\"b\":{\"v\":1}}")
            #expect(try await client.request(.get, "/s.json?ns=test&orderBy=%22v%22&startAfter=1&endBefore=3").text == "{\"c\":{\"v\":2}}")
            #expect(
                try await client.request(.get, "/s.json?ns=test&orderBy=%22$key%22&startAt=%22b%22&limitToFirst=1").text
                    == "{\"b\":{\"v\":1}}")
            #expect(try await client.request(.get, "/s.json?ns=test&orderBy=%22$priority%22&limitToFirst=1").text == "{\"a\":{\"v\":3}}")
            try await client.request(.put, "/s/b/v.json?ns=test", "10")
            #expect(try await client.request(.get, "/s.json?ns=test&orderBy=%22v%22&limitToLast=1").text == "{\"b\":{\"v\":10}}")
            try await client.request(.put, "/s/a.json?ns=test", "null")
            #expect(
                try await client.request(.get, "/s.json?ns=test&orderBy=%22v%22&limitToFirst=5").text
                    == "{\"b\":{\"v\":10},\"c\":{\"v\":2}}")
            #expect(
                try await client.request(.get, "/s.json?ns=test&orderBy=%22v%22&startAt=2,%22c%22").text
                    == "{\"b\":{\"v\":10},\"c\":{\"v\":2}}")
        }
    }

    @Test func rulesDocumentKeepsCommentsAndRequiresACredential() async throws {
        let server = TestServer()
        defer { server.removeData() }
        try await server.run { client in
            let owner: HTTPFields = [.authorization: "Bearer owner"]
            let open = try await client.request(.get, "/.settings/rules.json?ns=test&format=strict", headers: owner)
            #expect(try JSONParser.parse(open.text) == JSONParser.parse("{\"rules\":{\".read\":true,\".write\":true}}"))
            let source = "{\n  // comment\n  \"rules\": {\n    \".read\": true, /* block */\n    \".write\": \"auth != null\"\n  }\n}"
            #expect(try await client.request(.put, "/.settings/rules.json?ns=test", source, headers: owner).status == .ok)
            #expect(try await client.request(.get, "/.settings/rules.json?ns=test", headers: owner).text == source)
            let strict = try await client.request(.get, "/.settings/rules.json?ns=test&format=strict", headers: owner).text
            #expect(try JSONParser.parse(strict) == JSONParser.parse("{\"rules\":{\".read\":true,\".write\":\"auth != null\"}}"))
            let broken = try await client.request(.put, "/.settings/rules.json?ns=test", "{\"rules\": {\".read\": }}", headers: owner)
            #expect(broken.status == .badRequest)
            #expect(broken.text.contains("Line 1"))
            let unknownRule = try await client.request(
                .put, "/.settings/rules.json?ns=test", "{\"rules\":{\".reed\":true}}", headers: owner)
            #expect(unknownRule.status == .badRequest)
            #expect(try await client.request(.get, "/.settings/rules.json?ns=test", headers: owner).text == source)
            let anonymous = try await client.request(.get, "/.settings/rules.json?ns=test")
            #expect(anonymous.status == .unauthorized)
            #expect(anonymous.text == errorBody("Permission denied"))
        }
    }
}
