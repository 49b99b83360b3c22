// Traffic: the server's figures from `/metrics` (Prometheus's text format, as operators scrape
// it) read every second — connections, sessions and listeners now; requests, reads, writes,
// bytes and denials per second as small charts of the last minute — with the listeners by
// location and query (unindexed queries flagged) and the paths with the most denials.

import { api } from "./api.js";
import { dataURL } from "./data-view.js";
import { h } from "./dom.js";

const INTERVAL_MS = 1000;
/** How many readings each chart shows. */
const POINTS = 60;
const SVG = "http://www.w3.org/2000/svg";

/** `{name: total}` of a Prometheus text exposition, each series' labels summed away. */
export function parseMetrics(text) {
  const totals = {};
  for (const line of text.split("\n")) {
    if (line === "" || line.startsWith("#")) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[^}]*\})?\s+(\S+)/.exec(line);
    if (!match) continue;
    totals[match[1]] = (totals[match[1]] ?? 0) + Number(match[3]);
  }
  return totals;
}

const RATES = [
  { name: "hearth_http_requests_total", label: "HTTP requests/s" },
  { name: "hearth_realtime_messages_total", label: "Realtime messages/s" },
  { name: "hearth_database_reads_total", label: "Database reads/s" },
  { name: "hearth_database_writes_total", label: "Database writes/s" },
  { name: "hearth_received_bytes_total", label: "Bytes received/s", bytes: true },
  { name: "hearth_sent_bytes_total", label: "Bytes sent/s", bytes: true },
  { name: "hearth_rules_denials_total", label: "Rules denials/s" },
];
const GAUGES = [
  { name: "hearth_connections", label: "Connections" },
  { name: "hearth_realtime_sessions", label: "Realtime sessions" },
  { name: "hearth_database_listeners", label: "Listeners" },
];

function formatted(value, bytes) {
  if (!bytes) return value >= 100 ? Math.round(value).toLocaleString() : String(Math.round(value * 10) / 10);
  const units = ["B", "KB", "MB", "GB"];
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) { value /= 1024; unit += 1; }
  return `${Math.round(value * 10) / 10} ${units[unit]}`;
}

/** The newest scheduled backup (`hearth serve --backup-dir`): when it began, and its size. */
function newestBackup(totals) {
  const began = totals.hearth_backup_last_began_seconds ?? 0;
  const text = began > 0
    ? `${new Date(began * 1000).toLocaleString(undefined, { hour12: false })} · ${formatted(totals.hearth_backup_last_bytes ?? 0, true)}`
    : "none";
  return h("div", { class: "figure panel" },
    h("div", { class: "figure-label" }, "Newest backup"),
    h("div", { class: "figure-value", dataset: { metric: "hearth_backup_last_began_seconds" } }, text));
}

/** A line chart of `values` (oldest first), scaled to its own maximum. */
function sparkline(values, label) {
  const width = 180;
  const height = 40;
  const top = Math.max(...values, 1);
  const step = width / (POINTS - 1);
  const offset = POINTS - values.length;
  const points = values.map((value, index) =>
    `${((offset + index) * step).toFixed(1)},${(height - 2 - (value / top) * (height - 4)).toFixed(1)}`).join(" ");
  const svg = document.createElementNS(SVG, "svg");
  for (const [name, value] of Object.entries({ viewBox: `0 0 ${width} ${height}`, width, height, role: "img", "aria-label": label, class: "sparkline" })) {
    svg.setAttribute(name, value);
  }
  // The minute's frame: a baseline the readings so far rise from, at its right end.
  const baseline = document.createElementNS(SVG, "line");
  for (const [name, value] of Object.entries({ x1: 0, x2: width, y1: height - 1, y2: height - 1, class: "sparkline-base" })) {
    baseline.setAttribute(name, value);
  }
  const line = document.createElementNS(SVG, "polyline");
  line.setAttribute("points", points);
  line.setAttribute("class", "sparkline-line");
  svg.append(baseline, line);
  return svg;
}

export class TrafficView {
  constructor(container, { navigate }) {
    this.container = container;
    this.navigate = navigate;
    this.history = Object.fromEntries(RATES.map((rate) => [rate.name, []]));
    this.render();
    this.refresh();
    this.timer = setInterval(() => this.refresh(), INTERVAL_MS);
  }

  dispose() {
    clearInterval(this.timer);
    this.disposed = true;
  }

  render() {
    this.status = h("p", { class: "hint", role: "status", id: "traffic-status" }, "Reading the figures…");
    this.gauges = h("div", { class: "figures", id: "traffic-gauges" });
    this.charts = h("div", { class: "figures", id: "traffic-charts" });
    this.listeners = h("tbody");
    this.denials = h("tbody");
    this.container.replaceChildren(
      h("h1", {}, "Traffic"),
      this.status,
      this.gauges,
      this.charts,
      h("h2", {}, "Listeners by location and query"),
      h("table", { class: "users", "aria-label": "Listeners" },
        h("thead", {}, h("tr", {}, ["Namespace", "Location", "Query", "Listeners", "Index"].map((name) => h("th", { scope: "col" }, name)))),
        this.listeners),
      h("h2", {}, "Denials by path"),
      h("table", { class: "users", "aria-label": "Denials by path" },
        h("thead", {}, h("tr", {}, ["Product", "Path", "Denials"].map((name) => h("th", { scope: "col" }, name)))),
        this.denials));
  }

  async refresh() {
    let totals;
    let traffic;
    try {
      const [text, answer] = await Promise.all([api("/metrics", { text: true }), fetch("/console/traffic", {
        credentials: "same-origin", cache: "no-store" }).then((response) => response.json())]);
      totals = parseMetrics(text);
      traffic = answer;
    } catch (error) {
      if (!this.disposed) this.status.textContent = `Could not read the figures: ${error.message}`;
      return;
    }
    if (this.disposed) return;
    const now = performance.now();
    if (this.previous) {
      const seconds = (now - this.previous.at) / 1000;
      for (const rate of RATES) {
        const series = this.history[rate.name];
        series.push(Math.max(0, ((totals[rate.name] ?? 0) - (this.previous.totals[rate.name] ?? 0)) / seconds));
        if (series.length > POINTS) series.shift();
      }
    }
    this.previous = { at: now, totals };
    this.status.textContent = `Updated every second from /metrics at ${new Date().toLocaleTimeString(undefined, { hour12: false })}.`;
    this.gauges.replaceChildren(...GAUGES.map((gauge) => h("div", { class: "figure panel" },
      h("div", { class: "figure-label" }, gauge.label),
      h("div", { class: "figure-value", dataset: { metric: gauge.name } }, formatted(totals[gauge.name] ?? 0, false)))),
      newestBackup(totals));
    this.charts.replaceChildren(...RATES.map((rate) => {
      const series = this.history[rate.name];
      const latest = series.at(-1) ?? 0;
      return h("div", { class: "figure panel" },
        h("div", { class: "figure-label" }, rate.label),
        h("div", { class: "figure-value", dataset: { metric: rate.name } }, formatted(latest, rate.bytes)),
        sparkline(series, `${rate.label} over the last minute`));
    }));
    this.drawListeners(traffic.listeners);
    this.drawDenials(traffic.denials);
  }

  drawListeners(listeners) {
    listeners.sort((a, b) => b.listeners - a.listeners);
    this.listeners.replaceChildren(...listeners.map((entry) => h("tr", {},
      h("td", {}, entry.namespace),
      h("td", {}, h("a", { href: dataURL(entry.namespace, entry.path.split("/").filter(Boolean)), "data-link": true }, entry.path)),
      h("td", { class: "cell-value" }, entry.query || h("span", { class: "hint" }, "whole location")),
      h("td", {}, String(entry.listeners)),
      h("td", {}, entry.unindexed
        ? h("span", { class: "warning" }, "unindexed: add .indexOn to the rules")
        : h("span", { class: "hint" }, entry.query ? "indexed" : "—")))));
    if (listeners.length === 0) this.listeners.append(h("tr", {}, h("td", { colspan: 5, class: "empty" }, "No one listens.")));
  }

  drawDenials(denials) {
    this.denials.replaceChildren(...denials.map((entry) => h("tr", {},
      h("td", {}, entry.product), h("td", { class: "cell-value" }, entry.path), h("td", {}, String(entry.count)))));
    if (denials.length === 0) this.denials.append(h("tr", {}, h("td", { colspan: 3, class: "empty" }, "No denial since the server started.")));
  }
}
