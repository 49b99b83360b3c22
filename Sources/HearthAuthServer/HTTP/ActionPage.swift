/// The action handler page served at `GET /__/auth/action` (auth spec §10.5): a self-contained
/// HTML page (inline style and script, nothing loaded from elsewhere) that completes the action of
/// an email link in the browser by calling the REST API of the same origin:
///
/// - `resetPassword`: checks the code (`accounts:resetPassword {oobCode}`) to show the address,
///   asks for the new password and sets it (`{oobCode, newPassword}`);
/// - `verifyEmail`, `verifyAndChangeEmail`: applies the code (`accounts:update {oobCode}`);
/// - `recoverEmail`: checks the code for the address to restore, applies it, and offers to send a
///   password-reset email (`accounts:sendOobCode`);
/// - `signIn`: redirects to `continueUrl` with the link's other parameters added, for the app to
///   finish with `signInWithEmailLink`.
///
/// Success offers "Continue" to the link's `continueUrl`, which is followed only when it is an
/// `http:` or `https:` URL. API errors are shown in words; `INVALID_OOB_CODE` and
/// `EXPIRED_OOB_CODE` read as "expired or already used".
enum ActionPage {
    /// The page for the query parameters of an action link (`mode`, `oobCode`, `apiKey`,
    /// `continueUrl`, `lang`, `tenantId`, …), headed with `appName`.
    static func html(query: [String: String], appName: String) -> String {
        let parameters = query.sorted { $0.key < $1.key }.map { "\(javaScriptString($0.key)): \(javaScriptString($0.value))" }.joined(
            separator: ", ")
        let app = HTMLEscaping.escaped(appName)
        return #"""
            <!DOCTYPE html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <meta name="referrer" content="no-referrer">
            <meta name="robots" content="noindex">
            <title>\#(app)</title>
            <style>
            body { margin: 0; min-height: 100vh; display: flex; align-items: center; justify-content: center;
              font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; background: #f1f3f4; color: #202124; }
            main { box-sizing: border-box; width: 100%; max-width: 26rem; margin: 1rem; padding: 2rem;
              background: #fff; border-radius: 8px; box-shadow: 0 1px 3px rgba(0, 0, 0, .2); }
            .app { margin: 0 0 .5rem; color: #5f6368; font-size: .875rem; }
            h1 { margin: 0 0 1rem; font-size: 1.375rem; font-weight: 500; }
            label { display: block; margin: 1rem 0 .25rem; }
            input[type=password], input[type=text] { box-sizing: border-box; width: 100%; padding: .5rem;
              font: inherit; border: 1px solid #dadce0; border-radius: 4px; }
            .show { display: flex; gap: .5rem; align-items: center; margin-top: .5rem; font-size: .875rem; }
            button, .button { display: inline-block; margin-top: 1.5rem; padding: .5rem 1.5rem; font: inherit;
              color: #fff; background: #1a73e8; border: 0; border-radius: 4px; cursor: pointer; text-decoration: none; }
            button:disabled { background: #9aa0a6; cursor: default; }
            .error { margin: 1rem 0 0; color: #d93025; }
            </style>
            </head>
            <body>
            <main>
            <p class="app">\#(app)</p>
            <h1 id="title">One moment…</h1>
            <p id="message"></p>
            <form id="reset" hidden>
            <input id="username" type="text" autocomplete="username" hidden>
            <label for="password">New password</label>
            <input id="password" type="password" autocomplete="new-password" required>
            <label class="show"><input id="show" type="checkbox"> Show password</label>
            <button id="save" type="submit">Save</button>
            </form>
            <p id="error" class="error" role="alert" hidden></p>
            <div id="actions"></div>
            <noscript><p>This page needs JavaScript to complete the action of your link.</p></noscript>
            </main>
            <script>
            "use strict";
            (function () {
              const link = { \#(parameters) };
              const element = (id) => document.getElementById(id);
              const expired = "This link has expired or has already been used. Please ask for a new one.";
              const messages = {
                INVALID_OOB_CODE: expired,
                EXPIRED_OOB_CODE: expired,
                MISSING_OOB_CODE: "This link is incomplete. Please open the complete link from the email.",
                EMAIL_EXISTS: "This email address is already used by another account.",
                EMAIL_NOT_FOUND: "There is no account with this email address.",
                USER_NOT_FOUND: "The account of this link does not exist anymore.",
                USER_DISABLED: "This account has been disabled.",
                PASSWORD_LOGIN_DISABLED: "Signing in with a password is not enabled for this app.",
                OPERATION_NOT_ALLOWED: "This action is not enabled for this app.",
                TOO_MANY_ATTEMPTS_TRY_LATER: "There have been too many attempts. Please try again later.",
              };

              class APIError extends Error {
                constructor(code, detail) {
                  super(code);
                  this.code = code;
                  this.detail = detail;
                }
              }

              function describe(error) {
                if (!(error instanceof APIError)) {
                  return "The server could not be reached. Please check your connection and try again.";
                }
                if (error.code === "WEAK_PASSWORD") {
                  return "This password is too weak" + (error.detail ? ": " + error.detail + "." : ". Please choose a stronger one.");
                }
                if (messages[error.code]) return messages[error.code];
                if (error.code.startsWith("API key not valid") || error.code.startsWith("The request is missing a valid API key")) {
                  return "This link is not valid for this app.";
                }
                return "The action failed (" + error.code + (error.detail ? ": " + error.detail : "") + ").";
              }

              function show(title, message) {
                element("title").textContent = title;
                element("message").textContent = message || "";
              }

              function fail(error) {
                element("reset").hidden = true;
                element("error").hidden = true;
                show("This link cannot be used", describe(error));
              }

              async function call(operation, body) {
                if (link.tenantId) body.tenantId = link.tenantId;
                const response = await fetch(
                  "/identitytoolkit.googleapis.com/v1/accounts:" + operation + "?key=" + encodeURIComponent(link.apiKey),
                  { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
                let answer = null;
                try {
                  answer = await response.json();
                } catch (ignored) {}
                if (!response.ok) {
                  const text = (answer && answer.error && answer.error.message) || "HTTP " + response.status;
                  const separator = text.indexOf(" : ");
                  throw separator < 0
                    ? new APIError(text.trim(), "")
                    : new APIError(text.slice(0, separator).trim(), text.slice(separator + 3).trim());
                }
                return answer || {};
              }

              function continueURL() {
                if (!link.continueUrl) return null;
                try {
                  const url = new URL(link.continueUrl);
                  return url.protocol === "http:" || url.protocol === "https:" ? url : null;
                } catch (ignored) {
                  return null;
                }
              }

              function offerContinue() {
                const url = continueURL();
                if (!url) return;
                const anchor = document.createElement("a");
                anchor.className = "button";
                anchor.href = url.href;
                anchor.textContent = "Continue";
                element("actions").appendChild(anchor);
              }

              async function resetPassword() {
                const code = await call("resetPassword", { oobCode: link.oobCode });
                if (code.requestType && code.requestType !== "PASSWORD_RESET") throw new APIError("INVALID_OOB_CODE", "");
                show("Reset your password", "Choose a new password for " + code.email + ".");
                element("username").value = code.email || "";
                const form = element("reset");
                const password = element("password");
                element("show").addEventListener("change", (event) => {
                  password.type = event.target.checked ? "text" : "password";
                });
                form.addEventListener("submit", async (event) => {
                  event.preventDefault();
                  element("error").hidden = true;
                  element("save").disabled = true;
                  try {
                    await call("resetPassword", { oobCode: link.oobCode, newPassword: password.value });
                    form.hidden = true;
                    show("Your password has been changed", "You can now sign in with your new password.");
                    offerContinue();
                  } catch (error) {
                    if (error instanceof APIError && (error.code === "INVALID_OOB_CODE" || error.code === "EXPIRED_OOB_CODE")) {
                      fail(error);
                    } else {
                      element("error").textContent = describe(error);
                      element("error").hidden = false;
                    }
                  } finally {
                    element("save").disabled = false;
                  }
                });
                form.hidden = false;
                password.focus();
              }

              async function verifyEmail() {
                const user = await call("update", { oobCode: link.oobCode });
                show("Your email address has been verified", "You can now sign in with " + user.email + ".");
                offerContinue();
              }

              async function verifyAndChangeEmail() {
                const user = await call("update", { oobCode: link.oobCode });
                show("Your email address has been changed", "From now on, sign in with " + user.email + ".");
                offerContinue();
              }

              async function recoverEmail() {
                const code = await call("resetPassword", { oobCode: link.oobCode });
                await call("update", { oobCode: link.oobCode });
                show("Your sign-in email has been restored",
                  "Your sign-in email is " + code.email + " again. If you did not ask for it to be changed, " +
                  "someone else may know your password: we recommend that you change it.");
                const button = document.createElement("button");
                button.type = "button";
                button.textContent = "Reset my password";
                button.addEventListener("click", async () => {
                  button.disabled = true;
                  try {
                    await call("sendOobCode", { requestType: "PASSWORD_RESET", email: code.email });
                    button.remove();
                    show("Check your email", "A link to reset your password has been sent to " + code.email + ".");
                  } catch (error) {
                    button.disabled = false;
                    element("error").textContent = describe(error);
                    element("error").hidden = false;
                  }
                });
                element("actions").appendChild(button);
              }

              function signIn() {
                const url = continueURL();
                if (!url) {
                  show("Finish signing in", "Open this link on the device and in the app where you asked to sign in.");
                  return;
                }
                for (const [name, value] of Object.entries(link)) {
                  if (name !== "continueUrl") url.searchParams.set(name, value);
                }
                show("Signing you in…", "");
                window.location.replace(url.href);
              }

              const actions = { resetPassword, verifyEmail, verifyAndChangeEmail, recoverEmail, signIn };
              const action = Object.prototype.hasOwnProperty.call(actions, link.mode) ? actions[link.mode] : null;
              if (!action || !link.oobCode || !link.apiKey) {
                show("This link is not valid", "The link is incomplete or damaged. Please open the complete link from the email.");
                return;
              }
              Promise.resolve().then(action).catch(fail);
            })();
            </script>
            </body>
            </html>

            """#
    }

    /// `text` as a JavaScript string literal that is also safe inside an HTML `<script>` element:
    /// quotes, backslashes, control characters, `<`, `>`, `&` and the two line separators that end
    /// a JavaScript line are escaped.
    private static func javaScriptString(_ text: String) -> String {
        var output = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": output += "\\\""
            case "\\": output += "\\\\"
            case "<", ">", "&", "\u{2028}", "\u{2029}", "\u{0}"..."\u{1F}", "\u{7F}":
                let hex = String(scalar.value, radix: 16)
                output += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: output.unicodeScalars.append(scalar)
            }
        }
        return output + "\""
    }
}
