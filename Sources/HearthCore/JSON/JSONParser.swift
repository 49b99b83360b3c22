/// A JSON parser that keeps integers exact and records key positions.
///
/// By default it accepts exactly RFC 8259. ``Syntax/rules`` adds the relaxations Firebase accepts
/// in rules files: `//` and `/* */` comments, raw line breaks inside strings, and it refuses
/// duplicate keys. Integers without fraction or exponent that fit in 64 bits become
/// ``Number/int(_:)``; every other number becomes a double. Nesting deeper than
/// ``maximumNesting`` is refused rather than risking the stack.
public struct JSONParser {
    /// Which dialect to accept.
    public enum Syntax: Sendable {
        /// RFC 8259 JSON.
        case strict
        /// JSON with comments and multi-line strings, without duplicate keys: rules files.
        case rules
    }

    /// The deepest nesting of arrays and objects accepted.
    public static let maximumNesting = 512

    private let bytes: [UInt8]
    private let syntax: Syntax
    private var offset = 0
    private var line = 1
    private var lineStart = 0
    private var nesting = 0

    private init(bytes: [UInt8], syntax: Syntax) {
        self.bytes = bytes
        self.syntax = syntax
    }

    /// Parses one JSON value surrounded by optional white space.
    public static func parse(_ bytes: [UInt8], syntax: Syntax = .strict) throws(JSONParseError) -> JSONValue {
        var parser = JSONParser(bytes: bytes, syntax: syntax)
        try parser.skipWhitespace()
        let value = try parser.parseValue()
        try parser.skipWhitespace()
        guard parser.offset == bytes.count else { throw parser.error(.unexpectedCharacter) }
        return value
    }

    /// Parses one JSON value from text.
    public static func parse(_ text: String, syntax: Syntax = .strict) throws(JSONParseError) -> JSONValue {
        try parse(Array(text.utf8), syntax: syntax)
    }

    private var position: SourcePosition {
        SourcePosition(line: line, column: offset - lineStart + 1)
    }

    private func error(_ reason: JSONParseError.Reason) -> JSONParseError {
        JSONParseError(reason: reason, position: position)
    }

    private mutating func skipWhitespace() throws(JSONParseError) {
        while offset < bytes.count {
            switch bytes[offset] {
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\r"):
                offset += 1
            case UInt8(ascii: "\n"):
                advanceLine()
            case UInt8(ascii: "/") where syntax == .rules:
                try skipComment()
            default:
                return
            }
        }
    }

    private mutating func advanceLine() {
        offset += 1
        line += 1
        lineStart = offset
    }

    private mutating func skipComment() throws(JSONParseError) {
        guard offset + 1 < bytes.count else { throw error(.unexpectedCharacter) }
        switch bytes[offset + 1] {
        case UInt8(ascii: "/"):
            while offset < bytes.count, bytes[offset] != UInt8(ascii: "\n") { offset += 1 }
        case UInt8(ascii: "*"):
            offset += 2
            while true {
                guard offset + 1 < bytes.count else { throw error(.unexpectedEnd) }
                if bytes[offset] == UInt8(ascii: "*"), bytes[offset + 1] == UInt8(ascii: "/") {
                    offset += 2
                    return
                }
                if bytes[offset] == UInt8(ascii: "\n") { advanceLine() } else { offset += 1 }
            }
        default:
            throw error(.unexpectedCharacter)
        }
    }

    private mutating func parseValue() throws(JSONParseError) -> JSONValue {
        guard offset < bytes.count else { throw error(.unexpectedEnd) }
        switch bytes[offset] {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"):
            try expectLiteral("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try expectLiteral("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try expectLiteral("null")
            return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try parseNumber())
        default: throw error(.unexpectedCharacter)
        }
    }

    private mutating func expectLiteral(_ literal: StaticString) throws(JSONParseError) {
        let count = literal.utf8CodeUnitCount
        guard offset + count <= bytes.count else { throw error(.unexpectedEnd) }
        for index in 0..<count where bytes[offset + index] != literal.utf8Start[index] {
            throw error(.unexpectedCharacter)
        }
        offset += count
    }

    private mutating func enterNesting() throws(JSONParseError) {
        nesting += 1
        guard nesting <= Self.maximumNesting else { throw error(.tooDeep) }
    }

    private mutating func parseObject() throws(JSONParseError) -> JSONValue {
        try enterNesting()
        offset += 1
        var members: [JSONMember] = []
        try skipWhitespace()
        if offset < bytes.count, bytes[offset] == UInt8(ascii: "}") {
            offset += 1
            nesting -= 1
            return .object(members)
        }
        while true {
            try skipWhitespace()
            guard offset < bytes.count else { throw error(.unexpectedEnd) }
            guard bytes[offset] == UInt8(ascii: "\"") else { throw error(.unexpectedCharacter) }
            let keyPosition = position
            let key = try parseString()
            try skipWhitespace()
            guard offset < bytes.count else { throw error(.unexpectedEnd) }
            guard bytes[offset] == UInt8(ascii: ":") else { throw error(.unexpectedCharacter) }
            offset += 1
            try skipWhitespace()
            let value = try parseValue()
            if syntax == .rules, members.contains(where: { $0.key == key }) {
                throw JSONParseError(reason: .duplicateKey(key), position: keyPosition)
            }
            members.append(JSONMember(key: key, value: value, position: keyPosition))
            try skipWhitespace()
            guard offset < bytes.count else { throw error(.unexpectedEnd) }
            if bytes[offset] == UInt8(ascii: ",") {
                offset += 1
                continue
            }
            guard bytes[offset] == UInt8(ascii: "}") else { throw error(.unexpectedCharacter) }
            offset += 1
            nesting -= 1
            return .object(members)
        }
    }

    private mutating func parseArray() throws(JSONParseError) -> JSONValue {
        try enterNesting()
        offset += 1
        var elements: [JSONValue] = []
        try skipWhitespace()
        if offset < bytes.count, bytes[offset] == UInt8(ascii: "]") {
            offset += 1
            nesting -= 1
            return .array(elements)
        }
        while true {
            try skipWhitespace()
            elements.append(try parseValue())
            try skipWhitespace()
            guard offset < bytes.count else { throw error(.unexpectedEnd) }
            if bytes[offset] == UInt8(ascii: ",") {
                offset += 1
                continue
            }
            guard bytes[offset] == UInt8(ascii: "]") else { throw error(.unexpectedCharacter) }
            offset += 1
            nesting -= 1
            return .array(elements)
        }
    }

    private mutating func parseString() throws(JSONParseError) -> String {
        offset += 1
        let start = offset
        // Fast path: no escapes.
        while offset < bytes.count {
            let byte = bytes[offset]
            if byte == UInt8(ascii: "\"") {
                let string = try decodeUTF8(bytes[start..<offset])
                offset += 1
                return string
            }
            if byte == UInt8(ascii: "\\") { break }
            try checkRawStringByte(byte)
            offset += 1
        }
        var buffer = Array(bytes[start..<offset])
        while offset < bytes.count {
            let byte = bytes[offset]
            switch byte {
            case UInt8(ascii: "\""):
                offset += 1
                return try decodeUTF8(buffer[...])
            case UInt8(ascii: "\\"):
                offset += 1
                try parseEscape(into: &buffer)
            default:
                try checkRawStringByte(byte)
                buffer.append(byte)
                offset += 1
            }
        }
        throw error(.unexpectedEnd)
    }

    /// Control characters may not stand raw in a string, except line breaks in rules files.
    private mutating func checkRawStringByte(_ byte: UInt8) throws(JSONParseError) {
        guard byte < 0x20 else { return }
        guard syntax == .rules, byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\r") || byte == UInt8(ascii: "\t") else {
            throw error(.controlCharacterInString)
        }
        if byte == UInt8(ascii: "\n") {
            line += 1
            lineStart = offset + 1
        }
    }

    private func decodeUTF8(_ slice: ArraySlice<UInt8>) throws(JSONParseError) -> String {
        if #available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *) {
            guard let string = String(validating: slice, as: UTF8.self) else { throw error(.invalidUTF8) }
            return string
        }
        // Older Apple systems: decoding replaces invalid bytes, so a change means invalid input.
        let string = String(decoding: slice, as: UTF8.self)
        guard string.utf8.elementsEqual(slice) else { throw error(.invalidUTF8) }
        return string
    }

    private mutating func parseEscape(into buffer: inout [UInt8]) throws(JSONParseError) {
        guard offset < bytes.count else { throw error(.unexpectedEnd) }
        let byte = bytes[offset]
        offset += 1
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): buffer.append(byte)
        case UInt8(ascii: "b"): buffer.append(0x08)
        case UInt8(ascii: "f"): buffer.append(0x0C)
        case UInt8(ascii: "n"): buffer.append(0x0A)
        case UInt8(ascii: "r"): buffer.append(0x0D)
        case UInt8(ascii: "t"): buffer.append(0x09)
        case UInt8(ascii: "u"):
            var scalarValue = UInt32(try parseHex4())
            if (0xD800..<0xDC00).contains(scalarValue), offset + 1 < bytes.count,
                bytes[offset] == UInt8(ascii: "\\"), bytes[offset + 1] == UInt8(ascii: "u")
            {
                let mark = offset
                offset += 2
                let low = UInt32(try parseHex4())
                if (0xDC00..<0xE000).contains(low) {
                    scalarValue = 0x10000 + ((scalarValue - 0xD800) << 10) + (low - 0xDC00)
                } else {
                    offset = mark
                }
            }
            // Lone surrogates cannot be stored as UTF-8; they become U+FFFD.
            let scalar = Unicode.Scalar(scalarValue) ?? "\u{FFFD}"
            buffer.append(contentsOf: String(Character(scalar)).utf8)
        default:
            throw error(.invalidEscape)
        }
    }

    private mutating func parseHex4() throws(JSONParseError) -> UInt16 {
        guard offset + 4 <= bytes.count else { throw error(.unexpectedEnd) }
        var value: UInt16 = 0
        for _ in 0..<4 {
            let byte = bytes[offset]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw error(.invalidEscape)
            }
            value = value << 4 | UInt16(digit)
            offset += 1
        }
        return value
    }

    private mutating func parseNumber() throws(JSONParseError) -> Number {
        let start = offset
        var isInteger = true
        if bytes[offset] == UInt8(ascii: "-") { offset += 1 }
        guard offset < bytes.count else { throw error(.unexpectedEnd) }
        if bytes[offset] == UInt8(ascii: "0") {
            offset += 1
        } else if isDigit(bytes[offset]) {
            while offset < bytes.count, isDigit(bytes[offset]) { offset += 1 }
        } else {
            throw error(.invalidNumber)
        }
        if offset < bytes.count, bytes[offset] == UInt8(ascii: ".") {
            isInteger = false
            offset += 1
            guard offset < bytes.count, isDigit(bytes[offset]) else { throw error(.invalidNumber) }
            while offset < bytes.count, isDigit(bytes[offset]) { offset += 1 }
        }
        if offset < bytes.count, bytes[offset] == UInt8(ascii: "e") || bytes[offset] == UInt8(ascii: "E") {
            isInteger = false
            offset += 1
            if offset < bytes.count, bytes[offset] == UInt8(ascii: "+") || bytes[offset] == UInt8(ascii: "-") {
                offset += 1
            }
            guard offset < bytes.count, isDigit(bytes[offset]) else { throw error(.invalidNumber) }
            while offset < bytes.count, isDigit(bytes[offset]) { offset += 1 }
        }
        let text = String(decoding: bytes[start..<offset], as: UTF8.self)
        if isInteger, let integer = Int64(text) { return .int(integer) }
        guard let double = Double(text), double.isFinite else { throw error(.invalidNumber) }
        return .double(double)
    }

    private func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }
}

/// Why a JSON text could not be parsed, and where.
public struct JSONParseError: Error, Sendable, Equatable {
    /// What kind of problem was found.
    public enum Reason: Sendable, Equatable {
        case unexpectedCharacter
        case unexpectedEnd
        case invalidNumber
        case invalidEscape
        case invalidUTF8
        case controlCharacterInString
        case tooDeep
        case duplicateKey(String)
    }

    public var reason: Reason
    public var position: SourcePosition
}

extension JSONParseError: CustomStringConvertible {
    /// What is wrong, without the position.
    public var reasonText: String {
        switch reason {
        case .unexpectedCharacter: "unexpected character"
        case .unexpectedEnd: "unexpected end of input"
        case .invalidNumber: "invalid number"
        case .invalidEscape: "invalid escape sequence"
        case .invalidUTF8: "invalid UTF-8"
        case .controlCharacterInString: "control character in string"
        case .tooDeep: "nested too deeply"
        case .duplicateKey(let key): "duplicate key \"\(key)\""
        }
    }

    /// `line 3, column 7: <problem>`.
    public var description: String {
        "line \(position.line), column \(position.column): \(reasonText)"
    }
}
