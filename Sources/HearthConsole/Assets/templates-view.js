// Authentication's email templates: the subject, text body and optional HTML body of each action
// email, with a preview as a sample user would read it. Saving writes the template folder's files
// (`<mode>.txt`, `<mode>.html`); the next email is written from them.

import { consoleRequest } from "./api.js";
import { authNav } from "./auth-nav.js";
import { confirmAction, h, toast } from "./dom.js";

/** Each kind of email by its link mode, as the console names it. */
const NAMES = {
  verifyEmail: "Email address verification",
  resetPassword: "Password reset",
  signIn: "Email link sign-in",
  verifyAndChangeEmail: "Email address change",
  recoverEmail: "Email change revoked",
};

const PLACEHOLDERS = "%DISPLAY_NAME%, %APP_NAME%, %LINK%, %EMAIL%, %NEW_EMAIL%";

/** The URL of the editor of `mode`'s template. */
export const templateURL = (mode) => `/auth/templates/${encodeURIComponent(mode)}`;

export class TemplatesView {
  constructor(container, { mode, navigate }) {
    this.container = container;
    this.mode = mode;
    this.navigate = navigate;
    this.status = h("p", { class: "hint", role: "status", id: "templates-status" });
    this.kinds = h("nav", { class: "tabs", "aria-label": "Email" });
    this.editor = h("div");
    container.replaceChildren(h("h1", {}, "Authentication: email templates"), authNav("/auth/templates"), this.status,
      this.kinds, this.editor);
    this.load();
  }

  dispose() {}

  async load() {
    try {
      const answer = await consoleRequest("/console/auth/templates", "GET");
      this.status.textContent = answer.sendsEmail
        ? "Emails are sent through the configured SMTP server."
        : "No SMTP server is configured (--smtp): no email is sent and the outbox lists each link. "
          + "Saved templates are used once one is.";
      const templates = answer.templates;
      const shown = templates.find((template) => template.mode === this.mode) ?? templates[0];
      if (shown.mode !== this.mode) return this.navigate(templateURL(shown.mode), { replace: true });
      this.kinds.replaceChildren(...templates.map((template) => h("a", {
        href: templateURL(template.mode), "data-link": true, "aria-current": template === shown ? "page" : null,
      }, NAMES[template.mode] ?? template.mode, template.customized ? [" ", h("span", { class: "badge" }, "custom")] : null)));
      this.draw(shown);
    } catch (error) {
      this.status.textContent = `Could not read the templates: ${error.message}`;
    }
  }

  draw(template) {
    this.subject = h("input", { type: "text", id: "template-subject", value: template.subject, size: 60 });
    this.text = h("textarea", { id: "template-text", class: "code-editor", rows: 14, spellcheck: true });
    this.text.value = template.text;
    this.html = h("textarea", {
      id: "template-html", class: "code-editor", rows: 10, spellcheck: false, "aria-describedby": "template-html-hint",
    });
    this.html.value = template.html ?? "";
    this.problem = h("p", { class: "form-error", id: "template-problem", role: "alert" });
    this.preview = h("section", { class: "panel", id: "template-preview", "aria-labelledby": "preview-title" },
      h("h2", { id: "preview-title" }, "Preview"), h("p", { class: "hint" }, "Preview shows the draft as Ada Lovelace would get it."));
    this.editor.replaceChildren(h("div", { class: "rules-layout" },
      h("section", { class: "stack template-form", "aria-label": `${NAMES[template.mode] ?? template.mode} template` },
        h("p", { class: "hint", id: "template-origin" }, template.customized ? "From the template folder." : "The built-in text."),
        h("label", { for: "template-subject" }, "Subject"), this.subject,
        h("label", { for: "template-text" }, "Text body"), this.text,
        h("label", { for: "template-html" }, "HTML body (optional, sent along with the text)"), this.html,
        h("p", { class: "hint", id: "template-html-hint" }, `Placeholders: ${PLACEHOLDERS}. Values are escaped in the HTML body.`),
        this.problem,
        h("div", { class: "toolbar" },
          h("button", { type: "button", id: "template-preview-button", onclick: () => this.showPreview() }, "Preview"),
          h("button", { type: "button", class: "primary", id: "template-save", onclick: () => this.save(template.mode) }, "Save"),
          template.customized
            ? h("button", { type: "button", class: "danger", id: "template-reset", onclick: () => this.reset(template.mode) },
              "Use the built-in text")
            : null)),
      this.preview));
  }

  draft() {
    return { subject: this.subject.value, text: this.text.value, html: this.html.value };
  }

  async showPreview() {
    this.problem.textContent = "";
    try {
      const email = await consoleRequest(`/console/auth/templates/${encodeURIComponent(this.mode)}/preview`, "POST", this.draft());
      this.preview.replaceChildren(
        h("h2", { id: "preview-title" }, "Preview"),
        h("p", { id: "preview-subject" }, h("strong", {}, "Subject: "), email.subject),
        h("pre", { class: "email-text", id: "preview-text" }, email.text),
        email.htmlURL
          ? h("iframe", { src: email.htmlURL, sandbox: "", title: "HTML body", class: "email-html", id: "preview-html" })
          : h("p", { class: "hint" }, "No HTML body: mail readers show the text."));
    } catch (error) {
      this.problem.textContent = error.message;
    }
  }

  async save(mode) {
    this.problem.textContent = "";
    try {
      const saved = await consoleRequest(`/console/auth/templates/${encodeURIComponent(mode)}`, "PUT", this.draft());
      toast(`${NAMES[mode] ?? mode} saved`);
      this.load();
    } catch (error) {
      this.problem.textContent = error.message;
    }
  }

  async reset(mode) {
    if (!await confirmAction(`Replace the ${NAMES[mode] ?? mode} template with the built-in text?`, "Replace")) return;
    try {
      await consoleRequest(`/console/auth/templates/${encodeURIComponent(mode)}`, "DELETE");
      toast(`${NAMES[mode] ?? mode}: the built-in text is back`);
      this.load();
    } catch (error) {
      this.problem.textContent = error.message;
    }
  }
}
