import Foundation
import NIOCore
import NIOPosix
import NIOSSL

/// Sends each message over a new connection to an SMTP server (RFC 5321): greeting, `EHLO`,
/// `STARTTLS` when the server offers it (the certificate checked against the system's trusted
/// roots), `AUTH PLAIN` or `AUTH LOGIN` when credentials are configured, `MAIL FROM`, `RCPT TO`,
/// `DATA`, `QUIT`. Every reply is checked; each step has the configuration's timeout.
package struct SMTPDelivery: MailDelivery {
    let configuration: SMTPConfiguration
    private let tls: NIOSSLContext
    private let group: any EventLoopGroup

    /// A delivery to the server of `configuration`; `tlsConfiguration` is how TLS is done, by
    /// default with full certificate checks against the system's trusted roots.
    init(
        configuration: SMTPConfiguration, tlsConfiguration: TLSConfiguration = .makeClientConfiguration(),
        group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton
    ) throws(MailError) {
        self.configuration = configuration
        self.group = group
        do {
            tls = try NIOSSLContext(configuration: tlsConfiguration)
        } catch {
            throw .invalidConfiguration("TLS cannot be set up: \(error)")
        }
    }

    /// A delivery to the server of an `smtp://` or `smtps://` URL (see ``SMTPConfiguration``).
    package init(url: String, group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton) throws(MailError) {
        try self.init(configuration: SMTPConfiguration(url: url), group: group)
    }

    package func deliver(_ message: MailMessage) async throws(MailError) {
        for address in [message.from, message.to] {
            if let problem = MailMessage.problem(withAddress: address) { throw .invalidMessage(problem) }
        }
        let uniqueID = (0..<2).map { _ in String(UInt64.random(in: .min ... .max), radix: 36) }.joined()
        let text = message.wireText(date: Int64(Date().timeIntervalSince1970), uniqueID: uniqueID)
        let connection = try await SMTPConnection.open(
            host: configuration.host, port: configuration.port, implicitTLS: configuration.security == .implicitTLS ? tls : nil,
            timeout: configuration.timeout, group: group)
        do throws(MailError) {
            try await converse(connection, from: message.from, to: message.to, data: text)
        } catch {
            await connection.close()
            throw error
        }
        await connection.close()
    }

    private func converse(_ connection: SMTPConnection, from: String, to: String, data: String) async throws(MailError) {
        try expect(220, try await connection.reply(to: "the greeting"), to: "the connection", connection)
        var extensions = try await hello(connection)
        var encrypted = configuration.security == .implicitTLS
        if !encrypted && extensions.contains("STARTTLS") {
            try expect(220, try await connection.send("STARTTLS"), to: "STARTTLS", connection)
            try await connection.startTLS(tls)
            encrypted = true
            extensions = try await hello(connection)
        }
        if let credentials = configuration.credentials {
            // A server that does not offer STARTTLS (or an attacker who removed it from the offer)
            // gets no password in clear text, unless it is on this machine.
            guard encrypted || Self.isLoopback(configuration.host) else {
                throw .unsupported(
                    server: connection.server,
                    reason: "it does not offer STARTTLS, and credentials are sent only over an encrypted connection")
            }
            try await authenticate(connection, credentials, offered: extensions.authenticationMechanisms, encrypted: encrypted)
        }
        let needsUTF8 = !(from + to).utf8.allSatisfy { $0 < 0x80 }
        if needsUTF8 && !extensions.contains("SMTPUTF8") {
            throw .unsupported(server: connection.server, reason: "an address is not ASCII and the server does not offer SMTPUTF8")
        }
        let mailFrom = "MAIL FROM:<\(from)>" + (needsUTF8 ? " SMTPUTF8" : "")
        try expect(250, try await connection.send(mailFrom), to: mailFrom, connection)
        let reply = try await connection.send("RCPT TO:<\(to)>")
        if reply.code != 251 { try expect(250, reply, to: "RCPT TO:<\(to)>", connection) }
        try expect(354, try await connection.send("DATA"), to: "DATA", connection)
        try expect(250, try await connection.send(text: SMTPData.encode(data), shownAs: "the message"), to: "the message", connection)
        // The message is accepted by now, so the answer to QUIT does not matter.
        _ = try? await connection.send("QUIT")
    }

    /// `EHLO`, or `HELO` for an old server that does not know `EHLO`; the extensions offered.
    private func hello(_ connection: SMTPConnection) async throws(MailError) -> SMTPExtensions {
        let name = connection.localAddressLiteral
        let reply = try await connection.send("EHLO \(name)")
        if reply.code == 500 || reply.code == 502 {
            try expect(250, try await connection.send("HELO \(name)"), to: "HELO", connection)
            return SMTPExtensions(ehloReply: nil)
        }
        try expect(250, reply, to: "EHLO", connection)
        return SMTPExtensions(ehloReply: reply)
    }

    /// `AUTH PLAIN` (RFC 4616), else `AUTH LOGIN`, whichever the server offers; one of them must be.
    private func authenticate(
        _ connection: SMTPConnection, _ credentials: SMTPConfiguration.Credentials, offered: Set<String>, encrypted: Bool
    ) async throws(MailError) {
        if offered.contains("PLAIN") {
            let token = base64("\0\(credentials.user)\0\(credentials.password)")
            try expect(235, try await connection.send("AUTH PLAIN \(token)", shownAs: "AUTH PLAIN"), to: "AUTH PLAIN", connection)
        } else if offered.contains("LOGIN") {
            try expect(334, try await connection.send("AUTH LOGIN"), to: "AUTH LOGIN", connection)
            try expect(334, try await connection.send(base64(credentials.user), shownAs: "the user name"), to: "the user name", connection)
            try expect(
                235, try await connection.send(base64(credentials.password), shownAs: "the password"), to: "the password", connection)
        } else {
            throw .unsupported(
                server: connection.server,
                reason: offered.isEmpty
                    ? "credentials are configured but the server offers no authentication\(encrypted ? "" : " (on an unencrypted connection)")"
                    : "it offers authentication only by \(offered.sorted().joined(separator: ", ")); PLAIN or LOGIN is needed")
        }
    }

    /// Whether `host` names this machine (`localhost`, `127.0.0.0/8`, `::1`).
    static func isLoopback(_ host: String) -> Bool {
        host == "localhost" || host == "::1" || host.hasPrefix("127.")
    }

    private func expect(_ code: Int, _ reply: SMTPReply, to command: String, _ connection: SMTPConnection) throws(MailError) {
        guard reply.code == code else { throw .rejected(server: connection.server, command: command, reply: reply) }
    }

    private func base64(_ text: String) -> String {
        Data(text.utf8).base64EncodedString()
    }
}
