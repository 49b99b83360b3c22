// The database rules: an editor that checks the text (errors at line and column), publishes it
// (into the rules file when the server has one), and a playground that judges one read or
// write against the rules in force and the current data, showing every rule evaluated.

import { session } from "./api.js";
import { confirmAction, h, toast } from "./dom.js";
import { evaluationList } from "./rule-trace.js";

const rulesPath = (namespace, rest = "") => `/console/rules/database${rest}?ns=${encodeURIComponent(namespace)}`;

/** The `auth` variable the playground's choice stands for. */
function authVariable(kind, uid, claimsText) {
  if (kind === "none") return null;
  const claims = claimsText.trim() ? JSON.parse(claimsText) : {};
  if (claims === null || typeof claims !== "object" || Array.isArray(claims)) throw new Error("Claims must be a JSON object.");
  const provider = kind === "anonymous" ? "anonymous" : "password";
  const id = uid || (kind === "anonymous" ? "anonymous-user" : "user");
  return { uid: id, provider, token: { ...claims, sub: id, firebase: { sign_in_provider: provider } } };
}

/** Reads the console's own text endpoints: the body, or the `{"error"}` it was refused with. */
async function send(path, method, body) {
  const response = await fetch(path, {
    method, credentials: "same-origin", cache: "no-store",
    headers: method === "GET" ? {} : { "X-Hearth-CSRF": session.csrfToken, "Content-Type": "text/plain" },
    body,
  });
  const answer = await response.json();
  if (!response.ok) throw new Error(answer.error ?? `${response.status}`);
  return answer;
}

/** A refused request the playground opens with, set by the requests view's "replay". */
let pendingReplay = null;

/** Opens the playground of `namespace` with a denied request's operation, location, data and
 *  `auth` filled in, and runs it. */
export function replayInPlayground(navigate, namespace, replay, auth) {
  pendingReplay = { replay, auth };
  navigate(`/rules/database?ns=${encodeURIComponent(namespace)}`);
}

/** The playground's `auth` choice that stands for the `auth` variable `auth`. */
function authChoice(auth) {
  if (auth === null || typeof auth !== "object") return { authKind: "none", uid: "", claims: "" };
  const { sub, firebase, ...claims } = auth.token ?? {};
  return {
    authKind: auth.provider === "anonymous" ? "anonymous" : "uid", uid: auth.uid ?? "",
    claims: Object.keys(claims).length ? JSON.stringify(claims) : "",
  };
}

export class RulesView {
  constructor(container, { namespace }) {
    this.container = container;
    this.namespace = namespace;
    this.render();
    this.load();
    if (pendingReplay) {
      const { replay, auth } = pendingReplay;
      pendingReplay = null;
      this.replay(replay, auth);
    }
  }

  dispose() {}

  async load() {
    try {
      const answer = await send(rulesPath(this.namespace), "GET");
      this.editor.value = answer.source;
      this.published = answer.source;
      this.origin.textContent = answer.file ? `Published into ${answer.file}` : `The rules of ${this.namespace}`;
    } catch (error) {
      this.showProblem(`Could not read the rules: ${error.message}`);
    }
  }

  render() {
    this.editor = h("textarea", {
      id: "rules-editor", class: "code-editor", rows: 22, spellcheck: false, "aria-describedby": "rules-problem",
      oninput: () => { this.problem.textContent = ""; },
    });
    this.problem = h("p", { class: "form-error", id: "rules-problem", role: "alert" });
    this.origin = h("p", { class: "hint", id: "rules-origin" });
    this.result = h("div", { id: "simulation", class: "simulation", "aria-live": "polite" });
    const operation = h("select", { id: "sim-operation" },
      h("option", { value: "read" }, "read"), h("option", { value: "set" }, "set"), h("option", { value: "update" }, "update"));
    const path = h("input", { type: "text", id: "sim-path", value: "/", size: 30 });
    const authKind = h("select", { id: "sim-auth" },
      h("option", { value: "none" }, "signed out"), h("option", { value: "anonymous" }, "anonymous"),
      h("option", { value: "uid" }, "a user (uid)"));
    const uid = h("input", { type: "text", id: "sim-uid", size: 20 });
    const claims = h("textarea", { id: "sim-claims", rows: 2, cols: 30, placeholder: '{"admin": true}' });
    const value = h("textarea", { id: "sim-value", rows: 3, cols: 30, placeholder: '{"name": "Ada"}' });
    const query = h("input", { type: "text", id: "sim-query", size: 30, placeholder: 'orderBy="$key"&limitToFirst=10' });
    this.fields = { operation, path, authKind, uid, claims, value, query };
    this.container.replaceChildren(
      h("h1", {}, "Database rules"),
      this.origin,
      h("div", { class: "rules-layout" },
        h("section", { "aria-labelledby": "rules-editor-label" },
          h("label", { for: "rules-editor", id: "rules-editor-label" }, "Rules"),
          this.editor, this.problem,
          h("div", { class: "toolbar" },
            h("button", { type: "button", id: "rules-check", onclick: () => this.check() }, "Check"),
            h("button", { type: "button", class: "primary", id: "rules-publish", onclick: () => this.publish() }, "Publish"),
            h("button", { type: "button", id: "rules-revert", onclick: () => { this.editor.value = this.published ?? ""; } }, "Revert"))),
        h("section", { class: "panel", "aria-labelledby": "playground-title" },
          h("h2", { id: "playground-title" }, "Playground"),
          h("div", { class: "stack" },
            h("label", { for: "sim-operation" }, "Operation"), operation,
            h("label", { for: "sim-path" }, "Location"), path,
            h("label", { for: "sim-auth" }, "Authenticated as"), authKind,
            h("label", { for: "sim-uid" }, "User uid"), uid,
            h("label", { for: "sim-claims" }, "Token claims (JSON object)"), claims,
            h("label", { for: "sim-value" }, "Data written (JSON; for update, an object of relative paths)"), value,
            h("label", { for: "sim-query" }, "Query of a read (REST parameters)"), query,
            h("button", { type: "button", class: "primary", id: "sim-run", onclick: () => this.simulate(this.formValues()) },
              "Run")),
          this.result)));
  }

  formValues() {
    return Object.fromEntries(Object.entries(this.fields).map(([name, field]) => [name, field.value]));
  }

  /** Fills the playground with a denied request and runs it. */
  replay(replay, auth) {
    const values = { operation: replay.operation, path: replay.path, value: replay.value ?? "", query: "", ...authChoice(auth) };
    for (const [name, value] of Object.entries(values)) this.fields[name].value = value;
    if (replay.valueOmitted) toast("The data written was too large to carry over; fill it in.", { error: true });
    this.fields.path.scrollIntoView({ block: "center" });
    this.simulate(this.formValues());
  }

  showProblem(message) {
    this.problem.textContent = message;
    const match = /^Line (\d+) \(column (\d+)\)/.exec(message);
    if (!match) return;
    // Put the caret where the problem is.
    const lines = this.editor.value.split("\n");
    const line = Math.min(Number(match[1]), lines.length);
    const offset = lines.slice(0, line - 1).reduce((sum, text) => sum + text.length + 1, 0) + Number(match[2]) - 1;
    this.editor.focus();
    this.editor.setSelectionRange(offset, offset + 1);
  }

  async check() {
    try {
      await send(rulesPath(this.namespace) + "&dryRun=true", "PUT", this.editor.value);
      toast("The rules are valid.");
    } catch (error) {
      this.showProblem(error.message);
    }
  }

  async publish() {
    if (!(await confirmAction("Publish these rules? They apply to every request at once.", "Publish"))) return;
    try {
      await send(rulesPath(this.namespace), "PUT", this.editor.value);
      this.published = this.editor.value;
      toast("Rules published.");
    } catch (error) {
      this.showProblem(error.message);
    }
  }

  async simulate(form) {
    let request;
    try {
      request = { operation: form.operation, path: form.path, auth: authVariable(form.authKind, form.uid, form.claims) };
      if (form.operation !== "read") request.value = form.value.trim() ? JSON.parse(form.value) : null;
      if (form.operation === "read" && form.query.trim()) request.query = form.query.trim();
    } catch (error) {
      this.result.replaceChildren(h("p", { class: "form-error" }, error.message.startsWith("Claims") ? error.message : "Not valid JSON."));
      return;
    }
    try {
      const answer = await send(rulesPath(this.namespace, "/simulate"), "POST", JSON.stringify(request));
      this.result.replaceChildren(
        h("p", { class: answer.allowed ? "verdict allowed" : "verdict denied", id: "sim-verdict" },
          answer.allowed ? "Allowed" : "Denied"),
        answer.evaluations.length === 0
          ? h("p", { class: "hint" }, "No rule on the path from the root applies: denied.")
          : evaluationList(answer.evaluations, (line) => this.goToLine(line)));
    } catch (error) {
      this.result.replaceChildren(h("p", { class: "form-error" }, error.message));
    }
  }

  goToLine(line) {
    const lines = this.editor.value.split("\n");
    const start = lines.slice(0, line - 1).reduce((sum, text) => sum + text.length + 1, 0);
    this.editor.focus();
    this.editor.setSelectionRange(start, start + (lines[line - 1] ?? "").length);
  }
}
