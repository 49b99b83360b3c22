// Users to and from files in the formats of Firebase's `auth:export` and `auth:import` (JSON or
// CSV), through the console's `/console/auth/users/export` and `/import`: the server reads and
// writes the files, as `hearth auth:import` and `auth:export` do.

import { consoleDownload, uploadTo } from "./api.js";
import { download, h, toast } from "./dom.js";

const ALGORITHMS = [
  "SCRYPT", "STANDARD_SCRYPT", "BCRYPT", "PBKDF2_SHA256", "PBKDF_SHA1", "HMAC_SHA512", "HMAC_SHA256", "HMAC_SHA1", "HMAC_MD5",
  "SHA512", "SHA256", "SHA1", "MD5",
];

/** The hash parameters, each named after the CLI's flag: [query name, label]. */
const HASH_FIELDS = [
  ["hashKey", "Hash key (base64, --hash-key)"], ["saltSeparator", "Salt separator (base64, --salt-separator)"],
  ["rounds", "Rounds (--rounds)"], ["memCost", "Memory cost (--mem-cost)"],
  ["parallelization", "Parallelization (--parallelization)"], ["blockSize", "Block size (--block-size)"],
  ["dkLen", "Derived key length (--dk-len)"],
];

/** Downloads every user as `users.<format>`. */
export async function exportUsers(format) {
  try {
    const blob = await consoleDownload(`/console/auth/users/export?format=${format}`);
    download(`users.${format}`, blob, blob.type);
    toast(`Exported users as ${format.toUpperCase()}`);
  } catch (error) {
    toast(`Export failed: ${error.message}`, { error: true });
  }
}

/** The import form in `panel`; `onImported` runs after users were imported. */
export function showImportForm(panel, onImported) {
  const file = h("input", { type: "file", id: "import-file", accept: ".json,.csv,application/json,text/csv" });
  const algorithm = h("select", { id: "import-hash-algo" },
    h("option", { value: "" }, "none: import without passwords"), ALGORITHMS.map((name) => h("option", { value: name }, name)));
  const order = h("select", { id: "import-hash-input-order" },
    h("option", { value: "" }, "the algorithm's default"), h("option", { value: "SALT_FIRST" }, "SALT_FIRST"),
    h("option", { value: "PASSWORD_FIRST" }, "PASSWORD_FIRST"));
  const fields = HASH_FIELDS.map(([name, label]) => [name, label, h("input", { type: "text", id: `import-${name}`, size: 40 })]);
  const progress = h("progress", { class: "progress", max: 1, value: 0, hidden: true, "aria-label": "Import progress" });
  const result = h("div", { id: "import-result", "aria-live": "polite" });
  const send = async () => {
    const chosen = file.files[0];
    if (!chosen) {
      result.replaceChildren(h("p", { class: "form-error" }, "Choose a file first."));
      return;
    }
    const format = chosen.name.toLowerCase().endsWith(".csv") ? "csv" : "json";
    const query = new URLSearchParams({ format });
    if (algorithm.value) query.set("hashAlgo", algorithm.value);
    if (order.value) query.set("hashInputOrder", order.value);
    for (const [name, , input] of fields) if (input.value.trim()) query.set(name, input.value.trim());
    progress.hidden = false;
    progress.value = 0;
    result.replaceChildren(h("p", { class: "hint" }, "Sending…"));
    try {
      const answer = await uploadTo(`/console/auth/users/import?${query}`, "POST", chosen,
        (fraction) => { progress.value = fraction; }, format === "csv" ? "text/csv" : "application/json");
      progress.value = 1;
      result.replaceChildren(h("div", {},
        h("p", { id: "import-summary" }, `Imported ${answer.imported} of ${answer.total} users.`),
        answer.refusals.length === 0 ? null : h("ul", { class: "form-error", id: "import-refusals" },
          answer.refusals.map((refusal) => h("li", {}, `user at index ${refusal.index} (uid ${refusal.uid}): ${refusal.message}`)))));
      if (answer.imported > 0) onImported();
    } catch (error) {
      progress.hidden = true;
      result.replaceChildren(h("p", { class: "form-error", id: "import-error", role: "alert" }, error.message));
    }
  };
  panel.hidden = false;
  panel.replaceChildren(h("div", { class: "stack" },
    h("strong", {}, "Import users"),
    h("p", { class: "hint" },
      "A file of Firebase's auth:export format: {\"users\": [...]} in JSON, or CSV lines of 52 columns. "
      + "The whole file is checked first; one invalid user imports nothing."),
    h("label", { for: "import-file" }, "File (.json or .csv)"), file,
    h("details", {},
      h("summary", {}, "Password hashes"),
      h("div", { class: "stack" },
        h("label", { for: "import-hash-algo" }, "Hash algorithm (--hash-algo)"), algorithm,
        fields.map(([name, label, input]) => [h("label", { for: `import-${name}` }, label), input]),
        h("label", { for: "import-hash-input-order" }, "Hash input order (--hash-input-order)"), order)),
    h("div", { class: "toolbar" },
      h("button", { type: "button", class: "primary", id: "import-send", onclick: send }, "Import"),
      h("button", { type: "button", onclick: () => { panel.hidden = true; } }, "Close"),
      progress),
    result));
  file.focus();
}
