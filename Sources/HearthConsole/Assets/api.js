// The console's only way to Hearth: its own origin, which forwards `/console/api/…` to the
// products' public APIs with the administrator's credential. Every change carries the
// session's CSRF token.

export const session = {
  projectId: "", defaultNamespace: "", buckets: [], mainOrigin: "", mode: "development", signInRequired: false,
  signedIn: false, email: null, csrfToken: "",
};

/** A refused request, with the product's error text. */
export class ApiError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

/** Reads `/console/session` into `session`. */
export async function loadSession() {
  const response = await fetch("/console/session", { credentials: "same-origin", cache: "no-store" });
  Object.assign(session, await response.json());
  return session;
}

/** Every request carries the CSRF token: the console refuses forwarded requests without it,
 *  reads included, so that no link or image on another site can make it act. */
function headers(extra = {}) {
  return { ...extra, "X-Hearth-CSRF": session.csrfToken };
}

/** The error text of a failed answer: Firebase's `{"error": "…"}` or `{"error": {"message": …}}`. */
async function failure(response) {
  let message = `${response.status} ${response.statusText}`;
  try {
    const body = await response.json();
    if (typeof body.error === "string") message = body.error;
    else if (body.error && body.error.message) message = body.error.message;
  } catch { /* not JSON */ }
  if (response.status === 401 && session.signInRequired) {
    session.signedIn = false;
    window.dispatchEvent(new Event("hearth:signed-out"));
  }
  return new ApiError(response.status, message);
}

/** A request to the console's own endpoints (sign-in, sign-out). */
export async function consoleRequest(path, method, body) {
  const response = await fetch(path, {
    method, credentials: "same-origin",
    headers: headers({ "Content-Type": "application/json" }),
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!response.ok) throw await failure(response);
  return response.json();
}

/** A file the console's own endpoint `path` answers (an export), as a Blob. */
export async function consoleDownload(path) {
  const response = await fetch(path, { credentials: "same-origin", cache: "no-store", headers: headers() });
  if (!response.ok) throw await failure(response);
  return response.blob();
}

/** A request to a product's public API, by its path on the main port: the answer's JSON, or
 *  with `text` its text. */
export async function api(path, { method = "GET", body, raw = false, text: asText = false } = {}) {
  const response = await fetch("/console/api" + path, {
    method, credentials: "same-origin", cache: "no-store",
    headers: headers(body === undefined ? {} : { "Content-Type": "application/json" }),
    body: body === undefined ? undefined : (raw ? body : JSON.stringify(body)),
  });
  if (!response.ok) throw await failure(response);
  const text = await response.text();
  if (asText) return text;
  return text === "" ? null : JSON.parse(text);
}

/** Sends `body` to a product's API with upload progress (`onProgress(fraction)`), for imports
 *  and uploads. */
export function upload(path, method, body, onProgress, contentType = "application/json") {
  return uploadTo("/console/api" + path, method, body, onProgress, contentType);
}

/** Sends `body` to `url` on the console's origin with upload progress; resolves with the
 *  answer's JSON, if any. */
export function uploadTo(url, method, body, onProgress, contentType) {
  return new Promise((resolve, reject) => {
    const request = new XMLHttpRequest();
    request.open(method, url);
    request.setRequestHeader("X-Hearth-CSRF", session.csrfToken);
    request.setRequestHeader("Content-Type", contentType);
    request.upload.onprogress = (event) => event.lengthComputable && onProgress(event.loaded / event.total);
    request.onload = () => {
      if (request.status >= 200 && request.status < 300) {
        try { return resolve(JSON.parse(request.responseText)); } catch { return resolve(null); }
      }
      let message = `${request.status}`;
      try { message = JSON.parse(request.responseText).error || message; } catch { /* not JSON */ }
      reject(new ApiError(request.status, message));
    };
    request.onerror = () => reject(new ApiError(0, "The connection failed."));
    request.send(body);
  });
}

/** The Identity Toolkit's admin path of this project: `…/<version>/projects/<id>/<rest>`. */
export function identityToolkit(rest, version = "v1") {
  return `/identitytoolkit.googleapis.com/${version}/projects/${encodeURIComponent(session.projectId)}/${rest}`;
}
