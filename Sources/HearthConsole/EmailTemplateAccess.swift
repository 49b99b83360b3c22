/// The action emails' templates as the console edits them, provided by the composition: no
/// Firebase API writes Hearth's template files. A mode is the action link's (`verifyEmail`,
/// `resetPassword`, `signIn`, `verifyAndChangeEmail`, `recoverEmail`).
package struct EmailTemplateAccess: Sendable {
    /// One kind of email before its placeholders are replaced.
    package struct Template: Sendable {
        package var subject: String
        package var text: String
        package var html: String?

        package init(subject: String, text: String, html: String?) {
            self.subject = subject
            self.text = text
            self.html = html
        }
    }

    /// The modes, in the order the console lists them.
    package let modes: [String]
    /// Whether emails are sent (an SMTP server is configured), rather than only listed in the outbox.
    package let sendsEmail: Bool
    /// The template in force for `mode` and whether it comes from a file; `nil` for an unknown mode.
    package let read: @Sendable (_ mode: String) -> (template: Template, customized: Bool)?
    /// Puts `template` in force (`nil`: the built-in text); returns the problem when it is refused.
    package let write: @Sendable (_ mode: String, _ template: Template?) -> String?
    /// `template` with a sample user's values and a link to `origin`, or the problem.
    package let preview: @Sendable (_ mode: String, _ template: Template, _ origin: String) -> Result<Template, SimulationRefused>

    package init(
        modes: [String], sendsEmail: Bool, read: @escaping @Sendable (_ mode: String) -> (template: Template, customized: Bool)?,
        write: @escaping @Sendable (_ mode: String, _ template: Template?) -> String?,
        preview: @escaping @Sendable (_ mode: String, _ template: Template, _ origin: String) -> Result<Template, SimulationRefused>
    ) {
        self.modes = modes
        self.sendsEmail = sendsEmail
        self.read = read
        self.write = write
        self.preview = preview
    }
}
