// Small DOM helpers: elements from tag, attributes and children, never from HTML text, so that
// no value from the database or a user record is ever parsed as markup.

/** An element: `h("button", {type: "button", onclick}, "Save")`. */
export function h(tag, attributes = {}, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith("on") && typeof value === "function") {
      element.addEventListener(name.slice(2), value);
    } else if (name === "style") {
      // Through the CSSOM: the page's policy refuses style attributes.
      element.style.cssText = value;
    } else if (name === "dataset") {
      Object.assign(element.dataset, value);
    } else if (name in element && typeof value !== "string") {
      element[name] = value;
    } else {
      element.setAttribute(name, value === true ? "" : value);
    }
  }
  for (const child of children.flat()) {
    if (child === undefined || child === null || child === false) continue;
    element.append(child instanceof Node ? child : String(child));
  }
  return element;
}

/** Shows a short message in the corner; errors stay longer. */
export function toast(message, { error = false } = {}) {
  const item = h("div", { class: error ? "toast error" : "toast" }, message);
  document.getElementById("toasts").append(item);
  setTimeout(() => item.remove(), error ? 8000 : 3000);
}

/** Asks to confirm a destructive action in the page's dialog; resolves to true or false. */
export function confirmAction(text, actionLabel = "Delete") {
  const dialog = document.getElementById("confirm");
  document.getElementById("confirm-text").textContent = text;
  const ok = document.getElementById("confirm-ok");
  const cancel = document.getElementById("confirm-cancel");
  ok.textContent = actionLabel;
  return new Promise((resolve) => {
    const finish = (answer) => {
      ok.removeEventListener("click", onOk);
      cancel.removeEventListener("click", onCancel);
      dialog.removeEventListener("cancel", onCancel);
      dialog.close();
      resolve(answer);
    };
    const onOk = () => finish(true);
    const onCancel = () => finish(false);
    ok.addEventListener("click", onOk);
    cancel.addEventListener("click", onCancel);
    dialog.addEventListener("cancel", onCancel);
    dialog.showModal();
    cancel.focus();
  });
}

/** Saves `contents` (text or a Blob) as a file named `name`. */
export function download(name, contents, type = "application/json") {
  const url = URL.createObjectURL(contents instanceof Blob ? contents : new Blob([contents], { type }));
  const link = h("a", { href: url, download: name });
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}
