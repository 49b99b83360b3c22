/// How a node is rendered as JSON.
public struct JSONRendering: Sendable, Hashable {
    /// Include `.priority` and `.value` wrappers (`format=export`, realtime pushes).
    public var export: Bool
    /// Render objects whose keys are 0…n as arrays, as Firebase's REST GET does.
    public var arrays: Bool
    /// Indent like Firebase's `print=pretty`: two spaces, `" : "` between key and value.
    public var pretty: Bool

    public init(export: Bool, arrays: Bool, pretty: Bool = false) {
        self.export = export
        self.arrays = arrays
        self.pretty = pretty
    }

    /// Priorities included, no arrays, compact: what realtime clients receive.
    public static let export = JSONRendering(export: true, arrays: false)
    /// Plain values with arrays, compact: REST's default output.
    public static let plain = JSONRendering(export: false, arrays: true)
}

/// Builds JSON text into a byte buffer.
public struct JSONWriter: Sendable {
    public private(set) var bytes: [UInt8] = []
    private let pretty: Bool
    private var indentation = 0
    /// Past this many bytes, node rendering stops.
    private var byteLimit: Int

    /// A writer; with a `byteLimit`, rendering a node stops soon after the text passes it (see
    /// ``isPastLimit``), so that its cost is bounded by the limit rather than the node's size.
    public init(pretty: Bool = false, reservingCapacity capacity: Int = 64, byteLimit: Int = .max) {
        self.pretty = pretty
        self.byteLimit = byteLimit
        bytes.reserveCapacity(capacity)
    }

    /// Whether the text passed the byte limit: node rendering stopped, the text is cut.
    public var isPastLimit: Bool { bytes.count > byteLimit }

    /// Renders `node` as a complete JSON document.
    public static func render(_ node: Node, _ rendering: JSONRendering) -> [UInt8] {
        var writer = JSONWriter(pretty: rendering.pretty)
        writer.write(node, rendering)
        return writer.bytes
    }

    /// `node` as plain JSON when that takes at most `maximumBytes`, else its first
    /// `maximumBytes` bytes (cut back to a whole character) and `…`. Rendering stops at the
    /// limit, so its cost is bounded by `maximumBytes`, not by the node's size (a denial's
    /// explanation shows a few hundred bytes of a node of any size).
    public static func abbreviation(of node: Node, maximumBytes: Int) -> String {
        var writer = JSONWriter(byteLimit: maximumBytes)
        writer.write(node, JSONRendering(export: false, arrays: false))
        return writer.abbreviated(to: maximumBytes)
    }

    /// `json` abbreviated as ``abbreviation(of:maximumBytes:)`` abbreviates a node.
    public static func abbreviation(of json: JSONValue, maximumBytes: Int) -> String {
        var writer = JSONWriter(byteLimit: maximumBytes)
        writer.write(json)
        return writer.abbreviated(to: maximumBytes)
    }

    private func abbreviated(to maximumBytes: Int) -> String {
        guard bytes.count > maximumBytes else { return String(decoding: bytes, as: UTF8.self) }
        var end = maximumBytes
        // Not inside a multi-byte character: continuation bytes are 0b10xxxxxx.
        while end > 0, bytes[end] & 0xC0 == 0x80 { end -= 1 }
        return String(decoding: bytes[..<end], as: UTF8.self) + "…"
    }

    /// Renders `node` as a string.
    public static func string(_ node: Node, _ rendering: JSONRendering = .export) -> String {
        String(decoding: render(node, rendering), as: UTF8.self)
    }

    public mutating func writeRaw(_ text: String) {
        bytes.append(contentsOf: text.utf8)
    }

    public mutating func writeNull() { writeRaw("null") }

    public mutating func write(_ value: LeafValue) {
        switch value {
        case .bool(let bool): writeRaw(bool ? "true" : "false")
        case .number(let number): writeRaw(number.description)
        case .string(let string): writeString(withinLimit(string))
        }
    }

    /// `string`, or, when it alone would take the text past the byte limit, the part of it that
    /// reaches the limit: a long string is cut before it is escaped.
    private func withinLimit(_ string: String) -> String {
        let room = byteLimit - bytes.count
        guard string.utf8.count > room else { return string }
        return String(decoding: string.utf8.prefix(max(room, 0) + 1), as: UTF8.self)
    }

    public mutating func write(_ priority: Priority) {
        write(priority.leafValue)
    }

    /// Writes a quoted, escaped JSON string.
    public mutating func writeString(_ string: String) {
        bytes.append(UInt8(ascii: "\""))
        writeEscaped(string)
        bytes.append(UInt8(ascii: "\""))
    }

    /// Writes `string` escaped for use inside a JSON string, without quotes: a string can be
    /// written in parts this way without joining them first.
    public mutating func writeEscaped(_ string: String) {
        // Most strings need no escape: copied whole.
        guard string.utf8.contains(where: Self.needsEscape) else {
            bytes.append(contentsOf: string.utf8)
            return
        }
        for byte in string.utf8 {
            switch byte {
            case UInt8(ascii: "\""): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
            case UInt8(ascii: "\\"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
            case 0x0A: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
            case 0x0D: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
            case 0x09: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
            case 0x08: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "b")])
            case 0x0C: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "f")])
            case 0x00..<0x20, 0x7F:
                let hex: [UInt8] = Array("0123456789abcdef".utf8)
                bytes.append(contentsOf: Array("\\u00".utf8))
                bytes.append(hex[Int(byte >> 4)])
                bytes.append(hex[Int(byte & 0xF)])
            default: bytes.append(byte)
            }
        }
    }

    private static func needsEscape(_ byte: UInt8) -> Bool {
        byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte == 0x7F
    }

    // MARK: Containers

    /// An object being written; ``writeKey(_:in:)`` needs it to place commas.
    public struct ObjectScope {
        fileprivate var isEmpty = true
    }

    /// Writes `{` and returns the scope for the object's members.
    public mutating func beginObject() -> ObjectScope {
        bytes.append(UInt8(ascii: "{"))
        indentation += 1
        return ObjectScope()
    }

    /// Writes `"key":` (with the separator before it); the caller then writes the value.
    public mutating func writeKey(_ key: String, in scope: inout ObjectScope) {
        if !scope.isEmpty { bytes.append(UInt8(ascii: ",")) }
        scope.isEmpty = false
        newline()
        writeString(key)
        writeRaw(pretty ? " : " : ":")
    }

    /// Writes the closing `}`.
    public mutating func endObject(_ scope: ObjectScope) {
        indentation -= 1
        if scope.isEmpty {
            writeRaw(pretty ? " }" : "}")
        } else {
            newline()
            bytes.append(UInt8(ascii: "}"))
        }
    }

    /// Writes `{"key": "value"}`.
    public mutating func writeObject(key: String, string value: String) {
        var scope = beginObject()
        writeKey(key, in: &scope)
        writeString(value)
        endObject(scope)
    }

    private mutating func newline() {
        guard pretty else { return }
        bytes.append(0x0A)
        bytes.append(contentsOf: repeatElement(UInt8(ascii: " "), count: indentation * 2))
    }

    /// Writes a parsed JSON document back out.
    public mutating func write(_ json: JSONValue) {
        switch json {
        case .null: writeNull()
        case .bool(let bool): write(LeafValue.bool(bool))
        case .number(let number): write(LeafValue.number(number))
        case .string(let string): writeString(withinLimit(string))
        case .array(let elements):
            bytes.append(UInt8(ascii: "["))
            for (index, element) in elements.enumerated() {
                guard bytes.count <= byteLimit else { return }
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                if pretty { bytes.append(UInt8(ascii: " ")) }
                write(element)
            }
            if pretty && !elements.isEmpty { bytes.append(UInt8(ascii: " ")) }
            bytes.append(UInt8(ascii: "]"))
        case .object(let members):
            var scope = beginObject()
            for member in members {
                guard bytes.count <= byteLimit else { return }
                writeKey(member.key, in: &scope)
                write(member.value)
            }
            endObject(scope)
        }
    }

    /// Renders a JSON document as text.
    public static func string(_ json: JSONValue, pretty: Bool = false) -> String {
        var writer = JSONWriter(pretty: pretty)
        writer.write(json)
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    /// Cuts the text back to its first `count` bytes, undoing what was written since.
    public mutating func truncate(to count: Int) {
        bytes.removeSubrange(count...)
    }

    // MARK: Nodes

    /// Writes `node` when its text takes at most `maximumBytes`, and returns whether it did;
    /// otherwise leaves the text as it was. Rendering stops soon after the limit, so a large
    /// node costs no more than that.
    public mutating func write(_ node: Node, _ rendering: JSONRendering, ifAtMost maximumBytes: Int) -> Bool {
        let start = bytes.count
        let limit = byteLimit
        let (end, overflows) = start.addingReportingOverflow(maximumBytes)
        byteLimit = overflows ? limit : min(limit, end)
        write(node, rendering)
        byteLimit = limit
        guard bytes.count - start > maximumBytes else { return true }
        truncate(to: start)
        return false
    }

    /// Writes `node` rendered as `rendering` says (its `pretty` is this writer's).
    public mutating func write(_ node: Node, _ rendering: JSONRendering) {
        switch node {
        case .null:
            writeNull()
        case .leaf(let value, let priority):
            if rendering.export, let priority {
                var scope = beginObject()
                writeKey(".value", in: &scope)
                write(value)
                writeKey(".priority", in: &scope)
                write(priority)
                endObject(scope)
            } else {
                write(value)
            }
        case .object(let children, let priority):
            if rendering.arrays, !rendering.export, let length = ArrayRendering.arrayLength(of: children) {
                writeArray(children, length: length, rendering)
                return
            }
            var scope = beginObject()
            for (key, child) in children {
                guard bytes.count <= byteLimit else { return }
                writeKey(key.string, in: &scope)
                write(child, rendering)
            }
            if rendering.export, let priority {
                writeKey(".priority", in: &scope)
                write(priority)
            }
            endObject(scope)
        }
    }

    private mutating func writeArray(_ children: ChildMap, length: Int, _ rendering: JSONRendering) {
        bytes.append(UInt8(ascii: "["))
        var iterator = children.makeIterator()
        var pending = iterator.next()
        for index in 0..<length {
            guard bytes.count <= byteLimit else { return }
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            if pretty { bytes.append(UInt8(ascii: " ")) }
            if let entry = pending, entry.key.integerValue == Int32(index) {
                write(entry.value, rendering)
                pending = iterator.next()
            } else {
                writeNull()
            }
        }
        if pretty { bytes.append(UInt8(ascii: " ")) }
        bytes.append(UInt8(ascii: "]"))
    }
}

/// Firebase's rule for showing an object as an array: every key is a canonical non-negative
/// integer (`0` or no leading zero) and the largest is less than twice the number of keys.
public enum ArrayRendering {
    /// The array's length when `children` render as an array, `nil` otherwise.
    public static func arrayLength(of children: ChildMap) -> Int? {
        guard let last = children.last, let maximum = last.key.integerValue, maximum >= 0 else { return nil }
        guard Int(maximum) < 2 * children.count else { return nil }
        for (key, _) in children {
            guard let value = key.integerValue, value >= 0, String(value) == key.string else { return nil }
        }
        return Int(maximum) + 1
    }
}
