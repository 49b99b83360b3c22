// The data view: one namespace's tree from a location down, live and windowed.
//
// Each expanded node is listed with a shallow read (its keys only); the values of the rows in
// sight are read a page of keys at a time with a key-range query; only rows in sight are in
// the DOM. `/console/changes` says which locations each durable write touched, and only the
// listings and pages under those locations are read again: a node of 100,000 children opens
// and stays live without ever being sent whole.

import { api, upload } from "./api.js";
import { confirmAction, download, h, toast } from "./dom.js";
import { historyURL, isValidKey, pushID, restPath, sortKeys } from "./keys.js";
import { QueryPanel } from "./query-panel.js";
import { ReadAccess } from "./view-as.js";

const ROW_HEIGHT = 30;
const PAGE_SIZE = 100;
const OVERSCAN = 10;

/** The console URL of `keys` in `namespace`. */
export function dataURL(namespace, keys) {
  return `/database/${encodeURIComponent(namespace)}/data` + keys.map((key) => "/" + encodeURIComponent(key)).join("");
}

const pathString = (keys) => "/" + keys.join("/");
const isPrefix = (prefix, keys) => prefix.length <= keys.length && prefix.every((key, i) => keys[i] === key);

/** What a value looks like in a row, and its type's name. */
function describe(value) {
  if (value === null) return ["null", "null"];
  if (typeof value === "object") return [`{${Object.keys(value).length}}`, "object"];
  if (typeof value === "string") return [JSON.stringify(value), "string"];
  return [String(value), typeof value];
}

/** Reads the text of an editor as the type chosen; throws with a message when it is not one. */
function parseTyped(type, text) {
  switch (type) {
    case "string": return text;
    case "number": {
      const number = Number(text);
      if (text.trim() === "" || !Number.isFinite(number)) throw new Error("Not a number.");
      return number;
    }
    case "boolean":
      if (text !== "true" && text !== "false") throw new Error("Type true or false.");
      return text === "true";
    case "null": return null;
    default:
      try { return JSON.parse(text); } catch { throw new Error("Not valid JSON."); }
  }
}

function typeOf(value) {
  if (value === null) return "null";
  if (typeof value === "object") return "json";
  return typeof value;
}

function typedEditor(initialType, initialText, label) {
  const select = h("select", { "aria-label": `${label}: type` },
    ["string", "number", "boolean", "null", "json"].map((type) =>
      h("option", { value: type, selected: type === initialType }, type === "json" ? "JSON" : type)));
  const input = h("input", { type: "text", value: initialText, "aria-label": `${label}: value`, size: 32 });
  return { select, input, read: () => parseTyped(select.value, input.value) };
}

export class DataView {
  constructor(container, { namespace, keys, navigate }) {
    this.container = container;
    this.namespace = namespace;
    this.rootKeys = keys;
    this.navigate = navigate;
    /** Listings by path: {keys, pages: Map(index → {values, stale, loading}), primitive?: {value}, added?, fallback?}. */
    this.listings = new Map();
    this.expanded = new Set([pathString(keys)]);
    this.rows = [];
    this.shownValues = new Map();
    this.pending = new Set();
    this.refreshTimer = null;
    this.access = new ReadAccess(
      `/console/rules/database/simulate?ns=${encodeURIComponent(namespace)}`,
      (paths, auth) => ({ operation: "readable", paths, auth }), () => this.renderVisible());
    this.render();
    this.follow();
    this.load(this.rootKeys);
  }

  dispose() {
    this.disposed = true;
    this.events?.close();
    clearTimeout(this.refreshTimer);
  }

  query(keys, parameters = {}) {
    const search = new URLSearchParams({ ns: this.namespace, ...parameters });
    return `${restPath(keys)}?${search}`;
  }

  // MARK: Loading

  /** Lists the node at `keys` (shallow): its sorted keys, or its value when it is a leaf. */
  async load(keys) {
    const path = pathString(keys);
    const previous = this.listings.get(path);
    try {
      const shallow = await api(this.query(keys, { shallow: "true" }));
      if (this.disposed) return;
      const listing = { pages: new Map(), keys: [] };
      if (shallow !== null && typeof shallow === "object") listing.keys = sortKeys(Object.keys(shallow));
      else if (shallow !== null) listing.primitive = { value: shallow };
      // Keys that appeared since the last listing flash once when drawn.
      if (previous && !previous.error) {
        const before = new Set(previous.keys);
        listing.added = new Set(listing.keys.filter((key) => !before.has(key)));
        // What was shown stays shown until the new pages arrive, so that changes can flash.
        listing.fallback = Object.assign({}, ...[...previous.pages.values()].map((page) => page.values ?? {}));
      }
      this.listings.set(path, listing);
    } catch (error) {
      this.listings.set(path, { keys: [], pages: new Map(), error: error.message });
    }
    this.rebuildRows();
  }

  /** Reads the values of page `index` of the listing at `keys` with one key-range query. */
  async loadPage(keys, index) {
    const listing = this.listings.get(pathString(keys));
    const held = listing?.pages.get(index);
    if (!listing || (held && (held.loading || !held.stale))) return;
    // A change during the read marks this object stale, and the page is read once more.
    const reading = { values: held?.values, loading: true };
    listing.pages.set(index, reading);
    const slice = listing.keys.slice(index * PAGE_SIZE, (index + 1) * PAGE_SIZE);
    if (slice.length === 0) return;
    try {
      const values = await api(this.query(keys, {
        orderBy: JSON.stringify("$key"), startAt: JSON.stringify(slice[0]), endAt: JSON.stringify(slice[slice.length - 1]),
      }));
      if (this.disposed || this.listings.get(pathString(keys)) !== listing) return;
      listing.pages.set(index, { values: values ?? {}, stale: reading.stale });
      // A listed key the page no longer has was deleted: list the node again.
      if (slice.some((key) => !(key in (values ?? {})))) {
        this.pending.add(pathString(keys));
        this.scheduleRefresh();
      }
      this.renderVisible();
    } catch (error) {
      listing.pages.set(index, { values: held?.values, stale: true });
      toast(`Could not read ${pathString(keys)}: ${error.message}`, { error: true });
    }
  }

  /** The value of the child `key` of the listing at `parentKeys` (the last one read while a
   *  page is read again), or `undefined` before its page was first read. */
  valueOf(parentKeys, key, index) {
    const listing = this.listings.get(pathString(parentKeys));
    const values = listing?.pages.get(Math.floor(index / PAGE_SIZE))?.values;
    if (values) return key in values ? values[key] : null;
    if (listing?.fallback && key in listing.fallback) return listing.fallback[key];
    return undefined;
  }

  /** Whether the page holding row `index` of the listing at `parentKeys` must be read. */
  needsPage(parentKeys, index) {
    const page = this.listings.get(pathString(parentKeys))?.pages.get(Math.floor(index / PAGE_SIZE));
    return !page || (page.stale && !page.loading);
  }

  // MARK: Liveness

  /** Follows the namespace's changes; the browser reconnects by itself after a failure. */
  follow() {
    this.events = new EventSource(`/console/changes?ns=${encodeURIComponent(this.namespace)}`);
    // After a reconnection, whatever changed while the stream was down is read again.
    let opened = false;
    this.events.addEventListener("open", () => {
      if (opened) {
        for (const path of this.listings.keys()) this.pending.add(path);
        this.scheduleRefresh();
      }
      opened = true;
    });
    this.events.addEventListener("changed", (event) => {
      for (const path of JSON.parse(event.data)) this.invalidate(path === "/" ? [] : path.slice(1).split("/"));
      this.scheduleRefresh();
    });
  }

  /** Refreshes once the changes arriving together have all been marked. */
  scheduleRefresh() {
    clearTimeout(this.refreshTimer);
    this.refreshTimer = setTimeout(() => this.refresh(), 30);
  }

  /** Marks what a write at `changed` may have altered among the listings and pages held. */
  invalidate(changed) {
    for (const [path, listing] of this.listings) {
      const keys = path === "/" ? [] : path.slice(1).split("/");
      if (isPrefix(changed, keys)) {
        this.pending.add(path);
      } else if (isPrefix(keys, changed)) {
        const child = changed[keys.length];
        const index = listing.keys.indexOf(child);
        const page = listing.pages.get(Math.floor(index / PAGE_SIZE));
        if (index === -1) this.pending.add(path);
        else if (page) page.stale = true;
      }
    }
  }

  /** Reads again every listing marked and still shown, then the pages in sight. */
  async refresh() {
    const paths = [...this.pending];
    this.pending.clear();
    await Promise.all(paths.filter((path) => this.expanded.has(path)).map((path) => {
      return this.load(path === "/" ? [] : path.slice(1).split("/"));
    }));
    for (const path of paths) if (!this.expanded.has(path)) this.listings.delete(path);
    // What a user may read depends on the data: judged again after each change.
    if (this.access.active) this.access.forget();
    this.renderVisible();
  }

  // MARK: Rows

  /** Flattens the expanded tree into rows (only the visible ones are ever drawn). */
  rebuildRows() {
    const rows = [];
    const walk = (keys, depth) => {
      const listing = this.listings.get(pathString(keys));
      if (!listing) {
        rows.push({ kind: "loading", keys, depth });
        return;
      }
      listing.keys.forEach((key, index) => {
        const child = [...keys, key];
        rows.push({ kind: "child", keys: child, parent: keys, index, depth });
        if (this.expanded.has(pathString(child))) walk(child, depth + 1);
      });
    };
    walk(this.rootKeys, 0);
    this.rows = rows;
    this.renderVisible();
  }

  toggle(keys) {
    const path = pathString(keys);
    if (this.expanded.has(path)) {
      this.expanded.delete(path);
      for (const other of [...this.expanded]) if (other.startsWith(path + "/")) this.expanded.delete(other);
    } else {
      this.expanded.add(path);
      if (!this.listings.has(path)) this.load(keys);
    }
    this.rebuildRows();
  }

  // MARK: Keyboard

  /** Up and down move between rows, right expands, left collapses or goes to the parent, Home
   *  and End go to the ends; the rows in between need not be drawn. */
  onTreeKey(event) {
    if (event.target.closest("input, select, textarea")) return;
    const path = document.activeElement?.closest?.(".row")?.dataset.path;
    let index = path === undefined ? -1 : this.rows.findIndex((row) => row.kind === "child" && pathString(row.keys) === path);
    const row = this.rows[index];
    switch (event.key) {
      case "ArrowDown": index = Math.min(this.rows.length - 1, index + 1); break;
      case "ArrowUp": index = Math.max(0, index - 1); break;
      case "Home": index = 0; break;
      case "End": index = this.rows.length - 1; break;
      case "ArrowRight":
      case "ArrowLeft": {
        if (!row) return;
        const value = this.valueOf(row.parent, row.keys.at(-1), row.index);
        const expanded = this.expanded.has(pathString(row.keys));
        event.preventDefault();
        if (event.key === "ArrowRight" && value !== null && typeof value === "object" && !expanded) return this.toggle(row.keys);
        if (event.key === "ArrowLeft" && expanded) return this.toggle(row.keys);
        if (event.key === "ArrowLeft" && row.depth > 0) {
          return this.focusRow(this.rows.findIndex((other) => other.kind === "child" && pathString(other.keys) === pathString(row.parent)));
        }
        return;
      }
      default: return;
    }
    event.preventDefault();
    this.focusRow(index);
  }

  /** Scrolls row `index` into sight, draws it and puts the focus on its key. */
  focusRow(index) {
    const row = this.rows[index];
    if (!row || row.kind !== "child") return;
    const top = index * ROW_HEIGHT;
    if (top < this.tree.scrollTop || top + ROW_HEIGHT > this.tree.scrollTop + this.tree.clientHeight) {
      this.tree.scrollTop = Math.max(0, top - this.tree.clientHeight / 2);
    }
    this.renderVisible();
    this.spacer.querySelector(`[data-path="${CSS.escape(pathString(row.keys))}"] .key`)?.focus();
  }

  // MARK: Drawing

  render() {
    const namespaceInput = h("input", {
      type: "text", value: this.namespace, id: "namespace", size: 28,
      onchange: (event) => this.navigate(dataURL(event.target.value.trim() || this.namespace, [])),
    });
    const pathInput = h("input", {
      type: "text", class: "path-input", id: "path", value: pathString(this.rootKeys),
      onkeydown: (event) => {
        if (event.key !== "Enter") return;
        const keys = event.target.value.split("/").filter((key) => key !== "");
        this.navigate(dataURL(this.namespace, keys));
      },
    });
    const fileInput = h("input", {
      type: "file", accept: "application/json,.json", class: "visually-hidden", id: "import-file",
      onchange: (event) => event.target.files[0] && this.importFile(event.target.files[0]),
    });
    this.progress = h("progress", { class: "progress", max: 1, value: 0, hidden: true, "aria-label": "Import progress" });
    this.form = h("div", { class: "panel", hidden: true });
    this.spacer = h("div", { class: "tree-spacer" });
    this.tree = h("div", {
      class: "tree", id: "tree", "aria-label": `Data at ${pathString(this.rootKeys)}`, role: "region", tabindex: "0",
      onscroll: () => this.renderVisible(),
      onkeydown: (event) => this.onTreeKey(event),
      ondragover: (event) => { event.preventDefault(); this.tree.classList.add("drop-target"); },
      ondragleave: () => this.tree.classList.remove("drop-target"),
      ondrop: (event) => {
        event.preventDefault();
        this.tree.classList.remove("drop-target");
        const file = event.dataTransfer.files[0];
        if (file) this.importFile(file);
      },
    }, this.spacer);
    this.leaf = h("div", { class: "panel", hidden: true });
    this.queryPanel = new QueryPanel({
      query: (parameters) => this.query(this.rootKeys, parameters),
      navigateTo: (key) => this.navigate(dataURL(this.namespace, [...this.rootKeys, key])),
    });
    this.container.replaceChildren(
      h("h1", {}, "Realtime Database"),
      h("div", { class: "toolbar" },
        h("label", { for: "namespace" }, "Namespace"), namespaceInput,
        h("label", { for: "path" }, "Path"), pathInput, ...this.access.controls()),
      this.breadcrumb(),
      h("div", { class: "toolbar" },
        h("button", { type: "button", class: "primary", onclick: () => this.showAddForm(this.rootKeys) }, "Add child"),
        h("label", { class: "button-like" }, h("span", {}, "Import JSON"), fileInput),
        h("button", { type: "button", onclick: () => this.exportNode(this.rootKeys) }, "Export JSON"),
        h("button", { type: "button", id: "query-toggle", onclick: () => this.queryPanel.toggle() }, "Query"),
        h("a", { class: "button-like", id: "history-link", href: historyURL(this.namespace, this.rootKeys), "data-link": true }, "History"),
        this.progress),
      this.queryPanel.element, this.form, this.leaf, this.tree);
  }

  breadcrumb() {
    const items = [h("li", {}, h("a", { href: dataURL(this.namespace, []), "data-link": true }, this.namespace))];
    this.rootKeys.forEach((key, i) => {
      items.push(h("li", {}, h("a", { href: dataURL(this.namespace, this.rootKeys.slice(0, i + 1)), "data-link": true }, key)));
    });
    return h("nav", { "aria-label": "Location" }, h("ol", { class: "breadcrumb" }, items));
  }

  /** Draws the rows in sight, reading the pages they need. */
  renderVisible() {
    if (this.disposed) return;
    const root = this.listings.get(pathString(this.rootKeys));
    this.renderLeaf(root);
    this.spacer.style.height = `${Math.max(this.rows.length, 1) * ROW_HEIGHT}px`;
    const first = Math.max(0, Math.floor(this.tree.scrollTop / ROW_HEIGHT) - OVERSCAN);
    const last = Math.min(this.rows.length, Math.ceil((this.tree.scrollTop + this.tree.clientHeight) / ROW_HEIGHT) + OVERSCAN);
    const focusedPath = document.activeElement?.closest?.(".row")?.dataset.path;
    const elements = [];
    const shown = new Map();
    // A row being edited is kept as it is, so that a live update never takes the editor away.
    const editing = this.editingPath && this.spacer.querySelector(`[data-path="${CSS.escape(this.editingPath)}"]`);
    for (let i = first; i < last; i++) {
      const row = this.rows[i];
      const kept = editing && row.kind === "child" && pathString(row.keys) === this.editingPath;
      elements.push(kept ? editing : this.renderRow(row, i, shown));
    }
    this.shownValues = shown;
    if (root && !root.primitive && root.keys.length === 0 && !root.error) {
      elements.push(h("p", { class: "empty row", style: "top:0" }, "No data at this location."));
    }
    if (root?.error) elements.push(h("p", { class: "empty row", style: "top:0" }, root.error));
    this.spacer.replaceChildren(...elements);
    this.access.judge(this.rows.slice(first, last).filter((row) => row.kind === "child").map((row) => pathString(row.keys)));
    if (focusedPath && !this.spacer.contains(document.activeElement)) {
      this.spacer.querySelector(`[data-path="${CSS.escape(focusedPath)}"] .key`)?.focus();
    }
  }

  /** A location that holds a value rather than children shows it above the tree. */
  renderLeaf(root) {
    if (!root?.primitive || this.editingLeaf) {
      this.leaf.hidden = !this.editingLeaf;
      return;
    }
    const [text, type] = describe(root.primitive.value);
    this.leaf.hidden = false;
    this.leaf.replaceChildren(h("span", { class: "key" }, pathString(this.rootKeys), " = "),
      h("button", { type: "button", class: `value ${type}`, onclick: () => this.editLeaf(root.primitive.value) }, text));
  }

  /** One row; `shown` collects what each drawn row shows, to flash what changed since. */
  renderRow(row, index, shown) {
    const style = `top:${index * ROW_HEIGHT}px;padding-left:${8 + row.depth * 20}px`;
    if (row.kind === "loading") return h("div", { class: "row", style }, h("span", { class: "summary" }, "Loading…"));
    const key = row.keys[row.keys.length - 1];
    const path = pathString(row.keys);
    const value = this.valueOf(row.parent, key, row.index);
    if (this.needsPage(row.parent, row.index)) this.loadPage(row.parent, Math.floor(row.index / PAGE_SIZE));
    const isObject = value !== null && typeof value === "object";
    const expanded = this.expanded.has(path);
    const text = value === undefined ? undefined : JSON.stringify(value);
    const before = this.shownValues.get(path);
    const listing = this.listings.get(pathString(row.parent));
    const appeared = listing?.added?.delete(key) ?? false;
    const changed = appeared || (text !== undefined && before !== undefined && before !== text);
    if (text !== undefined) shown.set(path, text);
    const element = h("div", { class: changed ? "row flash" : "row", style, dataset: { path } },
      isObject
        ? h("button", {
            type: "button", class: "toggle", "aria-expanded": String(expanded), "aria-label": `${expanded ? "Collapse" : "Expand"} ${key}`,
            onclick: () => this.toggle(row.keys),
          }, expanded ? "▾" : "▸")
        : h("span", { class: "toggle-space" }),
      h("a", { class: "key", href: dataURL(this.namespace, row.keys), "data-link": true }, key),
      h("span", { class: "sep" }, ":"),
      this.renderValue(row, key, value));
    const verdict = this.access.verdict(path);
    if (verdict && !verdict.allowed) {
      // Greyed out, with the rule that refused the read in words, in the row itself.
      element.classList.add("unreadable");
      element.append(h("span", { class: "reason" }, `not readable: ${verdict.reason}`));
    }
    if (value !== undefined) element.append(this.rowActions(row, key, isObject));
    return element;
  }

  renderValue(row, key, value) {
    if (value === undefined) return h("span", { class: "summary" }, "…");
    const [text, type] = describe(value);
    if (type === "object") return h("span", { class: "summary" }, text);
    return h("button", {
      type: "button", class: `value ${type}`, "aria-label": `Edit ${key}, ${type} ${text}`,
      onclick: (event) => this.editValue(event.currentTarget, row.keys, value),
    }, text);
  }

  rowActions(row, key, isObject) {
    const action = (label, symbol, handler, extra = "") =>
      h("button", { type: "button", class: `icon ${extra}`, "aria-label": `${label} ${key}`, title: label, onclick: handler }, symbol);
    return h("span", { class: "actions" },
      isObject ? action("Add child to", "+", () => this.showAddForm(row.keys)) : null,
      action("Rename", "✎", () => this.showCopyForm(row.keys, true)),
      action("Duplicate", "❐", () => this.showCopyForm(row.keys, false)),
      action("Export", "⤓", () => this.exportNode(row.keys)),
      action("History of", "⟲", () => this.navigate(historyURL(this.namespace, row.keys))),
      action("Delete", "✕", () => this.remove(row.keys), "danger"));
  }

  // MARK: Changes

  async write(keys, method, body) {
    try {
      await api(this.query(keys), { method, body });
      return true;
    } catch (error) {
      toast(`${method} ${pathString(keys)} refused: ${error.message}`, { error: true });
      return false;
    }
  }

  editValue(button, keys, value) {
    this.editingPath = pathString(keys);
    const close = () => {
      this.editingPath = null;
      this.renderVisible();
    };
    const editor = typedEditor(typeOf(value), typeof value === "object" ? JSON.stringify(value) : String(value), `Value of ${keys.at(-1)}`);
    const error = h("span", { class: "error", role: "alert" });
    const wrapper = h("span", { class: "editor" }, editor.select, editor.input,
      h("button", { type: "button", onclick: () => save() }, "Save"),
      h("button", { type: "button", onclick: close }, "Cancel"), error);
    const save = async () => {
      let parsed;
      try { parsed = editor.read(); } catch (problem) { error.textContent = problem.message; return; }
      if (await this.write(keys, "PUT", parsed)) {
        toast(`Saved ${pathString(keys)}`);
        close();
      }
    };
    editor.input.addEventListener("keydown", (event) => {
      if (event.key === "Enter") save();
      if (event.key === "Escape") close();
    });
    button.replaceWith(wrapper);
    editor.input.focus();
    editor.input.select();
  }

  editLeaf(value) {
    this.editingLeaf = true;
    const editor = typedEditor(typeOf(value), typeof value === "object" ? JSON.stringify(value) : String(value), "Value");
    const error = h("span", { class: "error", role: "alert" });
    const done = () => { this.editingLeaf = false; this.renderVisible(); };
    this.leaf.replaceChildren(h("div", { class: "editor" }, editor.select, editor.input,
      h("button", { type: "button", onclick: async () => {
        let parsed;
        try { parsed = editor.read(); } catch (problem) { error.textContent = problem.message; return; }
        if (await this.write(this.rootKeys, "PUT", parsed)) done();
      } }, "Save"),
      h("button", { type: "button", onclick: done }, "Cancel"), error));
    editor.input.focus();
  }

  showAddForm(parentKeys) {
    const keyInput = h("input", { type: "text", value: pushID(), id: "new-key", size: 24 });
    const editor = typedEditor("string", "", "New child");
    const error = h("p", { class: "form-error", role: "alert" });
    this.form.hidden = false;
    this.form.replaceChildren(h("div", { class: "stack" },
      h("strong", {}, `Add a child to ${pathString(parentKeys)}`),
      h("label", { for: "new-key" }, "Key"), keyInput,
      h("div", { class: "editor" }, editor.select, editor.input),
      h("div", { class: "toolbar" },
        h("button", { type: "button", class: "primary", onclick: async () => {
          const key = keyInput.value;
          if (!isValidKey(key)) { error.textContent = "A key may not be empty or contain . $ # [ ] /"; return; }
          let value;
          try { value = editor.read(); } catch (problem) { error.textContent = problem.message; return; }
          if (await this.write([...parentKeys, key], "PUT", value)) {
            this.form.hidden = true;
            if (parentKeys.length > this.rootKeys.length) this.expanded.add(pathString(parentKeys));
          }
        } }, "Add"),
        h("button", { type: "button", onclick: () => { this.form.hidden = true; } }, "Cancel")),
      error));
    keyInput.focus();
  }

  /** Renames (moves) or duplicates a child within its parent, as one multi-path update. */
  showCopyForm(keys, moves) {
    const parent = keys.slice(0, -1);
    const key = keys.at(-1);
    const input = h("input", { type: "text", value: moves ? key : `${key}-copy`, id: "copy-key", size: 24 });
    const error = h("p", { class: "form-error", role: "alert" });
    this.form.hidden = false;
    this.form.replaceChildren(h("div", { class: "stack" },
      h("strong", {}, `${moves ? "Rename" : "Duplicate"} ${pathString(keys)}`),
      h("label", { for: "copy-key" }, "New key"), input,
      h("div", { class: "toolbar" },
        h("button", { type: "button", class: "primary", onclick: async () => {
          const target = input.value;
          if (!isValidKey(target)) { error.textContent = "A key may not be empty or contain . $ # [ ] /"; return; }
          if (target === key) { this.form.hidden = true; return; }
          try {
            const value = await api(this.query(keys));
            const update = { [target]: value };
            if (moves) update[key] = null;
            await api(this.query(parent), { method: "PATCH", body: update });
            this.form.hidden = true;
          } catch (problem) {
            error.textContent = problem.message;
          }
        } }, moves ? "Rename" : "Duplicate"),
        h("button", { type: "button", onclick: () => { this.form.hidden = true; } }, "Cancel")),
      error));
    input.focus();
    input.select();
  }

  async remove(keys) {
    if (!(await confirmAction(`Delete ${pathString(keys)} and everything under it?`))) return;
    if (await this.write(keys, "DELETE")) toast(`Deleted ${pathString(keys)}`);
  }

  async exportNode(keys) {
    try {
      const value = await api(this.query(keys, { format: "export" }));
      const name = [this.namespace, ...keys].join("-").replace(/[^A-Za-z0-9_-]/g, "_");
      download(`${name}.json`, JSON.stringify(value, null, 2));
    } catch (error) {
      toast(`Export failed: ${error.message}`, { error: true });
    }
  }

  async importFile(file) {
    const text = await file.text();
    try { JSON.parse(text); } catch {
      toast(`${file.name} is not valid JSON.`, { error: true });
      return;
    }
    const target = pathString(this.rootKeys);
    if (!(await confirmAction(`Replace the data at ${target} with ${file.name}?`, "Import"))) return;
    this.progress.hidden = false;
    this.progress.value = 0;
    try {
      await upload(this.query(this.rootKeys), "PUT", text, (fraction) => { this.progress.value = fraction; });
      this.progress.value = 1;
      toast(`Imported ${file.name} at ${target}`);
    } catch (error) {
      toast(`Import refused: ${error.message}`, { error: true });
    } finally {
      setTimeout(() => { this.progress.hidden = true; }, 800);
    }
  }
}
