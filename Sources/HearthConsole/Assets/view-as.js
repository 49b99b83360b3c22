// "View as": the data and Storage views with a user's read rules applied. What the user may not
// read is greyed out with the rule that refused it. Rules are judged on the server against the
// data and rules in force (the rules' `simulate` endpoints, asked whether each location or file
// is `readable`), for what is in sight only, and judged again after every change.

import { session } from "./api.js";
import { h } from "./dom.js";
import { authVariable } from "./rule-trace.js";

/** How many paths one question to the server names, its limit. */
const PATHS_PER_QUESTION = 500;

export class ReadAccess {
  /** `endpoint` is the rules' simulate endpoint, `question(paths, auth)` the request that asks
   *  it which of `paths` `auth` may read; `onChange()` runs when verdicts arrive, to draw them. */
  constructor(endpoint, question, onChange) {
    this.endpoint = endpoint;
    this.question = question;
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
    for (let start = 0; start < wanted.length; start += PATHS_PER_QUESTION) {
      const part = wanted.slice(start, start + PATHS_PER_QUESTION);
      let verdicts;
      try {
        const response = await fetch(this.endpoint, {
          method: "POST", credentials: "same-origin", cache: "no-store",
          headers: { "X-Hearth-CSRF": session.csrfToken, "Content-Type": "text/plain" },
          body: JSON.stringify(this.question(part, this.auth)),
        });
        const answer = await response.json();
        if (!response.ok) throw new Error(answer.error);
        verdicts = Object.entries(answer.paths);
      } catch (error) {
        verdicts = part.map((path) => [path, { allowed: false, reason: `Could not judge: ${error.message}` }]);
      }
      if (generation !== this.generation) return;
      for (const [path, verdict] of verdicts) this.verdicts.set(path, verdict);
      for (const path of part) this.asking.delete(path);
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
