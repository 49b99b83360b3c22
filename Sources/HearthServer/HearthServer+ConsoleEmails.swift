import HearthAuthServer
import HearthConsole

extension HearthServer {
    /// Authentication's email templates as the console edits them.
    static func emailTemplateAccess(auth: AuthService) -> EmailTemplateAccess {
        EmailTemplateAccess(
            modes: AuthService.emailTemplateModes, sendsEmail: auth.sendsEmail,
            read: { mode in
                auth.emailTemplate(mode: mode).map { (consoleTemplate($0.template), $0.customized) }
            },
            write: { mode, template in
                do {
                    try auth.setEmailTemplate(template.map(authTemplate), mode: mode)
                    return nil
                } catch {
                    return String(describing: error)
                }
            },
            preview: { mode, template, origin in
                do {
                    return .success(consoleTemplate(try auth.emailPreview(authTemplate(template), mode: mode, origin: origin)))
                } catch {
                    return .failure(SimulationRefused(String(describing: error)))
                }
            })
    }

    private static func consoleTemplate(_ template: EmailTemplate) -> EmailTemplateAccess.Template {
        EmailTemplateAccess.Template(subject: template.subject, text: template.text, html: template.html)
    }

    private static func authTemplate(_ template: EmailTemplateAccess.Template) -> EmailTemplate {
        EmailTemplate(subject: template.subject, text: template.text, html: template.html)
    }
}
