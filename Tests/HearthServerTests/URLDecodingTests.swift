import HearthCore
import HearthEdge
import Testing

@testable import HearthDatabaseServer
@testable import HearthServer

/// How REST URLs are decoded: paths percent-decoded per segment, query strings as HTML forms
/// encode them (`+` is a space).
@Suite struct URLDecodingTests {
    @Test func queryStringsDecodeAsForms() {
        let parameters = QueryString.parameters("orderBy=%22%24key%22&a=1+2&bad=%ZZ+y&empty=&bare&e=%C3%A9&notUTF8=%FF&a=3")
        #expect(
            parameters == [
                "orderBy": "\"$key\"", "a": "3", "bad": "%ZZ y", "empty": "", "bare": "", "e": "é", "notUTF8": "%FF",
            ])
    }

    @Test func pathSegmentsDecodeOneByOne() throws {
        #expect(try RESTTarget.parse("/users/ada%20lovelace/.json") == .data(DatabasePath(["users", "ada lovelace"])))
        #expect(try RESTTarget.parse("/a+b/%C3%A9.json") == .data(DatabasePath(["a+b", "é"])))
        #expect(try RESTTarget.parse("/a/.priority.json") == .data(DatabasePath(writeLocation: "a/.priority")))
        #expect(try RESTTarget.parse("/.settings/rules.json") == .rules)
        #expect(try RESTTarget.parse("/a/b") == .notFound)
        for invalid in ["/a%2Fb.json", "/a%2.json", "/a%ZZ.json", "/%FF.json", "/a.b/c.json", "/a/.priority/b.json"] {
            #expect(throws: RESTError.self, "\(invalid)") { try RESTTarget.parse(invalid) }
        }
    }
}

extension DatabasePath {
    fileprivate init(_ keys: [String]) {
        self.init(validatedKeys: keys.map(ChildKey.init))
    }
}
