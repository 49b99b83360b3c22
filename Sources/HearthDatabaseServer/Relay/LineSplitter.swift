import NIOCore

/// Cuts a byte stream into lines at `\n`, however its chunks fall.
struct LineSplitter {
    private var partial: [UInt8] = []

    /// The lines `chunk` completes, without their newlines; the rest waits for the next chunk.
    mutating func lines(in chunk: ByteBuffer) -> [[UInt8]] {
        var lines: [[UInt8]] = []
        var rest = chunk.readableBytesView[...]
        while let newline = rest.firstIndex(of: 0x0A) {
            partial.append(contentsOf: rest[..<newline])
            lines.append(partial)
            partial = []
            rest = rest[rest.index(after: newline)...]
        }
        partial.append(contentsOf: rest)
        return lines
    }
}
