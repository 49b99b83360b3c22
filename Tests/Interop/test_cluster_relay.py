"""Relays: nodes started with `--relay` serve the realtime clients of namespaces another node
owns from a replica the owner keeps current, and pass their writes on to the owner."""

import signal
import time

import pytest
import requests

from conftest import OWNER
from realtime_client import RealtimeClient
from test_cluster import ConcurrentWriters, database_of, namespace, owner_epoch, two_nodes, url


@pytest.fixture
def relays(postgres, tmp_path):
    """Two relaying nodes on one fresh database; rules let anyone read and the signed-in write."""
    yield from two_nodes(postgres, tmp_path, "--relay")


def relay_client(node, ns):
    """A realtime client of `node`, signed in as the owner credential (an admin)."""
    client = RealtimeClient(node, ns)
    assert client.handshake["d"]["t"] == "h"
    _, answer = client.call("auth", {"cred": "owner"})
    assert answer["s"] == "ok", answer
    return client


def test_a_client_of_the_relay_is_served_there_and_sees_the_owners_writes_in_order_once(relays, postgres):
    owner, relay = relays
    ns = namespace()
    assert requests.put(url(owner, ns, "feed"), json={"n": 0}, headers=OWNER).status_code == 200
    client = relay_client(relay, ns)
    pushes, answer = client.call("q", {"p": "/feed", "h": ""})
    assert answer == {"s": "ok", "d": {}}
    assert [push["d"]["b"] for push in pushes] == [{"p": "feed", "d": {"n": 0}}]
    for number in range(1, 21):
        assert requests.put(url(owner, ns, "feed/n"), json=number, headers=OWNER).status_code == 200
    assert [client.push()["b"] for _ in range(20)] == [{"p": "feed/n", "d": number} for number in range(1, 21)]
    client.expect_silence(0.5)
    # The relay never claimed the namespace: its first owner still holds it.
    assert owner_epoch(postgres, ns, database_of(owner)) == "1"
    client.close()


def test_a_write_through_the_relay_reaches_the_owner_and_its_own_listen_before_its_ok(relays):
    owner, relay = relays
    ns = namespace()
    assert requests.put(url(owner, ns, "seed"), json=1, headers=OWNER).status_code == 200
    client = relay_client(relay, ns)
    client.call("q", {"p": "/items", "h": ""})
    pushes, answer = client.call("p", {"p": "/items/a", "d": {"title": "Milk"}})
    assert answer == {"s": "ok", "d": ""}
    assert [push["d"]["b"] for push in pushes] == [{"p": "items/a", "d": {"title": "Milk"}}]
    assert requests.get(url(owner, ns, "items")).json() == {"a": {"title": "Milk"}}

    # A multi-path update arrives as one merge, as the owner's own listeners get it.
    pushes, answer = client.call("m", {"p": "/items", "d": {"a/title": "Eggs", "b": {"title": "Bread"}}})
    assert answer == {"s": "ok", "d": ""}
    assert [(push["d"]["a"], push["d"]["b"]) for push in pushes] == [
        ("m", {"p": "items", "d": {"a/title": "Eggs", "b": {"title": "Bread"}}})
    ]
    assert requests.get(url(owner, ns, "items")).json() == {"a": {"title": "Eggs"}, "b": {"title": "Bread"}}
    client.close()


def test_the_owner_decides_compare_and_set_and_rules_for_writes_through_the_relay(relays):
    owner, relay = relays
    ns = namespace()
    assert requests.put(url(owner, ns, "counter"), json=1, headers=OWNER).status_code == 200
    client = relay_client(relay, ns)
    _, answer = client.call("p", {"p": "/counter", "d": 2, "h": "not-the-hash"})
    assert answer == {"s": "datastale", "d": "The data at this location has changed."}
    hash_of_one = requests.get(url(owner, ns, "counter"), headers={"X-Firebase-ETag": "true"}).headers["ETag"]
    _, answer = client.call("p", {"p": "/counter", "d": 2, "h": hash_of_one})
    assert answer == {"s": "ok", "d": ""}
    assert requests.get(url(owner, ns, "counter")).json() == 2
    client.close()

    # Signed out, the rules refuse the write, with the owner's status and text.
    signed_out = RealtimeClient(relay, ns)
    _, answer = signed_out.call("p", {"p": "/counter", "d": 3})
    assert answer == {"s": "permission_denied", "d": "Permission denied"}
    _, answer = signed_out.call("p", {"p": "/bad", "d": {"a.b": 1}})
    assert answer["s"] != "ok"
    signed_out.close()
    assert requests.get(url(owner, ns, "")).json() == {"counter": 2}


def test_on_disconnect_writes_of_a_relay_client_reach_the_owner(relays):
    owner, relay = relays
    ns = namespace()
    assert requests.put(url(owner, ns, "presence/alice"), json="online", headers=OWNER).status_code == 200
    client = relay_client(relay, ns)
    _, answer = client.call("o", {"p": "/presence/alice", "d": "offline"})
    assert answer == {"s": "ok", "d": ""}
    client.close()
    deadline = time.monotonic() + 5
    while requests.get(url(owner, ns, "presence/alice")).json() != "offline":
        assert time.monotonic() < deadline, "the onDisconnect write did not arrive"
        time.sleep(0.05)


def test_a_relay_whose_owner_dies_drops_its_clients_and_serves_them_again(relays):
    owner, relay = relays
    ns = namespace()
    assert requests.put(url(owner, ns, "kept"), json="yes", headers=OWNER).status_code == 200
    client = relay_client(relay, ns)
    client.call("q", {"p": "/kept", "h": ""})
    owner.stop(signal.SIGKILL)
    # The link breaks: the relay ends the connection, and the client reconnects.
    with pytest.raises(Exception):
        client.receive(timeout=10)
    deadline = time.monotonic() + 15
    while True:
        try:
            again = relay_client(relay, ns)
            pushes, answer = again.call("q", {"p": "/kept", "h": ""})
            if answer["s"] == "ok":
                break
        except Exception:
            pass
        assert time.monotonic() < deadline, "the namespace was not served again"
        time.sleep(0.2)
    assert [push["d"]["b"] for push in pushes] == [{"p": "kept", "d": "yes"}]
    _, answer = again.call("p", {"p": "/after", "d": 1})
    assert answer == {"s": "ok", "d": ""}
    again.close()


def test_the_relay_endpoints_refuse_requests_without_the_cluster_secret(relays):
    owner, _ = relays
    ns = namespace()
    assert requests.put(url(owner, ns, "secret"), json=1, headers=OWNER).status_code == 200
    for headers in ({}, {"X-Hearth-Relay-Secret": "guess"}):
        follow = requests.get(f"{owner.url}/.hearth/relay/follow?ns={ns}", headers=headers, timeout=5)
        assert follow.status_code == 403
        write = requests.post(
            f"{owner.url}/.hearth/relay/writes?ns={ns}", headers=headers, timeout=5,
            json={"writes": [{"c": {"admin": True}, "t": "realtime", "a": "p", "p": "/secret", "d": 2}]})
        assert write.status_code == 403
    assert requests.get(url(owner, ns, "secret")).json() == 1


def test_reconnecting_to_another_node_with_the_last_session_id_ends_the_old_session_at_once(relays):
    owner, relay = relays
    ns = namespace()
    assert requests.put(url(owner, ns, "presence/me"), json="online", headers=OWNER).status_code == 200
    old = relay_client(relay, ns)
    old.call("o", {"p": "/presence/me", "d": "offline"})
    session = old.handshake["d"]["d"]["s"]
    # The old connection stays open, as a half-open socket would; the client comes back to the
    # other node, naming its last session.
    started = time.monotonic()
    new = RealtimeClient(owner, ns, last_session=session)
    while requests.get(url(owner, ns, "presence/me")).json() != "offline":
        # Well before the old connection would be found silent (60 s by default).
        assert time.monotonic() - started < 5, "the old session was not ended"
        time.sleep(0.05)
    new.close()


def apply_push(tree, push):
    """`tree` (a dict holding the root under "") with a realtime data push applied, as a client
    cache applies it: `d` replaces the node at its path, `m` each child it names."""
    action, body = push["a"], push["b"]
    keys = [key for key in body["p"].split("/") if key]
    changes = [(keys, body["d"])] if action == "d" else [(keys + [k for k in child.split("/") if k], value)
                                                       for child, value in body["d"].items()]
    for path, value in changes:
        parent, key = tree, ""
        for step in path:
            node = parent.get(key)
            if not isinstance(node, dict):
                node = parent[key] = {}
            parent, key = node, step
        if value is None:
            parent.pop(key, None)
        else:
            parent[key] = value
    return tree


def test_concurrent_writes_through_both_nodes_leave_every_listener_with_the_owners_tree(relays):
    owner, relay = relays
    ns = namespace()
    assert requests.put(url(owner, ns, "seed"), json=0, headers=OWNER).status_code == 200
    watchers = [relay_client(node, ns) for node in (owner, relay)]
    views = []
    for watcher in watchers:
        pushes, _ = watcher.call("q", {"p": "/", "h": ""})
        view = {}
        for push in pushes:
            apply_push(view, push["d"])
        views.append(view)
    writers = [relay_client(node, ns) for node in (owner, relay, relay)]
    for number in range(60):
        for index, writer in enumerate(writers):
            key = f"w{index}"
            if number % 3 == 2:
                writer.request("m", {"p": f"/{key}", "d": {"n": number, f"k{number}": True}})
            else:
                writer.request("p", {"p": f"/{key}/n", "d": number})
    # Every write is acknowledged, in order, on every writer.
    for writer in writers:
        answers = []
        while len(answers) < 60:
            message = writer.receive()
            if message["t"] == "d" and "r" in message["d"]:
                answers.append(message["d"]["r"])
                assert message["d"]["b"] == {"s": "ok", "d": ""}
        assert answers == sorted(answers)
    expected = requests.get(url(owner, ns, "")).json()
    for watcher, view in zip(watchers, views):
        deadline = time.monotonic() + 10
        while view.get("") != expected:
            assert time.monotonic() < deadline, f"{view.get('')} != {expected}"
            apply_push(view, watcher.push())
    for client in watchers + writers:
        client.close()


class RelayedWriters(ConcurrentWriters):
    """ConcurrentWriters whose sets and multi-path updates go through realtime clients of the
    relay `nodes[0]`, each client replaced once its connection ends (the write it had in flight
    then has an unknown outcome, and is not counted); the compare-and-sets go through the relay's
    REST, which passes them on to the owner."""

    def write(self, index):
        client = None
        number = 0
        while not self.stopping.is_set():
            key = f"w{index}-{number:05d}"
            number += 1
            try:
                client = client or relay_client(self.nodes[0], self.ns)
                _, answer = client.call("p", {"p": f"/sets/{key}", "d": number}, timeout=self.timeout)
                if answer["s"] == "ok":
                    self.sets.append(key)
                pair = {f"left/{key}": number, f"right/{key}": number}
                _, answer = client.call("m", {"p": "/pairs", "d": pair}, timeout=self.timeout)
                if answer["s"] == "ok":
                    self.updates.append(key)
            except Exception:
                if client:
                    try:
                        client.close()
                    except Exception:
                        pass
                client = None
                time.sleep(0.05)


def test_writes_through_a_relay_acknowledged_before_the_owner_is_killed_survive(relays):
    owner, relay = relays
    ns = namespace()
    # The other node owns the namespace; the writers' realtime clients are the relay's.
    assert requests.put(url(owner, ns, "claimed"), json=True, headers=OWNER).status_code == 200
    writers = RelayedWriters([relay], ns)
    time.sleep(2)
    assert writers.sets and writers.updates and writers.increments
    owner.stop(signal.SIGKILL)
    killed = time.monotonic()
    # The relay's clients reconnect; the relay takes the namespace over and writes go on.
    resumed = writers.seconds_until_more(killed, 20, within=20)
    assert resumed < 20
    writers.check(requests.get(url(relay, ns, ""), headers=OWNER).json())
