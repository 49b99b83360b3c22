// The requests feed: every request any product serves, live, newest first, filtered by product,
// path, user and outcome. A request refused by rules opens to show the rule that decided, the
// values it saw (`auth`, `data`, `newData`, the `$` variables), every rule evaluated, and a
// button that replays it in the rules playground.

import { h } from "./dom.js";
import { decidingEvaluation, evaluationList } from "./rule-trace.js";
import { replayInPlayground } from "./rules-view.js";

/** How many requests the view keeps, and how many of them it draws. */
const KEPT = 500;
const DRAWN = 200;
const DRAW_INTERVAL_MS = 500;
/** The most new rows that flash in one drawing. */
const FLASHED = 20;

const time = (milliseconds) => new Date(milliseconds).toLocaleTimeString(undefined, { hour12: false }) +
  "." + String(milliseconds % 1000).padStart(3, "0");

export class RequestsView {
  constructor(container, { navigate }) {
    this.container = container;
    this.navigate = navigate;
    this.records = [];
    this.expanded = null;
    this.leftOut = 0;
    this.connection = "Connecting…";
    this.render();
    this.events = new EventSource("/console/requests");
    this.events.addEventListener("open", () => {
      this.connection = "Following every request from now on.";
      this.showStatus();
    });
    this.events.addEventListener("error", () => {
      this.connection = "The feed was interrupted; reconnecting…";
      this.showStatus();
    });
    this.events.addEventListener("request", (event) => this.receive(JSON.parse(event.data)));
  }

  dispose() {
    this.events.close();
    clearTimeout(this.pending);
  }

  render() {
    const field = (id, label, control) => h("label", { for: id }, label, control);
    this.product = h("select", { id: "requests-product", onchange: () => this.draw() },
      ["all", "database", "auth", "storage", "metrics"].map((name) => h("option", { value: name }, name)));
    this.outcome = h("select", { id: "requests-outcome", onchange: () => this.draw() },
      h("option", { value: "all" }, "all"), h("option", { value: "denied" }, "denied by rules"),
      h("option", { value: "failed" }, "failed"), h("option", { value: "succeeded" }, "succeeded"));
    this.path = h("input", { type: "search", id: "requests-path", placeholder: "/users", oninput: () => this.draw() });
    this.user = h("input", { type: "search", id: "requests-user", placeholder: "uid", oninput: () => this.draw() });
    this.showConsole = h("input", { type: "checkbox", id: "requests-console", onchange: () => this.draw() });
    this.status = h("p", { class: "hint", role: "status", id: "requests-status" });
    this.rows = h("tbody");
    this.container.replaceChildren(
      h("h1", {}, "Requests"),
      h("div", { class: "toolbar", role: "group", "aria-label": "Filters" },
        field("requests-product", "Product ", this.product), field("requests-outcome", "Outcome ", this.outcome),
        field("requests-path", "Path ", this.path), field("requests-user", "User ", this.user),
        h("label", { for: "requests-console" }, this.showConsole, " The console's own requests"),
        h("button", { type: "button", id: "requests-clear", onclick: () => { this.records = []; this.draw(); } }, "Clear")),
      this.status,
      h("table", { class: "users requests", "aria-label": "Requests" },
        h("thead", {}, h("tr", {}, ["Time", "Product", "Method", "Path", "User", "Status", "Took"].map((name) =>
          h("th", { scope: "col" }, name)))),
        this.rows));
    this.draw();
  }

  showStatus() {
    this.status.textContent = this.connection + (this.leftOut === 0 ? ""
      : ` ${this.leftOut.toLocaleString()} left out: past 200 requests a second, the feed shows only failed ones.`);
  }

  receive(record) {
    this.leftOut += record.leftOutBefore ?? 0;
    record.id = (this.nextID = (this.nextID ?? 0) + 1);
    this.records.unshift(record);
    if (this.records.length > KEPT) this.records.length = KEPT;
    if (this.matches(record)) {
      // Drawn together at most twice a second, however many arrive meanwhile: redrawing the
      // table for each would cost the browser more than the server spends serving them.
      this.fresh = (this.fresh ?? new Set()).add(record.id);
      this.pending ??= setTimeout(() => { this.pending = null; this.draw(); }, DRAW_INTERVAL_MS);
    }
  }

  matches(record) {
    if (record.console && !this.showConsole.checked) return false;
    if (this.product.value !== "all" && record.product !== this.product.value) return false;
    if (this.path.value && !record.path.includes(this.path.value)) return false;
    if (this.user.value && !(record.user ?? "").includes(this.user.value)) return false;
    switch (this.outcome.value) {
      case "denied": return record.denial !== undefined;
      case "failed": return record.failed;
      case "succeeded": return !record.failed;
      default: return true;
    }
  }

  draw() {
    this.showStatus();
    const shown = this.records.filter((record) => this.matches(record)).slice(0, DRAWN);
    // New rows flash only while they come few at a time: a flood of flashing rows would keep
    // the browser repainting without pause.
    const fresh = (this.fresh?.size ?? 0) <= FLASHED ? (this.fresh ?? new Set()) : new Set();
    this.fresh = new Set();
    const rows = [];
    for (const record of shown) {
      const open = this.expanded === record.id;
      const toggle = () => { this.expanded = open ? null : record.id; this.draw(); };
      rows.push(h("tr", { class: [fresh.has(record.id) ? "flash" : "", record.denial ? "denied" : ""].join(" ").trim() || null,
        dataset: { id: record.id } },
        h("td", {}, time(record.time)),
        h("td", {}, record.product, record.transport === "realtime" ? h("span", { class: "badge" }, "realtime") : null),
        h("td", {}, record.method),
        h("td", { class: "cell-value" }, record.path || "/"),
        h("td", {}, record.user ?? h("span", { class: "hint" }, "signed out")),
        h("td", {}, record.denial
          ? h("button", { type: "button", class: "link", "aria-expanded": String(open), onclick: toggle },
            `${record.status} denied by rules`)
          : record.status),
        h("td", {}, `${(record.micros / 1000).toFixed(1)} ms`)));
      if (open && record.denial) rows.push(h("tr", { class: "detail" }, h("td", { colspan: 7 }, this.denial(record))));
    }
    if (rows.length === 0) {
      rows.push(h("tr", {}, h("td", { colspan: 7, class: "empty" },
        this.records.length ? "No request matches the filters." : "No request yet: they appear here as they are served.")));
    }
    this.rows.replaceChildren(...rows);
  }

  /** What decided a denial and how to replay it. */
  denial(record) {
    const denial = record.denial;
    const where = denial.product === "storage" ? `gs://${denial.bucket}/${denial.paths[0]}` : denial.paths.join(", ");
    const parts = [h("p", {}, h("strong", {}, `${denial.operation} of ${where} denied`),
      denial.namespace ? ` in ${denial.namespace}` : "", ` for auth = `, h("code", {}, JSON.stringify(denial.auth)))];
    const replay = h("button", { type: "button", class: "primary", onclick: () =>
      replayInPlayground(this.navigate, denial.product, denial.namespace, denial.replay, denial.auth) }, "Replay in the playground");
    if (denial.product === "storage") {
      parts.push(h("ol", { class: "evaluations" }, denial.explanation.map((line) => h("li", { class: "refused" }, h("code", {}, line)))));
      return h("div", { class: "denial" }, parts, replay);
    }
    const decided = decidingEvaluation(denial.evaluations);
    parts.push(decided
      ? h("p", {}, "Decided by ", h("code", {}, decided.kind), ` at ${decided.path} (line ${decided.line}): `,
        h("code", {}, decided.source), ` → ${decided.outcome}`)
      : h("p", {}, `No ${denial.operation === "read" ? ".read" : ".write"} rule on the path from the root grants access.`));
    if (denial.evaluations.length) parts.push(h("p", { class: "hint" }, "Every rule evaluated:"), evaluationList(denial.evaluations));
    return h("div", { class: "denial" }, parts, replay);
  }
}
