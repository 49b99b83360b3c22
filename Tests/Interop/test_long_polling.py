"""The long-polling transport browsers fall back to (`/.lp`, §3.9), driven as Firebase's
browser client drives it."""

import json
import threading
import time

import pytest
import requests

from conftest import HearthProcess, per_node_state
from long_poll_client import LongPollClient, segments_of
from realtime_client import RealtimeClient, unique_namespace

OK = {"s": "ok", "d": ""}


def request(client, number, action, body):
    client.send({"t": "d", "d": {"r": number, "a": action, "b": body}})


def leave(hearth, client, method="POST"):
    """Says the client leaves, as the disconnect frame's page does when the client removes it
    (a beacon, which browsers send as a POST)."""
    response = requests.request(
        method, f"{hearth.url}/.lp", params={"disconn": "t", "id": client.id, "pw": client.password, "ns": client.namespace},
        timeout=5)
    assert response.status_code == 200


def wait_for_value(hearth, namespace, path, expected, what, seconds=5):
    deadline = time.time() + seconds
    while requests.get(f"{hearth.url}/{path}.json?ns={namespace}").json() != expected:
        assert time.time() < deadline, what
        time.sleep(0.1)


def listening_client(hearth, namespace, path, value):
    """A long-polling client listening to `path`, which holds `value`; a listen's data comes
    before its ok (§4.2)."""
    requests.put(f"{hearth.url}/{path}.json?ns={namespace}", data=json.dumps(value))
    client = LongPollClient(hearth, namespace)
    client.receive()
    request(client, 1, "q", {"p": f"/{path}", "h": ""})
    assert next_data(client) == {"a": "d", "b": {"p": path, "d": value}}
    assert next_data(client) == {"r": 1, "b": {"s": "ok", "d": {}}}
    return client


def client_with_on_disconnect(hearth, namespace, path, value):
    """A long-polling client that queued an onDisconnect set of `path` to `value`."""
    client = LongPollClient(hearth, namespace)
    client.receive()
    request(client, 1, "o", {"p": f"/{path}", "d": value})
    assert next_data(client) == {"r": 1, "b": OK}
    return client


def next_data(client):
    message = client.receive()
    assert message["t"] == "d", message
    return message["d"]


def test_start_answers_the_start_command_then_the_handshake_as_packet_zero(hearth):
    client = LongPollClient(hearth, unique_namespace())
    handshake = client.receive()
    assert handshake["t"] == "c" and handshake["d"]["t"] == "h"
    data = handshake["d"]["d"]
    assert data["v"] == "5" and data["h"] == hearth.host and data["s"] == client.id
    assert isinstance(data["ts"], int) and abs(data["ts"] - time.time() * 1000) < 5000
    client.send({"t": "c", "d": {"t": "p", "d": {}}})
    assert client.receive() == {"t": "c", "d": {"t": "o", "d": {}}}
    client.close()


def test_listen_and_write_over_polls_in_protocol_order(hearth):
    namespace = unique_namespace()
    client = listening_client(hearth, namespace, "lp/item", {"title": "first"})
    request(client, 2, "p", {"p": "/lp/item", "d": {"title": "über ✔"}})
    # The write's effect on the client's own listen comes before the write's ok (§4.2).
    assert next_data(client) == {"a": "d", "b": {"p": "lp/item", "d": {"title": "über ✔"}}}
    assert next_data(client) == {"r": 2, "b": OK}
    assert requests.get(f"{hearth.url}/lp/item.json?ns={namespace}").json() == {"title": "über ✔"}
    # A change made over REST reaches the held poll.
    requests.put(f"{hearth.url}/lp/item/title.json?ns={namespace}", data='"rest"')
    assert next_data(client) == {"a": "d", "b": {"p": "lp/item/title", "d": "rest"}}
    client.close()


def test_a_long_message_in_segments_that_arrive_out_of_order(hearth):
    namespace = unique_namespace()
    client = LongPollClient(hearth, namespace)
    client.receive()
    value = "x" * 6000 + "é"
    segments = segments_of({"t": "d", "d": {"r": 1, "a": "p", "b": {"p": "/big", "d": value}}}, client.next_segment)
    assert len(segments) >= 4
    # The later segments come first, on a poll of their own; nothing is served until all are in.
    threading.Thread(target=client.poll, args=(segments[2:],), daemon=True).start()
    time.sleep(0.5)
    assert requests.get(f"{hearth.url}/big.json?ns={namespace}").json() is None
    threading.Thread(target=client.poll, args=(segments[:2],), daemon=True).start()
    assert next_data(client) == {"r": 1, "b": OK}
    assert requests.get(f"{hearth.url}/big.json?ns={namespace}").json() == value
    client.close()


def test_the_disconnect_frame_is_a_page_that_finishes_loading(hearth):
    client = LongPollClient(hearth, unique_namespace())
    client.receive()
    started = time.time()
    response = requests.get(
        f"{hearth.url}/.lp", params={"dframe": "t", "id": client.id, "pw": client.password, "ns": client.namespace}, timeout=5)
    assert time.time() - started < 2
    assert response.status_code == 200 and response.headers["content-type"].startswith("text/html")
    assert response.headers["cache-control"] == "no-store"
    # Unloading it says the client leaves, with the frame's own query.
    assert "disconn=t" in response.text and "pagehide" in response.text
    # Loading it ends nothing.
    client.send({"t": "c", "d": {"t": "p", "d": {}}})
    assert client.receive() == {"t": "c", "d": {"t": "o", "d": {}}}
    client.close()


def test_leaving_ends_the_session_and_runs_on_disconnect(hearth):
    namespace = unique_namespace()
    client = client_with_on_disconnect(hearth, namespace, "presence/me", "offline")
    time.sleep(0.3)
    assert requests.get(f"{hearth.url}/presence/me.json?ns={namespace}").json() is None
    wrong = requests.post(f"{hearth.url}/.lp", params={"disconn": "t", "id": client.id, "pw": "wrong"}, timeout=5)
    assert wrong.status_code == 404
    leave(hearth, client)
    wait_for_value(hearth, namespace, "presence/me", "offline", "onDisconnect did not run")
    # The session is gone: its polls are refused, and the client's poll loop ends.
    assert requests.get(f"{hearth.url}/.lp", params={"id": client.id, "pw": client.password, "ser": 5}).status_code == 404
    client.close()


def test_a_newer_poll_releases_the_held_one_at_once(hearth):
    client = LongPollClient(hearth, unique_namespace(), keep_polling=False)
    client.receive()
    held = threading.Thread(target=client.poll, daemon=True)
    held.start()
    time.sleep(0.3)
    assert held.is_alive(), "a poll with nothing to take is held"
    started = time.time()
    # The client's second request, carrying a ping: the held poll is answered (empty), and the
    # pong comes on the newer one, as the next packet.
    newer = client.send({"t": "c", "d": {"t": "p", "d": {}}})
    held.join(timeout=5)
    assert not held.is_alive() and time.time() - started < 1
    assert client.receive(timeout=5) == {"t": "c", "d": {"t": "o", "d": {}}}
    newer.join(timeout=5)
    assert client.next_packet == 2
    client.close()


def test_a_poll_overtaken_by_a_newer_one_is_answered_at_once(hearth):
    client = LongPollClient(hearth, unique_namespace(), keep_polling=False)
    client.receive()
    params = {"id": client.id, "pw": client.password, "ns": client.namespace}
    newer = threading.Thread(target=requests.get, args=(f"{hearth.url}/.lp",), kwargs={"params": {**params, "ser": 10}})
    newer.start()
    time.sleep(0.3)
    started = time.time()
    late = requests.get(f"{hearth.url}/.lp", params={**params, "ser": 9}, timeout=5)
    assert late.status_code == 200 and late.text == "" and time.time() - started < 1
    assert newer.is_alive(), "the newer poll stays held"
    client.close()
    leave(hearth, client)
    newer.join(timeout=5)


@pytest.fixture(scope="module")
def impatient():
    """A server that ends a long-polling session after one second without a poll open."""
    server = HearthProcess(extra_args=["--long-poll-timeout", "1"]).start()
    yield server
    server.stop()
    server.remove_data()


def test_a_session_whose_polls_stop_ends_and_runs_on_disconnect(impatient):
    namespace = unique_namespace()
    client = client_with_on_disconnect(impatient, namespace, "presence/me", "offline")
    # Let the polls of the exchange settle, so that the one left open is the poll thread's own
    # (a poll answered early because a newer one overtook it would end the session sooner).
    time.sleep(1)
    client.close()
    # The client's last poll counts as open until it is answered empty, 20 s after it came (a
    # vanished client's connection is noticed only when written to); a second later, the session
    # ends.
    time.sleep(15)
    assert requests.get(f"{impatient.url}/presence/me.json?ns={namespace}").json() is None
    wait_for_value(impatient, namespace, "presence/me", "offline", "the abandoned session did not end", seconds=12)
    assert requests.get(
        f"{impatient.url}/.lp", params={"id": client.id, "pw": client.password, "ser": 99, "ns": namespace}).status_code == 404


def test_a_client_that_keeps_polling_is_not_timed_out(impatient):
    namespace = unique_namespace()
    client = client_with_on_disconnect(impatient, namespace, "presence/me", "offline")
    time.sleep(3)
    assert requests.get(f"{impatient.url}/presence/me.json?ns={namespace}").json() is None
    client.send({"t": "c", "d": {"t": "p", "d": {}}})
    assert client.receive() == {"t": "c", "d": {"t": "o", "d": {}}}
    client.close()


def test_bad_requests_are_refused_and_leave_the_session_sound(hearth):
    namespace = unique_namespace()
    client = LongPollClient(hearth, namespace)
    client.receive()
    url = f"{hearth.url}/.lp"
    # A callback that is not a number would be written into a script.
    assert requests.get(url, params={"start": "t", "cb": "alert(1)", "ns": namespace}).status_code == 400
    assert requests.get(url, params={"start": "t", "ns": namespace}).status_code == 400
    # Polls name their namespace, as the SDKs' do for a host of their own (protocol §2).
    assert requests.get(url, params={"id": client.id, "pw": "wrong", "ser": 1, "ns": namespace}).status_code == 404
    assert requests.get(url, params={"id": "unknown", "pw": client.password, "ser": 1, "ns": namespace}).status_code == 404
    for bad in ({"seg0": "x", "ts0": 1, "d0": "e30."}, {"seg0": 0, "d0": "e30."}, {"seg0": 0, "ts0": 1, "d0": "%%%"}):
        params = {"id": client.id, "pw": client.password, "ser": 1, "ns": namespace, **bad}
        assert requests.get(url, params=params, timeout=5).status_code == 400, bad
    # Nothing was taken from the bad polls: the next message is segment 0.
    client.send({"t": "c", "d": {"t": "p", "d": {}}})
    assert client.receive() == {"t": "c", "d": {"t": "o", "d": {}}}
    client.close()


def test_a_listen_larger_than_the_stream_buffer_limit_is_delivered(hearth):
    # 6 MB against the 4 MB bound the suite starts Hearth with, to a client that keeps polling.
    big = {"a": "x" * (3 * 1024 * 1024), "b": "y" * (3 * 1024 * 1024)}
    client = listening_client(hearth, unique_namespace(), "big", big)
    client.close()


def test_a_client_that_stops_polling_is_disconnected_when_too_much_waits(hearth):
    namespace = unique_namespace()
    client = LongPollClient(hearth, namespace, keep_polling=False)
    client.receive()
    request(client, 1, "o", {"p": "/presence/me", "d": "offline"})
    assert next_data(client) == {"r": 1, "b": OK}
    request(client, 2, "q", {"p": "/flood", "h": ""})
    assert next_data(client) == {"r": 2, "b": {"s": "ok", "d": {}}}
    # No poll comes for the pushes: 6 MB of them against the 4 MB bound the suite starts Hearth with.
    payload = "y" * (1024 * 1024)
    for index in range(6):
        assert requests.put(f"{hearth.url}/flood/{index % 4}.json?ns={namespace}", json=payload + str(index)).status_code == 200
    wait_for_value(hearth, namespace, "presence/me", "offline", "the session was not ended")
    assert requests.get(
        f"{hearth.url}/.lp", params={"id": client.id, "pw": client.password, "ser": 9, "ns": namespace}).status_code == 404


def test_reconnecting_with_the_last_session_ends_the_previous_one(hearth):
    namespace = unique_namespace()
    first = client_with_on_disconnect(hearth, namespace, "presence/first", "gone")
    second = LongPollClient(hearth, namespace, extra=f"&ls={first.id}")
    second.receive()
    wait_for_value(hearth, namespace, "presence/first", "gone", "the previous session did not end")
    first.close()
    second.close()


def test_stopping_the_server_answers_held_polls_with_close():
    server = HearthProcess()
    server.start()
    try:
        client = LongPollClient(server, unique_namespace())
        client.receive()
        time.sleep(0.3)  # the client's poll is now held
        started = time.time()
        server.stop()
        client.poller.join(timeout=10)
        # Packet 0 (the handshake) was the last one sent.
        assert client.closed_after == 0
        assert time.time() - started < 5
    finally:
        server.remove_data()


# The upgrading WebSocket must reach the node holding the session; the SDKs do not follow a
# reset there (docs/scale-out.md).
@per_node_state
def test_upgrade_to_a_websocket_carries_the_session_over(hearth):
    namespace = unique_namespace()
    poll = listening_client(hearth, namespace, "up/item", "first")
    request(poll, 2, "o", {"p": "/presence/me", "d": "offline"})
    assert next_data(poll) == {"r": 2, "b": OK}

    # The WebSocket names the session; the server acknowledges instead of a handshake, and the
    # client checks it with two pings before switching.
    ws = RealtimeClient(hearth, namespace, read_handshake=False, transport_session=poll.id)
    assert ws.receive() == {"t": "c", "d": {"t": "a", "d": {}}}
    for _ in range(2):
        ws.send({"t": "c", "d": {"t": "p", "d": {}}})
        assert ws.receive() == {"t": "c", "d": {"t": "o", "d": {}}}
    ws.send({"t": "c", "d": {"t": "a", "d": {}}})
    sender = poll.send({"t": "c", "d": {"t": "n", "d": {}}})
    assert poll.receive() == {"t": "c", "d": {"t": "n", "d": {}}}
    # Every poll still held is answered at once with close: nothing more comes that way.
    for thread in (sender, poll.poller):
        thread.join(timeout=5)
        assert not thread.is_alive()
    assert poll.closed_after is not None

    # The listen made over long-polling now delivers on the WebSocket, with the write's ok after.
    pushes, response = ws.call("p", {"p": "/up/item", "d": "second"})
    assert pushes == [{"t": "d", "d": {"a": "d", "b": {"p": "up/item", "d": "second"}}}] and response == OK
    requests.put(f"{hearth.url}/up/item.json?ns={namespace}", data='"third"')
    assert ws.receive() == {"t": "d", "d": {"a": "d", "b": {"p": "up/item", "d": "third"}}}
    # The client drops its long-poll transport, saying it leaves: the upgraded session goes on.
    leave(hearth, poll)
    time.sleep(0.5)
    assert requests.get(f"{hearth.url}/presence/me.json?ns={namespace}").json() is None
    # Closing the WebSocket ends the session: its onDisconnect write runs.
    ws.close()
    wait_for_value(hearth, namespace, "presence/me", "offline", "onDisconnect did not run")


def test_a_websocket_naming_no_live_session_is_a_session_of_its_own(hearth):
    client = RealtimeClient(hearth, unique_namespace(), transport_session="unknown")
    assert client.handshake["d"]["t"] == "h"
    client.close()
