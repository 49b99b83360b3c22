"""The console's Storage rules: the rules in force in the editor, checking with errors at line
and column, publishing (into the storage rules file when the server has one) with the new
rules in force for the next upload, and the playground's account of each `allow` evaluated."""

import json
import os
import tempfile
import time

import pytest
import requests
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

from browser import browser  # noqa: F401 (fixture)
from conftest import HearthProcess, per_node_state
from console_feed import Feed
from console_page import ConsolePage, console  # noqa: F401 (fixture)
from storage_support import BUCKET, js_multipart_upload
from tokens import mock_id_token

# The console publishes the rules of its own node.
pytestmark = per_node_state

TIMEOUT = 30
OWNED = """rules_version = '2';
service firebase.storage {
  match /b/{bucket}/o {
    match /users/{uid}/{file=**} {
      allow read;
      allow write: if request.auth != null && request.auth.uid == uid
                   && request.resource.size < 1024 * 1024;
    }
  }
}
"""


def csrf(server):
    return requests.get(f"{server.console_url}/console/session", timeout=TIMEOUT).json()["csrfToken"]


def put_rules(server, text, **parameters):
    return requests.put(f"{server.console_url}/console/rules/storage", params=parameters, data=text,
                        headers={"X-Hearth-CSRF": csrf(server)}, timeout=TIMEOUT)


def simulate(server, request):
    return requests.post(f"{server.console_url}/console/rules/storage/simulate", data=json.dumps(request),
                         headers={"X-Hearth-CSRF": csrf(server)}, timeout=TIMEOUT)


def user(uid):
    return {"uid": uid, "token": {"sub": uid, "firebase": {"sign_in_provider": "password"}}}


def test_publishing_puts_storage_rules_in_force_and_bad_rules_change_nothing(console_hearth):
    shown = requests.get(f"{console_hearth.console_url}/console/rules/storage", timeout=TIMEOUT).json()
    assert shown["file"] is None and "allow read, write;" in shown["source"]
    refused = requests.put(f"{console_hearth.console_url}/console/rules/storage", data=OWNED, timeout=TIMEOUT)
    assert refused.status_code == 403 and refused.json() == {"error": "CSRF_TOKEN_MISMATCH"}
    bad = put_rules(console_hearth, OWNED.replace("allow read;", "allow read"))
    assert bad.status_code == 400 and bad.json()["error"].startswith("Line 6 (column ")
    checked = put_rules(console_hearth, OWNED, dryRun="true")
    assert checked.status_code == 200
    # Neither a refused nor a checked text is in force: a signed-out upload is still open.
    assert js_multipart_upload(console_hearth, "anywhere/a.txt", b"a", headers={}).status_code == 200
    assert put_rules(console_hearth, OWNED).status_code == 200
    assert requests.get(f"{console_hearth.console_url}/console/rules/storage", timeout=TIMEOUT).json()["source"] == OWNED
    assert js_multipart_upload(console_hearth, "anywhere/b.txt", b"b", headers={}).status_code == 403
    allowed = js_multipart_upload(console_hearth, "users/ada/c.txt", b"c",
                                  headers={"Authorization": f"Firebase {mock_id_token('ada')}"})
    assert allowed.status_code == 200, allowed.text


def test_the_playground_explains_each_allow_statement(console_hearth):
    assert put_rules(console_hearth, OWNED).status_code == 200
    denied = simulate(console_hearth, {"method": "create", "bucket": BUCKET, "path": "users/ada/big.bin",
                                       "auth": user("ada"), "resource": {"size": 2 * 1024 * 1024}})
    assert denied.status_code == 200
    assert denied.json()["allowed"] is False
    [line] = denied.json()["explanation"]
    assert line.startswith("line 6: allow write: if request.auth != null") and line.endswith("→ false")
    small = simulate(console_hearth, {"method": "create", "bucket": BUCKET, "path": "users/ada/small.bin",
                                      "auth": user("ada"), "resource": {"size": 10, "contentType": "image/png"}})
    assert small.json() == {"allowed": True, "explanation": [line.replace("→ false", "→ true")]}
    nobody = simulate(console_hearth, {"method": "get", "bucket": BUCKET, "path": "elsewhere/x", "auth": None})
    assert nobody.json()["allowed"] is False
    assert nobody.json()["explanation"] == [f"no allow statement for get matches /b/{BUCKET}/o/elsewhere/x"]
    wrong = simulate(console_hearth, {"method": "read", "bucket": BUCKET, "path": "x"})
    assert wrong.status_code == 400 and wrong.json() == {"error": "method: must be get, list, create, update or delete"}
    # Nothing was written by the simulations.
    listing = requests.get(f"{console_hearth.url}/v0/b/{BUCKET}/o", params={"prefix": "users/ada/"},
                           headers={"Authorization": "Bearer owner"}, timeout=TIMEOUT).json()
    assert [item["name"] for item in listing.get("items", [])] == ["users/ada/c.txt"]


def test_the_feed_explains_a_storage_denial_with_what_a_replay_needs(console_hearth):
    assert put_rules(console_hearth, OWNED).status_code == 200
    feed = Feed(console_hearth)
    try:
        refused = js_multipart_upload(console_hearth, "users/ada/notes.txt", b"x" * 10, content_type="text/plain",
                                      metadata={"topic": "a"},
                                      headers={"Authorization": f"Firebase {mock_id_token('eve')}"})
        assert refused.status_code == 403
        record = feed.next(lambda r: r["product"] == "storage" and r["method"] == "POST")
        assert record["status"] == "403" and record["user"] == "eve"
        denial = record["denial"]
        assert denial["operation"] == "create" and denial["bucket"] == BUCKET and denial["paths"] == ["users/ada/notes.txt"]
        assert denial["auth"]["uid"] == "eve"
        assert denial["explanation"][0].startswith("line 6: allow write:") and denial["explanation"][0].endswith("→ false")
        assert denial["replay"] == {"method": "create", "bucket": BUCKET, "path": "users/ada/notes.txt",
                                    "resource": {"size": 10, "metadata": {"topic": "a"}, "contentType": "text/plain"}}
    finally:
        feed.close()


def test_which_files_a_user_may_read(console_hearth):
    assert put_rules(console_hearth, OWNED).status_code == 200
    for name in ("viewas/hidden.txt", "users/zed/shown.txt"):
        assert js_multipart_upload(console_hearth, name, b"x").status_code == 200
    answer = simulate(console_hearth, {"method": "readable", "bucket": BUCKET, "auth": None,
                                       "paths": ["viewas/hidden.txt", "users/zed/shown.txt"]})
    assert answer.status_code == 200
    assert answer.json() == {"paths": {
        "viewas/hidden.txt": {"allowed": False,
                              "reason": f"no allow statement for get matches /b/{BUCKET}/o/viewas/hidden.txt"},
        "users/zed/shown.txt": {"allowed": True}}}
    too_many = simulate(console_hearth, {"method": "readable", "bucket": BUCKET, "paths": ["x"] * 501})
    assert too_many.status_code == 400


def test_the_storage_view_as_a_user_greys_out_what_they_cannot_read(console, console_hearth):
    assert put_rules(console_hearth, OWNED).status_code == 200
    for name in ("viewas/hidden.txt", "viewas/also-hidden.txt"):
        assert js_multipart_upload(console_hearth, name, b"x").status_code == 200
    console.open(f"/storage/{BUCKET}/viewas", 'tr[data-name="viewas/hidden.txt"]')
    assert "unreadable" not in (console.driver.find_element(
        By.CSS_SELECTOR, 'tr[data-name="viewas/hidden.txt"]').get_attribute("class") or "")
    Select(console.driver.find_element(By.CSS_SELECTOR, "#view-as")).select_by_value("none")
    console.wait_for(lambda: "unreadable" in (console.driver.find_element(
        By.CSS_SELECTOR, 'tr[data-name="viewas/hidden.txt"]').get_attribute("class") or ""), "the file greyed out")
    assert "no allow statement for get matches" in console.driver.find_element(
        By.CSS_SELECTOR, 'tr[data-name="viewas/hidden.txt"] .reason').text
    assert console.serious_violations() == []


def test_publishing_writes_the_storage_rules_file(browser):
    directory = tempfile.mkdtemp()
    rules_file = os.path.join(directory, "storage.rules")
    with open(rules_file, "w") as file:
        file.write("rules_version = '2';\nservice firebase.storage {\n  match /b/{bucket}/o {\n"
                   "    match /{all=**} { allow read, write; }\n  }\n}\n")
    server = HearthProcess(console=True, extra_args=["--storage-rules", rules_file]).start()
    try:
        console = ConsolePage(browser, server.console_url)
        console.open("/rules/storage", "#rules-editor")
        console.wait_for_text("#rules-origin", rules_file)
        console.driver.execute_script(
            "const e = document.getElementById('rules-editor'); e.value = arguments[0]; e.dispatchEvent(new Event('input'));",
            OWNED)
        console.click("#rules-publish")
        console.click("#confirm-ok")
        console.wait_for(lambda: open(rules_file).read() == OWNED, "the rules file written")
        assert js_multipart_upload(server, "anywhere/x.txt", b"x", headers={}).status_code == 403
        browser.get("about:blank")
    finally:
        server.stop()
        server.remove_data()


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_the_storage_rules_view_runs_the_playground_and_has_no_serious_violations(console, console_hearth, theme):
    assert put_rules(console_hearth, OWNED).status_code == 200
    console.open("/rules/storage", "#sim-run")
    console.wait_for(lambda: "firebase.storage" in console.driver.find_element(
        By.CSS_SELECTOR, "#rules-editor").get_attribute("value"), "the rules loaded")
    console.driver.find_element(By.CSS_SELECTOR, "#sim-method").send_keys("create")
    console.driver.find_element(By.CSS_SELECTOR, "#sim-path").send_keys("users/ada/photo.png")
    console.driver.find_element(By.CSS_SELECTOR, "#sim-auth").send_keys("a user (uid)")
    console.driver.find_element(By.CSS_SELECTOR, "#sim-uid").send_keys("grace")
    console.driver.find_element(By.CSS_SELECTOR, "#sim-size").send_keys("2048")
    console.click("#sim-run")
    console.wait_for_text("#sim-verdict", "Denied")
    assert "allow write: if request.auth != null" in console.driver.find_element(By.CSS_SELECTOR, "#simulation").text
    console.click("#simulation button.link")
    selected = console.driver.execute_script(
        "const e = document.getElementById('rules-editor'); return e.value.slice(e.selectionStart, e.selectionEnd);")
    assert selected.strip().startswith("allow write:")
    console.set_theme(theme)
    time.sleep(0.2)
    assert console.serious_violations() == [], theme
    console.driver.execute_script("window.scrollTo(0, 0)")
    console.screenshot(f"storage-rules-{theme}")
