import Foundation
import NIOCore
import NIOPosix
import Synchronization
import Testing

@testable import HearthAuthServer
@testable import HearthSMTP
@testable import HearthServer

/// The SMTP client against a scripted server on 127.0.0.1: the conversation, the message on the
/// wire, and each kind of failure.
@Suite struct SMTPDeliveryTests {
    static let message = MailMessage(
        from: "noreply@example.com", to: "user@example.com", subject: "Passwort zurücksetzen",
        textBody: "Hallo,\n.\n.hidden line\nend", htmlBody: nil)

    @Test func deliversWithAuthPlain() async throws {
        let server = try await FakeSMTPServer.start(respond: FakeSMTPServer.standard)
        try await delivery(server, credentials: "user:secret@").deliver(Self.message)
        let lines = server.received
        #expect(lines.first == "EHLO [127.0.0.1]")
        #expect(lines.contains("AUTH PLAIN \(Data("\0user\0secret".utf8).base64EncodedString())"))
        #expect(lines.contains("MAIL FROM:<noreply@example.com>") && lines.contains("RCPT TO:<user@example.com>"))
        let data = try #require(lines.firstIndex(of: "DATA"))
        let end = try #require(lines.lastIndex(of: "."))
        let text = Array(lines[(data + 1)..<end])
        #expect(text.contains("Subject: =?UTF-8?B?\(Data("Passwort zurücksetzen".utf8).base64EncodedString())?="))
        #expect(text.contains("Content-Transfer-Encoding: quoted-printable"))
        #expect(text.contains("From: noreply@example.com") && text.contains("To: user@example.com"))
        // Dot-stuffing: the line "." and ".hidden line" each gain a dot.
        #expect(Array(text.suffix(4)) == ["Hallo,", "..", "..hidden line", "end"])
        #expect(lines.last == "QUIT")
    }

    @Test func deliversWithAuthLoginWhenOnlyThatIsOffered() async throws {
        let user = Data("user".utf8).base64EncodedString()
        let password = Data("p@ss:word".utf8).base64EncodedString()
        let server = try await FakeSMTPServer.start { line in
            switch line {
            case _ where line.hasPrefix("EHLO"): "250-fake.test\r\n250 AUTH LOGIN"
            case "AUTH LOGIN": "334 VXNlcm5hbWU6"
            case user: "334 UGFzc3dvcmQ6"
            case password: "235 2.7.0 Authentication successful"
            default: FakeSMTPServer.standard(line)
            }
        }
        try await delivery(server, credentials: "user:p%40ss%3Aword@").deliver(Self.message)
        #expect(server.received.contains(password))
    }

    @Test func fallsBackToHeloWithoutCredentials() async throws {
        let server = try await FakeSMTPServer.start { line in
            line.hasPrefix("EHLO") ? "502 5.5.1 EHLO not implemented" : FakeSMTPServer.standard(line)
        }
        try await delivery(server).deliver(Self.message)
        #expect(server.received.prefix(2) == ["EHLO [127.0.0.1]", "HELO [127.0.0.1]"])
    }

    @Test func refusedPasswordIsRejectedWithTheServersReply() async throws {
        let server = try await FakeSMTPServer.start(respond: FakeSMTPServer.standard)
        let error = try await deliveryError(delivery(server, credentials: "user:wrong@"))
        guard case .rejected(_, "AUTH PLAIN", let reply)? = error else { throw Unexpected(error) }
        #expect(reply == SMTPReply(code: 535, lines: ["5.7.8 Authentication credentials invalid"]))
        #expect(!"\(String(describing: error))".contains(Data("\0user\0wrong".utf8).base64EncodedString()))
        #expect(!server.received.contains("MAIL FROM:<noreply@example.com>"))
    }

    @Test func refusedRecipientIsRejected() async throws {
        let server = try await FakeSMTPServer.start { line in
            line.hasPrefix("RCPT") ? "550-5.1.1 No such user\r\n550 5.1.1 here" : FakeSMTPServer.standard(line)
        }
        let error = try await deliveryError(delivery(server))
        guard case .rejected(_, "RCPT TO:<user@example.com>", let reply)? = error else { throw Unexpected(error) }
        #expect(reply.description == "550 5.1.1 No such user / 550 5.1.1 here")
    }

    @Test func credentialsNeedAnOfferedMechanism() async throws {
        let server = try await FakeSMTPServer.start { line in
            line.hasPrefix("EHLO") ? "250-fake.test\r\n250 AUTH CRAM-MD5" : FakeSMTPServer.standard(line)
        }
        let error = try await deliveryError(delivery(server, credentials: "user:secret@"))
        guard case .unsupported(_, let reason)? = error else { throw Unexpected(error) }
        #expect(reason.contains("CRAM-MD5"))
    }

    @Test func silentServerTimesOut() async throws {
        let server = try await FakeSMTPServer.start(greeting: nil, respond: FakeSMTPServer.standard)
        let error = try await deliveryError(delivery(server, timeout: .milliseconds(200)))
        #expect(error == .timedOut(server: "127.0.0.1:\(server.port)", step: "the greeting"))
    }

    @Test func malformedRepliesAreProtocolViolations() async throws {
        let server = try await FakeSMTPServer.start(greeting: "hello there", respond: FakeSMTPServer.standard)
        let error = try await deliveryError(delivery(server))
        guard case .protocolViolation? = error else { throw Unexpected(error) }
    }

    @Test func closedConnectionNamesTheStep() async throws {
        let server = try await FakeSMTPServer.start { line in
            line.hasPrefix("MAIL") ? nil : FakeSMTPServer.standard(line)
        }
        server.closeConnectionsOn("MAIL FROM:<noreply@example.com>")
        let error = try await deliveryError(delivery(server))
        #expect(error == .connectionClosed(server: "127.0.0.1:\(server.port)", step: "MAIL FROM:<noreply@example.com>"))
    }

    @Test func unreachableServerFailsToConnect() async throws {
        let server = try await FakeSMTPServer.start(respond: FakeSMTPServer.standard)
        let port = server.port
        try await server.stop()
        let error = try await deliveryError(SMTPDelivery(url: "smtp://127.0.0.1:\(port)"))
        guard case .connectionFailed(let name, _)? = error else { throw Unexpected(error) }
        #expect(name == "127.0.0.1:\(port)")
    }

    @Test func addressesWithLineBreaksAreRefusedBeforeConnecting() async throws {
        var injected = Self.message
        injected.to = "user@example.com>\r\nRCPT TO:<other@example.com"
        let message = injected
        let delivery = try SMTPDelivery(url: "smtp://127.0.0.1:1")
        await #expect(throws: MailError.self) { try await delivery.deliver(message) }
    }

    private func delivery(_ server: FakeSMTPServer, credentials: String = "", timeout: TimeAmount = .seconds(5)) throws
        -> SMTPDelivery
    {
        var configuration = try SMTPConfiguration(url: "smtp://\(credentials)127.0.0.1:\(server.port)")
        configuration.timeout = timeout
        return try SMTPDelivery(configuration: configuration)
    }

    private func deliveryError(_ delivery: SMTPDelivery) async -> MailError? {
        do {
            try await delivery.deliver(Self.message)
            return nil
        } catch {
            return error
        }
    }
}

/// An outcome a test did not expect.
private struct Unexpected: Error, CustomStringConvertible {
    let description: String

    init(_ error: MailError?) {
        description = "unexpected outcome: \(error.map { "\($0)" } ?? "delivered")"
    }
}

/// A scripted SMTP server on 127.0.0.1: greets each connection, answers each command line with
/// `respond(line)` (nothing when it returns nil), takes the message after a `354` up to the lone
/// ".", and records every line it receives.
private final class FakeSMTPServer: Sendable {
    let port: Int
    private let channel: any Channel
    private let script: Script

    /// What the server says and what it heard, shared with the connections' handlers.
    final class Script: Sendable {
        let greeting: String?
        let respond: @Sendable (String) -> String?
        let lines = Mutex<[String]>([])
        let closingLine = Mutex<String?>(nil)

        init(greeting: String?, respond: @escaping @Sendable (String) -> String?) {
            self.greeting = greeting
            self.respond = respond
        }
    }

    /// Replies of a server that accepts `user` / `secret` by `AUTH PLAIN` and any message.
    static func standard(_ line: String) -> String? {
        let command = line.uppercased()
        if command.hasPrefix("EHLO") { return "250-fake.test\r\n250-AUTH PLAIN LOGIN\r\n250 8BITMIME" }
        if command.hasPrefix("HELO") { return "250 fake.test" }
        if command.hasPrefix("AUTH PLAIN ") {
            return line.dropFirst(11) == Data("\0user\0secret".utf8).base64EncodedString()
                ? "235 2.7.0 Authentication successful" : "535 5.7.8 Authentication credentials invalid"
        }
        if command.hasPrefix("MAIL FROM:") || command.hasPrefix("RCPT TO:") { return "250 2.1.0 OK" }
        if command == "DATA" { return "354 End data with <CR><LF>.<CR><LF>" }
        if command == "QUIT" { return "221 2.0.0 Bye" }
        return "500 5.5.2 Unknown command"
    }

    static func start(greeting: String? = "220 fake.test ESMTP", respond: @escaping @Sendable (String) -> String?) async throws
        -> FakeSMTPServer
    {
        let script = Script(greeting: greeting, respond: respond)
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(Handler(script: script)) }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        return FakeSMTPServer(port: channel.localAddress?.port ?? 0, channel: channel, script: script)
    }

    private init(port: Int, channel: any Channel, script: Script) {
        self.port = port
        self.channel = channel
        self.script = script
    }

    var received: [String] { script.lines.withLock { $0 } }

    /// Makes the server close a connection, without answering, when it receives `line`.
    func closeConnectionsOn(_ line: String) {
        script.closingLine.withLock { $0 = line }
    }

    func stop() async throws {
        try await channel.close()
    }

    private final class Handler: ChannelInboundHandler {
        typealias InboundIn = ByteBuffer
        typealias OutboundOut = ByteBuffer

        let script: Script
        var pending = ""
        var inMessage = false

        init(script: Script) {
            self.script = script
        }

        func channelActive(context: ChannelHandlerContext) {
            if let greeting = script.greeting { send(greeting, context) }
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            var bytes = unwrapInboundIn(data)
            pending += bytes.readString(length: bytes.readableBytes) ?? ""
            while let end = pending.range(of: "\r\n") {
                let line = String(pending[..<end.lowerBound])
                pending.removeSubrange(..<end.upperBound)
                script.lines.withLock { $0.append(line) }
                if inMessage {
                    if line == "." {
                        inMessage = false
                        send("250 2.0.0 Queued", context)
                    }
                    continue
                }
                if script.closingLine.withLock({ $0 }) == line {
                    context.close(promise: nil)
                    return
                }
                guard let reply = script.respond(line) else { continue }
                inMessage = reply.hasPrefix("354")
                send(reply, context)
                if line == "QUIT" { context.close(promise: nil) }
            }
        }

        private func send(_ reply: String, _ context: ChannelHandlerContext) {
            context.writeAndFlush(wrapOutboundOut(ByteBuffer(string: reply + "\r\n")), promise: nil)
        }
    }
}

/// Reading `smtp://` URLs.
@Suite struct SMTPConfigurationTests {
    @Test func readsHostPortAndPercentDecodedCredentials() throws {
        let configuration = try SMTPConfiguration(url: "smtp://mailer%40example.com:p%3Ass%2Fw%40rd@mail.example.com:587/")
        #expect(configuration.host == "mail.example.com" && configuration.port == 587)
        #expect(configuration.security == .startTLSWhenOffered)
        #expect(configuration.credentials == .init(user: "mailer@example.com", password: "p:ss/w@rd"))
        #expect(configuration.redactedURL == "smtp://mailer@example.com:***@mail.example.com:587")
    }

    @Test func defaultsPortsBySecurity() throws {
        #expect(try SMTPConfiguration(url: "smtp://localhost").port == 25)
        let implicit = try SMTPConfiguration(url: "SMTPS://[::1]")
        #expect(implicit.security == .implicitTLS && implicit.port == 465 && implicit.host == "::1")
        #expect(implicit.credentials == nil)
        #expect(try SMTPConfiguration(url: "smtp://user@[::1]:2525").credentials == .init(user: "user", password: ""))
    }

    @Test func refusesBadURLsWithoutShowingThePassword() {
        for url in [
            "http://host", "smtp://", "smtp://user:secretpw@", "smtp://host:0", "smtp://host:x", "smtp://user:secretpw%zz@host",
            "smtp://host/path", "smtp://host?x=1", "smtp://[::1", "smtp://[::1]x", "localhost:25",
        ] {
            #expect(throws: MailError.self, "\(url)") { try SMTPConfiguration(url: url) }
            do {
                _ = try SMTPConfiguration(url: url)
            } catch {
                #expect(!"\(error)".contains("secretpw"), "\(error)")
            }
        }
    }

    @Test func readsTheServiceExtensions() {
        let extensions = SMTPExtensions(
            ehloReply: SMTPReply(code: 250, lines: ["mail.example.com", "AUTH=LOGIN", "auth plain login", "STARTTLS", "SIZE 1000"]))
        #expect(extensions.contains("STARTTLS") && extensions.contains("SIZE") && !extensions.contains("SMTPUTF8"))
        #expect(extensions.authenticationMechanisms == ["PLAIN", "LOGIN"])
        #expect(SMTPExtensions(ehloReply: nil).authenticationMechanisms.isEmpty)
    }
}

/// The message as it goes on the wire.
@Suite struct MailEncodingTests {
    @Test func quotedPrintableKeepsLinesShortAndSevenBit() {
        #expect(MIMEEncoding.quotedPrintable("a=b é") == "a=3Db =C3=A9")
        #expect(MIMEEncoding.quotedPrintable("trailing \nand tab\t\r\nend") == "trailing=20\r\nand tab=09\r\nend")
        let link = "https://example.com/__/auth/action?mode=resetPassword&oobCode=" + String(repeating: "x", count: 120)
        let encoded = MIMEEncoding.quotedPrintable(link)
        let lines = encoded.components(separatedBy: "\r\n")
        #expect(lines.count == 3 && lines.allSatisfy { $0.count <= 76 })
        #expect(lines.dropLast().allSatisfy { $0.hasSuffix("=") })
        #expect(lines.map { $0.hasSuffix("=") ? String($0.dropLast()) : $0 }.joined().replacingOccurrences(of: "=3D", with: "=") == link)
    }

    @Test func headerTextIsEncodedWordsOnlyWhenNeeded() throws {
        #expect(MIMEEncoding.headerText("Reset your password", fieldName: "Subject") == "Reset your password")
        #expect(MIMEEncoding.headerText("two\nlines", fieldName: "Subject") == "two lines")
        let subject = "Passwort zurücksetzen für Zoë — ein ziemlich langer Betreff, der sich über mehrere Wörter erstreckt 🙂"
        let encoded = MIMEEncoding.headerText(subject, fieldName: "Subject")
        let lines = encoded.components(separatedBy: "\r\n ")
        #expect(lines.count > 1)
        #expect(("Subject: " + lines[0]).count <= 78 && lines.allSatisfy { $0.count <= 75 })
        var decoded = Data()
        for word in lines {
            #expect(word.hasPrefix("=?UTF-8?B?") && word.hasSuffix("?="))
            decoded += try #require(Data(base64Encoded: String(word.dropFirst(10).dropLast(2))))
        }
        #expect(String(decoding: decoded, as: UTF8.self) == subject)
    }

    @Test func dataIsDotStuffedAndTerminated() {
        #expect(SMTPData.encode(".a\r\nb\r\n.\r\n") == "..a\r\nb\r\n..\r\n.\r\n")
    }

    @Test func datesAreRFC5322() {
        #expect(MailDate.format(0) == "Thu, 01 Jan 1970 00:00:00 +0000")
        #expect(MailDate.format(1_700_000_000) == "Tue, 14 Nov 2023 22:13:20 +0000")
        #expect(MailDate.format(951_782_400) == "Tue, 29 Feb 2000 00:00:00 +0000")
        #expect(MailDate.format(-1) == "Wed, 31 Dec 1969 23:59:59 +0000")
    }

    @Test func htmlMessagesAreMultipartAlternative() {
        var message = SMTPDeliveryTests.message
        message.htmlBody = "<p>Hallo</p>"
        let text = message.wireText(date: 0, uniqueID: "abc123")
        #expect(text.contains("Message-ID: <abc123@example.com>\r\n"))
        #expect(text.contains("Content-Type: multipart/alternative; boundary=\"=_abc123\"\r\n"))
        #expect(text.contains("\r\n--=_abc123\r\nContent-Type: text/html; charset=utf-8\r\n"))
        #expect(text.hasSuffix("\r\n--=_abc123--\r\n"))
    }
}

/// The texts of the action emails.
@Suite struct EmailTemplatesTests {
    static let link = "http://127.0.0.1:9099/emulator/action?mode=resetPassword&lang=en&oobCode=CODE&apiKey=key"

    static func code(_ kind: ActionCode.Kind, newEmail: String? = nil) -> ActionCode {
        ActionCode(
            code: "CODE", kind: kind, email: "ada@example.com", newEmail: newEmail, localId: "uid", link: link, continueUrl: nil,
            expiresAt: nil)
    }

    @Test(arguments: [
        ActionCode.Kind.passwordReset, .verifyEmail, .emailSignIn, .verifyAndChangeEmail, .recoverEmail,
    ])
    func builtInTextsReplaceEveryPlaceholder(kind: ActionCode.Kind) throws {
        let message = try EmailTemplates(directory: nil).message(
            for: Self.code(kind, newEmail: "new@example.com"), displayName: nil, appName: "my-app", from: "noreply@example.com")
        #expect(message.subject.contains("my-app"))
        #expect(message.textBody.components(separatedBy: "\n").contains(Self.link))
        #expect(!message.textBody.contains("%") && !message.subject.contains("%"))
        #expect(!message.textBody.contains(" ,"), "an empty display name leaves no stray space")
        #expect(message.to == (kind == .verifyAndChangeEmail ? "new@example.com" : "ada@example.com"))
        #expect(message.htmlBody == nil)
    }

    @Test func filesReplaceTheTexts() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("templates-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try "Subject: Neues Passwort für %APP_NAME%\r\n\r\nHallo %DISPLAY_NAME%: %LINK% (%EMAIL%, %UNKNOWN%)\n"
            .write(toFile: directory + "/resetPassword.txt", atomically: true, encoding: .utf8)
        try "<a href=\"%LINK%\">%DISPLAY_NAME%</a>".write(toFile: directory + "/resetPassword.html", atomically: true, encoding: .utf8)
        let templates = try EmailTemplates(directory: directory)
        let message = templates.message(
            for: Self.code(.passwordReset), displayName: "<Ada & %LINK%>", appName: "my-app", from: "noreply@example.com")
        #expect(message.subject == "Neues Passwort für my-app")
        #expect(message.textBody == "Hallo <Ada & %LINK%>: \(Self.link) (ada@example.com, %UNKNOWN%)\n")
        #expect(message.htmlBody == "<a href=\"\(Self.link.replacingOccurrences(of: "&", with: "&amp;"))\">&lt;Ada &amp; %LINK%&gt;</a>")
        let unnamed = templates.message(for: Self.code(.passwordReset), displayName: "", appName: "my-app", from: "noreply@example.com")
        #expect(unnamed.textBody.hasPrefix("Hallo: "))
        let other = templates.message(for: Self.code(.verifyEmail), displayName: nil, appName: "my-app", from: "noreply@example.com")
        #expect(other.subject == "Confirm your email address for my-app")
    }

    @Test func badTemplateFilesAreRefused() throws {
        for (name, text) in [
            ("passwordReset.txt", "Subject: x\n\nbody"), ("signIn.txt", "no subject\n\nbody"), ("signIn.txt", "Subject: x\nbody"),
        ] {
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("templates-\(UUID().uuidString)").path
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(atPath: directory) }
            try text.write(toFile: "\(directory)/\(name)", atomically: true, encoding: .utf8)
            #expect(throws: MailError.self, "\(name)") { try EmailTemplates(directory: directory) }
        }
        #expect(throws: Never.self) { try EmailTemplates(directory: "/nonexistent-\(UUID().uuidString)") }
    }

    @Test func savedTemplatesAreWrittenReadBackAndReset() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("templates-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = try EmailTemplateStore(directory: directory)
        let template = EmailTemplate(subject: "Willkommen, %DISPLAY_NAME%", text: "%LINK%\n", html: "<p>%EMAIL%</p>")
        try store.save(template, for: .verifyEmail)
        #expect(store.current[.verifyEmail] == template && store.current.customized == [.verifyEmail])
        #expect(try EmailTemplates(directory: directory)[.verifyEmail] == template, "a restarted server reads the same")
        let message = store.current.message(for: Self.code(.verifyEmail), displayName: "Ada", appName: "app", from: "a@b.c")
        #expect(message.subject == "Willkommen, Ada" && message.htmlBody == "<p>ada@example.com</p>")

        try store.save(EmailTemplate(subject: "Plain", text: "%LINK%"), for: .verifyEmail)
        #expect(!FileManager.default.fileExists(atPath: directory + "/verifyEmail.html"), "no HTML body: its file goes")
        try store.save(nil, for: .verifyEmail)
        #expect(store.current[.verifyEmail] == EmailTemplate.builtIn(.verifyEmail) && store.current.customized.isEmpty)
        #expect(!FileManager.default.fileExists(atPath: directory + "/verifyEmail.txt"))
    }

    @Test(arguments: [
        EmailTemplate(subject: "a\r\nBcc: x@y.z", text: "t"), EmailTemplate(subject: " ", text: "t"),
        EmailTemplate(subject: "s", text: " \n"), EmailTemplate(subject: "s", text: "t", html: String(repeating: "x", count: 100_001)),
    ])
    func refusedTemplatesWriteNothing(template: EmailTemplate) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("templates-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = try EmailTemplateStore(directory: directory)
        #expect(throws: MailError.self) { try store.save(template, for: .passwordReset) }
        #expect(!FileManager.default.fileExists(atPath: directory))
        #expect(store.current[.passwordReset] == EmailTemplate.builtIn(.passwordReset))
    }

    @Test func withoutAFolderTemplatesCannotBeSaved() throws {
        let store = try EmailTemplateStore(directory: nil)
        #expect(throws: MailError.self) { try store.save(EmailTemplate(subject: "s", text: "t"), for: .emailSignIn) }
    }

    @Test func defaultSenderIsNoreplyAtTheLinksHost() {
        #expect(EmailTemplates.defaultSender(forLink: Self.link) == "noreply@[127.0.0.1]")
        #expect(EmailTemplates.defaultSender(forLink: "https://Auth.Example.com/__/auth/action?mode=x") == "noreply@auth.example.com")
        #expect(EmailTemplates.defaultSender(forLink: "http://localhost:9099/emulator/action") == "noreply@localhost")
        #expect(EmailTemplates.defaultSender(forLink: "http://[::1]:9099/emulator/action") == "noreply@[IPv6:::1]")
    }
}

/// The action handler page.
@Suite struct ActionPageTests {
    @Test func interpolatedValuesCannotEscape() {
        let hostile = "\"</script><script>alert(1)</script>\u{2028}"
        let page = ActionPage.html(query: ["mode": "resetPassword", "oobCode": hostile, "apiKey": "key"], appName: "<b>App</b>")
        #expect(page.hasPrefix("<!DOCTYPE html>"))
        #expect(page.components(separatedBy: "<script").count == 2)
        #expect(!page.contains("<script>alert(1)") && !page.contains("\u{2028}"))
        #expect(page.contains(#""oobCode": "\"\u003c/script\u003e\u003cscript\u003ealert(1)\u003c/script\u003e\u2028""#))
        #expect(page.contains("<title>&lt;b&gt;App&lt;/b&gt;</title>"))
    }
}
