import HearthEdge
import NIOCore
import NIOEmbedded
import NIOSSL
import Testing

/// The ClientHello reader that picks the certificate of a TLS connection, read from real
/// handshakes of the TLS library.
struct ClientHelloTests {
    /// The first bytes a TLS client sends asking for `name` with `protocols`.
    static func clientHello(name: String?, protocols: [String]) throws -> ByteBuffer {
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.applicationProtocols = protocols
        let context = try NIOSSLContext(configuration: configuration)
        let channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.addHandler(try NIOSSLClientHandler(context: context, serverHostname: name))
        try channel.connect(to: try SocketAddress(ipAddress: "127.0.0.1", port: 443)).wait()
        var hello = ByteBuffer()
        while var written = try channel.readOutbound(as: ByteBuffer.self) { hello.writeBuffer(&written) }
        _ = try? channel.finish()
        return hello
    }

    @Test func readsTheNameAndProtocolsAClientAsksFor() throws {
        let hello = try Self.clientHello(name: "hearth.test", protocols: ["acme-tls/1"])
        #expect(ClientHello.read(hello) == .hello(ClientHello(serverName: "hearth.test", applicationProtocols: ["acme-tls/1"])))
        let browser = try Self.clientHello(name: "Example.COM", protocols: ["h2", "http/1.1"])
        #expect(ClientHello.read(browser) == .hello(ClientHello(serverName: "Example.COM", applicationProtocols: ["h2", "http/1.1"])))
        let bare = try Self.clientHello(name: nil, protocols: [])
        #expect(ClientHello.read(bare) == .hello(ClientHello(serverName: nil, applicationProtocols: [])))
    }

    @Test func waitsForTheWholeFirstRecord() throws {
        let hello = try Self.clientHello(name: "hearth.test", protocols: ["h2"])
        for length in [0, 1, 4, 5, hello.readableBytes - 1] {
            #expect(ClientHello.read(hello.getSlice(at: hello.readerIndex, length: length)!) == .incomplete, "\(length) bytes")
        }
    }

    @Test func leavesAnythingElseToTheTLSLibrary() throws {
        #expect(ClientHello.read(ByteBuffer(string: "GET / HTTP/1.1\r\nHost: x\r\n\r\n")) == .other)
        // A handshake record announcing more than TLS allows, and one whose message is cut short.
        #expect(ClientHello.read(ByteBuffer(bytes: [22, 3, 1, 0xFF, 0xFF])) == .other)
        #expect(ClientHello.read(ByteBuffer(bytes: [22, 3, 1, 0, 4, 1, 0, 0, 9])) == .other)
        // A ServerHello is not a ClientHello.
        var hello = try Self.clientHello(name: "hearth.test", protocols: ["h2"])
        hello.setInteger(UInt8(2), at: hello.readerIndex + 5)
        #expect(ClientHello.read(hello) == .other)
    }
}
