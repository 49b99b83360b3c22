import Foundation

/// An RFC 4180 reader that takes a file a chunk at a time, so that a file of any size is read in
/// little memory (or text already in memory). Quoted fields may hold commas, doubled quotes and line breaks; lines end in
/// LF, CRLF or CR; blank lines are skipped. Blanks before an opening or after a closing quote
/// are allowed, as in hand-edited files.
package struct CSVReader {
    /// One record and the line it starts on.
    package struct Record {
        package let line: Int
        package let fields: [String]
    }

    /// The file read a chunk at a time; `nil` for text in memory, all of it in the buffer.
    private let handle: FileHandle?
    private var buffer: [UInt8] = []
    private var position = 0
    private var line = 1
    /// Bytes taken from the file so far (for a progress bar).
    package private(set) var bytesRead = 0

    package init(path: String) throws(UserFileError) {
        guard let handle = FileHandle(forReadingAtPath: path) else { throw .unreadable(path: path) }
        self.handle = handle
        try skipByteOrderMark()
    }

    package init(bytes: [UInt8]) {
        handle = nil
        buffer = bytes
        // Text in memory is never read from a file, so this cannot throw.
        try? skipByteOrderMark()
    }

    private mutating func skipByteOrderMark() throws(UserFileError) {
        if try peek() != nil, buffer.starts(with: [0xEF, 0xBB, 0xBF]) {
            position = 3
            bytesRead = 3
        }
    }

    /// The next record, or `nil` at the end of the file.
    package mutating func next() throws(UserFileError) -> Record? {
        while let byte = try peek(), byte == .lineFeed || byte == .carriageReturn { try endLine() }
        guard try peek() != nil else { return nil }
        let start = line
        var fields: [String] = []
        while true {
            fields.append(try field())
            switch try peek() {
            case .comma?: advance()
            case nil: return Record(line: start, fields: fields)
            default:
                try endLine()
                return Record(line: start, fields: fields)
            }
        }
    }

    /// One field, up to (not including) the comma or line break after it.
    private mutating func field() throws(UserFileError) -> String {
        var bytes: [UInt8] = []
        while let byte = try peek(), byte == .space || byte == .tab {
            bytes.append(byte)
            advance()
        }
        guard try peek() == .quote else {
            while let byte = try peek(), byte != .comma, byte != .lineFeed, byte != .carriageReturn {
                bytes.append(byte)
                advance()
            }
            return String(decoding: bytes, as: UTF8.self)
        }
        let opening = line
        bytes = []
        advance()
        while true {
            guard let byte = try peek() else {
                throw .malformedCSV(line: opening, reason: "a quoted field is not closed")
            }
            advance()
            if byte == .quote {
                guard try peek() == .quote else { break }
                advance()
            } else if byte == .lineFeed {
                line += 1
            } else if byte == .carriageReturn, try peek() != .lineFeed {
                line += 1
            }
            bytes.append(byte)
        }
        while let byte = try peek(), byte == .space || byte == .tab { advance() }
        if let byte = try peek(), byte != .comma, byte != .lineFeed, byte != .carriageReturn {
            throw .malformedCSV(line: line, reason: "text follows the closing quote of a field")
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Takes one line break (LF, CRLF or CR).
    private mutating func endLine() throws(UserFileError) {
        let byte = try peek()
        advance()
        if byte == .carriageReturn, try peek() == .lineFeed { advance() }
        line += 1
    }

    /// The next byte without taking it; reads the next chunk of the file when needed.
    private mutating func peek() throws(UserFileError) -> UInt8? {
        if position == buffer.count {
            guard let handle else { return nil }
            let chunk: Data?
            do {
                chunk = try handle.read(upToCount: 1 << 16)
            } catch {
                throw .malformedCSV(line: line, reason: "the file could not be read: \(error)")
            }
            guard let chunk, !chunk.isEmpty else { return nil }
            buffer = [UInt8](chunk)
            position = 0
        }
        return buffer[position]
    }

    private mutating func advance() {
        position += 1
        bytesRead += 1
    }
}

/// Writes CSV fields: quoted, with quotes doubled, when they hold a comma, a quote or a line
/// break, so that ``CSVReader`` reads them back unchanged.
package enum CSVField {
    package static func encode(_ value: String, alwaysQuoted: Bool = false) -> String {
        guard alwaysQuoted || value.contains(where: { $0 == "," || $0 == "\"" || $0.isNewline }) else { return value }
        return "\"\(value.replacingOccurrences(of: "\"", with: "\"\""))\""
    }
}

extension UInt8 {
    fileprivate static let comma = UInt8(ascii: ",")
    fileprivate static let quote = UInt8(ascii: "\"")
    fileprivate static let lineFeed = UInt8(ascii: "\n")
    fileprivate static let carriageReturn = UInt8(ascii: "\r")
    fileprivate static let space = UInt8(ascii: " ")
    fileprivate static let tab = UInt8(ascii: "\t")
}
