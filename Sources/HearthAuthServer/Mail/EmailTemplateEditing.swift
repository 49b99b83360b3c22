import HearthSMTP

/// The action emails' templates as the console edits them: no Firebase API writes Hearth's
/// template files.
extension AuthService {
    /// The link `mode` of each kind of action email, in the order the console lists them.
    package static let emailTemplateModes = EmailTemplates.kinds.map(\.mode)

    /// Whether action emails are sent (an SMTP server is configured), not only listed.
    package var sendsEmail: Bool { mailer != nil }

    /// The template in force for the emails of link `mode`, and whether it comes from a file
    /// rather than the built-in text; `nil` for an unknown mode.
    package func emailTemplate(mode: String) -> (template: EmailTemplate, customized: Bool)? {
        guard let kind = Self.emailKind(mode) else { return nil }
        let templates = emailTemplates.current
        return (templates[kind], templates.customized.contains(kind))
    }

    /// Puts `template` in force for the emails of link `mode`, written to the template folder
    /// (`nil`: its files are removed and the built-in text is back).
    package func setEmailTemplate(_ template: EmailTemplate?, mode: String) throws(MailError) {
        guard let kind = Self.emailKind(mode) else { throw .invalidMessage("there is no email of mode \(mode)") }
        try emailTemplates.save(template, for: kind)
    }

    /// `template` as an email of link `mode` to a sample user would read, its link pointing at
    /// `origin`; refused as saving would refuse it.
    package func emailPreview(_ template: EmailTemplate, mode: String, origin: String) throws(MailError) -> EmailTemplate {
        guard let kind = Self.emailKind(mode) else { throw .invalidMessage("there is no email of mode \(mode)") }
        try EmailTemplateStore.check(template)
        let link = ActionCodes.linkStart(kind, origin: origin, production: settings.production) + "&oobCode=SAMPLE_CODE"
        let values = EmailTemplates.values(
            displayName: "Ada Lovelace", appName: settings.projectID, link: link, email: "ada@example.com",
            newEmail: "ada.lovelace@example.org")
        return template.rendered(values)
    }

    private static func emailKind(_ mode: String) -> ActionCode.Kind? {
        EmailTemplates.kinds.first { $0.mode == mode }
    }
}
