import Hummingbird
import NIOCore

/// A product's answer to a call the console makes itself, its body gathered in memory up to a
/// limit (beyond it the call fails).
final class CollectedResponseBody: ResponseBodyWriter {
    private(set) var bytes = ByteBuffer()
    private let limit: Int

    /// Too much to gather.
    struct TooLarge: Error {}

    init(limit: Int) {
        self.limit = limit
    }

    func write(_ buffer: ByteBuffer) async throws {
        guard bytes.readableBytes + buffer.readableBytes <= limit else { throw TooLarge() }
        bytes.writeImmutableBuffer(buffer)
    }

    func finish(_ trailingHeaders: HTTPFields?) async throws {}
}
