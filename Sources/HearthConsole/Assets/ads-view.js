// Ads: the last day's counts read every five seconds (figures, and impressions and clicks per
// hour as charts), the campaigns with their delivery, pausing and deleting, and the ad units and
// creatives they use, each made with a form. Everything goes through the ads admin API
// (`/ads/v1/admin/…`), whose refusals name the field.

import { api, session } from "./api.js";
import { confirmAction, h, toast } from "./dom.js";

const ADMIN = "/ads/v1/admin";
const INTERVAL_MS = 5000;
const HOURS = 24;
const SVG = "http://www.w3.org/2000/svg";
const COUNTS = ["requests", "fills", "impressions", "viewable", "clicks", "invalid"];

const percent = (part, whole) => (whole > 0 ? `${Math.round((part / whole) * 1000) / 10}%` : "—");
const sizeText = (size) => `${size.w}×${size.h}`;

/** `"320x50, 728x90"` as sizes; `null` for an empty text; throws for anything else. */
export function parseSizes(text) {
  const parts = text.split(",").map((part) => part.trim()).filter(Boolean);
  if (parts.length === 0) return null;
  return parts.map((part) => {
    const match = /^(\d+)\s*[x×]\s*(\d+)$/i.exec(part);
    if (!match) throw new Error(`"${part}" is not a size like 320x50`);
    return { w: Number(match[1]), h: Number(match[2]) };
  });
}

/** A bar chart of `values` (one per hour, oldest first), scaled to its own maximum. */
function hourlyBars(values, label) {
  const width = 240;
  const height = 60;
  const top = Math.max(...values, 1);
  const step = width / values.length;
  const svg = document.createElementNS(SVG, "svg");
  const attributes = { viewBox: `0 0 ${width} ${height}`, width: "100%", height, preserveAspectRatio: "none", role: "img", "aria-label": label, class: "bars" };
  for (const [name, value] of Object.entries(attributes)) {
    svg.setAttribute(name, value);
  }
  values.forEach((value, index) => {
    const bar = document.createElementNS(SVG, "rect");
    const barHeight = value === 0 ? 0 : Math.max(1, (value / top) * (height - 2));
    for (const [name, attribute] of Object.entries({ x: (index * step + 1).toFixed(1), y: (height - barHeight).toFixed(1),
      width: Math.max(1, step - 2).toFixed(1), height: barHeight.toFixed(1), class: "bar" })) {
      bar.setAttribute(name, attribute);
    }
    svg.append(bar);
  });
  return svg;
}

/** Labelled form fields. */
function field(label, control) {
  return h("label", {}, label, control);
}

export class AdsView {
  constructor(container) {
    this.container = container;
    this.catalog = { adUnits: [], creatives: [], campaigns: [] };
    this.delivered = {};
    this.render();
    this.load();
    this.timer = setInterval(() => this.refreshReport(), INTERVAL_MS);
  }

  dispose() {
    clearInterval(this.timer);
    this.disposed = true;
  }

  render() {
    this.status = h("p", { class: "hint", role: "status", id: "ads-status" }, "Reading the catalog…");
    this.updated = h("p", { class: "hint", id: "ads-updated" });
    this.figures = h("div", { class: "figures", id: "ads-figures" });
    this.charts = h("div", { class: "figures", id: "ads-charts" });
    this.campaigns = h("tbody");
    this.units = h("tbody");
    this.creatives = h("tbody");
    this.campaignForm = h("form", { class: "stack", id: "new-campaign", onsubmit: (event) => this.submit(event, "campaigns") });
    const table = (label, columns, body) => h("table", { class: "users", "aria-label": label },
      h("thead", {}, h("tr", {}, columns.map((name) => h("th", { scope: "col" }, name)))), body);
    this.container.replaceChildren(
      h("h1", {}, "Ads"),
      this.status,
      h("h2", {}, "The last 24 hours"),
      this.updated,
      this.figures,
      this.charts,
      h("h2", {}, "Campaigns"),
      table("Campaigns", ["Campaign", "Priority", "Active", "Weight", "Ad units", "Creatives", "Goal", "Last 24 h", ""], this.campaigns),
      h("details", { class: "panel" }, h("summary", {}, "New campaign"), this.campaignForm),
      h("h2", {}, "Ad units"),
      table("Ad units", ["Ad unit ID", "Name", "Refresh", "Slot sizes", ""], this.units),
      h("details", { class: "panel" }, h("summary", {}, "New ad unit"), this.unitForm()),
      h("h2", {}, "Creatives"),
      table("Creatives", ["Creative", "Size", "Kind", "Shows", "Click URL", ""], this.creatives),
      h("details", { class: "panel" }, h("summary", {}, "New creative"), this.creativeForm()));
  }

  unitForm() {
    return h("form", { class: "stack", id: "new-ad-unit", onsubmit: (event) => this.submit(event, "adUnits") },
      field("Ad unit ID", h("input", { name: "adUnitID", required: true, placeholder: "ca-app-pub-1234567890123456/1234567890" })),
      field("Name", h("input", { name: "name", required: true })),
      field("Refresh every (30–150 seconds; empty for none)", h("input", { name: "refreshSeconds", type: "number", min: 30, max: 150 })),
      field("Slot sizes (empty for any)", h("input", { name: "sizes", placeholder: "320x50, 728x90" })),
      h("button", { type: "submit", class: "primary-like" }, "Add ad unit"));
  }

  creativeForm() {
    return h("form", { class: "stack", id: "new-creative", onsubmit: (event) => this.submit(event, "creatives") },
      field("Width", h("input", { name: "w", type: "number", min: 1, required: true, value: "320" })),
      field("Height", h("input", { name: "h", type: "number", min: 1, required: true, value: "50" })),
      field("Kind", h("select", { name: "kind" }, h("option", { value: "image" }, "Image"), h("option", { value: "html" }, "HTML"))),
      field("Image URL (an image creative)", h("input", { name: "imageURL", type: "url" })),
      field("Image drawn at", h("select", { name: "scale" },
        h("option", { value: "1" }, "1× (a pixel a point)"), h("option", { value: "2" }, "2× (Retina)"), h("option", { value: "3" }, "3×"))),
      field("…or upload an image (PNG, JPEG, GIF or WebP; sets the URL, and the size in points)",
        h("input", { type: "file", name: "imageFile", accept: "image/png,image/jpeg,image/gif,image/webp",
          onchange: (event) => this.uploadImage(event.target) })),
      field("HTML (an HTML creative)", h("textarea", { name: "html", rows: 3 })),
      field("Click URL", h("input", { name: "clickURL", type: "url", required: true })),
      h("button", { type: "submit", class: "primary-like" }, "Add creative"));
  }

  drawCampaignForm() {
    const choices = (name, items, id, text) => h("fieldset", {}, h("legend", {}, name === "adUnitIDs" ? "Ad units" : "Creatives"),
      items.length === 0 ? h("p", { class: "hint" }, "None yet.") : items.map((item) => h("label", { class: "choice" },
        h("input", { type: "checkbox", name, value: id(item) }), ` ${text(item)}`)));
    this.campaignForm.replaceChildren(
      field("Name", h("input", { name: "name", required: true })),
      field("Priority", h("select", { name: "priority" },
        h("option", { value: "house" }, "House"), h("option", { value: "contract" }, "Contract"),
        h("option", { value: "sponsorship" }, "Sponsorship"))),
      field("Weight", h("input", { name: "weight", type: "number", min: 1, value: "1" })),
      choices("adUnitIDs", this.catalog.adUnits, (unit) => unit.adUnitID, (unit) => `${unit.name} (${unit.adUnitID})`),
      choices("creativeIDs", this.catalog.creatives, (creative) => creative.creativeID,
        (creative) => `${sizeText(creative)} ${creative.kind} ${creative.imageURL ?? ""}`),
      field("Daily impressions goal (empty for none)", h("input", { name: "dailyImpressions", type: "number", min: 1 })),
      h("button", { type: "submit", class: "primary-like" }, "Add campaign"));
  }

  async load() {
    try {
      const [units, creatives, campaigns] = await Promise.all(
        ["adUnits", "creatives", "campaigns"].map((kind) => api(`${ADMIN}/${kind}`)));
      if (this.disposed) return;
      this.catalog = { adUnits: units.adUnits, creatives: creatives.creatives, campaigns: campaigns.campaigns };
    } catch (error) {
      if (!this.disposed) this.unavailable(error, "Could not read the ads catalog");
      return;
    }
    this.status.textContent = "Counts update every five seconds.";
    this.drawUnits();
    this.drawCreatives();
    this.drawCampaignForm();
    this.drawCampaigns();
    await this.refreshReport();
  }

  /** Says why the catalog or the report could not be read (the next refresh tries again). */
  unavailable(error, what) {
    this.status.textContent = `${what}: ${error.message}`;
  }

  /** The last day's counts, by hour and by campaign, then the figures, charts and campaigns. */
  async refreshReport() {
    let byHour;
    try {
      byHour = (await api(`${ADMIN}/reports?by=hour&group=campaign`)).rows;
    } catch (error) {
      if (!this.disposed) this.unavailable(error, "Could not read the report");
      return;
    }
    if (this.disposed) return;
    const totals = Object.fromEntries(COUNTS.map((name) => [name, 0]));
    const delivered = {};
    // The server's hour when its clock is ahead of the browser's.
    const thisHour = Math.max(Math.floor(Date.now() / 3_600_000), ...byHour.map((row) => row.hour));
    const impressions = new Array(HOURS).fill(0);
    const clicks = new Array(HOURS).fill(0);
    for (const row of byHour) {
      for (const name of COUNTS) totals[name] += row[name];
      const campaign = (delivered[row.key] ??= { impressions: 0, clicks: 0 });
      campaign.impressions += row.impressions;
      campaign.clicks += row.clicks;
      const slot = HOURS - 1 - (thisHour - row.hour);
      if (slot >= 0 && slot < HOURS) {
        impressions[slot] += row.impressions;
        clicks[slot] += row.clicks;
      }
    }
    this.delivered = delivered;
    const figure = (label, value, name, note) => h("div", { class: "figure panel" },
      h("div", { class: "figure-label" }, label),
      h("div", { class: "figure-value", dataset: { count: name } }, value.toLocaleString()),
      note === undefined ? null : h("div", { class: "hint" }, note));
    this.figures.replaceChildren(
      figure("Requests", totals.requests, "requests"),
      figure("Fills", totals.fills, "fills", `fill rate ${percent(totals.fills, totals.requests)}`),
      figure("Impressions", totals.impressions, "impressions"),
      figure("Viewable", totals.viewable, "viewable", `${percent(totals.viewable, totals.impressions)} of impressions`),
      figure("Clicks", totals.clicks, "clicks", `click-through ${percent(totals.clicks, totals.impressions)}`),
      figure("Invalid events", totals.invalid, "invalid"));
    this.charts.replaceChildren(
      h("div", { class: "figure panel chart" }, h("div", { class: "figure-label" }, "Impressions per hour"),
        hourlyBars(impressions, "Impressions per hour over the last 24 hours"), h("div", { class: "hint" }, "24 hours ago to now")),
      h("div", { class: "figure panel chart" }, h("div", { class: "figure-label" }, "Clicks per hour"),
        hourlyBars(clicks, "Clicks per hour over the last 24 hours"), h("div", { class: "hint" }, "24 hours ago to now")));
    this.updated.textContent = `Counted at ${new Date().toLocaleTimeString(undefined, { hour12: false })}.`;
    this.drawDelivered();
  }

  /** Each campaign's last day in its row, changed in place: focus in the table stays put. */
  drawDelivered() {
    for (const cell of this.campaigns.querySelectorAll("td.delivered")) {
      const delivered = this.delivered[cell.closest("tr").dataset.campaign] ?? { impressions: 0, clicks: 0 };
      cell.textContent = `${delivered.impressions} impressions, ${delivered.clicks} clicks`;
    }
  }

  drawCampaigns() {
    const units = Object.fromEntries(this.catalog.adUnits.map((unit) => [unit.adUnitID, unit]));
    const creatives = Object.fromEntries(this.catalog.creatives.map((creative) => [creative.creativeID, creative]));
    this.campaigns.replaceChildren(...this.catalog.campaigns.map((campaign) => {
      const toggle = h("input", {
        type: "checkbox", id: `active-${campaign.campaignID}`, checked: campaign.status === "active",
        "aria-label": `${campaign.name} active`, onchange: () => this.setActive(campaign, toggle.checked),
      });
      const goal = campaign.goal
        ? [campaign.goal.daily && `${campaign.goal.daily} a day`, campaign.goal.lifetime && `${campaign.goal.lifetime} in all`]
          .filter(Boolean).join(", ") + ` ${campaign.goal.metric}`
        : "—";
      return h("tr", { dataset: { campaign: campaign.campaignID } },
        h("td", {}, campaign.name),
        h("td", {}, campaign.priority),
        h("td", {}, toggle),
        h("td", {}, String(campaign.weight)),
        h("td", {}, campaign.adUnitIDs.map((id) => units[id]?.name ?? id).join(", ")),
        h("td", {}, campaign.creativeIDs.map((id) => (creatives[id] ? sizeText(creatives[id]) : id)).join(", ")),
        h("td", {}, goal),
        h("td", { class: "delivered" }),
        h("td", {}, this.deleteButton("campaigns", campaign.campaignID, `campaign ${campaign.name}`)));
    }));
    if (this.catalog.campaigns.length === 0) {
      this.campaigns.append(h("tr", {}, h("td", { colspan: 9, class: "empty" }, "No campaign yet: add ad units and creatives, then a campaign.")));
    }
    this.drawDelivered();
  }

  drawUnits() {
    this.units.replaceChildren(...this.catalog.adUnits.map((unit) => h("tr", { dataset: { unit: unit.adUnitID } },
      h("td", { class: "cell-value" }, unit.adUnitID),
      h("td", {}, unit.name),
      h("td", {}, unit.refreshSeconds ? `${unit.refreshSeconds} s` : "off"),
      h("td", {}, unit.sizes ? unit.sizes.map(sizeText).join(", ") : "any"),
      h("td", {}, this.deleteButton("adUnits", unit.adUnitID, `ad unit ${unit.name}`)))));
    if (this.catalog.adUnits.length === 0) this.units.append(h("tr", {}, h("td", { colspan: 5, class: "empty" }, "No ad unit yet.")));
  }

  drawCreatives() {
    this.creatives.replaceChildren(...this.catalog.creatives.map((creative) => h("tr", { dataset: { creative: creative.creativeID } },
      h("td", { class: "cell-value" }, creative.creativeID.slice(0, 8)),
      h("td", {}, sizeText(creative)),
      h("td", {}, creative.kind),
      h("td", { class: "cell-value" }, creative.imageURL ?? creative.html),
      h("td", { class: "cell-value" }, creative.clickURL),
      h("td", {}, this.deleteButton("creatives", creative.creativeID, `the ${sizeText(creative)} creative`)))));
    if (this.catalog.creatives.length === 0) this.creatives.append(h("tr", {}, h("td", { colspan: 6, class: "empty" }, "No creative yet.")));
  }

  deleteButton(kind, id, what) {
    return h("button", { type: "button", class: "danger", "aria-label": `Delete ${what}`, onclick: async () => {
      if (!(await confirmAction(`Delete ${what}?`))) return;
      try {
        await api(`${ADMIN}/${kind}/${encodeURIComponent(id)}`, { method: "DELETE" });
        toast(`Deleted ${what}`);
        this.load();
      } catch (error) {
        toast(`Refused: ${error.message}`, { error: true });
      }
    } }, "Delete");
  }

  async setActive(campaign, active) {
    try {
      await api(`${ADMIN}/campaigns/${encodeURIComponent(campaign.campaignID)}`,
        { method: "PATCH", body: { status: active ? "active" : "paused" } });
      toast(`${campaign.name} ${active ? "active" : "paused"}`);
    } catch (error) {
      toast(`Refused: ${error.message}`, { error: true });
    }
    this.load();
  }

  /** Uploads the image chosen in `input` and puts its URL and size into the creative form. */
  async uploadImage(input) {
    const file = input.files?.[0];
    if (!file) return;
    const form = input.form;
    let uploaded;
    try {
      uploaded = await api(`${ADMIN}/images`, { method: "POST", body: file, raw: true });
    } catch (error) {
      toast(`Refused: ${error.message}`, { error: true });
      return;
    }
    // Asked through the console's origin, the server names the image there: apps fetch it
    // from the main one.
    form.elements.imageURL.value = session.mainOrigin + new URL(uploaded.imageURL).pathname;
    try {
      const bitmap = await createImageBitmap(file);
      const scale = Number(form.elements.scale.value) || 1;
      form.elements.w.value = String(Math.round(bitmap.width / scale));
      form.elements.h.value = String(Math.round(bitmap.height / scale));
      bitmap.close();
      toast(`Uploaded ${file.name}`);
    } catch {
      toast(`Uploaded ${file.name}; its size could not be read: give it in points`, { error: true });
    }
  }

  /** The object a form describes, as the admin API takes it. */
  static body(kind, form) {
    const data = new FormData(form);
    const text = (name) => (data.get(name) ?? "").toString().trim();
    const number = (name) => (text(name) === "" ? null : Number(text(name)));
    if (kind === "adUnits") {
      return { adUnitID: text("adUnitID"), name: text("name"), refreshSeconds: number("refreshSeconds"), sizes: parseSizes(text("sizes")) };
    }
    if (kind === "creatives") {
      const creative = { w: number("w"), h: number("h"), kind: text("kind"), clickURL: text("clickURL") };
      if (creative.kind === "image") creative.imageURL = text("imageURL");
      else creative.html = text("html");
      return creative;
    }
    const campaign = {
      name: text("name"), priority: text("priority"), weight: number("weight") ?? 1,
      adUnitIDs: data.getAll("adUnitIDs").map(String), creativeIDs: data.getAll("creativeIDs").map(String),
    };
    if (number("dailyImpressions") !== null) campaign.goal = { metric: "impressions", daily: number("dailyImpressions") };
    return campaign;
  }

  async submit(event, kind) {
    event.preventDefault();
    const form = event.target;
    try {
      const made = await api(`${ADMIN}/${kind}`, { method: "POST", body: AdsView.body(kind, form) });
      form.reset();
      toast(`Added ${made.name ?? made.creativeID}`);
      this.load();
    } catch (error) {
      toast(`Refused: ${error.message}`, { error: true });
    }
  }
}
