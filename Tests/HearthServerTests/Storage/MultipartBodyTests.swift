import NIOCore
import Testing

@testable import HearthStorageServer
@testable import HearthServer

/// Multipart upload bodies read as they stream (spec storage-api §4.3, §9.2).
@Suite struct MultipartBodyTests {
    /// A body as the JS SDK builds it.
    static func body(boundary: String, metadata: String, data: [UInt8]) -> [UInt8] {
        Array("--\(boundary)\r\nContent-Type: application/json; charset=utf-8\r\n\r\n\(metadata)\r\n--\(boundary)\r\n".utf8)
            + Array("Content-Type: image/png\r\n\r\n".utf8) + data + Array("\r\n--\(boundary)--".utf8)
    }

    /// The body as a stream cut into pieces of `size` bytes.
    static func chunks(_ bytes: [UInt8], size: Int) -> [ByteBuffer] {
        stride(from: 0, to: bytes.count, by: size).map { ByteBuffer(bytes: bytes[$0..<min(bytes.count, $0 + size)]) }
    }

    static func read(_ chunks: [ByteBuffer], contentType: String) async throws -> (metadata: String, type: String?, data: [UInt8]) {
        let multipart = try await MultipartBody.read(
            AsyncStream { continuation in
                for chunk in chunks { continuation.yield(chunk) }
                continuation.finish()
            }, contentType: contentType)
        var data: [UInt8] = []
        for try await chunk in multipart.data { data += chunk.readableBytesView }
        return (String(decoding: multipart.metadata, as: UTF8.self), multipart.dataContentType, data)
    }

    @Test func partsSurviveAnyChunking() async throws {
        // Data that contains line breaks and dashes, and is large enough to be passed on in
        // several pieces.
        for (length, size) in [(3000, 1), (200_000, 7), (200_000, 4096), (200_000, 65_536), (200_000, 1 << 20)] {
            let data = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 31) } + Array("\r\n--1234".utf8)
            let bytes = Self.body(boundary: "12345", metadata: #"{"name":"a.png"}"#, data: data)
            let (metadata, type, received) = try await Self.read(
                Self.chunks(bytes, size: size), contentType: "multipart/related; boundary=12345")
            #expect(metadata == #"{"name":"a.png"}"#)
            #expect(type == "image/png")
            #expect(received == data, "chunks of \(size) bytes")
        }
    }

    @Test func aQuotedBoundaryIsAccepted() async throws {
        let bytes = Self.body(boundary: "===============7330845974216740156==", metadata: "{}", data: Array("xyz".utf8))
        let (_, _, data) = try await Self.read(
            Self.chunks(bytes, size: 5), contentType: #"multipart/related; boundary="===============7330845974216740156==""#)
        #expect(data == Array("xyz".utf8))
    }

    @Test func badBodiesAreRefused() async throws {
        await #expect(throws: StorageError.badRequest("Bad content type. text/plain")) {
            _ = try await Self.read([], contentType: "text/plain")
        }
        let truncated = Array(Self.body(boundary: "B", metadata: "{}", data: Array("abc".utf8)).dropLast(5))
        await #expect(throws: StorageError.self) {
            _ = try await Self.read(Self.chunks(truncated, size: 3), contentType: "multipart/related; boundary=B")
        }
        let noHeader = Array("--B\r\n\r\n{}\r\n--B\r\nContent-Type: a/b\r\n\r\nx\r\n--B--".utf8)
        await #expect(throws: StorageError.self) {
            _ = try await Self.read([ByteBuffer(bytes: noHeader)], contentType: "multipart/related; boundary=B")
        }
    }
}
