// How rules read in the console, the playground's and the requests feed's alike: each rule
// evaluated, in order, with its location, line, expression, outcome, the data it saw and the
// `$` variables in scope; and the `auth` variable of a caller the console stands in for.

import { h } from "./dom.js";

/** The list of `evaluations`; `onLine(line)` (optional) makes each line number a button. */
export function evaluationList(evaluations, onLine) {
  return h("ol", { class: "evaluations" }, evaluations.map((step) => {
    const variables = Object.entries(step.variables ?? {}).map(([name, value]) => `${name} = ${JSON.stringify(value)}`);
    return h("li", { class: step.outcome === "true" ? "granted" : "refused" },
      h("code", {}, step.kind), ` at ${step.path} `,
      onLine ? h("button", { type: "button", class: "link", onclick: () => onLine(step.line) }, `line ${step.line}`) : `line ${step.line}`,
      " ", h("code", {}, step.source), ` → ${step.outcome}`,
      h("div", { class: "hint" }, `data = ${step.data}` + (step.newData !== undefined ? `, newData = ${step.newData}` : "")),
      variables.length ? h("div", { class: "hint" }, variables.join(", ")) : null);
  }));
}

/** The rule that decided a denial: the `.validate` that failed, else the deepest rule that
 *  did not grant; `null` when no rule applied at all. */
export function decidingEvaluation(evaluations) {
  return evaluations.findLast((step) => step.kind === ".validate" && step.outcome !== "true")
    ?? evaluations.findLast((step) => step.outcome !== "true") ?? null;
}

/** The `auth` variable of a caller chosen in the console: `kind` is `none` (signed out),
 *  `anonymous` or `uid`; `claimsText` a JSON object of token claims (or empty). Throws when the
 *  claims are not a JSON object. */
export function authVariable(kind, uid, claimsText = "") {
  if (kind === "none") return null;
  const claims = claimsText.trim() ? JSON.parse(claimsText) : {};
  if (claims === null || typeof claims !== "object" || Array.isArray(claims)) throw new Error("Claims must be a JSON object.");
  const provider = kind === "anonymous" ? "anonymous" : "password";
  const id = uid || (kind === "anonymous" ? "anonymous-user" : "user");
  return { uid: id, provider, token: { ...claims, sub: id, firebase: { sign_in_provider: provider } } };
}
