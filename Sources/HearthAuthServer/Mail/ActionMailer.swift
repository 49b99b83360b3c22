import HearthSMTP

/// Sends the email of an action code, written from the project's templates.
struct ActionMailer: Sendable {
    let delivery: any MailDelivery
    let templates: EmailTemplateStore
    /// `%APP_NAME%`: the project id.
    let appName: String

    /// Sends `code`'s email to the address it concerns, from `noreply@` the host of its link.
    func send(_ code: ActionCode, displayName: String?) async throws(MailError) {
        try await delivery.deliver(
            templates.current.message(
                for: code, displayName: displayName, appName: appName, from: EmailTemplates.defaultSender(forLink: code.link)))
    }
}
