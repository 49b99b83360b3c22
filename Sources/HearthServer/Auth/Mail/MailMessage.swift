/// One email to send: a plain-text body and, optionally, an HTML alternative of it.
struct MailMessage: Sendable, Equatable {
    /// The sender's address (`local@domain`, no display name).
    var from: String
    /// The recipient's address (`local@domain`, no display name).
    var to: String
    var subject: String
    var textBody: String
    var htmlBody: String?
}

/// A way of sending mail, such as ``SMTPDelivery``.
protocol MailDelivery: Sendable {
    /// Sends `message`; returns once the next hop has accepted responsibility for it.
    func deliver(_ message: MailMessage) async throws(MailError)
}
