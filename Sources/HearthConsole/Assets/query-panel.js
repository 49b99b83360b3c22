// The data view's query panel: a REST query at the view's location (orderBy a child, the key or
// the value, a range, a limit), its answer as a table in the query's order, and, when the
// query needs an index the rules lack, Firebase's error saying which `.indexOn` to add.

import { api } from "./api.js";
import { h } from "./dom.js";
import { sortKeys } from "./keys.js";

const TYPE_RANK = { null: 0, false: 1, true: 2, number: 3, string: 4, object: 5 };

function rank(value) {
  if (value === null || value === undefined) return TYPE_RANK.null;
  if (value === false) return TYPE_RANK.false;
  if (value === true) return TYPE_RANK.true;
  return TYPE_RANK[typeof value] ?? TYPE_RANK.object;
}

/** Firebase's order of values: null, false, true, numbers, strings, then objects. */
function compareValues(a, b) {
  const difference = rank(a) - rank(b);
  if (difference !== 0) return difference;
  if (typeof a === "number" || typeof a === "string") return a < b ? -1 : a > b ? 1 : 0;
  return 0;
}

function child(value, path) {
  return path.split("/").filter(Boolean).reduce((node, key) => (node !== null && typeof node === "object" ? node[key] ?? null : null), value);
}

/** The answer's children in the query's order: by the ordered value, then by key. */
function ordered(answer, orderBy, childPath) {
  const keys = sortKeys(Object.keys(answer));
  if (orderBy === "key") return keys;
  const position = new Map(keys.map((key, index) => [key, index]));
  const valueOf = (key) => (orderBy === "value" ? answer[key] : child(answer[key], childPath));
  return keys.sort((a, b) => compareValues(valueOf(a), valueOf(b)) || position.get(a) - position.get(b));
}

export class QueryPanel {
  constructor({ query, navigateTo }) {
    this.query = query;
    this.navigateTo = navigateTo;
    this.element = h("section", { class: "panel", hidden: true, "aria-labelledby": "query-title", id: "query-panel" });
    this.render();
  }

  toggle() {
    this.element.hidden = !this.element.hidden;
    if (!this.element.hidden) this.orderBy.focus();
  }

  render() {
    this.orderBy = h("select", { id: "query-order" },
      h("option", { value: "child" }, "a child"), h("option", { value: "key" }, "the key"), h("option", { value: "value" }, "the value"));
    this.childPath = h("input", { type: "text", id: "query-child", size: 16, placeholder: "score" });
    this.startAt = h("input", { type: "text", id: "query-start", size: 12, placeholder: "JSON" });
    this.endAt = h("input", { type: "text", id: "query-end", size: 12, placeholder: "JSON" });
    this.equalTo = h("input", { type: "text", id: "query-equal", size: 12, placeholder: "JSON" });
    this.limitKind = h("select", { id: "query-limit-kind" },
      h("option", { value: "limitToFirst" }, "first"), h("option", { value: "limitToLast" }, "last"), h("option", { value: "" }, "no limit"));
    this.limit = h("input", { type: "number", id: "query-limit", value: "100", min: "1", size: 6 });
    this.result = h("div", { id: "query-result", "aria-live": "polite" });
    const field = (id, label, input) => h("label", { for: id }, label, input);
    this.element.replaceChildren(
      h("h2", { id: "query-title" }, "Query"),
      h("div", { class: "toolbar" },
        field("query-order", "Order by", this.orderBy), field("query-child", "Child", this.childPath),
        field("query-start", "Start at", this.startAt), field("query-end", "End at", this.endAt),
        field("query-equal", "Equal to", this.equalTo), field("query-limit-kind", "Limit to", this.limitKind),
        h("label", { for: "query-limit", class: "visually-hidden" }, "Limit"), this.limit,
        h("button", { type: "button", class: "primary", id: "query-run", onclick: () => this.run() }, "Run")),
      this.result);
  }

  /** The REST parameters of the form; throws with a message when a bound is not JSON. */
  parameters() {
    const order = this.orderBy.value;
    const parameters = { orderBy: JSON.stringify(order === "child" ? this.childPath.value.trim() : `$${order}`) };
    if (order === "child" && !this.childPath.value.trim()) throw new Error("Name the child to order by.");
    for (const [name, input] of [["startAt", this.startAt], ["endAt", this.endAt], ["equalTo", this.equalTo]]) {
      const text = input.value.trim();
      if (!text) continue;
      try {
        parameters[name] = JSON.stringify(JSON.parse(text));
      } catch {
        throw new Error(`${name} is not JSON (a string needs quotes).`);
      }
    }
    if (this.limitKind.value) parameters[this.limitKind.value] = String(Math.max(1, Number(this.limit.value) || 1));
    return parameters;
  }

  async run() {
    let parameters;
    try {
      parameters = this.parameters();
    } catch (error) {
      this.result.replaceChildren(h("p", { class: "form-error", role: "alert" }, error.message));
      return;
    }
    try {
      const answer = (await api(this.query(parameters))) ?? {};
      this.showTable(answer, this.orderBy.value, this.childPath.value.trim());
    } catch (error) {
      const needsIndex = error.message.includes(".indexOn");
      this.result.replaceChildren(h("p", { class: "form-error", role: "alert" }, error.message),
        needsIndex ? h("p", { class: "hint" }, "This query needs an index: add the ",
          h("code", {}, ".indexOn"), " above in the ", h("a", { href: "/rules/database", "data-link": true }, "rules"), ".") : null);
    }
  }

  showTable(answer, orderBy, childPath) {
    if (answer === null || typeof answer !== "object") {
      this.result.replaceChildren(h("p", { class: "hint" }, `The location holds ${JSON.stringify(answer)}.`));
      return;
    }
    const keys = ordered(answer, orderBy, childPath);
    const header = h("tr", {}, h("th", { scope: "col" }, "Key"),
      orderBy === "child" ? h("th", { scope: "col" }, childPath) : null, h("th", { scope: "col" }, "Value"));
    const rows = keys.map((key) => h("tr", { dataset: { key } },
      h("td", {}, h("button", { type: "button", class: "link", onclick: () => this.navigateTo(key) }, key)),
      orderBy === "child" ? h("td", {}, JSON.stringify(child(answer[key], childPath))) : null,
      h("td", { class: "cell-value" }, JSON.stringify(answer[key]))));
    this.result.replaceChildren(
      h("p", { class: "hint", id: "query-count" }, `${keys.length} ${keys.length === 1 ? "child" : "children"}`),
      h("table", { class: "users query-table", "aria-label": "Query result" }, h("thead", {}, header), h("tbody", {}, rows)));
  }
}
