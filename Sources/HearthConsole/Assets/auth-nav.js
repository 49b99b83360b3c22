// The tabs of the Authentication views.

import { h } from "./dom.js";

const TABS = [["/auth/users", "Users"], ["/auth/providers", "Sign-in method"], ["/auth/templates", "Templates"],
  ["/auth/outbox", "Outbox"]];

/** The tabs, `current` (a path of TABS) marked as the page shown. */
export function authNav(current) {
  return h("nav", { class: "tabs", "aria-label": "Authentication" }, TABS.map(([path, label]) =>
    h("a", { href: path, "data-link": true, "aria-current": path === current ? "page" : null }, label)));
}
