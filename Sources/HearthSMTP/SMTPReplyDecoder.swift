import NIOCore

/// Splits the server's byte stream into ``SMTPReply`` values: lines end in CRLF (a bare LF is
/// accepted too), and a reply ends with the line whose code is followed by a space or nothing
/// rather than `-`.
struct SMTPReplyDecoder: ByteToMessageDecoder {
    typealias InboundOut = SMTPReply

    /// Longest line accepted; RFC 5321 allows 512 bytes, servers are known to send more.
    private static let maximumLineLength = 16 * 1024
    /// Most lines accepted in one reply (EHLO answers are the longest, with a line per extension).
    private static let maximumLineCount = 256

    private var pending: SMTPReply?

    mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        guard let newline = buffer.readableBytesView.firstIndex(of: UInt8(ascii: "\n")) else {
            if buffer.readableBytes > Self.maximumLineLength { throw SMTPChannelFailure.malformedReply("a reply line is too long") }
            return .needMoreData
        }
        var line = buffer.readString(length: newline - buffer.readerIndex + 1) ?? ""
        line.removeLast()
        if line.hasSuffix("\r") { line.removeLast() }
        let (code, isLast, text) = try Self.parse(line)
        var reply = pending ?? SMTPReply(code: code, lines: [])
        guard reply.code == code else { throw SMTPChannelFailure.malformedReply("a reply mixes the codes \(reply.code) and \(code)") }
        guard reply.lines.count < Self.maximumLineCount else { throw SMTPChannelFailure.malformedReply("a reply has too many lines") }
        reply.lines.append(text)
        if isLast {
            pending = nil
            context.fireChannelRead(wrapInboundOut(reply))
        } else {
            pending = reply
        }
        return .continue
    }

    mutating func decodeLast(context: ChannelHandlerContext, buffer: inout ByteBuffer, seenEOF: Bool) throws -> DecodingState {
        while try decode(context: context, buffer: &buffer) == .continue {}
        return .needMoreData
    }

    /// `"250-SIZE 1000"` → (250, false, "SIZE 1000").
    private static func parse(_ line: String) throws(SMTPChannelFailure) -> (Int, Bool, String) {
        let bytes = Array(line.utf8)
        guard bytes.count >= 3, bytes[0...2].allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }),
            let code = Int(String(decoding: bytes[0...2], as: UTF8.self)), (200..<600).contains(code)
        else { throw .malformedReply("the line \"\(line.prefix(80))\" does not start with a reply code") }
        if bytes.count == 3 { return (code, true, "") }
        switch bytes[3] {
        case UInt8(ascii: " "): return (code, true, String(decoding: bytes[4...], as: UTF8.self))
        case UInt8(ascii: "-"): return (code, false, String(decoding: bytes[4...], as: UTF8.self))
        default: throw .malformedReply("the line \"\(line.prefix(80))\" does not start with a reply code")
        }
    }
}

/// How the channel of an SMTP connection failed, before it is put in terms of a step of the
/// conversation (``MailError``).
enum SMTPChannelFailure: Error {
    case timedOut
    case closed
    case malformedReply(String)
}
