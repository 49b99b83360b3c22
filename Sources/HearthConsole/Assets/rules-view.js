// The rules of the database and of Storage: an editor that checks the text (errors at line and
// column), publishes it (into the rules file when the server has one), and a playground that
// judges one request against the rules in force and the current data, showing every rule
// evaluated.

import { api, identityToolkit, session } from "./api.js";
import { confirmAction, h, toast } from "./dom.js";
import { authVariable, evaluationList } from "./rule-trace.js";

/** The console's rules endpoint of `product`; the database's rules are a namespace's. */
function rulesPath(product, namespace, rest = "", parameters = {}) {
  const query = new URLSearchParams(product === "database" ? { ns: namespace, ...parameters } : parameters);
  return `/console/rules/${product}${rest}${query.size ? `?${query}` : ""}`;
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

/** Opens the playground of `product` (of `namespace`, for the database) with a denied
 *  request's operation, location, data and `auth` filled in, and runs it. */
export function replayInPlayground(navigate, product, namespace, replay, auth) {
  pendingReplay = { product, replay, auth };
  navigate(product === "database" ? `/rules/database?ns=${encodeURIComponent(namespace)}` : `/rules/${product}`);
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

/** How many users the uid field offers. */
const USERS_OFFERED = 100;

const select = (id, values) => h("select", { id }, values.map(([value, label]) => h("option", { value }, label ?? value)));

export class RulesView {
  /** `product` is `database` or `storage`; `namespace` the database's. */
  constructor(container, { product, namespace }) {
    this.container = container;
    this.product = product;
    this.namespace = namespace;
    this.render();
    this.load();
    if (pendingReplay?.product === product) {
      const { replay, auth } = pendingReplay;
      pendingReplay = null;
      this.replay(replay, auth);
    }
  }

  dispose() {}

  async load() {
    try {
      const answer = await send(rulesPath(this.product, this.namespace), "GET");
      this.editor.value = answer.source;
      this.published = answer.source;
      this.origin.textContent = answer.file ? `Published into ${answer.file}`
        : this.product === "database" ? `The rules of ${this.namespace}` : "The rules in force";
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
    const tab = (product, label) => h("a", {
      href: `/rules/${product}`, "data-link": true, "aria-current": product === this.product ? "page" : null,
    }, label);
    const fields = this.product === "database" ? this.databaseFields() : this.storageFields();
    this.container.replaceChildren(
      h("h1", {}, this.product === "database" ? "Database rules" : "Storage rules"),
      h("nav", { class: "tabs", "aria-label": "Rules of" }, tab("database", "Realtime Database"), tab("storage", "Storage")),
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
          h("div", { class: "stack" }, fields,
            h("button", { type: "button", class: "primary", id: "sim-run", onclick: () => this.simulate(this.formValues()) },
              "Run")),
          this.result)));
  }

  /** The fields every playground has: where, and who asks. */
  commonFields() {
    const path = h("input", { type: "text", id: "sim-path", value: this.product === "database" ? "/" : "", size: 30 });
    const authKind = select("sim-auth", [["none", "signed out"], ["anonymous"], ["uid", "a user (uid)"]]);
    const users = h("datalist", { id: "sim-users" });
    const uid = h("input", {
      type: "text", id: "sim-uid", size: 20, list: "sim-users", placeholder: "a uid, or pick a user",
      onchange: () => this.pickUser(uid.value.trim()),
    });
    const claims = h("textarea", { id: "sim-claims", rows: 2, cols: 30, placeholder: '{"admin": true}' });
    Object.assign(this.fields, { path, authKind, uid, claims });
    this.loadUsers(users);
    return [
      h("label", { for: "sim-path" }, this.product === "database" ? "Location" : "File path"), path,
      h("label", { for: "sim-auth" }, "Authenticated as"), authKind,
      h("label", { for: "sim-uid" }, "User uid"), uid, users,
      h("label", { for: "sim-claims" }, "Token claims (JSON object)"), claims,
    ];
  }

  /** The first users of the users table, offered by the uid field. */
  async loadUsers(list) {
    try {
      const answer = await api(identityToolkit("accounts:query"), {
        method: "POST", body: { returnUserInfo: true, limit: String(USERS_OFFERED) },
      });
      this.users = new Map((answer.userInfo ?? []).map((user) => [user.localId, user]));
      list.replaceChildren(...[...this.users.values()].map((user) =>
        h("option", { value: user.localId }, user.email ?? user.phoneNumber ?? user.displayName ?? "")));
    } catch {
      this.users = new Map(); // The playground works without suggestions.
    }
  }

  /** A user picked from the users table stands with the claims their ID token would carry. */
  pickUser(uid) {
    const user = this.users?.get(uid);
    if (!user) return;
    const claims = user.customAttributes ? JSON.parse(user.customAttributes) : {};
    if (user.email) Object.assign(claims, { email: user.email, email_verified: user.emailVerified === true });
    if (user.phoneNumber) claims.phone_number = user.phoneNumber;
    this.fields.authKind.value = "uid";
    this.fields.claims.value = Object.keys(claims).length ? JSON.stringify(claims) : "";
  }

  databaseFields() {
    this.fields = { operation: select("sim-operation", [["read"], ["set"], ["update"]]) };
    const common = this.commonFields();
    this.fields.value = h("textarea", { id: "sim-value", rows: 3, cols: 30, placeholder: '{"name": "Ada"}' });
    this.fields.query = h("input", { type: "text", id: "sim-query", size: 30, placeholder: 'orderBy="$key"&limitToFirst=10' });
    return [
      h("label", { for: "sim-operation" }, "Operation"), this.fields.operation, ...common,
      h("label", { for: "sim-value" }, "Data written (JSON; for update, an object of relative paths)"), this.fields.value,
      h("label", { for: "sim-query" }, "Query of a read (REST parameters)"), this.fields.query,
    ];
  }

  storageFields() {
    this.fields = {
      method: select("sim-method", [["get"], ["list"], ["create"], ["update"], ["delete"]]),
      bucket: select("sim-bucket", session.buckets.map((bucket) => [bucket])),
    };
    const common = this.commonFields();
    this.fields.contentType = h("input", { type: "text", id: "sim-content-type", size: 30, placeholder: "image/png" });
    this.fields.size = h("input", { type: "number", id: "sim-size", min: 0, placeholder: "1024" });
    this.fields.metadata = h("textarea", { id: "sim-metadata", rows: 2, cols: 30, placeholder: '{"owner": "ada"}' });
    return [
      h("label", { for: "sim-method" }, "Method"), this.fields.method,
      h("label", { for: "sim-bucket" }, "Bucket"), this.fields.bucket, ...common,
      h("label", { for: "sim-content-type" }, "Content type of the file written (create, update)"), this.fields.contentType,
      h("label", { for: "sim-size" }, "Size in bytes of the file written"), this.fields.size,
      h("label", { for: "sim-metadata" }, "Custom metadata of the file written (JSON object of strings)"), this.fields.metadata,
    ];
  }

  formValues() {
    return Object.fromEntries(Object.entries(this.fields).map(([name, field]) => [name, field.value]));
  }

  /** Fills the playground with a denied request and runs it. */
  replay(replay, auth) {
    const resource = replay.resource ?? {};
    const values = this.product === "database"
      ? { operation: replay.operation, path: replay.path, value: replay.value ?? "", query: "" }
      : {
        method: replay.method, bucket: replay.bucket, path: replay.path, contentType: resource.contentType ?? "",
        size: resource.size ?? "", metadata: Object.keys(resource.metadata ?? {}).length ? JSON.stringify(resource.metadata) : "",
      };
    for (const [name, value] of Object.entries({ ...values, ...authChoice(auth) })) this.fields[name].value = value;
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
      await send(rulesPath(this.product, this.namespace, "", { dryRun: "true" }), "PUT", this.editor.value);
      toast("The rules are valid.");
    } catch (error) {
      this.showProblem(error.message);
    }
  }

  async publish() {
    if (!(await confirmAction("Publish these rules? They apply to every request at once.", "Publish"))) return;
    try {
      await send(rulesPath(this.product, this.namespace), "PUT", this.editor.value);
      this.published = this.editor.value;
      toast("Rules published.");
    } catch (error) {
      this.showProblem(error.message);
    }
  }

  /** The simulation request the form describes; throws what is wrong with it. */
  request(form) {
    const auth = authVariable(form.authKind, form.uid, form.claims);
    if (this.product === "storage") {
      const resource = {};
      if (form.contentType.trim()) resource.contentType = form.contentType.trim();
      if (form.size !== "") resource.size = Number(form.size);
      if (form.metadata.trim()) resource.metadata = JSON.parse(form.metadata);
      return { method: form.method, bucket: form.bucket, path: form.path, auth, resource };
    }
    const request = { operation: form.operation, path: form.path, auth };
    if (form.operation !== "read") request.value = form.value.trim() ? JSON.parse(form.value) : null;
    if (form.operation === "read" && form.query.trim()) request.query = form.query.trim();
    return request;
  }

  async simulate(form) {
    let request;
    try {
      request = this.request(form);
    } catch (error) {
      this.result.replaceChildren(h("p", { class: "form-error" }, error.message.startsWith("Claims") ? error.message : "Not valid JSON."));
      return;
    }
    try {
      const answer = await send(rulesPath(this.product, this.namespace, "/simulate"), "POST", JSON.stringify(request));
      this.result.replaceChildren(
        h("p", { class: answer.allowed ? "verdict allowed" : "verdict denied", id: "sim-verdict" },
          answer.allowed ? "Allowed" : "Denied"),
        this.trace(answer));
    } catch (error) {
      this.result.replaceChildren(h("p", { class: "form-error" }, error.message));
    }
  }

  /** Every rule the answer evaluated, each line a link into the editor. */
  trace(answer) {
    if (this.product === "storage") {
      if (answer.explanation.length === 0) return h("p", { class: "hint" }, "No allow statement matches this path: denied.");
      return h("ol", { class: "evaluations" }, answer.explanation.map((line) => {
        const number = /^line (\d+):/.exec(line)?.[1];
        return h("li", { class: line.endsWith("→ true") ? "granted" : "refused" },
          number ? h("button", { type: "button", class: "link", onclick: () => this.goToLine(Number(number)) }, `line ${number}`) : null,
          " ", h("code", {}, number ? line.slice(line.indexOf(":") + 1).trim() : line));
      }));
    }
    return answer.evaluations.length === 0
      ? h("p", { class: "hint" }, "No rule on the path from the root applies: denied.")
      : evaluationList(answer.evaluations, (line) => this.goToLine(line));
  }

  goToLine(line) {
    const lines = this.editor.value.split("\n");
    const start = lines.slice(0, line - 1).reduce((sum, text) => sum + text.length + 1, 0);
    this.editor.focus();
    this.editor.setSelectionRange(start, start + (lines[line - 1] ?? "").length);
  }
}
