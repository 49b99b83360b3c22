// The Storage browser: one bucket's folders and files, through Cloud Storage's JSON API (list,
// metadata, copy, delete) and Firebase's v0 API (uploads, download tokens).
//
// Files are user content: the console's origin never serves them. A preview fetches the file
// from the main port with its download token and shows it as a `blob:` image, audio or video,
// or as text; a download saves those bytes; nothing a file holds ever runs as a page.

import { api, session, upload } from "./api.js";
import { confirmAction, download, h, toast } from "./dom.js";
import { ReadAccess } from "./view-as.js";

const PAGE_SIZE = 100;
const TEXT_PREVIEW_BYTES = 64 * 1024;

/** The console URL of `prefix` (ending in `/`, or empty) in `bucket`. */
export function storageURL(bucket, prefix) {
  return `/storage/${encodeURIComponent(bucket)}/` + prefix.split("/").filter(Boolean).map(encodeURIComponent).join("/");
}

const size = (bytes) => {
  const value = Number(bytes);
  if (value < 1024) return `${value} B`;
  if (value < 1024 * 1024) return `${(value / 1024).toFixed(1)} KiB`;
  return `${(value / 1024 / 1024).toFixed(1)} MiB`;
};

const objectPath = (bucket, name) => `/storage/v1/b/${encodeURIComponent(bucket)}/o/${encodeURIComponent(name)}`;
const firebasePath = (bucket, name) => `/v0/b/${encodeURIComponent(bucket)}/o/${encodeURIComponent(name)}`;
const tokensOf = (item) => (item.metadata?.firebaseStorageDownloadTokens ?? "").split(",").filter(Boolean);

export class StorageView {
  constructor(container, { bucket, prefix, navigate }) {
    this.container = container;
    this.bucket = bucket;
    this.prefix = prefix;
    this.navigate = navigate;
    this.items = [];
    this.prefixes = [];
    this.selected = new Set();
    this.access = new ReadAccess(
      "/console/rules/storage/simulate", (paths, auth) => ({ method: "readable", bucket, paths, auth }),
      () => this.drawList());
    this.render();
    this.list();
  }

  dispose() {
    this.disposed = true;
    if (this.previewURL) URL.revokeObjectURL(this.previewURL);
  }

  /** Reads the first page of the folder, or the next one. */
  async list(pageToken) {
    const search = new URLSearchParams({ prefix: this.prefix, delimiter: "/", maxResults: String(PAGE_SIZE) });
    if (pageToken) search.set("pageToken", pageToken);
    try {
      const page = await api(`/storage/v1/b/${encodeURIComponent(this.bucket)}/o?${search}`);
      if (this.disposed) return;
      if (!pageToken) { this.items = []; this.prefixes = []; }
      this.items.push(...(page.items ?? []));
      this.prefixes.push(...(page.prefixes ?? []));
      this.nextPageToken = page.nextPageToken;
      // Whether a user may read a file depends on its metadata: judged again after each listing.
      if (this.access.active && !pageToken) this.access.forget();
      this.drawList();
    } catch (error) {
      this.listing.replaceChildren(h("p", { class: "form-error" }, `Could not list: ${error.message}`));
    }
  }

  render() {
    const bucketPicker = h("select", {
      id: "bucket", onchange: (event) => this.navigate(storageURL(event.target.value, "")),
    }, [...new Set([this.bucket, ...session.buckets])].map((name) => h("option", { value: name, selected: name === this.bucket }, name)));
    const fileInput = h("input", {
      type: "file", multiple: true, class: "visually-hidden", id: "upload-files",
      onchange: (event) => this.uploadFiles([...event.target.files]),
    });
    this.progress = h("progress", { class: "progress", max: 1, value: 0, hidden: true, "aria-label": "Upload progress" });
    this.listing = h("div", {
      class: "listing", id: "listing",
      ondragover: (event) => { event.preventDefault(); this.listing.classList.add("drop-target"); },
      ondragleave: () => this.listing.classList.remove("drop-target"),
      ondrop: (event) => {
        event.preventDefault();
        this.listing.classList.remove("drop-target");
        this.uploadFiles([...event.dataTransfer.files]);
      },
    }, h("p", { class: "loading" }, "Loading…"));
    this.detail = h("div", { class: "panel", hidden: true, id: "file-detail" });
    this.container.replaceChildren(
      h("h1", {}, "Storage"),
      h("div", { class: "toolbar" }, h("label", { for: "bucket" }, "Bucket"), bucketPicker, ...this.access.controls()),
      this.breadcrumb(),
      h("div", { class: "toolbar" },
        h("label", { class: "button-like primary-like" }, h("span", {}, "Upload files"), fileInput),
        h("button", { type: "button", id: "new-folder", onclick: () => this.newFolder() }, "New folder"),
        h("button", { type: "button", class: "danger", id: "delete-selected", onclick: () => this.deleteSelected() }, "Delete selected"),
        this.progress),
      h("div", { class: "storage-layout" }, this.listing, this.detail));
  }

  breadcrumb() {
    const parts = this.prefix.split("/").filter(Boolean);
    const items = [h("li", {}, h("a", { href: storageURL(this.bucket, ""), "data-link": true }, this.bucket))];
    parts.forEach((part, i) => items.push(h("li", {}, h("a", {
      href: storageURL(this.bucket, parts.slice(0, i + 1).join("/") + "/"), "data-link": true,
    }, part))));
    return h("nav", { "aria-label": "Folder" }, h("ol", { class: "breadcrumb" }, items));
  }

  drawList() {
    const rows = [];
    for (const prefix of this.prefixes) {
      const name = prefix.slice(this.prefix.length).replace(/\/$/, "");
      rows.push(h("tr", {},
        h("td", {}),
        h("td", {}, h("a", { href: storageURL(this.bucket, prefix), "data-link": true }, `📁 ${name}/`)),
        h("td", {}, "folder"), h("td", {}), h("td", {}), h("td", {})));
    }
    for (const item of this.items) {
      const name = item.name.slice(this.prefix.length);
      const box = h("input", {
        type: "checkbox", "aria-label": `Select ${name}`, checked: this.selected.has(item.name),
        onchange: (event) => event.target.checked ? this.selected.add(item.name) : this.selected.delete(item.name),
      });
      const verdict = this.access.verdict(item.name);
      const unreadable = verdict && !verdict.allowed;
      rows.push(h("tr", { dataset: { name: item.name }, class: unreadable ? "unreadable" : null },
        h("td", {}, box),
        h("td", {}, h("button", { type: "button", class: "link", onclick: () => this.open(item) }, name),
          unreadable ? h("div", { class: "reason" }, `not readable: ${verdict.reason}`) : null),
        h("td", {}, item.contentType ?? "—"),
        h("td", {}, size(item.size)),
        h("td", {}, item.updated ? new Date(item.updated).toLocaleString() : "—"),
        h("td", {},
          h("button", { type: "button", "aria-label": `Download ${name}`, onclick: () => this.save(item) }, "Download"), " ",
          h("button", { type: "button", class: "danger", "aria-label": `Delete ${name}`, onclick: () => this.remove([item.name]) }, "Delete"))));
    }
    const table = h("table", { class: "users files", "aria-label": "Files" },
      h("thead", {}, h("tr", {},
        h("th", { scope: "col" }, h("span", { class: "visually-hidden" }, "Selected")),
        h("th", { scope: "col" }, "Name"), h("th", { scope: "col" }, "Type"), h("th", { scope: "col" }, "Size"),
        h("th", { scope: "col" }, "Updated"), h("th", { scope: "col" }, h("span", { class: "visually-hidden" }, "Actions")))),
      h("tbody", {}, rows.length ? rows : h("tr", {}, h("td", { colspan: 6, class: "empty" }, "This folder is empty. Upload files or drop them here."))));
    this.listing.replaceChildren(table);
    this.access.judge(this.items.map((item) => item.name));
    if (this.nextPageToken) {
      this.listing.append(h("button", { type: "button", onclick: () => this.list(this.nextPageToken) }, "Load more"));
    }
  }

  // MARK: Changes

  async uploadFiles(files) {
    if (files.length === 0) return;
    this.progress.hidden = false;
    let done = 0;
    for (const file of files) {
      const name = this.prefix + file.name;
      const path = `/v0/b/${encodeURIComponent(this.bucket)}/o?name=${encodeURIComponent(name)}`;
      try {
        await upload(path, "POST", file, (fraction) => { this.progress.value = (done + fraction) / files.length; },
          file.type || "application/octet-stream");
      } catch (error) {
        toast(`Upload of ${file.name} refused: ${error.message}`, { error: true });
      }
      done += 1;
    }
    this.progress.value = 1;
    setTimeout(() => { this.progress.hidden = true; }, 800);
    toast(`Uploaded ${files.length} file${files.length === 1 ? "" : "s"}`);
    this.list();
  }

  newFolder() {
    const input = h("input", { type: "text", id: "folder-name", size: 24 });
    this.detail.hidden = false;
    this.detail.replaceChildren(h("div", { class: "stack" },
      h("label", { for: "folder-name" }, "Folder name"), input,
      h("p", { class: "hint" }, "A folder exists once a file is in it; this one opens empty."),
      h("div", { class: "toolbar" },
        h("button", { type: "button", class: "primary", onclick: () => {
          const name = input.value.replace(/\//g, "").trim();
          if (name) this.navigate(storageURL(this.bucket, `${this.prefix}${name}/`));
        } }, "Open"),
        h("button", { type: "button", onclick: () => { this.detail.hidden = true; } }, "Cancel"))));
    input.focus();
  }

  async remove(names) {
    const what = names.length === 1 ? names[0] : `${names.length} files`;
    if (!(await confirmAction(`Delete ${what}?`))) return;
    for (const name of names) {
      try {
        await api(objectPath(this.bucket, name), { method: "DELETE" });
        this.selected.delete(name);
      } catch (error) {
        toast(`Could not delete ${name}: ${error.message}`, { error: true });
      }
    }
    toast(`Deleted ${what}`);
    this.detail.hidden = true;
    this.list();
  }

  deleteSelected() {
    if (this.selected.size === 0) return toast("Select files first.");
    return this.remove([...this.selected]);
  }

  /** The file's bytes, fetched from the main port with its first download token. */
  async fetchBytes(item) {
    let token = tokensOf(item)[0];
    if (!token) {
      const created = await api(`${firebasePath(this.bucket, item.name)}?create_token=true`, { method: "POST" });
      token = (created.downloadTokens ?? "").split(",")[0];
    }
    const response = await fetch(`${session.mainOrigin}${firebasePath(this.bucket, item.name)}?alt=media&token=${encodeURIComponent(token)}`);
    if (!response.ok) throw new Error(`${response.status}`);
    return response.blob();
  }

  async save(item) {
    try {
      const blob = await this.fetchBytes(item);
      download(item.name.split("/").pop(), blob, item.contentType);
    } catch (error) {
      toast(`Download failed: ${error.message}`, { error: true });
    }
  }

  // MARK: One file

  /** The file's panel: preview, download URL and tokens, metadata, move, delete. */
  async open(item) {
    let current;
    try {
      current = await api(objectPath(this.bucket, item.name));
    } catch (error) {
      toast(`Could not read ${item.name}: ${error.message}`, { error: true });
      return;
    }
    const tokens = tokensOf(current);
    const url = (token) => `${session.mainOrigin}${firebasePath(this.bucket, current.name)}?alt=media&token=${encodeURIComponent(token)}`;
    const contentType = h("input", { type: "text", id: "meta-content-type", value: current.contentType ?? "", size: 30 });
    const cacheControl = h("input", { type: "text", id: "meta-cache-control", value: current.cacheControl ?? "", size: 30 });
    const custom = Object.fromEntries(Object.entries(current.metadata ?? {}).filter(([key]) => key !== "firebaseStorageDownloadTokens"));
    const customInput = h("textarea", { id: "meta-custom", rows: 3, cols: 40 }, JSON.stringify(custom));
    const moveInput = h("input", { type: "text", id: "move-to", value: current.name, size: 40 });
    const error = h("p", { class: "form-error", role: "alert" });
    this.preview = h("div", { class: "preview", id: "preview" });
    this.detail.hidden = false;
    this.detail.replaceChildren(h("div", { class: "stack" },
      h("h2", {}, current.name),
      h("p", {}, `${current.contentType ?? "unknown type"}, ${size(current.size)}`),
      this.preview,
      h("strong", {}, "Download tokens"),
      tokens.length ? h("ul", { class: "tokens" }, tokens.map((token) => h("li", {},
        h("code", {}, `${token.slice(0, 8)}…`), " ",
        h("button", { type: "button", "aria-label": `Copy the download URL with token ${token.slice(0, 8)}`, onclick: async () => {
          await navigator.clipboard.writeText(url(token));
          toast("Download URL copied");
        } }, "Copy URL"), " ",
        h("button", { type: "button", class: "danger", "aria-label": `Revoke token ${token.slice(0, 8)}`, onclick: async () => {
          await this.call(`${firebasePath(this.bucket, current.name)}?delete_token=${encodeURIComponent(token)}`, "POST", undefined, "Token revoked");
          this.open(current);
        } }, "Revoke")))) : h("p", {}, "No token: the file is reachable only through the rules."),
      h("button", { type: "button", id: "create-token", onclick: async () => {
        await this.call(`${firebasePath(this.bucket, current.name)}?create_token=true`, "POST", undefined, "Token created");
        this.open(current);
      } }, "Create token"),
      h("strong", {}, "Metadata"),
      h("label", { for: "meta-content-type" }, "Content type"), contentType,
      h("label", { for: "meta-cache-control" }, "Cache control"), cacheControl,
      h("label", { for: "meta-custom" }, "Custom metadata (JSON object of strings)"), customInput,
      h("button", { type: "button", class: "primary", id: "save-metadata", onclick: async () => {
        let metadata;
        try {
          metadata = JSON.parse(customInput.value || "{}");
          if (metadata === null || typeof metadata !== "object" || Array.isArray(metadata)) throw new Error();
        } catch {
          error.textContent = "Custom metadata must be a JSON object.";
          return;
        }
        // Keys no longer listed are removed (null), as Cloud Storage's PATCH does.
        for (const key of Object.keys(custom)) if (!(key in metadata)) metadata[key] = null;
        const body = { contentType: contentType.value || null, cacheControl: cacheControl.value || null, metadata };
        if (await this.call(objectPath(this.bucket, current.name), "PATCH", body, "Metadata saved")) this.open(current);
      } }, "Save metadata"),
      h("label", { for: "move-to" }, "Move to (full name)"), moveInput,
      h("button", { type: "button", id: "move", onclick: async () => {
        const target = moveInput.value.trim();
        if (!target || target === current.name) return;
        const copied = await this.call(
          `${objectPath(this.bucket, current.name)}/copyTo/b/${encodeURIComponent(this.bucket)}/o/${encodeURIComponent(target)}`,
          "POST", {}, null);
        if (copied && await this.call(objectPath(this.bucket, current.name), "DELETE", undefined, `Moved to ${target}`)) {
          this.detail.hidden = true;
          this.list();
        }
      } }, "Move"),
      h("div", { class: "toolbar" },
        h("button", { type: "button", onclick: () => this.save(current) }, "Download"),
        h("button", { type: "button", class: "danger", onclick: () => this.remove([current.name]) }, "Delete"),
        h("button", { type: "button", onclick: () => { this.detail.hidden = true; } }, "Close")),
      error));
    this.showPreview(current);
  }

  async call(path, method, body, done) {
    try {
      const result = await api(path, { method, body });
      if (done) toast(done);
      return result ?? true;
    } catch (error) {
      toast(`${method} refused: ${error.message}`, { error: true });
      return null;
    }
  }

  /** Images, audio and video as `blob:` media; text as text; anything else is not opened. */
  async showPreview(item) {
    const type = (item.contentType ?? "").split(";")[0].trim();
    const kind = type.startsWith("image/") && type !== "image/svg+xml" ? "image"
      : type.startsWith("audio/") ? "audio" : type.startsWith("video/") ? "video"
      : type.startsWith("text/") || type === "application/json" ? "text" : null;
    if (!kind) {
      this.preview.replaceChildren(h("p", { class: "hint" }, "No preview for this type; download it to open it."));
      return;
    }
    try {
      const blob = await this.fetchBytes(item);
      if (this.disposed) return;
      if (kind === "text") {
        const text = await blob.slice(0, TEXT_PREVIEW_BYTES).text();
        this.preview.replaceChildren(h("pre", { class: "text-preview", tabindex: "0", "aria-label": `Contents of ${item.name}` }, text));
        return;
      }
      if (this.previewURL) URL.revokeObjectURL(this.previewURL);
      this.previewURL = URL.createObjectURL(blob);
      const media = kind === "image"
        ? h("img", { src: this.previewURL, alt: `Preview of ${item.name}`, class: "image-preview" })
        : h(kind, { src: this.previewURL, controls: true, "aria-label": `Preview of ${item.name}` });
      this.preview.replaceChildren(media);
    } catch (error) {
      this.preview.replaceChildren(h("p", { class: "form-error" }, `No preview: ${error.message}`));
    }
  }
}
