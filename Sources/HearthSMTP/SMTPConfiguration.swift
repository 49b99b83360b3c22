import HearthCore
import NIOCore

/// Where and how to send mail by SMTP, read from a URL: `smtp://[user:password@]host[:port]`
/// (port 25 by default; STARTTLS when the server offers it) or `smtps://…` (TLS from the start,
/// port 465 by default). User and password are percent-decoded.
struct SMTPConfiguration: Sendable, Equatable {
    /// How the connection is protected.
    enum Security: Sendable, Equatable {
        /// Plain at first; upgraded with STARTTLS when the server offers it (`smtp://`).
        case startTLSWhenOffered
        /// TLS from the first byte (`smtps://`).
        case implicitTLS
    }

    /// A user name and password for `AUTH`.
    struct Credentials: Sendable, Equatable {
        var user: String
        var password: String
    }

    /// A host name or IP address; IPv6 without brackets.
    var host: String
    var port: Int
    var security: Security
    var credentials: Credentials?
    /// How long each step may take: connecting, and waiting for each reply.
    var timeout: TimeAmount = .seconds(30)

    init(url: String) throws(MailError) {
        guard let separator = url.range(of: "://") else { throw Self.invalid("it is not a URL", url) }
        switch url[..<separator.lowerBound].lowercased() {
        case "smtp": security = .startTLSWhenOffered
        case "smtps": security = .implicitTLS
        default: throw Self.invalid("the scheme must be smtp or smtps", url)
        }
        let rest = url[separator.upperBound...]
        let authority = rest.prefix { !"/?#".contains($0) }
        guard rest[authority.endIndex...].allSatisfy({ $0 == "/" }) else {
            throw Self.invalid("it must not have a path, query or fragment", url)
        }
        var hostAndPort = authority
        if let at = authority.lastIndex(of: "@") {
            let userInfo = authority[..<at]
            let colon = userInfo.firstIndex(of: ":") ?? userInfo.endIndex
            guard let user = Self.percentDecoded(userInfo[..<colon]), let password = Self.percentDecoded(userInfo[colon...].dropFirst())
            else { throw Self.invalid("its user or password is not properly percent-encoded", url) }
            credentials = Credentials(user: user, password: password)
            hostAndPort = authority[authority.index(after: at)...]
        }
        var portText: Substring?
        if hostAndPort.hasPrefix("[") {
            guard let close = hostAndPort.firstIndex(of: "]") else { throw Self.invalid("its IPv6 address lacks a ]", url) }
            host = String(hostAndPort[hostAndPort.index(after: hostAndPort.startIndex)..<close])
            let after = hostAndPort[hostAndPort.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { throw Self.invalid("unexpected text after its IPv6 address", url) }
                portText = after.dropFirst()
            }
        } else if let colon = hostAndPort.lastIndex(of: ":") {
            host = String(hostAndPort[..<colon])
            portText = hostAndPort[hostAndPort.index(after: colon)...]
        } else {
            host = String(hostAndPort)
        }
        guard !host.isEmpty else { throw Self.invalid("it has no host", url) }
        if let portText {
            guard let number = Int(portText), (1...65535).contains(number) else { throw Self.invalid("its port is not 1–65535", url) }
            port = number
        } else {
            port = security == .implicitTLS ? 465 : 25
        }
    }

    /// The URL without its password, for logs.
    var redactedURL: String {
        let scheme = security == .implicitTLS ? "smtps" : "smtp"
        let user = credentials.map { "\($0.user):***@" } ?? ""
        let host = host.contains(":") ? "[\(host)]" : host
        return "\(scheme)://\(user)\(host):\(port)"
    }

    /// The error for `url`, which is shown without its password.
    private static func invalid(_ reason: String, _ url: String) -> MailError {
        var shown = url
        if let separator = url.range(of: "://") {
            let authorityEnd = url[separator.upperBound...].firstIndex { "/?#".contains($0) } ?? url.endIndex
            if let at = url[separator.upperBound..<authorityEnd].lastIndex(of: "@") {
                shown = String(url[..<separator.upperBound]) + "***" + url[at...]
            }
        }
        return .invalidConfiguration("the SMTP URL \(shown) cannot be used: \(reason)")
    }

    /// `text` with `%XX` escapes decoded as UTF-8, or nil when an escape or the result is invalid.
    private static func percentDecoded(_ text: Substring) -> String? {
        var bytes: [UInt8] = []
        var utf8 = text.utf8.makeIterator()
        while let byte = utf8.next() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard let high = utf8.next().flatMap(Hex.value(ofDigit:)), let low = utf8.next().flatMap(Hex.value(ofDigit:)) else {
                return nil
            }
            bytes.append(high << 4 | low)
        }
        let decoded = String(decoding: bytes, as: UTF8.self)
        return decoded.utf8.elementsEqual(bytes) ? decoded : nil
    }
}
