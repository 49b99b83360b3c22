"""The data view "as a user": the locations that user may not read are greyed out with the
rule that refused them, judged again when the data changes; the administrator reads all."""

import json
import time
import uuid

import pytest
import requests
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

from browser import browser  # noqa: F401 (fixture)
from conftest import OWNER
from console_page import console  # noqa: F401 (fixture)

TIMEOUT = 30
RULES = {"rules": {"private": {"$uid": {".read": "auth != null && auth.uid == $uid"}}}}


@pytest.fixture
def namespace(console_hearth):
    name = f"view-as-{uuid.uuid4().hex[:10]}"
    base = f"{console_hearth.url}"
    assert requests.put(f"{base}/.settings/rules.json?ns={name}", data=json.dumps(RULES), headers=OWNER,
                        timeout=TIMEOUT).ok
    assert requests.put(f"{base}/private.json?ns={name}", json={"ada": {"note": "mine"}, "bob": {"note": "his"}},
                        headers=OWNER, timeout=TIMEOUT).ok
    return name


def row_classes(console, path):
    return console.wait_for_element(f'.row[data-path="{path}"]').get_attribute("class").split()


def view_as(console, kind, uid=None):
    Select(console.driver.find_element(By.CSS_SELECTOR, "#view-as")).select_by_value(kind)
    if uid is not None:
        field = console.driver.find_element(By.CSS_SELECTOR, "#view-as-uid")
        field.clear()
        field.send_keys(uid + "\n")
        console.driver.execute_script("document.getElementById('view-as-uid').dispatchEvent(new Event('change'))")


def test_a_user_sees_what_the_rules_let_them_read(console, console_hearth, namespace):
    console.open(f"/database/{namespace}/data/private", '.row[data-path="/private/bob"]')
    assert "unreadable" not in row_classes(console, "/private/bob"), "the administrator reads everything"
    view_as(console, "uid", "ada")
    console.wait_for(lambda: "unreadable" in row_classes(console, "/private/bob"), "bob's node greyed out for ada")
    assert "unreadable" not in row_classes(console, "/private/ada")
    reason = console.driver.find_element(By.CSS_SELECTOR, '.row[data-path="/private/bob"] .reason').text
    assert ".read at /private/bob" in reason and "auth.uid == $uid" in reason and "false" in reason
    view_as(console, "none")
    console.wait_for(lambda: "unreadable" in row_classes(console, "/private/ada"), "everything greyed out signed out")
    # A node added while viewing is judged too.
    requests.put(f"{console_hearth.url}/private/cy.json?ns={namespace}", json={"note": "new"}, headers=OWNER,
                 timeout=TIMEOUT)
    console.wait_for(lambda: "unreadable" in row_classes(console, "/private/cy"), "the new node judged")
    view_as(console, "admin")
    console.wait_for(lambda: "unreadable" not in row_classes(console, "/private/cy"), "the administrator again")


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_the_view_as_a_user_has_no_serious_violations(console, console_hearth, namespace, theme):
    console.open(f"/database/{namespace}/data/private", '.row[data-path="/private/bob"]')
    view_as(console, "uid", "ada")
    console.wait_for(lambda: "unreadable" in row_classes(console, "/private/bob"), "bob's node greyed out")
    console.set_theme(theme)
    time.sleep(0.2)
    assert console.serious_violations() == [], theme
    console.screenshot(f"view-as-{theme}")
