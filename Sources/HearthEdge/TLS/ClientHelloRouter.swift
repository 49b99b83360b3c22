import NIOCore
import NIOSSL

/// The first handler of a TLS connection: waits for the ClientHello, asks `choose` which context
/// serves it (``TLSCertificates/context(for:)``), puts a TLS handler with that context in its
/// place and hands it every byte read so far; closes the connection when no context serves it.
final class ClientHelloRouter: ByteToMessageDecoder {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    var cumulationBuffer: ByteBuffer?
    private let choose: (ClientHello?) -> NIOSSLContext?
    private var isDone = false
    /// Whether a TLS handler follows, to which the bytes read go.
    private var hasSuccessor = false

    init(choose: @escaping (ClientHello?) -> NIOSSLContext?) {
        self.choose = choose
    }

    func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        guard !isDone else { return .needMoreData }
        let hello: ClientHello?
        switch ClientHello.read(buffer) {
        case .incomplete: return .needMoreData
        case .hello(let read): hello = read
        case .other: hello = nil
        }
        isDone = true
        guard let chosen = choose(hello) else {
            context.close(promise: nil)
            return .needMoreData
        }
        try context.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: chosen), position: .after(context.handler))
        hasSuccessor = true
        // Removing this handler hands the bytes it holds to the TLS handler.
        context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
        return .needMoreData
    }

    /// Called as this handler is removed: hands the bytes read so far to the TLS handler put in
    /// its place.
    func decodeLast(context: ChannelHandlerContext, buffer: inout ByteBuffer, seenEOF: Bool) throws -> DecodingState {
        if hasSuccessor, buffer.readableBytes > 0, let bytes = buffer.readSlice(length: buffer.readableBytes) {
            context.fireChannelRead(wrapInboundOut(bytes))
        }
        return .needMoreData
    }
}
