/// One email to send: a plain-text body and, optionally, an HTML alternative of it.
package struct MailMessage: Sendable, Equatable {
    /// The sender's address (`local@domain`, no display name).
    package var from: String
    /// The recipient's address (`local@domain`, no display name).
    package var to: String
    package var subject: String
    package var textBody: String
    package var htmlBody: String?

    package init(from: String, to: String, subject: String, textBody: String, htmlBody: String? = nil) {
        self.from = from
        self.to = to
        self.subject = subject
        self.textBody = textBody
        self.htmlBody = htmlBody
    }
}

/// A way of sending mail, such as ``SMTPDelivery``.
package protocol MailDelivery: Sendable {
    /// Sends `message`; returns once the next hop has accepted responsibility for it.
    func deliver(_ message: MailMessage) async throws(MailError)
}
