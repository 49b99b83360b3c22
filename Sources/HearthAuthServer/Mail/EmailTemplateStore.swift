import Foundation
import HearthSMTP
import Synchronization

/// The action emails' templates as the running server sends them: read from the template folder
/// at start, and written back to it when the console saves or resets one, so that the next email
/// is written from the new text.
final class EmailTemplateStore: Sendable {
    /// The longest subject, body or HTML body a template may have.
    static let maximumLength = 100_000

    /// The folder of `<mode>.txt` and `<mode>.html`; `nil` when none is configured (templates
    /// cannot be saved then).
    let directory: String?
    private let templates: Mutex<EmailTemplates>

    init(directory: String?) throws(MailError) {
        self.directory = directory
        templates = Mutex(try EmailTemplates(directory: directory))
    }

    /// The templates in force.
    var current: EmailTemplates {
        templates.withLock { $0 }
    }

    /// Writes `template` as `kind`'s files (`nil`: removes them, back to the built-in text), then
    /// reads the folder again. Nothing is written when the template is refused.
    func save(_ template: EmailTemplate?, for kind: ActionCode.Kind) throws(MailError) {
        guard let directory else {
            throw .invalidConfiguration("no email template folder is configured (--email-templates)")
        }
        if let template { try Self.check(template) }
        try templates.withLock { (templates: inout EmailTemplates) throws(MailError) in
            let files = EmailTemplates.files(of: kind, in: directory)
            do {
                if let template {
                    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
                    try template.textFile.write(toFile: files.text, atomically: true, encoding: .utf8)
                    if let html = template.html {
                        try html.write(toFile: files.html, atomically: true, encoding: .utf8)
                    } else {
                        try Self.remove(files.html)
                    }
                } else {
                    try Self.remove(files.text)
                    try Self.remove(files.html)
                }
            } catch {
                throw .invalidConfiguration(
                    "the email template \(kind.mode) cannot be written to \(directory): \(error.localizedDescription)")
            }
            templates = try EmailTemplates(directory: directory)
        }
    }

    /// Refuses what could not be sent or read back: an empty or multi-line subject (a line break
    /// would start a new header), an empty body, an oversized part.
    static func check(_ template: EmailTemplate) throws(MailError) {
        let subject = template.subject.trimmingCharacters(in: .whitespaces)
        guard !subject.isEmpty else { throw .invalidMessage("the subject is empty") }
        guard !template.subject.contains(where: \.isNewline) else { throw .invalidMessage("the subject must be one line") }
        guard !template.text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
            throw .invalidMessage("the text body is empty")
        }
        for (name, part) in [("subject", template.subject), ("text body", template.text), ("HTML body", template.html ?? "")]
        where part.utf8.count > maximumLength {
            throw .invalidMessage("the \(name) is longer than \(maximumLength) bytes")
        }
    }

    private static func remove(_ path: String) throws {
        guard FileManager.default.fileExists(atPath: path) else { return }
        try FileManager.default.removeItem(atPath: path)
    }
}
