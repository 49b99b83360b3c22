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

    public init(pretty: Bool = false, reservingCapacity capacity: Int = 64) {
        self.pretty = pretty
        bytes.reserveCapacity(capacity)
    }

    /// Renders `node` as a complete JSON document.
    public static func render(_ node: Node, _ rendering: JSONRendering) -> [UInt8] {
        var writer = JSONWriter(pretty: rendering.pretty)
        writer.write(node, rendering)
        return writer.bytes
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
        case .string(let string): writeString(string)
        }
    }

    public mutating func write(_ priority: Priority) {
        write(priority.leafValue)
    }

    /// Writes a quoted, escaped JSON string.
    public mutating func writeString(_ string: String) {
        bytes.append(UInt8(ascii: "\""))
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
        bytes.append(UInt8(ascii: "\""))
    }

    // MARK: Containers

    /// Writes an object from members written by `body` through ``writeMember(_:_:)``.
    public mutating func writeObject(_ body: (inout ObjectWriter) -> Void) {
        var object = ObjectWriter(writer: self)
        bytes = []
        body(&object)
        self = object.finish()
    }

    /// Writes the members of one JSON object; handed out by ``JSONWriter/writeObject(_:)``.
    public struct ObjectWriter {
        fileprivate var writer: JSONWriter
        private var isEmpty = true

        fileprivate init(writer: JSONWriter) {
            self.writer = writer
            self.writer.bytes.append(UInt8(ascii: "{"))
            self.writer.indentation += 1
        }

        /// Writes `"key":` and then the value written by `value`.
        public mutating func writeMember(_ key: String, _ value: (inout JSONWriter) -> Void) {
            if !isEmpty { writer.bytes.append(UInt8(ascii: ",")) }
            isEmpty = false
            writer.newline()
            writer.writeString(key)
            writer.writeRaw(writer.pretty ? " : " : ":")
            value(&writer)
        }

        fileprivate consuming func finish() -> JSONWriter {
            writer.indentation -= 1
            if isEmpty {
                writer.writeRaw(writer.pretty ? " }" : "}")
            } else {
                writer.newline()
                writer.bytes.append(UInt8(ascii: "}"))
            }
            return writer
        }
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
        case .string(let string): writeString(string)
        case .array(let elements):
            bytes.append(UInt8(ascii: "["))
            for (index, element) in elements.enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                if pretty { bytes.append(UInt8(ascii: " ")) }
                write(element)
            }
            if pretty && !elements.isEmpty { bytes.append(UInt8(ascii: " ")) }
            bytes.append(UInt8(ascii: "]"))
        case .object(let members):
            writeObject { object in
                for member in members {
                    object.writeMember(member.key) { $0.write(member.value) }
                }
            }
        }
    }

    /// Renders a JSON document as text.
    public static func string(_ json: JSONValue, pretty: Bool = false) -> String {
        var writer = JSONWriter(pretty: pretty)
        writer.write(json)
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    // MARK: Nodes

    /// Writes `node` rendered as `rendering` says (its `pretty` is this writer's).
    public mutating func write(_ node: Node, _ rendering: JSONRendering) {
        switch node {
        case .null:
            writeNull()
        case .leaf(let value, let priority):
            if rendering.export, let priority {
                writeObject { object in
                    object.writeMember(".value") { $0.write(value) }
                    object.writeMember(".priority") { $0.write(priority) }
                }
            } else {
                write(value)
            }
        case .object(let children, let priority):
            if rendering.arrays, !rendering.export, let length = ArrayRendering.arrayLength(of: children) {
                writeArray(children, length: length, rendering)
                return
            }
            writeObject { object in
                for (key, child) in children {
                    object.writeMember(key.string) { $0.write(child, rendering) }
                }
                if rendering.export, let priority {
                    object.writeMember(".priority") { $0.write(priority) }
                }
            }
        }
    }

    private mutating func writeArray(_ children: ChildMap, length: Int, _ rendering: JSONRendering) {
        bytes.append(UInt8(ascii: "["))
        var iterator = children.makeIterator()
        var pending = iterator.next()
        for index in 0..<length {
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
