// The console's shell: the session, sign-in, the theme, and the router that maps each deep
// link (`/database/<ns>/data/<path>`, `/history/<ns>/<path>`, `/auth/users/<uid>`, `/requests`,
// `/traffic`, `/ads`) to its view.

import { AdsView } from "./ads-view.js";
import { consoleRequest, loadSession, session } from "./api.js";
import { DataView, dataURL } from "./data-view.js";
import { h, toast } from "./dom.js";
import { HistoryView } from "./history-view.js";
import { OutboxView } from "./outbox-view.js";
import { ProvidersView } from "./providers-view.js";
import { RequestsView } from "./requests-view.js";
import { RulesView } from "./rules-view.js";
import { StorageView, storageURL } from "./storage-view.js";
import { TemplatesView } from "./templates-view.js";
import { TrafficView } from "./traffic-view.js";
import { UsersView } from "./users-view.js";

const main = document.getElementById("view");
let current = null;

// MARK: Theme

const themePicker = document.getElementById("theme");
function applyTheme(theme) {
  document.documentElement.dataset.theme = theme;
  themePicker.value = theme;
}
applyTheme(localStorage.getItem("hearth-theme") ?? "system");
themePicker.addEventListener("change", () => {
  localStorage.setItem("hearth-theme", themePicker.value);
  applyTheme(themePicker.value);
});

// MARK: Routing

export function navigate(url, { replace = false } = {}) {
  if (replace) history.replaceState(null, "", url);
  else history.pushState(null, "", url);
  route();
}

const decodeKeys = (segments) => segments.filter((segment) => segment !== "").map(decodeURIComponent);

function route() {
  current?.dispose();
  current = null;
  if (session.signInRequired && !session.signedIn) return showSignIn();
  const segments = location.pathname.split("/").slice(1);
  const section = segments[0] || "database";
  // A location's history belongs with its data.
  const product = section === "history" ? "database" : section;
  for (const link of document.querySelectorAll("#products a")) {
    if (link.dataset.section === product) link.setAttribute("aria-current", "page");
    else link.removeAttribute("aria-current");
  }
  if (section === "database") {
    if (segments.length < 3 || segments[2] !== "data") {
      return navigate(dataURL(segments[1] ? decodeURIComponent(segments[1]) : session.defaultNamespace, []), { replace: true });
    }
    document.title = "Realtime Database · Hearth";
    current = new DataView(main, { namespace: decodeURIComponent(segments[1]), keys: decodeKeys(segments.slice(3)), navigate });
  } else if (section === "history") {
    if (!segments[1]) return navigate(`/history/${encodeURIComponent(session.defaultNamespace)}`, { replace: true });
    document.title = "History · Hearth";
    current = new HistoryView(main, { namespace: decodeURIComponent(segments[1]), keys: decodeKeys(segments.slice(2)), navigate });
  } else if (section === "auth" && segments[1] === "outbox") {
    document.title = "Outbox · Hearth";
    current = new OutboxView(main);
  } else if (section === "auth" && segments[1] === "templates") {
    document.title = "Email templates · Hearth";
    current = new TemplatesView(main, { mode: segments[2] ? decodeURIComponent(segments[2]) : null, navigate });
  } else if (section === "auth" && segments[1] === "providers") {
    document.title = "Sign-in method · Hearth";
    current = new ProvidersView(main);
  } else if (section === "auth" && (segments[1] ?? "users") === "users") {
    document.title = "Authentication · Hearth";
    current = new UsersView(main, { navigate, selectedUID: segments[2] ? decodeURIComponent(segments[2]) : null });
  } else if (section === "rules" && ["database", "storage"].includes(segments[1] ?? "database")) {
    document.title = "Rules · Hearth";
    const namespace = new URLSearchParams(location.search).get("ns") || session.defaultNamespace;
    current = new RulesView(main, { product: segments[1] ?? "database", namespace });
  } else if (section === "requests") {
    document.title = "Requests · Hearth";
    current = new RequestsView(main, { navigate });
  } else if (section === "ads") {
    document.title = "Ads · Hearth";
    current = new AdsView(main);
  } else if (section === "traffic") {
    document.title = "Traffic · Hearth";
    current = new TrafficView(main, { navigate });
  } else if (section === "storage") {
    if (!segments[1]) return navigate(storageURL(session.buckets[0], ""), { replace: true });
    const folders = decodeKeys(segments.slice(2));
    document.title = "Storage · Hearth";
    current = new StorageView(main, {
      bucket: decodeURIComponent(segments[1]), prefix: folders.length ? folders.join("/") + "/" : "", navigate,
    });
  } else {
    document.title = "Not found · Hearth";
    main.replaceChildren(h("h1", {}, "Not found"), h("p", {}, "The console has no view at this address. ",
      h("a", { href: "/database", "data-link": true }, "Open the data view.")));
  }
}

document.addEventListener("click", (event) => {
  const link = event.target.closest?.("a[data-link]");
  if (!link || event.metaKey || event.ctrlKey || event.shiftKey || event.button !== 0) return;
  event.preventDefault();
  navigate(link.getAttribute("href"));
});
window.addEventListener("popstate", route);
// Leaving the page closes the view's streams explicitly: an event stream left to the page's
// unloading can keep its connection, one of the six a browser opens to a host, busy.
window.addEventListener("pagehide", () => {
  current?.dispose();
  current = null;
});

// MARK: Session

function showHeader() {
  document.getElementById("project").textContent = session.projectId;
  document.getElementById("products").hidden = !(session.signedIn || !session.signInRequired);
  document.getElementById("who").textContent = session.email ?? (session.signInRequired ? "" : "development");
  document.getElementById("sign-out").hidden = !(session.signInRequired && session.signedIn);
}

function showSignIn() {
  showHeader();
  document.title = "Sign in · Hearth";
  const email = h("input", { type: "email", id: "sign-in-email", autocomplete: "email", required: true });
  const password = h("input", { type: "password", id: "sign-in-password", autocomplete: "current-password", required: true });
  const error = h("p", { class: "form-error", role: "alert", id: "sign-in-error" });
  const submit = async () => {
    error.textContent = "";
    try {
      const answer = await consoleRequest("/console/sign-in", "POST", { email: email.value, password: password.value });
      Object.assign(session, { signedIn: true, email: answer.email, csrfToken: answer.csrfToken });
      showHeader();
      route();
    } catch (problem) {
      error.textContent = problem.message === "INVALID_LOGIN_CREDENTIALS" ? "Wrong email or password."
        : problem.message === "TOO_MANY_ATTEMPTS_TRY_LATER" ? "Too many failed attempts; try again later."
        : problem.message;
    }
  };
  password.addEventListener("keydown", (event) => event.key === "Enter" && submit());
  main.replaceChildren(h("section", { class: "sign-in panel", "aria-labelledby": "sign-in-title" },
    h("h1", { id: "sign-in-title" }, "Sign in to the console"),
    h("div", { class: "stack" },
      h("label", { for: "sign-in-email" }, "Email"), email,
      h("label", { for: "sign-in-password" }, "Password"), password,
      h("button", { type: "button", class: "primary", id: "sign-in-submit", onclick: submit }, "Sign in"),
      error)));
  email.focus();
}

document.getElementById("sign-out").addEventListener("click", async () => {
  try {
    await consoleRequest("/console/sign-out", "POST");
  } catch (error) {
    toast(`Sign-out failed: ${error.message}`, { error: true });
  }
  await loadSession();
  route();
});

window.addEventListener("hearth:signed-out", async () => {
  await loadSession();
  route();
});

await loadSession();
showHeader();
route();
