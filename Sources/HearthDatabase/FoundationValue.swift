import Foundation
import HearthCore

/// Database values as the Firebase Apple SDK hands them to apps: `String`, `NSNumber` (booleans
/// included), `[String: Any]`, `[Any]` for array-like objects, and `NSNull` for nothing; so that
/// `snapshot.value as? [String: Any]`, `as? NSDictionary` and `as? Int` work as they do with
/// Firebase.
enum FoundationValue {
    /// `node` without priorities (`DataSnapshot.value`); `NSNull` when it holds nothing.
    ///
    /// An object whose keys are all integers, where the largest is less than twice their number,
    /// becomes an array with `NSNull` in the gaps, as Firebase's SDKs render such objects.
    static func plain(_ node: Node) -> Any {
        switch node {
        case .null: return NSNull()
        case .leaf(let value, _): return leaf(value)
        case .object(let children, _):
            if let array = array(children) { return array }
            var dictionary: [String: Any] = [:]
            for (key, child) in children { dictionary[key.string] = plain(child) }
            return dictionary
        }
    }

    /// `node` with its priorities (`DataSnapshot.valueInExportFormat()`): a leaf with a priority is
    /// `{".value": v, ".priority": p}`, an object carries `.priority` beside its children.
    static func export(_ node: Node) -> Any {
        switch node {
        case .null: return NSNull()
        case .leaf(let value, let priority):
            guard let priority else { return leaf(value) }
            return [".value": leaf(value), ".priority": leaf(priority.leafValue)] as [String: Any]
        case .object(let children, let priority):
            var dictionary: [String: Any] = [:]
            for (key, child) in children { dictionary[key.string] = export(child) }
            if let priority { dictionary[".priority"] = leaf(priority.leafValue) }
            return dictionary
        }
    }

    /// A priority as the SDK reports it (`DataSnapshot.priority`): `NSNumber`, `String` or `NSNull`.
    static func priority(_ priority: Priority?) -> Any {
        priority.map { leaf($0.leafValue) } ?? NSNull()
    }

    private static func leaf(_ value: LeafValue) -> Any {
        switch value {
        case .bool(let flag): NSNumber(value: flag)
        case .number(.int(let integer)): NSNumber(value: integer)
        case .number(.double(let double)): NSNumber(value: double)
        case .string(let text): text
        }
    }

    private static func array(_ children: ChildMap) -> [Any]? {
        var largest = -1
        for (key, _) in children {
            guard let index = key.integerValue, index >= 0, String(index) == key.string else { return nil }
            largest = max(largest, Int(index))
        }
        guard largest >= 0, largest < 2 * children.count else { return nil }
        var array = [Any](repeating: NSNull(), count: largest + 1)
        for (key, child) in children { array[Int(key.integerValue!)] = plain(child) }
        return array
    }

    /// The JSON a write sends for `value` (what `setValue` accepts): `NSNull`/`nil`, booleans,
    /// numbers, strings, dictionaries with string keys and arrays (sent as objects keyed by index),
    /// nested. Anything else is refused with Firebase's message.
    static func json(_ value: Any?) throws(FoundationValueError) -> JSONValue {
        guard let value else { return .null }
        switch value {
        case is NSNull: return .null
        case let text as String: return .string(text)
        case let flag as Bool where type(of: value) == Bool.self: return .bool(flag)
        case let number as NSNumber: return number.isBoolean ? .bool(number.boolValue) : .number(Self.number(number))
        case let dictionary as [String: Any]:
            var members: [JSONMember] = []
            for (key, child) in dictionary.sorted(by: { $0.key < $1.key }) {
                members.append(JSONMember(key: key, value: try json(child)))
            }
            return .object(members)
        case let array as [Any]:
            var members: [JSONMember] = []
            for (index, child) in array.enumerated() { members.append(JSONMember(key: String(index), value: try json(child))) }
            return .object(members)
        default:
            throw .unsupportedType(String(describing: type(of: value)))
        }
    }

    /// Whole numbers go as integers (as Firebase's SDKs serialise them); others as doubles.
    static func number(_ number: NSNumber) -> Number {
        let type = String(cString: number.objCType)
        if type == "d" || type == "f" {
            let double = number.doubleValue
            if double.rounded() == double, abs(double) < 9_007_199_254_740_992 { return .int(Int64(double)) }
            return .double(double)
        }
        if type == "Q", number.uint64Value > UInt64(Int64.max) { return .double(number.doubleValue) }
        return .int(number.int64Value)
    }
}

/// Why a value cannot be written.
enum FoundationValueError: Error, Equatable, CustomStringConvertible {
    /// A value of a type the database cannot store (`Date`, a custom class, …).
    case unsupportedType(String)

    var description: String {
        switch self {
        case .unsupportedType(let type):
            "Cannot store object of type \(type). Can only store objects of type NSNumber, NSString, NSDictionary, and NSArray."
        }
    }
}

extension NSNumber {
    /// Whether the number was made from a `Bool` (booleans are numbers to Foundation).
    var isBoolean: Bool {
        #if canImport(Darwin)
            CFGetTypeID(self) == CFBooleanGetTypeID()
        #else
            // swift-corelibs-foundation stores small integers with other types: only booleans are `c`.
            String(cString: objCType) == "c"
        #endif
    }
}
