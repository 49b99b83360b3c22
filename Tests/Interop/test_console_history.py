"""The History view and its API (`/.history/<path>.json`): every write of a location with its
author and transport as real clients made them — the Admin SDK, a signed-in user over REST, a
realtime connection and its onDisconnect — the location as it was at a time, exported and
restored, in the browser too; and bad requests refused, changing nothing."""

import os
import time

import firebase_admin
import pytest
import requests
from firebase_admin import db

from browser import browser  # noqa: F401 (fixture)
from conftest import OWNER, PROJECT, HearthProcess, sign_up
from console_page import console  # noqa: F401 (fixture)
from realtime_client import RealtimeClient

NS = f"{PROJECT}-default-rtdb"
TIMEOUT = 10


@pytest.fixture(scope="module")
def console_hearth():
    """A development server with its console, whose namespaces keep their last 40 writes."""
    server = HearthProcess(console=True, extra_args=["--history-writes", "40"]).start()
    yield server
    server.stop()
    server.remove_data()


@pytest.fixture(scope="module")
def admin(console_hearth):
    """The Admin SDK pointed at this module's server; the emulator variable is put back after."""
    previous = os.environ.get("FIREBASE_DATABASE_EMULATOR_HOST")
    os.environ["FIREBASE_DATABASE_EMULATOR_HOST"] = console_hearth.host
    app = firebase_admin.initialize_app(
        options={"projectId": PROJECT, "databaseURL": f"https://{NS}.firebaseio.com"}, name="history")
    yield app
    firebase_admin.delete_app(app)
    if previous is None:
        os.environ.pop("FIREBASE_DATABASE_EMULATOR_HOST", None)
    else:
        os.environ["FIREBASE_DATABASE_EMULATOR_HOST"] = previous


def history(hearth, path, headers=OWNER, method="GET", **params):
    return requests.request(method, f"{hearth.url}/.history{path}.json", params={"ns": NS, **params}, headers=headers,
                            timeout=TIMEOUT)


def now_between_writes():
    time.sleep(0.01)
    moment = int(time.time() * 1000)
    time.sleep(0.01)
    return moment


def test_writes_are_listed_with_their_authors_and_transports(console_hearth, admin):
    ref = db.reference("/history/authors", app=admin)
    ref.set({"title": "draft", "likes": 0})
    uid, token = sign_up(console_hearth)
    response = requests.patch(f"{console_hearth.url}/history/authors.json", params={"auth": token},
                              json={"title": "final"}, timeout=TIMEOUT)
    assert response.status_code == 200, response.text
    client = RealtimeClient(console_hearth, NS)
    try:
        _, answer = client.call("p", {"p": "/history/authors/likes", "d": 1})
        assert answer["s"] == "ok"
        _, answer = client.call("o", {"p": "/history/authors/online", "d": True})
        assert answer["s"] == "ok"
    finally:
        client.close()
    deadline = time.time() + TIMEOUT
    while True:
        page = history(console_hearth, "/history/authors").json()
        if len(page["entries"]) == 4 or time.time() > deadline:
            break
        time.sleep(0.05)
    entries = page["entries"]
    assert [(entry["by"], entry["via"]) for entry in entries] == [
        ({}, "on-disconnect"), ({}, "realtime"), ({"uid": uid, "provider": "anonymous"}, "rest"), ({"admin": True}, "rest")]
    assert entries[0]["changes"] == [{"path": "/history/authors/online", "before": None, "after": True}]
    assert entries[1]["changes"] == [{"path": "/history/authors/likes", "before": 0, "after": 1}]
    assert entries[2]["changes"] == [{"path": "/history/authors/title", "before": "draft", "after": "final"}]
    assert entries[3]["changes"] == [{"path": "/history/authors", "before": None, "after": {"likes": 0, "title": "draft"}}]
    assert [entry["sequence"] for entry in entries] == sorted((entry["sequence"] for entry in entries), reverse=True)
    assert page["next"] is None and page["begins"] == 0

    # Seen from below, a write above shows what it did there; pages follow `next`.
    below = history(console_hearth, "/history/authors/title").json()["entries"]
    assert [change["path"] for entry in below for change in entry["changes"]] == ["/history/authors/title"] * 2
    first = history(console_hearth, "/history/authors", limit=1).json()
    rest = history(console_hearth, "/history/authors", before=first["next"]).json()
    assert [e["sequence"] for e in first["entries"] + rest["entries"]] == [e["sequence"] for e in entries]


def test_a_location_is_exported_and_restored_as_of_a_time(console_hearth, admin):
    ref = db.reference("/history/restore", app=admin)
    ref.set({"a": {"n": 1, ".priority": 3}, "b": "kept"})
    moment = now_between_writes()
    ref.child("a").delete()
    ref.child("c").set("later")
    exported = history(console_hearth, "/history/restore", at=moment, format="export")
    assert exported.status_code == 200 and exported.json() == {"a": {"n": 1, ".priority": 3}, "b": "kept"}
    assert history(console_hearth, "/history/restore", at=moment).json() == {"a": {"n": 1}, "b": "kept"}
    restored = history(console_hearth, "/history/restore", method="POST", at=moment)
    assert restored.status_code == 200, restored.text
    assert ref.get() == {"a": {"n": 1}, "b": "kept"}
    newest = history(console_hearth, "/history/restore", limit=1).json()["entries"][0]
    assert newest["changes"][0]["after"] == {"a": {".priority": 3, "n": 1}, "b": "kept"}

    # Just before a write: the writes of the same millisecond before it stay.
    ref.set({"v": 0})
    first = history(console_hearth, "/history/restore", limit=1).json()["entries"][0]["sequence"]
    ref.child("v").set(1)
    ref.child("v").set(2)
    before_second = history(console_hearth, "/history/restore", beforeWrite=first + 2).json()
    assert before_second == {"v": 1}
    assert history(console_hearth, "/history/restore", method="POST", beforeWrite=first + 1).json() == {"v": 0}
    assert ref.get() == {"v": 0}


def test_history_ends_where_the_log_stops_keeping_writes(console_hearth, admin):
    ref = db.reference("/history/kept", app=admin)
    early = now_between_writes()
    # 6 MB of log rows: past the journal's limit, a compaction folds them, and deletes all but
    # the 40 newest.
    for round in range(120):
        ref.set(f"{round:03d}" + "v" * 50_000)
    deadline = time.time() + TIMEOUT
    while history(console_hearth, "/history/kept").json()["begins"] <= early and time.time() < deadline:
        time.sleep(0.05)
    page = history(console_hearth, "/history/kept").json()
    assert page["begins"] > early
    refused = history(console_hearth, "/history/kept", at=early)
    assert refused.status_code == 400 and refused.json()["error"].startswith("History begins at ")


@pytest.mark.parametrize("request_args, status, error", [
    ({"headers": {}}, 401, "Permission denied"),
    ({"at": "yesterday"}, 400, 'at must be a time in milliseconds since 1970, not "yesterday".'),
    ({"limit": "0"}, 400, "limit must be between 1 and 500."),
    ({"limit": "501"}, 400, "limit must be between 1 and 500."),
    ({"before": "-3"}, 400, "before must be a write's sequence number, not \"-3\"."),
    ({"method": "POST"}, 400, "A restore needs the moment to go back to: at=<milliseconds since 1970> or beforeWrite=<sequence>."),
    ({"at": "1", "beforeWrite": "1"}, 400, "Name one moment: at or beforeWrite, not both."),
    ({"method": "POST", "beforeWrite": "x"}, 400, "beforeWrite must be a write's sequence number, not \"x\"."),
    ({"method": "POST", "beforeWrite": "999999"}, 400, "There is no write 999999 in the history."),
    ({"method": "DELETE", "at": "1"}, 405, "Method not allowed: use GET, or POST to restore."),
])
def test_bad_history_requests_are_refused_and_change_nothing(console_hearth, admin, request_args, status, error):
    ref = db.reference("/history/bad", app=admin)
    ref.set({"x": 1})
    before = history(console_hearth, "/history/bad").json()
    response = history(console_hearth, "/history/bad", **request_args)
    assert response.status_code == status, response.text
    assert response.json()["error"] == error
    assert ref.get() == {"x": 1}
    assert history(console_hearth, "/history/bad").json() == before


def test_a_user_token_cannot_read_or_restore_history(console_hearth, admin):
    _, token = sign_up(console_hearth)
    db.reference("/history/private", app=admin).set("secret")
    for method in ("GET", "POST"):
        response = requests.request(method, f"{console_hearth.url}/.history/history/private.json",
                                    params={"ns": NS, "auth": token, "at": "0"}, timeout=TIMEOUT)
        assert response.status_code == 401 and response.json()["error"] == "Permission denied"
    assert db.reference("/history/private", app=admin).get() == "secret"


def test_the_history_view_is_live_and_restores(console, console_hearth, admin):
    ref = db.reference("/history/view", app=admin)
    ref.set({"title": "first", "tags": {"a": True}})
    moment = now_between_writes()
    ref.update({"title": "second", "tags/b": True})
    console.open("/history/" + NS + "/history/view", "#history-status")
    console.wait_for_text("#history-status", "2 writes shown")
    newest = console.wait_for_element(".history-entry").text.splitlines()
    for line in ("/history/view/title", '- "first"', '+ "second"', "/history/view/tags/b", "+ true"):
        assert line in newest, newest
    assert "administrator" in console.wait_for_element(".history-entry .history-author").text

    # A write made elsewhere appears without a reload.
    ref.child("title").set("third")
    console.wait_for_text("#history-status", "3 writes shown")
    console.wait_for_text(".history-entry:first-child .diff", '+ "third"')

    # The breadcrumb and the data view link point at the same location.
    link = console.wait_for_element("#history-data-link")
    assert link.get_attribute("href").endswith(f"/database/{NS}/data/history/view")

    for theme in ("light", "dark"):
        console.set_theme(theme)
        assert console.serious_violations() == [], theme
        console.screenshot(f"history-{theme}")
    console.set_theme("light")

    # Restore as of a chosen time, confirmed in the dialog.
    local = time.strftime("%Y-%m-%dT%H:%M:%S", time.localtime(moment / 1000)) + f".{moment % 1000:03d}"
    console.driver.execute_script(
        "const f = document.getElementById('history-time'); f.value = arguments[0];", local)
    console.click("#history-restore")
    console.click("#confirm-ok")
    deadline = time.time() + TIMEOUT
    while ref.get() != {"title": "first", "tags": {"a": True}} and time.time() < deadline:
        time.sleep(0.05)
    assert ref.get() == {"title": "first", "tags": {"a": True}}
    console.wait_for_text("#history-status", "4 writes shown")
    restore = history(console_hearth, "/history/view", limit=1).json()["entries"][0]
    assert (restore["by"], restore["via"]) == ({"admin": True}, "console")


def test_the_data_view_links_to_a_locations_history(console, console_hearth, admin):
    db.reference("/history/linked", app=admin).set({"k": 1})
    console.open(f"/database/{NS}/data/history/linked", "#history-link")
    console.click("#history-link")
    console.wait_for(lambda: console.driver.current_url.endswith(f"/history/{NS}/history/linked"), "the history view")
    console.wait_for_text("#history-status", "1 write shown")
