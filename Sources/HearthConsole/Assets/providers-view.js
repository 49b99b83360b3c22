// Authentication's sign-in methods: the built-in ones (email and password, email link, phone,
// anonymous) turned on and off in the project's configuration, and the identity providers
// configured through Identity Platform's APIs (OpenID Connect, SAML), each enabled or not.
// Clients get Firebase's refusal for a method that is off; administrators are never refused.

import { api, identityToolkit } from "./api.js";
import { authNav } from "./auth-nav.js";
import { h, toast } from "./dom.js";

/** The built-in methods: how each reads from the configuration and the change that sets it. */
const METHODS = [
  {
    id: "email", label: "Email/Password", hint: "Sign-up and sign-in with an email address and a password.",
    on: (signIn) => signIn.email.enabled, change: (on) => ({ email: { enabled: on } }),
  },
  {
    id: "email-link", label: "Email link (passwordless sign-in)", hint: "Needs Email/Password on.",
    on: (signIn) => signIn.email.enabled && !signIn.email.passwordRequired,
    change: (on) => (on ? { email: { enabled: true, passwordRequired: false } } : { email: { passwordRequired: true } }),
  },
  {
    id: "phone", label: "Phone", hint: "Sign-in with a code sent by SMS (development: the outbox lists the codes).",
    on: (signIn) => signIn.phoneNumber.enabled, change: (on) => ({ phoneNumber: { enabled: on } }),
  },
  {
    id: "anonymous", label: "Anonymous", hint: "Guest accounts, upgraded later by linking a credential.",
    on: (signIn) => signIn.anonymous.enabled, change: (on) => ({ anonymous: { enabled: on } }),
  },
];

const COLLECTIONS = [["oauthIdpConfigs", "OpenID Connect"], ["inboundSamlConfigs", "SAML"]];

export class ProvidersView {
  constructor(container) {
    this.container = container;
    this.methods = h("tbody");
    this.providers = h("tbody");
    this.status = h("p", { class: "hint", role: "status", id: "providers-status" });
    container.replaceChildren(
      h("h1", {}, "Authentication: sign-in method"),
      authNav("/auth/providers"),
      this.status,
      h("h2", {}, "Built-in methods"),
      h("table", { class: "users", "aria-label": "Built-in sign-in methods" },
        h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "Method"), h("th", { scope: "col" }, "Status"),
          h("th", { scope: "col" }, "What it is"))),
        this.methods),
      h("h2", {}, "Identity providers"),
      h("table", { class: "users", "aria-label": "Identity providers" },
        h("thead", {}, h("tr", {}, ["Provider", "Kind", "Status"].map((name) => h("th", { scope: "col" }, name)))),
        this.providers));
    this.load();
  }

  dispose() {}

  async load() {
    try {
      const [config, ...collections] = await Promise.all([
        api(identityToolkit("config", "v2")),
        ...COLLECTIONS.map(([collection]) => api(identityToolkit(collection, "v2"))),
      ]);
      this.drawMethods(config.signIn);
      this.drawProviders(collections);
      this.status.textContent = "Changes apply to the next request. Administrators are never refused.";
    } catch (error) {
      this.status.textContent = `Could not read the configuration: ${error.message}`;
    }
  }

  drawMethods(signIn) {
    this.methods.replaceChildren(...METHODS.map((method) => {
      const on = method.on(signIn);
      const toggle = h("input", {
        type: "checkbox", id: `method-${method.id}`, checked: on,
        disabled: method.id === "email-link" && !signIn.email.enabled,
        onchange: () => this.change(method, toggle.checked),
      });
      return h("tr", {},
        h("td", {}, h("label", { for: `method-${method.id}` }, method.label)),
        h("td", {}, toggle, " ", on ? "Enabled" : "Disabled"),
        h("td", { class: "hint" }, method.hint));
    }));
  }

  async change(method, on) {
    try {
      const config = await api(identityToolkit("config", "v2"), { method: "PATCH", body: { signIn: method.change(on) } });
      this.drawMethods(config.signIn);
      toast(`${method.label} ${on ? "enabled" : "disabled"}`);
    } catch (error) {
      toast(`Refused: ${error.message}`, { error: true });
      this.load();
    }
  }

  drawProviders(collections) {
    const rows = [];
    COLLECTIONS.forEach(([collection, kind], index) => {
      for (const provider of collections[index]?.[collection] ?? []) {
        const id = provider.name.split("/").at(-1);
        const toggle = h("input", {
          type: "checkbox", id: `provider-${id}`, checked: provider.enabled === true,
          onchange: () => this.changeProvider(collection, id, toggle.checked),
        });
        rows.push(h("tr", {},
          h("td", {}, h("label", { for: `provider-${id}` }, `${provider.displayName || id} (${id})`)),
          h("td", {}, kind),
          h("td", {}, toggle, " ", provider.enabled ? "Enabled" : "Disabled")));
      }
    });
    if (rows.length === 0) {
      rows.push(h("tr", {}, h("td", { colspan: 3, class: "empty" },
        "None configured: add OpenID Connect or SAML providers with the Admin SDK's createProviderConfig.")));
    }
    this.providers.replaceChildren(...rows);
  }

  async changeProvider(collection, id, on) {
    try {
      await api(`${identityToolkit(`${collection}/${encodeURIComponent(id)}`, "v2")}?updateMask=enabled`,
        { method: "PATCH", body: { enabled: on } });
      toast(`${id} ${on ? "enabled" : "disabled"}`);
    } catch (error) {
      toast(`Refused: ${error.message}`, { error: true });
    }
    this.load();
  }
}
