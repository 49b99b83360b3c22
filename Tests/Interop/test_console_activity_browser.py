"""The console's requests and traffic views in a real browser: a denied write appears in the
open requests view, opens to the rule that decided it and replays in the playground; the
traffic view reads `/metrics` and lists listeners; both pass axe-core in both themes."""

import json
import threading
import time
import uuid

import pytest
import requests
from selenium.webdriver.common.by import By

from browser import browser  # noqa: F401 (fixture)
from console_page import console  # noqa: F401 (fixture)
from realtime_client import RealtimeClient
from tokens import mock_id_token

TIMEOUT = 30
RULES = {"rules": {".read": True, "posts": {"$post": {".write": "auth != null && auth.token.editor == true"}}}}


@pytest.fixture
def guarded_namespace(console_hearth):
    namespace = f"requests-{uuid.uuid4().hex[:10]}"
    response = requests.put(f"{console_hearth.url}/.settings/rules.json?ns={namespace}", data=json.dumps(RULES),
                            headers={"Authorization": "Bearer owner"}, timeout=TIMEOUT)
    assert response.ok
    return namespace


def keep_alive(client):
    """Pings from a thread, so that a client the test leaves silent for longer than the test
    server's 2 s silence limit stays connected; set the returned event to stop."""
    stop = threading.Event()

    def ping():
        while not stop.wait(0.5):
            client.send({"t": "c", "d": {"t": "p", "d": {}}})

    threading.Thread(target=ping, daemon=True).start()
    return stop


def denied_write(server, namespace, uid="writer"):
    response = requests.put(f"{server.url}/posts/first.json?ns={namespace}", json={"title": "Hello"},
                            headers={"Authorization": f"Bearer {mock_id_token(uid)}"}, timeout=TIMEOUT)
    assert response.status_code == 401


def test_a_denied_write_appears_explained_and_replays_in_the_playground(console, console_hearth, guarded_namespace):
    console.open("/requests", "#requests-status")
    console.wait_for_text("#requests-status", "Following")
    denied_write(console_hearth, guarded_namespace)
    console.wait_for_text("table.requests tbody", "/posts/first.json")
    row = console.wait_for_element("table.requests tr.denied")
    assert "writer" in row.text and "401 denied by rules" in row.text
    console.click("table.requests tr.denied button.link")
    detail = console.wait_for_element("table.requests tr.detail")
    assert "write of /posts/first denied" in detail.text
    assert "Decided by .write at /posts/first (line 1): auth != null && auth.token.editor == true → false" in detail.text
    assert '$post = "first"' in detail.text
    console.click("table.requests tr.detail button.primary")
    console.wait_for_text("#sim-verdict", "Denied")
    fields = {name: console.driver.find_element(By.CSS_SELECTOR, f"#sim-{name}").get_attribute("value")
              for name in ("operation", "path", "auth", "uid", "value")}
    assert fields == {"operation": "set", "path": "/posts/first", "auth": "uid", "uid": "writer",
                      "value": '{"title":"Hello"}'}
    assert "/rules/database?ns=" + guarded_namespace in console.driver.current_url


def test_the_requests_view_filters_by_outcome_user_and_hides_the_consoles_own(console, console_hearth, guarded_namespace):
    console.open("/requests", "#requests-status")
    console.wait_for_text("#requests-status", "Following")
    denied_write(console_hearth, guarded_namespace, uid="mallory")
    assert requests.get(f"{console_hearth.url}/posts.json?ns={guarded_namespace}", timeout=TIMEOUT).ok
    console.wait_for_text("table.requests tbody", "/posts.json")
    console.driver.find_element(By.CSS_SELECTOR, "#requests-outcome").send_keys("denied by rules")
    console.wait_for(lambda: "/posts.json" not in console.driver.find_element(By.CSS_SELECTOR, "table.requests tbody").text,
                     "the successful read filtered out")
    assert "/posts/first.json" in console.driver.find_element(By.CSS_SELECTOR, "table.requests tbody").text
    console.driver.find_element(By.CSS_SELECTOR, "#requests-user").send_keys("nobody")
    console.wait_for_text("table.requests tbody", "No request matches the filters.")
    # The console's own reads (the traffic view's, here from a second tab's worth of requests)
    # are hidden until asked for.
    token = requests.get(f"{console_hearth.console_url}/console/session", timeout=TIMEOUT).json()["csrfToken"]
    requests.get(f"{console_hearth.console_url}/console/api/console-own.json", headers={"X-Hearth-CSRF": token},
                 timeout=TIMEOUT)
    user = console.driver.find_element(By.CSS_SELECTOR, "#requests-user")
    user.clear()
    user.send_keys("admin")
    console.driver.find_element(By.CSS_SELECTOR, "#requests-outcome").send_keys("all")
    time.sleep(0.3)
    assert "/console-own.json" not in console.driver.find_element(By.CSS_SELECTOR, "table.requests tbody").text
    console.click("#requests-console")
    console.wait_for_text("table.requests tbody", "/console-own.json")


def test_the_traffic_view_charts_metrics_and_flags_an_unindexed_listener(console, console_hearth, guarded_namespace):
    client = RealtimeClient(console_hearth, guarded_namespace)
    stop = keep_alive(client)
    try:
        _, answer = client.call("q", {"p": "/posts", "q": {"i": "votes", "l": 3, "vf": "l"}, "t": 1, "h": ""})
        assert answer["s"] == "ok"
        console.open("/traffic", "#traffic-status")
        console.wait_for_text("#traffic-status", "Updated every second")
        console.wait_for_text("table[aria-label='Listeners'] tbody", 'orderBy="votes"&limitToFirst=3')
        assert "unindexed: add .indexOn to the rules" in console.driver.find_element(
            By.CSS_SELECTOR, "table[aria-label='Listeners'] tbody").text
        for index in range(5):
            requests.put(f"{console_hearth.url}/traffic/{index}.json", json=index, timeout=TIMEOUT)
        # Writes per second rise above zero on the chart's latest reading.
        console.wait_for(lambda: float(console.driver.find_element(
            By.CSS_SELECTOR, "[data-metric='hearth_database_writes_total']").text.replace(",", "")) > 0,
            "a write rate above zero")
        assert console.driver.find_elements(By.CSS_SELECTOR, "svg.sparkline polyline")
        # This server takes no scheduled backups.
        assert console.driver.find_element(
            By.CSS_SELECTOR, "[data-metric='hearth_backup_last_began_seconds']").text == "none"
        denied_write(console_hearth, guarded_namespace)
        console.wait_for_text("table[aria-label='Denials by path'] tbody", f"{guarded_namespace}:/posts/first")
    finally:
        stop.set()
        client.close()


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_requests_and_traffic_views_have_no_serious_accessibility_violations(console, console_hearth,
                                                                            guarded_namespace, theme):
    console.open("/requests", "#requests-status")
    console.wait_for_text("#requests-status", "Following")
    denied_write(console_hearth, guarded_namespace)
    requests.get(f"{console_hearth.url}/posts.json?ns={guarded_namespace}", timeout=TIMEOUT)
    console.click("table.requests tr.denied button.link")
    console.wait_for_element("table.requests tr.detail")
    console.set_theme(theme)
    time.sleep(0.2)
    assert console.serious_violations() == [], theme
    console.screenshot(f"requests-{theme}")
    console.open("/traffic", "#traffic-status")
    console.wait_for_text("#traffic-status", "Updated every second")
    for index in range(20):
        requests.put(f"{console_hearth.url}/traffic/{index}.json", json=index, timeout=TIMEOUT)
        time.sleep(0.1)
    client = RealtimeClient(console_hearth, guarded_namespace)
    stop = keep_alive(client)
    try:
        client.call("q", {"p": "/posts", "h": ""})
        console.wait_for(lambda: len(console.driver.find_elements(By.CSS_SELECTOR, "table[aria-label='Listeners'] tbody a")),
                         "a listener listed")
        assert console.serious_violations() == [], theme
        console.driver.execute_script("window.scrollTo(0, 0)")
        console.screenshot(f"traffic-{theme}")
    finally:
        stop.set()
        client.close()
