"""The console in a real headless Chromium: the data view and the users table, live, with their
actions; accessibility (axe-core) in both themes; screenshots of each view."""

import json
import time
import uuid

import pytest
import requests
from firebase_admin import auth as admin_auth
from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from auth_client import admin_auth_app, api, lookup_by_token, ok, sign_up, unique_email
from browser import browser  # noqa: F401 (fixture)
from conftest import OWNER, HearthProcess
from test_console_production import PASSWORD, admin_create
from console_page import ConsolePage, console  # noqa: F401 (fixture)

TIMEOUT = 60
NAMESPACE = "interop-project-default-rtdb"


def put(server, path, value):
    response = requests.put(f"{server.url}/{path}.json", json=value, headers=OWNER, timeout=TIMEOUT)
    assert response.ok, response.text


def get(server, path):
    return requests.get(f"{server.url}/{path}.json", headers=OWNER, timeout=TIMEOUT).json()


def fresh_path():
    return f"console-{uuid.uuid4().hex[:8]}"


def test_data_view_shows_a_location_and_a_rest_write_appears_within_half_a_second(console, console_hearth):
    base = fresh_path()
    put(console_hearth, base, {"greeting": "hello", "count": 3, "nested": {"a": True}})
    console.open(f"/database/{NAMESPACE}/data/{base}", f'.row[data-path="/{base}/greeting"]')
    console.wait_for_text(f'.row[data-path="/{base}/greeting"] .value', '"hello"')
    assert "3" in console.row(f"/{base}/count").text
    assert "{1}" in console.row(f"/{base}/nested").text
    # A write through REST reaches the open view without a reload, in under 500 ms.
    console.driver.execute_script("window.__marker = 1")
    started = time.monotonic()
    put(console_hearth, f"{base}/greeting", "changed")
    console.wait_for_text(f'.row[data-path="/{base}/greeting"] .value', '"changed"', timeout=5)
    elapsed = time.monotonic() - started
    assert elapsed < 0.5, f"the change took {elapsed:.3f} s to appear"
    assert console.driver.execute_script("return window.__marker") == 1, "the page was reloaded"
    # A new child appears, flashing.
    put(console_hearth, f"{base}/added", 42)
    row = console.row(f"/{base}/added")
    assert "42" in row.text


def test_edit_add_rename_duplicate_and_delete_from_the_data_view(console, console_hearth):
    base = fresh_path()
    put(console_hearth, base, {"name": "old", "keep": 1})
    console.open(f"/database/{NAMESPACE}/data/{base}", f'.row[data-path="/{base}/name"] .value')
    # Edit a value in place as a number.
    console.click(f'.row[data-path="/{base}/name"] .value')
    editor = console.wait_for_element(f'.row[data-path="/{base}/name"] .editor input')
    type_select = console.driver.find_element(By.CSS_SELECTOR, f'.row[data-path="/{base}/name"] .editor select')
    type_select.send_keys("number")
    editor.clear()
    editor.send_keys("12.5", Keys.ENTER)
    console.wait_for(lambda: get(console_hearth, f"{base}/name") == 12.5, "the edited value stored")
    # A bad number is refused in the editor and nothing is written.
    console.click(f'.row[data-path="/{base}/name"] .value')
    editor = console.wait_for_element(f'.row[data-path="/{base}/name"] .editor input')
    editor.clear()
    editor.send_keys("twelve", Keys.ENTER)
    console.wait_for_text(f'.row[data-path="/{base}/name"] .error', "Not a number.")
    assert get(console_hearth, f"{base}/name") == 12.5
    editor.send_keys(Keys.ESCAPE)
    # Add a child: the key is a push ID, prefilled.
    console.click(".toolbar button.primary")
    key_input = console.wait_for_element("#new-key")
    key = key_input.get_attribute("value")
    assert len(key) == 20
    console.driver.find_element(By.CSS_SELECTOR, '[aria-label="New child: value"]').send_keys("pushed")
    console.driver.find_element(By.XPATH, "//button[text()='Add']").click()
    console.wait_for(lambda: get(console_hearth, f"{base}/{key}") == "pushed", "the added child stored")
    console.row(f"/{base}/{key}")
    # Rename moves the value in one update.
    console.driver.execute_script("arguments[0].click()", console.row(f"/{base}/keep").find_element(
        By.CSS_SELECTOR, '[aria-label="Rename keep"]'))
    rename = console.wait_for_element("#copy-key")
    rename.clear()
    rename.send_keys("kept")
    console.driver.find_element(By.XPATH, "//button[text()='Rename']").click()
    console.wait_for(lambda: get(console_hearth, base).get("kept") == 1 and "keep" not in get(console_hearth, base),
                     "the renamed child")
    # Duplicate copies it.
    console.driver.execute_script("arguments[0].click()", console.row(f"/{base}/kept").find_element(
        By.CSS_SELECTOR, '[aria-label="Duplicate kept"]'))
    console.wait_for_element("#copy-key")
    console.driver.find_element(By.XPATH, "//button[text()='Duplicate']").click()
    console.wait_for(lambda: get(console_hearth, base).get("kept-copy") == 1, "the duplicate")
    # Delete asks first; cancel keeps the data, confirm removes it.
    delete = f'.row[data-path="/{base}/kept-copy"] [aria-label="Delete kept-copy"]'
    console.driver.execute_script("arguments[0].click()", console.wait_for_element(delete))
    console.click("#confirm-cancel")
    assert get(console_hearth, f"{base}/kept-copy") == 1
    console.driver.execute_script("arguments[0].click()", console.wait_for_element(delete))
    console.click("#confirm-ok")
    console.wait_for(lambda: get(console_hearth, f"{base}/kept-copy") is None, "the deleted child")
    console.wait_for(lambda: not console.driver.find_elements(By.CSS_SELECTOR, f'.row[data-path="/{base}/kept-copy"]'),
                     "the deleted row gone")


def test_import_json_at_a_location_after_confirming(console, console_hearth, tmp_path):
    base = fresh_path()
    put(console_hearth, base, {"old": True})
    good = tmp_path / "fixture.json"
    good.write_text('{"imported": {"n": 1}, "list": ["a", "b"]}')
    bad = tmp_path / "broken.json"
    bad.write_text('{"imported": ')
    console.open(f"/database/{NAMESPACE}/data/{base}", f'.row[data-path="/{base}/old"]')
    console.driver.find_element(By.CSS_SELECTOR, "#import-file").send_keys(str(bad))
    console.wait_for_text(".toasts", "broken.json is not valid JSON.")
    assert get(console_hearth, base) == {"old": True}
    console.driver.execute_script("document.getElementById('import-file').value = ''")
    console.driver.find_element(By.CSS_SELECTOR, "#import-file").send_keys(str(good))
    console.click("#confirm-ok")
    console.wait_for(lambda: get(console_hearth, base) == {"imported": {"n": 1}, "list": ["a", "b"]}, "the imported data")
    console.row(f"/{base}/imported")


def test_keyboard_moves_between_rows_and_live_updates_keep_an_open_editor(console, console_hearth):
    base = fresh_path()
    put(console_hearth, base, {"a": 1, "b": {"inner": True}, "c": 3})
    console.open(f"/database/{NAMESPACE}/data/{base}", f'.row[data-path="/{base}/c"] .value')
    focused_path = lambda: console.driver.execute_script(  # noqa: E731
        "return document.activeElement.closest('.row')?.dataset.path")
    console.driver.find_element(By.CSS_SELECTOR, f'.row[data-path="/{base}/a"] .key').send_keys(Keys.ARROW_DOWN)
    assert focused_path() == f"/{base}/b"
    console.driver.switch_to.active_element.send_keys(Keys.ARROW_RIGHT)
    console.row(f"/{base}/b/inner")
    console.driver.switch_to.active_element.send_keys(Keys.ARROW_DOWN)
    console.wait_for(lambda: focused_path() == f"/{base}/b/inner", "the focus on the child row")
    console.driver.switch_to.active_element.send_keys(Keys.ARROW_LEFT)
    console.wait_for(lambda: focused_path() == f"/{base}/b", "the focus back on the parent")
    console.driver.switch_to.active_element.send_keys(Keys.END)
    console.wait_for(lambda: focused_path() == f"/{base}/c", "the focus on the last row")
    # An editor stays open, with what was typed, while other rows change live.
    console.click(f'.row[data-path="/{base}/a"] .value')
    editor = console.wait_for_element(f'.row[data-path="/{base}/a"] .editor input')
    editor.send_keys("5")
    put(console_hearth, f"{base}/c", 4)
    console.wait_for_text(f'.row[data-path="/{base}/c"] .value', "4")
    assert editor.get_attribute("value") == "5"
    editor.send_keys(Keys.ENTER)
    console.wait_for(lambda: get(console_hearth, f"{base}/a") == 5, "the edit saved")
    console.wait_for(lambda: not console.driver.find_elements(By.CSS_SELECTOR, f'.row[data-path="/{base}/a"] .editor'),
                     "the editor closed")


def test_the_query_panel_orders_filters_and_names_the_missing_index(console, console_hearth):
    base = fresh_path()
    put(console_hearth, f"{base}/items", {"a": {"score": 5}, "b": {"score": 1}, "c": {"score": 9}, "d": {"score": 3}})
    console.open(f"/database/{NAMESPACE}/data/{base}/items", f'.row[data-path="/{base}/items/d"]')
    console.click("#query-toggle")
    console.wait_for_element("#query-child").send_keys("score")
    console.driver.find_element(By.CSS_SELECTOR, "#query-limit-kind").send_keys("last")
    limit = console.driver.find_element(By.CSS_SELECTOR, "#query-limit")
    limit.clear()
    limit.send_keys("2")
    console.click("#query-run")
    console.wait_for_text("#query-result", '".indexOn": "score"')
    rules = requests.get(f"{console_hearth.url}/.settings/rules.json", headers=OWNER, timeout=TIMEOUT).json()
    rules["rules"][base] = {"items": {".indexOn": "score"}}
    assert requests.put(f"{console_hearth.url}/.settings/rules.json", json=rules, headers=OWNER, timeout=TIMEOUT).ok
    console.click("#query-run")
    console.wait_for_text("#query-count", "2 children")
    keys = [row.get_attribute("data-key") for row in console.driver.find_elements(By.CSS_SELECTOR, "#query-result tbody tr")]
    assert keys == ["a", "c"]
    # A bound that is not JSON is refused before anything is asked.
    console.driver.find_element(By.CSS_SELECTOR, "#query-start").send_keys("five")
    console.click("#query-run")
    console.wait_for_text("#query-result", "startAt is not JSON")
    # A key in the table opens that child.
    console.driver.find_element(By.CSS_SELECTOR, "#query-start").clear()
    console.click("#query-run")
    console.wait_for_text("#query-count", "2 children")
    console.click('#query-result tr[data-key="c"] button')
    console.wait_for(lambda: console.driver.current_url.endswith(f"/{base}/items/c"), "the child opened")


def test_a_node_of_100000_children_opens_within_two_seconds_and_only_visible_rows_are_drawn(console, console_hearth):
    base = fresh_path()
    filler = "x" * 440
    children = {f"item{index:06d}": {"title": f"Item {index}", "body": filler} for index in range(100_000)}
    response = requests.put(f"{console_hearth.url}/{base}/items.json", data=json.dumps(children), headers=OWNER,
                            timeout=600)
    assert response.ok
    del children
    console.driver.get("about:blank")
    started = time.monotonic()
    console.driver.get(f"{console_hearth.console_url}/database/{NAMESPACE}/data/{base}/items")
    console.wait_for_text(f'.row[data-path="/{base}/items/item000000"]', "{2}", timeout=10)
    opened = time.monotonic() - started
    # A bound loose enough for a loaded CI machine (it took 1.01 s once there); the figure itself
    # belongs to the benchmarks.
    assert opened < 2.0, f"opening took {opened:.2f} s"
    drawn = console.driver.execute_script("return document.querySelectorAll('.row').length")
    assert drawn < 100, drawn
    # Scrolling to the middle draws the rows there, read a page at a time.
    console.driver.execute_script("const t = document.getElementById('tree'); t.scrollTop = t.scrollHeight / 2;")
    console.wait_for_text(f'.row[data-path="/{base}/items/item050000"]', "{2}")
    # And a change far down the list still shows without a reload.
    put(console_hearth, f"{base}/items/item050001/title", "edited")
    # The change redraws the row: a row found just before may be gone by the click.
    deadline = time.monotonic() + 10
    while True:
        try:
            console.driver.execute_script("arguments[0].click()", console.row(f"/{base}/items/item050001").find_element(
                By.CSS_SELECTOR, ".toggle"))
            break
        except StaleElementReferenceException:
            assert time.monotonic() < deadline, "the row kept being redrawn"
    console.wait_for_text(f'.row[data-path="/{base}/items/item050001/title"]', '"edited"')
    requests.delete(f"{console_hearth.url}/{base}.json", headers=OWNER, timeout=600)


def test_users_table_lists_searches_and_updates_live(console, console_hearth):
    with admin_auth_app(console_hearth, f"console-{uuid.uuid4().hex[:6]}") as app:
        console.open("/auth/users", "table.users")
        email = f"live-{uuid.uuid4().hex[:6]}@example.com"
        created = admin_auth.create_user(email=email, password="secret12", display_name="Live User", app=app)
        console.wait_for_text("table.users tbody", email, timeout=5)
        # Search by exact email finds just that account.
        search = console.wait_for_element("#user-search")
        search.send_keys(email, Keys.ENTER)
        console.wait_for(lambda: len(console.driver.find_elements(By.CSS_SELECTOR, "table.users tbody tr")) == 1
                         and email in console.driver.find_element(By.CSS_SELECTOR, "table.users tbody").text,
                         "one matching row")
        # Disable from the row.
        console.click(f'[aria-label="Disable {created.uid}"]')
        console.wait_for(lambda: admin_auth.get_user(created.uid, app=app).disabled, "the account disabled")
        console.wait_for_text(f'tr[data-uid="{created.uid}"]', "disabled")
        # Edit: name and custom claims (claims must be a JSON object).
        console.click(f'a[href="/auth/users/{created.uid}"]')
        name = console.wait_for_element("#edit-name")
        name.clear()
        name.send_keys("Renamed")
        claims = console.driver.find_element(By.CSS_SELECTOR, "#edit-claims")
        claims.clear()
        claims.send_keys("[1]")
        console.driver.find_element(By.XPATH, "//button[text()='Save']").click()
        console.wait_for_text(".form-error", "Custom claims must be a JSON object.")
        claims.clear()
        claims.send_keys('{"role": "editor"}')
        console.driver.find_element(By.XPATH, "//button[text()='Save']").click()
        console.wait_for(lambda: admin_auth.get_user(created.uid, app=app).display_name == "Renamed"
                         and admin_auth.get_user(created.uid, app=app).custom_claims == {"role": "editor"},
                         "the edited account")
        # Delete from the row, after confirming.
        console.driver.get(f"{console_hearth.console_url}/auth/users")
        console.wait_for_text("table.users tbody", email)
        console.click(f'[aria-label="Delete {created.uid}"]')
        console.click("#confirm-ok")
        console.wait_for(lambda: email not in console.driver.find_element(By.CSS_SELECTOR, "table.users tbody").text,
                         "the deleted row gone")
        with pytest.raises(admin_auth.UserNotFoundError):
            admin_auth.get_user(created.uid, app=app)


def test_the_outbox_lists_links_and_completes_a_verification_and_a_reset(console, console_hearth):
    email = unique_email("outbox")
    user = sign_up(console_hearth, email)
    ok(api(console_hearth, "sendOobCode", {"requestType": "VERIFY_EMAIL", "idToken": user["idToken"]}))
    ok(api(console_hearth, "sendOobCode", {"requestType": "PASSWORD_RESET", "email": email}))
    console.open("/auth/outbox", "table.users")
    verify = f'[aria-label="Complete VERIFY_EMAIL for {email}"]'
    reset = f'[aria-label="Complete PASSWORD_RESET for {email}"]'
    console.wait_for_element(verify)
    console.click(verify)
    console.wait_for(lambda: lookup_by_token(console_hearth, user["idToken"]).get("emailVerified") is True,
                     "the email verified")
    console.wait_for(lambda: not console.driver.find_elements(By.CSS_SELECTOR, verify), "the used link gone")
    console.click(reset)
    console.wait_for_element(f'[aria-label="New password for {email}"]').send_keys("a new password")
    console.driver.find_element(By.XPATH, "//button[text()='Set password']").click()
    console.wait_for(lambda: "idToken" in api(console_hearth, "signInWithPassword", {
        "email": email, "password": "a new password", "returnSecureToken": True}).json(), "the new password working")
    assert api(console_hearth, "signInWithPassword", {"email": email, "password": "secret1"}).status_code == 400


def test_add_user_from_the_table(console, console_hearth):
    console.open("/auth/users", "table.users")
    email = f"added-{uuid.uuid4().hex[:6]}@example.com"
    console.click("button.primary")
    console.wait_for_element("#new-email").send_keys(email)
    console.driver.find_element(By.CSS_SELECTOR, "#new-password").send_keys("secret12")
    console.driver.find_element(By.XPATH, "//div[@class='stack']//button[text()='Add user']").click()
    console.wait_for_text("table.users tbody", email)


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_every_view_has_no_serious_accessibility_violations(console, console_hearth, theme):
    put(console_hearth, "a11y", {"text": "value", "number": 1, "flag": True,
                                 "profile": {"name": "Ada", "languages": {"swift": True, "python": True}}})
    requests.post(f"{console_hearth.url}/identitytoolkit.googleapis.com/v1/accounts:signUp?key=k",
                  json={"email": f"a11y-{theme}@example.com", "password": "secret12"}, timeout=TIMEOUT)
    ok(api(console_hearth, "sendOobCode", {"requestType": "PASSWORD_RESET", "email": f"a11y-{theme}@example.com"}))
    views = [
        ("data", f"/database/{NAMESPACE}/data/a11y", '.row[data-path="/a11y/text"] .value'),
        ("users", "/auth/users", "table.users tbody tr td a"),
        ("outbox", "/auth/outbox", "table.users tbody tr td"),
    ]
    for name, path, ready in views:
        console.open(path, ready)
        if name == "data":
            console.click('.row[data-path="/a11y/profile"] .toggle')
            console.wait_for_element('.row[data-path="/a11y/profile/name"] .value')
        console.set_theme(theme)
        time.sleep(0.2)
        assert console.serious_violations() == [], f"{name} in {theme}"
        console.screenshot(f"{name}-{theme}")


def test_production_sign_in_refuses_a_wrong_password_then_opens_the_console(console):
    server = HearthProcess(console=True, extra_args=["--production"])
    assert admin_create(server.data_dir, "browser@example.com", PASSWORD).returncode == 0
    server.start()
    try:
        page = ConsolePage(console.driver, server.console_url)
        page.open("/database", "#sign-in-email")
        assert not page.driver.find_element(By.CSS_SELECTOR, "#products").is_displayed()
        for theme in ("light", "dark"):
            page.set_theme(theme)
            time.sleep(0.2)
            assert page.serious_violations() == [], f"sign-in in {theme}"
            page.screenshot(f"sign-in-{theme}")
        page.set_theme("system")
        page.wait_for_element("#sign-in-email").send_keys("browser@example.com")
        page.driver.find_element(By.CSS_SELECTOR, "#sign-in-password").send_keys("not the password", Keys.ENTER)
        page.wait_for_text("#sign-in-error", "Wrong email or password.")
        password = page.driver.find_element(By.CSS_SELECTOR, "#sign-in-password")
        password.clear()
        password.send_keys(PASSWORD, Keys.ENTER)
        page.wait_for_element("#tree")
        assert "browser@example.com" in page.driver.find_element(By.CSS_SELECTOR, "#who").text
        assert page.driver.find_element(By.CSS_SELECTOR, "#products").is_displayed()
        # The session cookie is not readable by the page's scripts.
        assert "hearth_console" not in page.driver.execute_script("return document.cookie")
        page.click("#sign-out")
        page.wait_for_element("#sign-in-email")
    finally:
        server.stop()
        server.remove_data()
