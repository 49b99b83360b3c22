// The users table: Identity Toolkit's `accounts:query` sorted and paged on the server, exact
// search by uid, email or phone number, and the account actions of the Admin SDK.

import { api, identityToolkit } from "./api.js";
import { authNav } from "./auth-nav.js";
import { confirmAction, h, toast } from "./dom.js";
import { exportUsers, showImportForm } from "./user-files.js";

const PAGE_SIZE = 50;
const REFRESH_MS = 2000;
const COLUMNS = [
  ["USER_ID", "User UID"], ["USER_EMAIL", "Email"], ["NAME", "Name"], ["CREATED_AT", "Created"], ["LAST_LOGIN_AT", "Signed in"],
];

const date = (milliseconds) => milliseconds ? new Date(Number(milliseconds)).toLocaleString() : "—";

/** The `SqlExpression` a search text means: an email, a phone number or a uid. */
function expression(text) {
  if (text.includes("@")) return { email: text };
  if (/^\+\d+$/.test(text)) return { phoneNumber: text };
  return { userId: text };
}

export class UsersView {
  constructor(container, { navigate, selectedUID }) {
    this.container = container;
    this.navigate = navigate;
    this.sortBy = "CREATED_AT";
    this.order = "DESC";
    this.offset = 0;
    this.search = "";
    this.shown = new Map();
    this.render();
    this.refresh();
    this.timer = setInterval(() => this.refresh(), REFRESH_MS);
    if (selectedUID) this.openUser(selectedUID);
  }

  dispose() {
    clearInterval(this.timer);
    this.disposed = true;
  }

  body(extra) {
    const body = { sortBy: this.sortBy, order: this.order, ...extra };
    if (this.search) body.expression = [expression(this.search)];
    return body;
  }

  /** Reads the count and the page in sight; rows whose account changed flash. */
  async refresh() {
    // An answer to an older read that arrives after a newer one is dropped.
    const generation = (this.generation = (this.generation ?? 0) + 1);
    try {
      const [count, page] = await Promise.all([
        api(identityToolkit("accounts:query"), { method: "POST", body: this.body({ returnUserInfo: false }) }),
        api(identityToolkit("accounts:query"), {
          method: "POST", body: this.body({ returnUserInfo: true, limit: String(PAGE_SIZE), offset: String(this.offset) }),
        }),
      ]);
      if (this.disposed || generation !== this.generation) return;
      this.total = Number(count.recordsCount);
      this.drawRows(page.userInfo ?? []);
    } catch (error) {
      this.status.textContent = `Could not list users: ${error.message}`;
    }
  }

  render() {
    this.signature = null;
    this.status = h("p", { class: "pager", role: "status" });
    this.tbody = h("tbody");
    this.form = h("div", { class: "panel", hidden: true });
    this.detail = h("div", { class: "panel", hidden: true });
    const searchInput = h("input", {
      type: "search", id: "user-search", size: 32, placeholder: "uid, email or +phone",
      onkeydown: (event) => {
        if (event.key !== "Enter") return;
        this.search = event.target.value.trim();
        this.offset = 0;
        this.refresh();
      },
    });
    const header = h("tr", {}, COLUMNS.map(([field, label]) => h("th", {
      scope: "col", "aria-sort": this.sortBy === field ? (this.order === "ASC" ? "ascending" : "descending") : "none",
    }, h("button", { type: "button", onclick: () => this.sort(field) }, label,
      this.sortBy === field ? (this.order === "ASC" ? " ▲" : " ▼") : ""))),
    h("th", { scope: "col" }, "Providers"), h("th", { scope: "col" }, "Status"), h("th", { scope: "col" }, h("span", { class: "visually-hidden" }, "Actions")));
    this.container.replaceChildren(
      h("h1", {}, "Authentication"),
      authNav("/auth/users"),
      h("div", { class: "toolbar" },
        h("label", { for: "user-search" }, "Search"), searchInput,
        h("button", { type: "button", class: "primary", onclick: () => this.showAddForm() }, "Add user"),
        h("button", { type: "button", id: "users-import", onclick: () => showImportForm(this.form, () => this.refresh()) },
          "Import users"),
        h("button", { type: "button", id: "users-export-json", onclick: () => exportUsers("json") }, "Export JSON"),
        h("button", { type: "button", id: "users-export-csv", onclick: () => exportUsers("csv") }, "Export CSV"),
        h("button", { type: "button", class: "danger", onclick: () => this.deleteAll() }, "Delete all users")),
      this.form, this.detail,
      h("table", { class: "users", "aria-label": "Users" }, h("thead", {}, header), this.tbody),
      h("div", { class: "pager" },
        h("button", { type: "button", onclick: () => this.page(-1) }, "Previous page"),
        h("button", { type: "button", onclick: () => this.page(1) }, "Next page"),
        this.status));
  }

  sort(field) {
    if (this.sortBy === field) this.order = this.order === "ASC" ? "DESC" : "ASC";
    else { this.sortBy = field; this.order = "ASC"; }
    this.offset = 0;
    this.render();
    this.refresh();
  }

  page(direction) {
    const next = this.offset + direction * PAGE_SIZE;
    if (next < 0 || next >= Math.max(this.total ?? 0, 1)) return;
    this.offset = next;
    this.refresh();
  }

  /** Draws the page; when nothing on it changed the rows stay as they are, so that the
   *  refresh every 2 seconds never takes the focus or a click target away. */
  drawRows(users) {
    const signature = JSON.stringify([this.offset, this.total, users]);
    if (signature === this.signature) return;
    this.signature = signature;
    const shown = new Map();
    const rows = users.map((user) => {
      const text = JSON.stringify(user);
      const before = this.shown.get(user.localId);
      shown.set(user.localId, text);
      const providers = (user.providerUserInfo ?? []).map((info) => info.providerId);
      const link = `/auth/users/${encodeURIComponent(user.localId)}`;
      return h("tr", { class: this.shown.size > 0 && before !== text ? "flash" : "", dataset: { uid: user.localId } },
        h("td", {}, h("a", { href: link, "data-link": true }, user.localId)),
        h("td", {}, user.email ?? "—"),
        h("td", {}, user.displayName ?? "—"),
        h("td", {}, date(user.createdAt)),
        h("td", {}, date(user.lastLoginAt)),
        h("td", {}, providers.length ? providers.map((id) => h("span", { class: "badge" }, id)) : (user.email || user.phoneNumber ? "—" : "anonymous")),
        h("td", {}, user.disabled ? "disabled" : "enabled"),
        h("td", {},
          h("button", { type: "button", "aria-label": `${user.disabled ? "Enable" : "Disable"} ${user.localId}`, onclick: () => this.setDisabled(user, !user.disabled) },
            user.disabled ? "Enable" : "Disable"),
          " ",
          h("button", { type: "button", class: "danger", "aria-label": `Delete ${user.localId}`, onclick: () => this.remove(user) }, "Delete")));
    });
    this.shown = shown;
    this.tbody.replaceChildren(...rows);
    if (users.length === 0) this.tbody.append(h("tr", {}, h("td", { colspan: 8, class: "empty" }, this.search ? "No user matches." : "No users yet.")));
    const first = users.length ? this.offset + 1 : 0;
    this.status.textContent = `${first}–${this.offset + users.length} of ${this.search ? users.length : this.total}`;
  }

  async call(operation, body, done) {
    try {
      const result = await api(identityToolkit(operation), { method: "POST", body });
      if (done) toast(done);
      this.refresh();
      return result;
    } catch (error) {
      toast(`${operation} refused: ${error.message}`, { error: true });
      return null;
    }
  }

  setDisabled(user, disabled) {
    return this.call("accounts:update", { localId: user.localId, disableUser: disabled }, `${disabled ? "Disabled" : "Enabled"} ${user.localId}`);
  }

  async remove(user) {
    if (!(await confirmAction(`Delete the account ${user.email ?? user.localId}?`))) return;
    await this.call("accounts:delete", { localId: user.localId }, `Deleted ${user.localId}`);
  }

  async deleteAll() {
    if (!(await confirmAction("Delete every user account of this project?", "Delete all"))) return;
    let deleted = 0;
    for (;;) {
      const page = await api(identityToolkit("accounts:query"), { method: "POST", body: { returnUserInfo: true, limit: "500" } });
      const ids = (page.userInfo ?? []).map((user) => user.localId);
      if (ids.length === 0) break;
      await api(identityToolkit("accounts:batchDelete"), { method: "POST", body: { localIds: ids, force: true } });
      deleted += ids.length;
    }
    toast(`Deleted ${deleted} users`);
    this.refresh();
  }

  showAddForm() {
    const email = h("input", { type: "email", id: "new-email", autocomplete: "off" });
    const password = h("input", { type: "password", id: "new-password", autocomplete: "new-password" });
    const name = h("input", { type: "text", id: "new-name" });
    const error = h("p", { class: "form-error", role: "alert" });
    this.form.hidden = false;
    this.form.replaceChildren(h("div", { class: "stack" },
      h("strong", {}, "Add a user"),
      h("label", { for: "new-email" }, "Email"), email,
      h("label", { for: "new-password" }, "Password"), password,
      h("label", { for: "new-name" }, "Display name (optional)"), name,
      h("div", { class: "toolbar" },
        h("button", { type: "button", class: "primary", onclick: async () => {
          const body = { email: email.value, password: password.value };
          if (name.value) body.displayName = name.value;
          try {
            const created = await api(identityToolkit("accounts"), { method: "POST", body });
            toast(`Created ${created.localId}`);
            this.form.hidden = true;
            this.refresh();
          } catch (problem) {
            error.textContent = problem.message;
          }
        } }, "Add user"),
        h("button", { type: "button", onclick: () => { this.form.hidden = true; } }, "Cancel")),
      error));
    email.focus();
  }

  /** The account `uid` in a form: email, password, name, photo, phone, claims, verified. */
  async openUser(uid) {
    let user;
    try {
      const found = await api(identityToolkit("accounts:lookup"), { method: "POST", body: { localId: [uid] } });
      user = found?.users?.[0];
    } catch (error) {
      toast(`Could not read ${uid}: ${error.message}`, { error: true });
      return;
    }
    this.detail.hidden = false;
    if (!user) {
      this.detail.replaceChildren(h("p", {}, `No user has the uid ${uid}.`));
      return;
    }
    const field = (id, label, value, type = "text") => {
      const input = h("input", { type, id, value: value ?? "", size: 40 });
      return [h("label", { for: id }, label), input];
    };
    const [emailLabel, email] = field("edit-email", "Email", user.email, "email");
    const [passwordLabel, password] = field("edit-password", "New password (leave empty to keep)", "", "password");
    const [nameLabel, name] = field("edit-name", "Display name", user.displayName);
    const [photoLabel, photo] = field("edit-photo", "Photo URL", user.photoUrl, "url");
    const [phoneLabel, phone] = field("edit-phone", "Phone number", user.phoneNumber, "tel");
    const claims = h("textarea", { id: "edit-claims", rows: 3, cols: 40 }, user.customAttributes ?? "");
    const verified = h("input", { type: "checkbox", id: "edit-verified", checked: Boolean(user.emailVerified) });
    const error = h("p", { class: "form-error", role: "alert" });
    const save = async () => {
      const body = { localId: uid, emailVerified: verified.checked };
      const deleteAttribute = [];
      const set = (key, input, attribute) => {
        if (input.value) body[key] = input.value;
        else if (attribute) deleteAttribute.push(attribute);
      };
      set("email", email);
      set("displayName", name, "DISPLAY_NAME");
      set("photoUrl", photo, "PHOTO_URL");
      if (password.value) body.password = password.value;
      if (phone.value) body.phoneNumber = phone.value;
      else if (user.phoneNumber) body.deleteProvider = ["phone"];
      if (claims.value.trim()) {
        try {
          const parsed = JSON.parse(claims.value);
          if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) throw new Error();
        } catch {
          error.textContent = "Custom claims must be a JSON object.";
          return;
        }
        body.customAttributes = claims.value;
      } else {
        body.customAttributes = "{}";
      }
      if (deleteAttribute.length) body.deleteAttribute = deleteAttribute;
      if (await this.call("accounts:update", body, `Saved ${uid}`)) this.openUser(uid);
    };
    this.detail.replaceChildren(h("div", { class: "stack" },
      h("h2", {}, `User ${uid}`),
      emailLabel, email, passwordLabel, password, nameLabel, name, photoLabel, photo, phoneLabel, phone,
      h("label", { for: "edit-claims" }, "Custom claims (JSON object)"), claims,
      h("label", {}, verified, "Email verified"),
      h("div", { class: "toolbar" },
        h("button", { type: "button", class: "primary", onclick: save }, "Save"),
        h("button", { type: "button", onclick: () => this.navigate("/auth/users") }, "Close")),
      error));
    email.focus();
  }
}
