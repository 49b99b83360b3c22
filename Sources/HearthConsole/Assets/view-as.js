// "View as": the data view with a user's read rules applied. Locations the user may not read are
// greyed out with the rule that refused them. Rules are judged on the server against the data
// and rules in force (`/console/rules/database/simulate`, operation `readable`), for the rows in
// sight only, and judged again after every change.

import { session } from "./api.js";
import { h } from "./dom.js";
import { authVariable } from "./rule-trace.js";

export class ReadAccess {
  /** `onChange()` runs when verdicts arrive, to draw them. */
  constructor(namespace, onChange) {
    this.namespace = namespace;
    this.onChange = onChange;
    this.auth = undefined;
    this.verdicts = new Map();
    this.asking = new Set();
    this.generation = 0;
  }

  /** Whether a user is chosen (the administrator reads everything). */
  get active() {
    return this.auth !== undefined;
  }

  /** Views as `auth` (`undefined`: the administrator). */
  set(auth) {
    this.auth = auth;
    this.forget();
  }

  /** Forgets every verdict: the data or rules they were judged on may have changed. */
  forget() {
    this.generation += 1;
    this.verdicts.clear();
    this.asking.clear();
    this.onChange();
  }

  /** The verdict on `path`, `{allowed, reason?}`, or `undefined` while unknown. */
  verdict(path) {
    return this.verdicts.get(path);
  }

  /** Asks for the verdicts on `paths` not known yet. */
  async judge(paths) {
    if (!this.active) return;
    const wanted = paths.filter((path) => !this.verdicts.has(path) && !this.asking.has(path));
    if (wanted.length === 0) return;
    for (const path of wanted) this.asking.add(path);
    const generation = this.generation;
    try {
      const response = await fetch(`/console/rules/database/simulate?ns=${encodeURIComponent(this.namespace)}`, {
        method: "POST", credentials: "same-origin", cache: "no-store",
        headers: { "X-Hearth-CSRF": session.csrfToken, "Content-Type": "text/plain" },
        body: JSON.stringify({ operation: "readable", paths: wanted, auth: this.auth }),
      });
      const answer = await response.json();
      if (generation !== this.generation) return;
      if (!response.ok) throw new Error(answer.error);
      for (const [path, verdict] of Object.entries(answer.paths)) this.verdicts.set(path, verdict);
    } catch (error) {
      for (const path of wanted) this.verdicts.set(path, { allowed: false, reason: `Could not judge: ${error.message}` });
    } finally {
      for (const path of wanted) this.asking.delete(path);
    }
    this.onChange();
  }

  /** The toolbar's controls: whom to view as. */
  controls() {
    const kind = h("select", { id: "view-as" },
      h("option", { value: "admin" }, "the administrator"), h("option", { value: "none" }, "a signed-out user"),
      h("option", { value: "anonymous" }, "an anonymous user"), h("option", { value: "uid" }, "a user (uid)"));
    const uid = h("input", { type: "text", id: "view-as-uid", size: 16, placeholder: "uid", hidden: true, "aria-label": "View as uid" });
    const apply = () => {
      uid.hidden = kind.value !== "uid";
      this.set(kind.value === "admin" ? undefined : authVariable(kind.value, uid.value.trim()));
    };
    kind.addEventListener("change", apply);
    uid.addEventListener("change", apply);
    return [h("label", { for: "view-as" }, "View as"), kind, uid];
  }
}
