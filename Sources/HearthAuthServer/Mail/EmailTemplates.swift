import Foundation
import HearthSMTP

/// The emails of the action flows (auth spec §10.4): a subject, a text body and optionally an
/// HTML body for each kind of action code, in which `%DISPLAY_NAME%`, `%APP_NAME%`, `%LINK%`,
/// `%EMAIL%` and `%NEW_EMAIL%` are replaced. A placeholder whose value is empty also takes the
/// space before it away, so that "Hello %DISPLAY_NAME%," reads "Hello," for a user without a name.
struct EmailTemplates: Sendable {
    /// One kind of email before its placeholders are replaced.
    struct Template: Sendable, Equatable {
        var subject: String
        var text: String
        var html: String?
    }

    private static let kinds: [ActionCode.Kind] = [.passwordReset, .verifyEmail, .emailSignIn, .verifyAndChangeEmail, .recoverEmail]

    private var templates: [ActionCode.Kind: Template]

    /// The built-in texts, replaced by the files of `directory` (when given and present) named
    /// after the link's `mode` (`verifyEmail`, `resetPassword`, `signIn`, `verifyAndChangeEmail`,
    /// `recoverEmail`): `<mode>.txt` holds a `Subject: …` line, a blank line and the text body;
    /// `<mode>.html`, an HTML body to send along with the text.
    init(directory: String?) throws(MailError) {
        var templates: [ActionCode.Kind: Template] = [:]
        for kind in Self.kinds { templates[kind] = Template.builtIn(kind) }
        if let directory, FileManager.default.fileExists(atPath: directory) {
            try Self.checkNames(in: directory)
            for kind in Self.kinds {
                let base = (directory as NSString).appendingPathComponent(kind.mode)
                if let text = try Self.contents(of: base + ".txt") { templates[kind] = try Self.parse(text, path: base + ".txt") }
                if let html = try Self.contents(of: base + ".html") { templates[kind]?.html = html }
            }
        }
        self.templates = templates
    }

    /// The email for `code`, to the address it concerns (the new one for an email change).
    func message(for code: ActionCode, displayName: String?, appName: String, from: String) -> MailMessage {
        let template = templates[code.kind] ?? Template.builtIn(code.kind)
        let values = [
            "DISPLAY_NAME": displayName ?? "", "APP_NAME": appName, "LINK": code.link, "EMAIL": code.email,
            "NEW_EMAIL": code.newEmail ?? "",
        ]
        return MailMessage(
            from: from, to: code.kind == .verifyAndChangeEmail ? code.newEmail ?? code.email : code.email,
            subject: Self.substitute(template.subject, values, escape: { $0 }),
            textBody: Self.substitute(template.text, values, escape: { $0 }),
            htmlBody: template.html.map { Self.substitute($0, values, escape: HTMLEscaping.escaped) })
    }

    /// `noreply@` the host of `link` (an address literal for an IP address), the sender when none is configured.
    static func defaultSender(forLink link: String) -> String {
        guard let host = URLParts.host(of: link) else { return "noreply@localhost" }
        if host.contains(":") { return "noreply@[IPv6:\(host)]" }
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        if parts.count == 4 && parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy { $0.isASCII && $0.isNumber } }) {
            return "noreply@[\(host)]"
        }
        return "noreply@\(host)"
    }

    /// Refuses template-like files whose name is not a mode, which would otherwise be ignored.
    private static func checkNames(in directory: String) throws(MailError) {
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: directory)
        } catch {
            throw .invalidConfiguration("the email template directory \(directory) cannot be read: \(error.localizedDescription)")
        }
        let known = Set(kinds.flatMap { [$0.mode + ".txt", $0.mode + ".html"] })
        for name in names where (name.hasSuffix(".txt") || name.hasSuffix(".html")) && !known.contains(name) {
            throw .invalidConfiguration(
                "the email template \(name) in \(directory) is not one of \(known.sorted().joined(separator: ", "))")
        }
    }

    /// The UTF-8 text of the file at `path`, or nil when there is none.
    private static func contents(of path: String) throws(MailError) -> String? {
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw .invalidConfiguration("the email template \(path) cannot be read")
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw .invalidConfiguration("the email template \(path) is not UTF-8 text")
        }
        return text
    }

    /// A `.txt` template: `Subject: …`, a blank line, the body.
    private static func parse(_ text: String, path: String) throws(MailError) -> Template {
        // "\r\n" is one Character, so line ends are made uniform before splitting.
        let lines = text.replacingOccurrences(of: "\r\n", with: "\n").split(separator: "\n", maxSplits: 2, omittingEmptySubsequences: false)
        guard let first = lines.first, first.lowercased().hasPrefix("subject:") else {
            throw .invalidConfiguration("the email template \(path) must start with a \"Subject: …\" line")
        }
        guard lines.count == 3, lines[1].allSatisfy(\.isWhitespace) else {
            throw .invalidConfiguration("the email template \(path) needs a blank line between the subject and the body")
        }
        return Template(subject: first.dropFirst("subject:".count).trimmingCharacters(in: .whitespaces), text: String(lines[2]))
    }

    /// `template` with each known `%NAME%` replaced by `escape(value)`; an empty value also removes
    /// the space before it. Replaced text is not searched again.
    private static func substitute(_ template: String, _ values: [String: String], escape: (String) -> String) -> String {
        var output = ""
        var rest = template[...]
        while let start = rest.firstIndex(of: "%") {
            output += rest[..<start]
            let afterStart = rest[rest.index(after: start)...]
            if let end = afterStart.firstIndex(of: "%"), let value = values[String(afterStart[..<end])] {
                if value.isEmpty && output.hasSuffix(" ") { output.removeLast() }
                output += escape(value)
                rest = afterStart[afterStart.index(after: end)...]
            } else {
                output += "%"
                rest = afterStart
            }
        }
        return output + rest
    }
}
