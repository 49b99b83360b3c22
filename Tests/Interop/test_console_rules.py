"""The console's database rules: checking (errors at line and column), publishing (into the
rules file when the server has one, in force at once) and the playground's evaluation trace."""

import json
import os
import tempfile
import time
import uuid

import pytest
import requests
from firebase_admin import auth
from selenium.webdriver.common.by import By

from auth_client import admin_auth_app
from browser import browser  # noqa: F401 (fixture)
from conftest import HearthProcess
from console_page import ConsolePage, console  # noqa: F401 (fixture)

TIMEOUT = 30
GUARDED = '{\n  "rules": {\n    ".read": true,\n    "items": {\n      "$id": {\n        ".write": "auth != null"\n      }\n    }\n  }\n}'


def set_editor(console, text):
    console.driver.execute_script(
        "const e = document.getElementById('rules-editor'); e.value = arguments[0]; e.dispatchEvent(new Event('input'));", text)


def rest_write(server, path, value):
    return requests.put(f"{server.url}/{path}.json", json=value, timeout=TIMEOUT)


def test_check_points_at_the_error_and_publish_puts_rules_in_force(console, console_hearth):
    console.open("/rules/database", "#rules-editor")
    console.wait_for(lambda: '"rules"' in console.driver.find_element(By.CSS_SELECTOR, "#rules-editor").get_attribute("value"),
                     "the rules in force loaded")
    set_editor(console, '{\n  "rules": {\n    ".read": true,\n    ".write": "auth !="\n  }\n}')
    console.click("#rules-check")
    console.wait_for_text("#rules-problem", "Line 4")
    assert rest_write(console_hearth, "items/a", 1).ok, "a refused check changes nothing"
    set_editor(console, GUARDED)
    console.click("#rules-publish")
    console.click("#confirm-ok")
    console.wait_for(lambda: rest_write(console_hearth, "items/b", 1).status_code == 401, "the published rules in force")
    stored = requests.get(f"{console_hearth.url}/.settings/rules.json", headers={"Authorization": "Bearer owner"},
                          timeout=TIMEOUT).text
    assert '"auth != null"' in stored


def test_the_playground_shows_every_rule_evaluated(console, console_hearth):
    requests.put(f"{console_hearth.url}/.settings/rules.json", data=GUARDED, headers={"Authorization": "Bearer owner"},
                 timeout=TIMEOUT)
    console.open("/rules/database", "#sim-run")
    console.driver.find_element(By.CSS_SELECTOR, "#sim-operation").send_keys("set")
    path = console.driver.find_element(By.CSS_SELECTOR, "#sim-path")
    path.clear()
    path.send_keys("/items/x")
    console.driver.find_element(By.CSS_SELECTOR, "#sim-value").send_keys('{"name": "Ada"}')
    console.click("#sim-run")
    console.wait_for_text("#sim-verdict", "Denied")
    trace = console.driver.find_element(By.CSS_SELECTOR, "#simulation").text
    assert ".write at /items/x" in trace and "auth != null" in trace and "line 6" in trace
    console.driver.find_element(By.CSS_SELECTOR, "#sim-auth").send_keys("a user (uid)")
    console.driver.find_element(By.CSS_SELECTOR, "#sim-uid").send_keys("ada")
    console.click("#sim-run")
    console.wait_for_text("#sim-verdict", "Allowed")
    # A bad location is refused with its reason, and nothing is written.
    path.clear()
    path.send_keys("/items/a.b")
    console.click("#sim-run")
    console.wait_for_text("#simulation", "path")
    assert requests.get(f"{console_hearth.url}/items/x.json", timeout=TIMEOUT).json() is None


def test_publishing_writes_the_rules_file_the_server_enforces(browser):
    directory = tempfile.mkdtemp()
    rules_file = os.path.join(directory, "database.rules.json")
    with open(rules_file, "w") as file:
        file.write('{"rules": {".read": true, ".write": true}}')
    server = HearthProcess(console=True, extra_args=["--rules", rules_file]).start()
    try:
        console = ConsolePage(browser, server.console_url)
        console.open("/rules/database", "#rules-editor")
        console.wait_for_text("#rules-origin", rules_file)
        set_editor(console, GUARDED)
        console.click("#rules-publish")
        console.click("#confirm-ok")
        console.wait_for(lambda: open(rules_file).read() == GUARDED, "the rules file written")
        assert rest_write(server, "items/c", 1).status_code == 401
        browser.get("about:blank")
    finally:
        server.stop()
        server.remove_data()


def test_rules_changes_need_the_csrf_token_and_valid_rules(console_hearth):
    base = f"{console_hearth.console_url}/console/rules/database"
    assert requests.put(base, data=GUARDED, timeout=TIMEOUT).status_code == 403
    token = requests.get(f"{console_hearth.console_url}/console/session", timeout=TIMEOUT).json()["csrfToken"]
    bad = requests.put(base, data='{"rules": {".read": tru}}', headers={"X-Hearth-CSRF": token}, timeout=TIMEOUT)
    assert bad.status_code == 400 and bad.json()["error"].startswith("Line 1 (column ")
    simulated = requests.post(f"{base}/simulate", data=json.dumps({"operation": "read", "path": "/"}),
                              headers={"X-Hearth-CSRF": token}, timeout=TIMEOUT)
    assert simulated.status_code == 200 and set(simulated.json()) == {"allowed", "evaluations"}


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_rules_view_has_no_serious_accessibility_violations(console, console_hearth, theme):
    console.open("/rules/database", "#sim-run")
    console.wait_for(lambda: console.driver.find_element(By.CSS_SELECTOR, "#rules-editor").get_attribute("value"),
                     "the rules loaded")
    console.click("#sim-run")
    console.wait_for_element("#sim-verdict")
    console.set_theme(theme)
    time.sleep(0.2)
    assert console.serious_violations() == [], theme
    console.driver.execute_script("window.scrollTo(0, 0)")
    console.screenshot(f"rules-{theme}")


def test_the_playground_stands_in_for_a_user_picked_from_the_users_table(console, console_hearth):
    editors = '{"rules": {".read": true, "drafts": {".write": "auth.token.role == \'editor\' && auth.token.email_verified == true"}}}'
    requests.put(f"{console_hearth.url}/.settings/rules.json", data=editors, headers={"Authorization": "Bearer owner"},
                 timeout=TIMEOUT)
    with admin_auth_app(console_hearth, f"playground-{uuid.uuid4().hex[:6]}") as app:
        user = auth.create_user(email=f"editor-{uuid.uuid4().hex[:6]}@example.com", email_verified=True, app=app)
        auth.set_custom_user_claims(user.uid, {"role": "editor"}, app=app)
    console.open("/rules/database", "#sim-run")
    console.wait_for(lambda: console.driver.find_elements(By.CSS_SELECTOR, f'#sim-users option[value="{user.uid}"]'),
                     "the user offered")
    console.driver.find_element(By.CSS_SELECTOR, "#sim-operation").send_keys("set")
    path = console.driver.find_element(By.CSS_SELECTOR, "#sim-path")
    path.clear()
    path.send_keys("/drafts/one")
    console.driver.find_element(By.CSS_SELECTOR, "#sim-value").send_keys('"text"')
    field = console.driver.find_element(By.CSS_SELECTOR, "#sim-uid")
    field.send_keys(user.uid)
    console.driver.execute_script("document.getElementById('sim-uid').dispatchEvent(new Event('change'))")
    claims = json.loads(console.driver.find_element(By.CSS_SELECTOR, "#sim-claims").get_attribute("value"))
    assert claims == {"role": "editor", "email": user.email, "email_verified": True}
    console.click("#sim-run")
    console.wait_for_text("#sim-verdict", "Allowed")
