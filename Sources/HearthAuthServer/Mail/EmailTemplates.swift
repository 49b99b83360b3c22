import Foundation
import HearthSMTP

/// The emails of the action flows (auth spec §10.4): a subject, a text body and optionally an
/// HTML body for each kind of action code, in which `%DISPLAY_NAME%`, `%APP_NAME%`, `%LINK%`,
/// `%EMAIL%` and `%NEW_EMAIL%` are replaced. A placeholder whose value is empty also takes the
/// space before it away, so that "Hello %DISPLAY_NAME%," reads "Hello," for a user without a name.
struct EmailTemplates: Sendable {
    static let kinds: [ActionCode.Kind] = [.verifyEmail, .passwordReset, .emailSignIn, .verifyAndChangeEmail, .recoverEmail]

    private var templates: [ActionCode.Kind: EmailTemplate]
    /// The kinds whose template comes from a file rather than the built-in text.
    private(set) var customized: Set<ActionCode.Kind> = []

    /// The built-in texts, replaced by the files of `directory` (when given and present) named
    /// after the link's `mode` (`verifyEmail`, `resetPassword`, `signIn`, `verifyAndChangeEmail`,
    /// `recoverEmail`): `<mode>.txt` holds a `Subject: …` line, a blank line and the text body;
    /// `<mode>.html`, an HTML body to send along with the text.
    init(directory: String?) throws(MailError) {
        var templates: [ActionCode.Kind: EmailTemplate] = [:]
        for kind in Self.kinds { templates[kind] = EmailTemplate.builtIn(kind) }
        if let directory, FileManager.default.fileExists(atPath: directory) {
            try Self.checkNames(in: directory)
            for kind in Self.kinds {
                let files = Self.files(of: kind, in: directory)
                if let text = try Self.contents(of: files.text) {
                    templates[kind] = try Self.parse(text, path: files.text)
                    customized.insert(kind)
                }
                if let html = try Self.contents(of: files.html) {
                    templates[kind]?.html = html
                    customized.insert(kind)
                }
            }
        }
        self.templates = templates
    }

    /// The template the emails of `kind` are written from.
    subscript(kind: ActionCode.Kind) -> EmailTemplate {
        templates[kind] ?? EmailTemplate.builtIn(kind)
    }

    /// The email for `code`, to the address it concerns (the new one for an email change).
    func message(for code: ActionCode, displayName: String?, appName: String, from: String) -> MailMessage {
        let values = Self.values(displayName: displayName, appName: appName, link: code.link, email: code.email, newEmail: code.newEmail)
        let rendered = self[code.kind].rendered(values)
        return MailMessage(
            from: from, to: code.kind == .verifyAndChangeEmail ? code.newEmail ?? code.email : code.email,
            subject: rendered.subject, textBody: rendered.text, htmlBody: rendered.html)
    }

    /// The placeholders' values for one email.
    static func values(displayName: String?, appName: String, link: String, email: String, newEmail: String?) -> [String: String] {
        ["DISPLAY_NAME": displayName ?? "", "APP_NAME": appName, "LINK": link, "EMAIL": email, "NEW_EMAIL": newEmail ?? ""]
    }

    /// The `.txt` and `.html` files of `kind`'s template in `directory`.
    static func files(of kind: ActionCode.Kind, in directory: String) -> (text: String, html: String) {
        let base = (directory as NSString).appendingPathComponent(kind.mode)
        return (base + ".txt", base + ".html")
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
    private static func parse(_ text: String, path: String) throws(MailError) -> EmailTemplate {
        // "\r\n" is one Character, so line ends are made uniform before splitting.
        let lines = text.replacingOccurrences(of: "\r\n", with: "\n").split(separator: "\n", maxSplits: 2, omittingEmptySubsequences: false)
        guard let first = lines.first, first.lowercased().hasPrefix("subject:") else {
            throw .invalidConfiguration("the email template \(path) must start with a \"Subject: …\" line")
        }
        guard lines.count == 3, lines[1].allSatisfy(\.isWhitespace) else {
            throw .invalidConfiguration("the email template \(path) needs a blank line between the subject and the body")
        }
        return EmailTemplate(subject: first.dropFirst("subject:".count).trimmingCharacters(in: .whitespaces), text: String(lines[2]))
    }

    /// `template` with each known `%NAME%` replaced by `escape(value)`; an empty value also removes
    /// the space before it. Replaced text is not searched again.
    fileprivate static func substitute(_ template: String, _ values: [String: String], escape: (String) -> String) -> String {
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

extension EmailTemplate {
    /// The template with its placeholders replaced by `values`; those in the HTML body are escaped.
    func rendered(_ values: [String: String]) -> Self {
        Self(
            subject: EmailTemplates.substitute(subject, values, escape: { $0 }),
            text: EmailTemplates.substitute(text, values, escape: { $0 }),
            html: html.map { EmailTemplates.substitute($0, values, escape: HTMLEscaping.escaped) })
    }

    /// The `.txt` file's text: the `Subject:` line, a blank line, the body.
    var textFile: String {
        "Subject: \(subject)\n\n\(text)"
    }
}
