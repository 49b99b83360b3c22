import HearthEdge
import Logging
import Testing

@testable import HearthServer

/// Text a client sends stays on its log line, and what was escaped can be told from what was sent.
@Suite struct LogSafeTests {
    @Test func lineBreaksAndControlCharactersAreEscaped() {
        let email = "z>\r\nrcpt to:<x@example.org>\u{0}\u{1B}[31m\u{2028}\\n"
        let message: Logger.Message = "To sign in as \(logSafe: email), follow this link"
        #expect(message.description == #"To sign in as z>\r\nrcpt to:<x@example.org>\u{0}\u{1B}[31m\u{2028}\\n, follow this link"#)
    }

    @Test func metadataValuesAreEscapedToo() {
        let value: Logger.MetadataValue = "\(logSafe: "a/b\nc")"
        #expect(value.description == #"a/b\nc"#)
    }

    @Test func ordinaryTextIsUnchanged() {
        let message: Logger.Message = "\(logSafe: "Zoë <zoe@example.com> /users/ü\t")"
        #expect(message.description == #"Zoë <zoe@example.com> /users/ü\t"#)
    }
}
