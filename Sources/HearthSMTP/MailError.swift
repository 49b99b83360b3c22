/// Why an email could not be sent. Each case names the server (`host:port`) where one was
/// involved and, for refusals, the server's own reply.
package enum MailError: Error, Equatable, CustomStringConvertible {
    /// The mail settings (an `smtp://` URL, a template file) cannot be used.
    case invalidConfiguration(String)
    /// The message itself cannot be sent, e.g. an address with a line break in it.
    case invalidMessage(String)
    /// No connection to the server could be made.
    case connectionFailed(server: String, reason: String)
    /// The TLS handshake failed, e.g. because the server's certificate is not trusted.
    case tlsFailed(server: String, reason: String)
    /// The server did not answer `step` within the time allowed.
    case timedOut(server: String, step: String)
    /// The server closed the connection while `step` was waiting for its reply.
    case connectionClosed(server: String, step: String)
    /// The server answered `command` with an unexpected reply (a refusal, usually).
    case rejected(server: String, command: String, reply: SMTPReply)
    /// The server's answer does not follow the SMTP protocol.
    case protocolViolation(server: String, reason: String)
    /// The server lacks something this client needs, e.g. an authentication mechanism.
    case unsupported(server: String, reason: String)

    package var description: String {
        switch self {
        case .invalidConfiguration(let reason): "Invalid mail configuration: \(reason)"
        case .invalidMessage(let reason): "Invalid email message: \(reason)"
        case .connectionFailed(let server, let reason): "Could not connect to the SMTP server \(server): \(reason)"
        case .tlsFailed(let server, let reason): "TLS with the SMTP server \(server) failed: \(reason)"
        case .timedOut(let server, let step): "The SMTP server \(server) did not answer \(step) in time"
        case .connectionClosed(let server, let step): "The SMTP server \(server) closed the connection during \(step)"
        case .rejected(let server, let command, let reply): "The SMTP server \(server) refused \(command): \(reply)"
        case .protocolViolation(let server, let reason): "The SMTP server \(server) broke the protocol: \(reason)"
        case .unsupported(let server, let reason): "The SMTP server \(server) cannot be used: \(reason)"
        }
    }
}
