// The outbox (development): every unused verification, password-reset and sign-in link, and
// every SMS code, as the emulator's endpoints list them; a verification or a reset completes
// with one click, through the emulator's own action handler.

import { api, session } from "./api.js";
import { authNav } from "./auth-nav.js";
import { h, toast } from "./dom.js";

const REFRESH_MS = 2000;
const emulator = (rest) => `/emulator/v1/projects/${encodeURIComponent(session.projectId)}/${rest}`;
const COMPLETES = new Set(["VERIFY_EMAIL", "VERIFY_AND_CHANGE_EMAIL", "RECOVER_EMAIL", "PASSWORD_RESET"]);

export class OutboxView {
  constructor(container) {
    this.container = container;
    this.render();
    this.refresh();
    this.timer = setInterval(() => this.refresh(), REFRESH_MS);
  }

  dispose() {
    clearInterval(this.timer);
    this.disposed = true;
  }

  render() {
    this.links = h("tbody");
    this.codes = h("tbody");
    this.status = h("p", { class: "hint", role: "status" });
    this.container.replaceChildren(
      h("h1", {}, "Authentication: outbox"),
      authNav("/auth/outbox"),
      this.status,
      h("h2", {}, "Email links"),
      h("table", { class: "users", "aria-label": "Email links" },
        h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "Kind"), h("th", { scope: "col" }, "Email"),
          h("th", { scope: "col" }, "Link"), h("th", { scope: "col" }, h("span", { class: "visually-hidden" }, "Actions")))),
        this.links),
      h("h2", {}, "SMS codes"),
      h("table", { class: "users", "aria-label": "SMS codes" },
        h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "Phone number"), h("th", { scope: "col" }, "Code"))),
        this.codes));
  }

  async refresh() {
    try {
      const [links, codes] = await Promise.all([api(emulator("oobCodes")), api(emulator("verificationCodes"))]);
      if (this.disposed) return;
      const signature = JSON.stringify([links, codes]);
      if (signature === this.signature) return;
      this.signature = signature;
      this.draw(links.oobCodes ?? [], codes.verificationCodes ?? []);
    } catch (error) {
      this.status.textContent = session.mode === "production"
        ? "Production sends these links by mail; the outbox lists them in development only."
        : `Could not read the outbox: ${error.message}`;
    }
  }

  draw(links, codes) {
    this.status.textContent = `${links.length} unused ${links.length === 1 ? "link" : "links"}, ${codes.length} SMS ${codes.length === 1 ? "code" : "codes"}`;
    this.links.replaceChildren(...links.map((link) => h("tr", { dataset: { code: link.oobCode } },
      h("td", {}, link.requestType),
      h("td", {}, link.newEmail ? `${link.email} → ${link.newEmail}` : link.email),
      h("td", { class: "cell-value" }, link.oobLink),
      h("td", {},
        h("button", { type: "button", "aria-label": `Copy the link for ${link.email}`, onclick: async () => {
          await navigator.clipboard.writeText(link.oobLink);
          toast("Link copied");
        } }, "Copy"), " ",
        COMPLETES.has(link.requestType)
          ? h("button", { type: "button", class: "primary", "aria-label": `Complete ${link.requestType} for ${link.email}`,
            onclick: () => this.complete(link) }, "Complete")
          : null))));
    if (links.length === 0) this.links.append(h("tr", {}, h("td", { colspan: 4, class: "empty" }, "No unused link.")));
    this.codes.replaceChildren(...codes.map((code) => h("tr", {}, h("td", {}, code.phoneNumber), h("td", {}, h("code", {}, code.code)))));
    if (codes.length === 0) this.codes.append(h("tr", {}, h("td", { colspan: 2, class: "empty" }, "No SMS code.")));
  }

  /** Applies the link as the emulator's action page does; a reset asks for the new password. */
  async complete(link) {
    const parameters = new URL(link.oobLink).searchParams;
    parameters.delete("continueUrl");
    if (link.requestType === "PASSWORD_RESET") {
      const row = this.links.querySelector(`tr[data-code="${CSS.escape(link.oobCode)}"] td:last-child`);
      const input = h("input", { type: "password", "aria-label": `New password for ${link.email}`, autocomplete: "new-password" });
      row.replaceChildren(input, h("button", { type: "button", class: "primary", onclick: async () => {
        parameters.set("newPassword", input.value);
        await this.apply(parameters, `Password of ${link.email} reset`);
      } }, "Set password"));
      input.focus();
      return;
    }
    await this.apply(parameters, `Completed for ${link.email}`);
  }

  async apply(parameters, done) {
    try {
      await api(`/emulator/action?${parameters}`);
      toast(done);
      this.signature = null;
      this.refresh();
    } catch (error) {
      toast(`Refused: ${error.message}`, { error: true });
    }
  }
}
