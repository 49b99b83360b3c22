import Foundation
import HearthCore
import Testing

@testable import HearthDatabase

/// Values as apps see them and as they write them, the Firebase Apple SDK's way.
@Suite struct FoundationValueTests {
    private func node(_ json: String) throws -> Node {
        try NodeBuilder(timestamp: 0).build(try JSONParser.parse(json), at: .root, existing: .null)
    }

    @Test func snapshotsGiveFoundationValues() throws {
        let value = FoundationValue.plain(try node(#"{"name":"Ada","age":36,"score":2.5,"admin":true}"#))
        let dictionary = try #require(value as? [String: Any])
        #expect(dictionary["name"] as? String == "Ada")
        #expect(dictionary["age"] as? Int == 36)
        #expect(dictionary["score"] as? Double == 2.5)
        #expect(dictionary["admin"] as? Bool == true)
        #expect(FoundationValue.plain(.null) is NSNull)
        #expect(value as? NSDictionary != nil)
    }

    @Test func objectsWithIntegerKeysBecomeArraysWhenDenseEnough() throws {
        let dense = FoundationValue.plain(try node(#"{"0":"a","1":"b","3":"d"}"#)) as? [Any]
        #expect(dense?.count == 4)
        #expect(dense?[0] as? String == "a")
        #expect(dense?[2] is NSNull)
        // Too sparse, a leading zero, or a negative key: an object.
        #expect(FoundationValue.plain(try node(#"{"0":"a","9":"b"}"#)) is [String: Any])
        #expect(FoundationValue.plain(try node(#"{"0":"a","01":"b"}"#)) is [String: Any])
        #expect(FoundationValue.plain(try node(#"{"-1":"a","0":"b"}"#)) is [String: Any])
    }

    @Test func exportFormatKeepsPriorities() throws {
        let exported = FoundationValue.export(try node(#"{"a":{".value":1,".priority":"p"},".priority":5}"#)) as? [String: Any]
        let child = exported?["a"] as? [String: Any]
        #expect(child?[".value"] as? Int == 1)
        #expect(child?[".priority"] as? String == "p")
        #expect(exported?[".priority"] as? Int == 5)
    }

    @Test func writesAcceptWhatFirebaseAcceptsAndRefuseTheRest() throws {
        let value: [String: Any] = [
            "flag": true, "count": 3, "ratio": 0.25, "whole": 2.0, "name": "x", "nothing": NSNull(), "list": ["a", 1],
            "nested": ["deep": false],
        ]
        let json = try FoundationValue.json(value)
        #expect(json["flag"] == .bool(true))
        #expect(json["count"] == .number(.int(3)))
        #expect(json["ratio"] == .number(.double(0.25)))
        #expect(json["whole"] == .number(.int(2)))
        #expect(json["nothing"] == .null)
        #expect(json["list"] == .object([JSONMember(key: "0", value: .string("a")), JSONMember(key: "1", value: .number(.int(1)))]))
        #expect(json["nested"]?["deep"] == .bool(false))
        #expect(try FoundationValue.json(NSNumber(value: false)) == .bool(false))
        #expect(try FoundationValue.json(nil) == .null)
        #expect(throws: FoundationValueError.self) { try FoundationValue.json(Date()) }
    }
}
