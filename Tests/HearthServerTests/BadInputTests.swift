import HearthCore
import Hummingbird
import HummingbirdTesting
import Testing

@testable import HearthDatabaseServer
@testable import HearthServer

/// Every bad request gets Firebase's status and error text, and changes nothing.
@Suite struct BadInputTests {
    struct Case: CustomTestStringConvertible, Sendable {
        var method: HTTPRequest.Method
        var uri: String
        var body: String?
        var headers: HTTPFields = [:]
        var status: HTTPResponse.Status = .badRequest
        var error: String

        var testDescription: String { "\(method) \(uri)" }
    }

    static let invalidKeyText = "Key value can't be empty or contain $ # [ ] / or ."
    static let orderByMissing = "orderBy must be defined when other query parameters are defined"

    static let cases: [Case] = [
        Case(method: .put, uri: "/a.json", body: "{\"b\":", error: DataError.unparseable.message),
        Case(method: .put, uri: "/a.json", body: "", error: DataError.unparseable.message),
        Case(method: .post, uri: "/a.json", body: "{nope}", error: DataError.unparseable.message),
        Case(method: .patch, uri: "/a.json", body: "[1,", error: DataError.unparseable.message),
        Case(
            method: .put, uri: "/a.json", body: "{\"x\":{\"b.c\":1}}",
            error: "Invalid data; couldn't parse key beginning at 1:7. \(invalidKeyText)"),
        Case(
            method: .put, uri: "/a.json", body: "{\n \"ok\": 1,\n \"$x\": 2}",
            error: "Invalid data; couldn't parse key beginning at 3:2. \(invalidKeyText)"),
        Case(
            method: .patch, uri: "/a.json", body: "{\"b#\":1}",
            error: "Invalid data; couldn't parse key beginning at 1:2. \(invalidKeyText)"),
        Case(method: .put, uri: "/a.b.json", body: "1", error: "Invalid path: Invalid token in path"),
        Case(method: .put, uri: "/a/x.json.json", body: "1", error: "Invalid path: Invalid token in path"),
        Case(method: .put, uri: "/a%24b.json", body: "1", error: "Invalid path: Invalid token in path"),
        Case(method: .put, uri: "/a%5Bb.json", body: "1", error: "Invalid path: Invalid token in path"),
        Case(method: .put, uri: "/a%01.json", body: "1", error: "Invalid path: Invalid token in path"),
        Case(method: .get, uri: "/a%23.json", error: "Invalid path: Invalid token in path"),
        Case(
            method: .put, uri: "/" + (1...33).map(String.init).joined(separator: "/") + ".json", body: "1",
            error: "Invalid path: Invalid token in path"),
        Case(
            method: .put, uri: "/" + (1...31).map(String.init).joined(separator: "/") + ".json", body: "{\"a\":{\"b\":1}}",
            error: DataError.tooDeep.message),
        Case(method: .put, uri: "/a.json", body: "\"" + String(repeating: "x", count: 2_000) + "\"", error: DataError.tooBig.message),
        Case(method: .put, uri: "/a.json", body: "{\".sv\":\"yesterday\"}", error: DataError.invalidServerValue.message),
        Case(method: .put, uri: "/a.json", body: "{\".priority\":{},\"b\":1}", error: DataError.invalidPriority.message),
        Case(method: .put, uri: "/a.json", body: "{\".value\":1,\"b\":1}", error: DataError.invalidValueWrapper.message),
        Case(method: .patch, uri: "/a.json", body: "5", error: DataError.unparseable.message),
        Case(method: .patch, uri: "/a.json", body: "{\"b\":1,\"b/c\":2}", error: DatabaseError.overlappingUpdatePaths.message),
        Case(method: .get, uri: "/a.json?limitToFirst=1", error: orderByMissing),
        Case(method: .get, uri: "/a.json?startAt=1", error: orderByMissing),
        Case(method: .get, uri: "/a.json?orderBy=b", error: "orderBy must be a valid JSON encoded path"),
        Case(method: .get, uri: "/a.json?orderBy=%22a.b%22", error: "orderBy must be a valid JSON encoded path"),
        Case(
            method: .get, uri: "/a.json?orderBy=%22$key%22&startAt=me@example.com", error: "Constraint index field must be a JSON primitive"
        ),
        Case(method: .get, uri: "/a.json?orderBy=%22$key%22&startAt=%7B%7D", error: "Constraint index field must be a JSON primitive"),
        Case(method: .get, uri: "/a.json?orderBy=%22$key%22&startAt=0", error: "Provided key index type is invalid, must be string"),
        Case(
            method: .get, uri: "/a.json?orderBy=%22$priority%22&startAt=1,%22a.b%22", error: "Constraint key field must be a valid key name"
        ),
        Case(
            method: .get, uri: "/a.json?orderBy=%22b%22", error: "Index not defined, add \".indexOn\": \"b\", for path \"/a\", to the rules"
        ),
        Case(
            method: .get, uri: "/a.json?orderBy=%22$value%22",
            error: "Index not defined, add \".indexOn\": \".value\", for path \"/a\", to the rules"),
        Case(method: .get, uri: "/a.json?orderBy=%22$key%22&limitToFirst=0", error: "limitToFirst must be a positive integer"),
        Case(method: .get, uri: "/a.json?orderBy=%22$key%22&limitToLast=x", error: "limitToLast must be a positive integer"),
        Case(
            method: .get, uri: "/a.json?orderBy=%22$key%22&limitToFirst=1&limitToLast=1",
            error: "Only one of limitToFirst and limitToLast may be given"),
        Case(
            method: .get, uri: "/a.json?shallow=true&orderBy=%22$key%22", error: "Mixing 'shallow' and querying parameters is not supported"
        ),
        Case(method: .get, uri: "/a.json?shallow=true&startAt=1", error: "Mixing 'shallow' and querying parameters is not supported"),
        Case(method: .get, uri: "/a.json?print=loud", error: "print must be pretty or silent, not loud"),
        Case(method: .get, uri: "/a.json?format=xml", error: "format must be export, not xml"),
        Case(method: .get, uri: "/a.json?timeout=forever", error: "timeout must be a positive duration in ms, s or min of at most 15min"),
        Case(method: .get, uri: "/a.json?timeout=16min", error: "timeout must be a positive duration in ms, s or min of at most 15min"),
        Case(method: .get, uri: "/a.json", body: "{\"x\":1}", error: "A GET request may not carry a body."),
        Case(method: .head, uri: "/a.json", status: .methodNotAllowed, error: "Method not allowed: use GET, PUT, POST, PATCH or DELETE."),
        Case(
            method: .post, uri: "/a.json", headers: [.methodOverride: "TRACE"], status: .methodNotAllowed,
            error: "Method not allowed: TRACE cannot override POST."),
        Case(
            method: .put, uri: "/a.json?ns=bad.name", body: "1",
            error: "Invalid namespace \"bad.name\": use letters, digits, '-' and '_' only."),
        Case(method: .put, uri: "/a.json", body: "5", headers: [.ifMatch: "not-an-etag"], status: .preconditionFailed, error: ""),
    ]

    @Test(arguments: cases)
    func refusedAndNothingChanges(_ bad: Case) async throws {
        let server = TestServer { $0.maximumRESTWriteBytes = 1_024 }
        defer { server.removeData() }
        try await server.run { client in
            let original = "{\"a\":{\"b\":1,\"c\":[1,2]},\"z\":\"keep\"}"
            try await client.request(.put, "/.json", original)
            let before = try await client.request(.get, "/.json?format=export").text
            let response = try await client.request(bad.method, bad.uri, bad.body, headers: bad.headers)
            #expect(response.status == bad.status)
            if bad.status == .preconditionFailed {
                #expect(response.text == "{\"b\":1,\"c\":[1,2]}")
            } else if bad.method != .head {
                #expect(response.text == errorBody(bad.error))
            }
            #expect(try await client.request(.get, "/.json?format=export").text == before)
        }
    }

    @Test func aStringOverTenMegabytesIsRefused() async throws {
        let server = TestServer()
        defer { server.removeData() }
        try await server.run { client in
            let body = "\"" + String(repeating: "x", count: 10 * 1024 * 1024 + 1) + "\""
            let response = try await client.request(.put, "/big.json", body)
            #expect(response.status == .badRequest)
            #expect(response.text == errorBody(DataError.stringTooLong.message))
            #expect(try await client.request(.get, "/big.json").text == "null")
        }
    }
}
