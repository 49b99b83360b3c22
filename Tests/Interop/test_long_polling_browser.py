"""The long-polling transport (`/.lp`, §3.9) driven by a real headless Chromium, as Firebase's
browser client drives it: script tags in a hidden frame, callbacks into the page, a disconnect
frame (see `pages/long_poll.js`)."""

import requests

from browser import browser, long_poll_page, pages_url  # noqa: F401 (fixtures)
from realtime_client import unique_namespace

OK = {"s": "ok", "d": ""}


def request(page, name, number, action, body):
    page.send(name, {"t": "d", "d": {"r": number, "a": action, "b": body}})


def response(page, name, number):
    """The body of the connection's response to request `number`, or None while none came."""
    for message in page.messages(name):
        data = message.get("d", {}) if message.get("t") == "d" else {}
        if data.get("r") == number:
            return data["b"]
    return None


def await_response(page, name, number, timeout=10):
    return page.wait_for(lambda: response(page, name, number), f"{name}'s response to request {number}", timeout)


def pushes(page, name, path):
    """The values pushed to the connection for `path`, in the order they came."""
    return [message["d"]["b"]["d"] for message in page.messages(name)
            if message.get("t") == "d" and message["d"].get("a") == "d" and message["d"]["b"]["p"] == path]


def connect(page, hearth, name, namespace, timeout=10):
    """Opens a connection and waits for its handshake; returns the connection's state."""
    page.open(name, hearth.url, namespace)
    return page.wait_for(lambda: connected(page, name), f"{name}'s handshake", timeout)


def connected(page, name):
    state = page.state(name)
    return state if state["connected"] else None


def rest_value(hearth, namespace, path):
    return requests.get(f"{hearth.url}/{path}.json", params={"ns": namespace}, timeout=10).json()


def test_five_connections_in_one_page_connect_and_write(hearth, long_poll_page):
    page = long_poll_page
    namespace = unique_namespace()
    names = [f"c{index}" for index in range(5)]
    for name in names:
        page.open(name, hearth.url, namespace)
    states = page.wait_for(
        lambda: all(connected(page, name) for name in names) and [page.state(name) for name in names],
        "every connection's handshake", timeout=15)
    for state in states:
        assert state["sessionId"] == state["id"], state
    # Each disconnect frame finished loading: none holds one of the browser's six connections.
    page.wait_for(lambda: all(page.state(name)["disconnectFrameLoaded"] for name in names),
                  "every disconnect frame loaded")
    for index, name in enumerate(names):
        request(page, name, 1, "p", {"p": f"/five/{name}", "d": index})
    for name in names:
        assert await_response(page, name, 1, timeout=15) == OK
    assert rest_value(hearth, namespace, "five") == {name: index for index, name in enumerate(names)}


def test_a_two_megabyte_write_completes_within_a_minute(hearth, long_poll_page):
    page = long_poll_page
    namespace = unique_namespace()
    connect(page, hearth, "big", namespace)
    value = {f"part{index}": chr(ord("a") + index) * 200_000 for index in range(10)}
    request(page, "big", 1, "p", {"p": "/big", "d": value})
    assert await_response(page, "big", 1, timeout=60) == OK
    assert rest_value(hearth, namespace, "big") == value
    assert page.state("big")["mostOutstanding"] <= 2


def test_writes_from_one_connection_reach_a_listener_on_another_in_order(hearth, long_poll_page):
    page = long_poll_page
    namespace = unique_namespace()
    connect(page, hearth, "writer", namespace)
    connect(page, hearth, "listener", namespace)
    request(page, "listener", 1, "q", {"p": "/seq", "h": ""})
    assert await_response(page, "listener", 1) == {"s": "ok", "d": {}}
    for number in range(20):
        request(page, "writer", number + 1, "p", {"p": "/seq", "d": number})
    expected = list(range(20))
    page.wait_for(lambda: [value for value in pushes(page, "listener", "seq") if value is not None][-1:] == [19],
                  "the last write at the listener", timeout=20)
    assert [value for value in pushes(page, "listener", "seq") if value is not None] == expected
    for number in range(20):
        assert response(page, "writer", number + 1) == OK, number


def test_removing_the_disconnect_frame_runs_on_disconnect(hearth, long_poll_page):
    page = long_poll_page
    namespace = unique_namespace()
    connect(page, hearth, "leaving", namespace)
    page.wait_for(lambda: page.state("leaving")["disconnectFrameLoaded"], "the disconnect frame loaded")
    request(page, "leaving", 1, "o", {"p": "/presence/me", "d": "offline"})
    assert await_response(page, "leaving", 1) == OK
    assert rest_value(hearth, namespace, "presence/me") is None
    page.close("leaving")
    assert not page.state("leaving")["disconnectFramePresent"]
    page.wait_for(lambda: rest_value(hearth, namespace, "presence/me") == "offline",
                  "the onDisconnect write after the frame's removal", timeout=10)
