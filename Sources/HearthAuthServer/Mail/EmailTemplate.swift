/// One kind of action email before its placeholders (`%DISPLAY_NAME%`, `%APP_NAME%`, `%LINK%`,
/// `%EMAIL%`, `%NEW_EMAIL%`) are replaced: a subject, a text body and optionally an HTML body
/// sent along with it.
package struct EmailTemplate: Sendable, Equatable {
    package var subject: String
    package var text: String
    package var html: String?

    package init(subject: String, text: String, html: String? = nil) {
        self.subject = subject
        self.text = text
        self.html = html
    }
}
