// The history of a location (`/history/<ns>/<path>`): every write the namespace's log keeps
// that changed it — when, by whom, through which transport, and what it changed — newest first
// and live; and the location as it was at a time, to export as a JSON fixture or to restore.
// Reads `/.history/<path>.json` through the console's API.

import { api } from "./api.js";
import { dataURL } from "./data-view.js";
import { confirmAction, download, h, toast } from "./dom.js";
import { historyURL, restPath } from "./keys.js";

const PAGE = 50;
/** The most pages read back to join new writes to those shown; past them the list starts over. */
const CATCH_UP_PAGES = 10;
/** The most differing values a change lists before it says how many more there are. */
const DIFF_LINES = 40;

const pathString = (keys) => "/" + keys.join("/");
const isPrefix = (prefix, keys) => prefix.length <= keys.length && prefix.every((key, i) => keys[i] === key);

/** `time` (ms since 1970) as local date and time with milliseconds. */
function formatTime(time) {
  const date = new Date(time);
  const pad = (number, width = 2) => String(number).padStart(width, "0");
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} ` +
    `${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}.${pad(date.getMilliseconds(), 3)}`;
}

/** Who made a write, as the log records it. */
function authorText(by) {
  if (by?.admin) return "administrator";
  if (by?.uid) return by.provider ? `${by.uid} (${by.provider})` : by.uid;
  return "signed out";
}

/** Every leaf of an exported node by its path below the node (`""` for the node itself), with
 *  priorities as `…/.priority`. */
function flatten(value, prefix = "", into = new Map()) {
  if (value === null || value === undefined) return into;
  if (typeof value !== "object") {
    into.set(prefix || "/", JSON.stringify(value));
    return into;
  }
  for (const [key, child] of Object.entries(value)) {
    if (key === ".value") into.set(prefix || "/", JSON.stringify(child));
    else flatten(child, `${prefix}/${key}`, into);
  }
  return into;
}

/** The lines of a change's diff: `["-", path, old]` and `["+", path, new]`. */
export function diffLines(before, after) {
  const old = flatten(before);
  const now = flatten(after);
  const lines = [];
  for (const path of [...new Set([...old.keys(), ...now.keys()])].sort()) {
    if (old.get(path) === now.get(path)) continue;
    if (old.has(path)) lines.push(["-", path, old.get(path)]);
    if (now.has(path)) lines.push(["+", path, now.get(path)]);
  }
  return lines;
}

export class HistoryView {
  constructor(container, { namespace, keys, navigate }) {
    Object.assign(this, { container, namespace, keys, navigate });
    this.entries = [];
    this.render();
    this.loadNewest();
    this.follow();
  }

  dispose() {
    this.events?.close();
    clearTimeout(this.refreshTimer);
    this.disposed = true;
  }

  historyPath(parameters) {
    const search = new URLSearchParams({ ns: this.namespace, ...parameters });
    return `/.history${restPath(this.keys)}?${search}`;
  }

  render() {
    this.timeInput = h("input", { type: "datetime-local", id: "history-time", step: "0.001" });
    this.list = h("ol", { class: "history", "aria-label": "Writes, newest first" });
    this.status = h("p", { class: "hint", role: "status", id: "history-status" });
    this.more = h("button", { type: "button", id: "history-more", hidden: true, onclick: () => this.loadOlder() }, "Load older writes");
    const crumbs = [h("li", {}, h("a", { href: historyURL(this.namespace, []), "data-link": true }, this.namespace))];
    this.keys.forEach((key, i) => {
      crumbs.push(h("li", {}, h("a", { href: historyURL(this.namespace, this.keys.slice(0, i + 1)), "data-link": true }, key)));
    });
    this.container.replaceChildren(
      h("h1", {}, "History"),
      h("nav", { "aria-label": "Location" }, h("ol", { class: "breadcrumb" }, crumbs)),
      h("p", {}, h("a", { href: dataURL(this.namespace, this.keys), "data-link": true, id: "history-data-link" },
        `Open ${pathString(this.keys)} in the data view`)),
      h("div", { class: "toolbar" },
        h("label", { for: "history-time" }, "As of"), this.timeInput,
        h("button", { type: "button", id: "history-export", onclick: () => this.exportAt(this.chosenMoment()) }, "Export JSON"),
        h("button", { type: "button", class: "danger", id: "history-restore", onclick: () => this.restoreAt(this.chosenMoment()) },
          "Restore")),
      this.status, this.list, this.more);
  }

  /** The moment in the "As of" field (`{at, label}`), or null. */
  chosenMoment() {
    const value = this.timeInput.value;
    if (!value) {
      toast("Choose the time to go back to first.", { error: true });
      return null;
    }
    const at = new Date(value).getTime();
    return { parameters: { at }, label: `as of ${formatTime(at)}`, name: new Date(at).toISOString().replace(/[:.]/g, "-") };
  }

  // MARK: Loading

  /** Reads the writes newer than those shown, paging back until it meets them. */
  async loadNewest() {
    if (this.loading) {
      this.reloadAfter = true;
      return;
    }
    this.loading = true;
    try {
      const newest = this.entries[0]?.sequence ?? 0;
      let page = await api(this.historyPath({ limit: PAGE }));
      const fresh = [];
      const firstNext = page.next;
      for (let pages = 1; ; pages += 1) {
        fresh.push(...page.entries.filter((entry) => entry.sequence > newest));
        const met = page.next == null || page.next <= newest || page.entries.some((entry) => entry.sequence <= newest);
        if (met || newest === 0) break;
        if (pages === CATCH_UP_PAGES) {
          // Too much happened meanwhile: start over from the newest page.
          this.entries = [];
          fresh.splice(PAGE);
          this.next = firstNext;
          break;
        }
        page = await api(this.historyPath({ limit: PAGE, before: page.next }));
      }
      if (this.disposed) return;
      if (this.entries.length === 0 && newest === 0) this.next = page.next;
      this.entries = [...fresh, ...this.entries];
      this.begins = page.begins;
      this.draw(new Set(newest ? fresh.map((entry) => entry.sequence) : []));
    } catch (error) {
      this.status.textContent = `Could not read the history: ${error.message}`;
    } finally {
      this.loading = false;
      if (this.reloadAfter) {
        this.reloadAfter = false;
        this.loadNewest();
      }
    }
  }

  async loadOlder() {
    if (this.next == null) return;
    try {
      const page = await api(this.historyPath({ limit: PAGE, before: this.next }));
      if (this.disposed) return;
      this.entries.push(...page.entries);
      this.next = page.next;
      this.draw(new Set());
    } catch (error) {
      toast(`Could not read older writes: ${error.message}`, { error: true });
    }
  }

  /** Follows the namespace's changes, and reads the newest writes when one touches here. */
  follow() {
    this.events = new EventSource(`/console/changes?ns=${encodeURIComponent(this.namespace)}`);
    this.events.addEventListener("changed", (event) => {
      const touched = JSON.parse(event.data).some((path) => {
        const keys = path === "/" ? [] : path.slice(1).split("/");
        return isPrefix(keys, this.keys) || isPrefix(this.keys, keys);
      });
      if (!touched) return;
      clearTimeout(this.refreshTimer);
      this.refreshTimer = setTimeout(() => this.loadNewest(), 50);
    });
  }

  // MARK: Drawing

  draw(flashing) {
    const kept = this.begins > 0 ? ` History begins at ${formatTime(this.begins)}.` : "";
    this.status.textContent = this.entries.length === 0
      ? `No write has changed ${pathString(this.keys)}.${kept}`
      : `${this.entries.length} write${this.entries.length === 1 ? "" : "s"} shown, newest first.${kept}`;
    this.list.replaceChildren(...this.entries.map((entry) => this.entryItem(entry, flashing.has(entry.sequence))));
    this.more.hidden = this.next == null;
  }

  entryItem(entry, flash) {
    const before = {
      parameters: { beforeWrite: entry.sequence }, label: `as before the write of ${formatTime(entry.time)}`,
      name: `before-${entry.sequence}`,
    };
    return h("li", { class: flash ? "history-entry panel flash" : "history-entry panel", dataset: { sequence: String(entry.sequence) } },
      h("div", { class: "history-meta" },
        h("time", { datetime: new Date(entry.time).toISOString() }, formatTime(entry.time)),
        h("span", { class: "history-author" }, authorText(entry.by)),
        h("span", { class: "badge" }, entry.via),
        h("span", { class: "history-actions" },
          h("button", { type: "button", onclick: () => this.exportAt(before), "aria-label": `Export as before write ${entry.sequence}` },
            "Export before"),
          h("button", { type: "button", class: "danger", onclick: () => this.restoreAt(before),
            "aria-label": `Restore as before write ${entry.sequence}` }, "Restore before"))),
      ...entry.changes.map((change) => this.changeBlock(change)));
  }

  changeBlock(change) {
    const header = h("div", { class: "history-path" }, h("code", {}, change.path));
    if (!("before" in change)) return h("div", { class: "history-change" }, header, h("p", { class: "hint" }, "The value it replaced was too large to keep."));
    if (!("after" in change)) return h("div", { class: "history-change" }, header, h("p", { class: "hint" }, "A write too large for the log."));
    const lines = diffLines(change.before, change.after);
    const shown = lines.slice(0, DIFF_LINES).map(([sign, path, value]) =>
      h("li", { class: sign === "+" ? "added" : "removed" }, `${sign} ${path === "/" ? "" : path.slice(1) + ": "}${value}`));
    if (lines.length > DIFF_LINES) shown.push(h("li", { class: "hint" }, `… and ${lines.length - DIFF_LINES} more`));
    return h("div", { class: "history-change" }, header, h("ul", { class: "diff", "aria-label": `Changes at ${change.path}` }, shown));
  }

  // MARK: Export and restore

  /** Downloads the location as it was at `moment` (`{parameters, label, name}`). */
  async exportAt(moment) {
    if (moment == null) return;
    try {
      const value = await api(this.historyPath({ ...moment.parameters, format: "export" }));
      const name = [this.namespace, ...this.keys].join("-").replace(/[^A-Za-z0-9_-]/g, "_");
      download(`${name}-${moment.name}.json`, JSON.stringify(value, null, 2));
    } catch (error) {
      toast(`Export failed: ${error.message}`, { error: true });
    }
  }

  /** Makes the location what it was at `moment`, once confirmed. */
  async restoreAt(moment) {
    if (moment == null) return;
    const where = pathString(this.keys);
    if (!(await confirmAction(`Make ${where} what it was ${moment.label}? Later changes there are replaced.`, "Restore"))) return;
    try {
      await api(this.historyPath(moment.parameters), { method: "POST" });
      toast(`Restored ${where} ${moment.label}`);
    } catch (error) {
      toast(`Restore refused: ${error.message}`, { error: true });
    }
  }
}
