import NIOCore
import NIOPosix
import NIOSSL

/// One open connection to an SMTP server: sends commands and reads the replies, each within a
/// deadline, and can switch to TLS in the middle of the conversation (STARTTLS).
struct SMTPConnection: Sendable {
    /// `host:port`, for messages.
    let server: String
    private let host: String
    /// How long a connection attempt and each reply may take.
    private let timeout: TimeAmount
    private let channel: any Channel
    private let reader: NIOLoopBound<SMTPReplyReader>

    /// Connects to `host:port`, with TLS from the start when `implicitTLS` is given.
    static func open(host: String, port: Int, implicitTLS: NIOSSLContext?, timeout: TimeAmount, group: any EventLoopGroup)
        async throws(MailError) -> SMTPConnection
    {
        let server = host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
        do {
            let (channel, reader) = try await ClientBootstrap(group: group).connectTimeout(timeout).connect(host: host, port: port) {
                channel in
                channel.eventLoop.makeCompletedFuture {
                    let pipeline = channel.pipeline.syncOperations
                    if let implicitTLS {
                        try pipeline.addHandler(NIOSSLClientHandler(context: implicitTLS, serverHostname: serverNameIndication(host)))
                    }
                    try pipeline.addHandler(ByteToMessageHandler(SMTPReplyDecoder()))
                    let reader = SMTPReplyReader()
                    try pipeline.addHandler(reader)
                    return (channel, NIOLoopBound(reader, eventLoop: channel.eventLoop))
                }
            }
            return SMTPConnection(server: server, host: host, timeout: timeout, channel: channel, reader: reader)
        } catch {
            throw .connectionFailed(server: server, reason: Self.connectionFailureReason(error))
        }
    }

    /// The client's own address as an SMTP address literal, the argument of `EHLO`.
    var localAddressLiteral: String {
        guard let address = channel.localAddress, let ip = address.ipAddress else { return "localhost" }
        return address.protocol == .inet6 ? "[IPv6:\(ip)]" : "[\(ip)]"
    }

    /// The next reply; `step` names what it answers, in errors.
    func reply(to step: String) async throws(MailError) -> SMTPReply {
        let reader = self.reader
        let timeout = self.timeout
        let eventLoop = channel.eventLoop
        do {
            return try await eventLoop.flatSubmit { reader.value.nextReply(within: timeout, on: eventLoop) }.get()
        } catch {
            throw mailError(error, during: step)
        }
    }

    /// Sends the command line `command` and reads its reply; errors show `shownAs` (say, a
    /// command without its credentials) instead of the command.
    func send(_ command: String, shownAs: String? = nil) async throws(MailError) -> SMTPReply {
        try await send(text: command + "\r\n", shownAs: shownAs ?? command)
    }

    /// Sends `text` as it is and reads the reply to it.
    func send(text: String, shownAs step: String) async throws(MailError) -> SMTPReply {
        let reader = self.reader
        let promise = channel.eventLoop.makePromise(of: Void.self)
        promise.futureResult.whenFailure { error in reader.value.fail(error) }
        channel.writeAndFlush(ByteBuffer(string: text), promise: promise)
        return try await reply(to: step)
    }

    /// Puts TLS under the conversation, after the server agreed to `STARTTLS`. A handshake that
    /// fails (an untrusted certificate, say) fails the next reply.
    func startTLS(_ context: NIOSSLContext) async throws(MailError) {
        let channel = self.channel
        let reader = self.reader
        let host = self.host
        let server = self.server
        do {
            try await channel.eventLoop.submit {
                guard !reader.value.hasUnreadReplies else {
                    throw MailError.protocolViolation(server: server, reason: "it sent more replies after agreeing to STARTTLS")
                }
                let handler = try NIOSSLClientHandler(context: context, serverHostname: serverNameIndication(host))
                try channel.pipeline.syncOperations.addHandler(handler, position: .first)
            }.get()
        } catch {
            throw mailError(error, during: "STARTTLS")
        }
    }

    /// Closes the connection, if it is still open.
    func close() async {
        try? await channel.close()
    }
}

/// The name to send in TLS's server name indication and to check the certificate against: the
/// host name, or none for an IP address (whose certificate is checked against the address).
private func serverNameIndication(_ host: String) -> String? {
    (try? SocketAddress(ipAddress: host, port: 0)) == nil ? host : nil
}
