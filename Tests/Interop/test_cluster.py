"""Hearth nodes sharing one PostgreSQL database: one owner per namespace, the others forwarding
its REST requests and sending its realtime clients there, fencing of an owner that lost its
namespace, and failover when an owner dies."""

import json
import signal
import threading
import time
import uuid

import pytest
import requests

from conftest import OWNER, HearthProcess
from long_poll_client import LongPollClient
from realtime_client import RealtimeClient

# Hearth's lease on a namespace (PostgresNamespaces): a dead owner's namespace is free after it.
LEASE = 3.0


def two_nodes(postgres, tmp_path, *extra_args):
    """Two nodes on one fresh database, whose rules let anyone read and the signed-in write,
    started with `extra_args`; stopped (or killed) once the caller is done with them."""
    url = postgres.create_database()
    rules = tmp_path / "database.rules.json"
    rules.write_text(json.dumps({"rules": {".read": True, ".write": "auth != null"}}))
    nodes = [HearthProcess(extra_args=["--postgres", url, "--rules", str(rules), *extra_args]).start() for _ in range(2)]
    yield nodes
    for node in nodes:
        if node.process.poll() is None:
            node.process.send_signal(signal.SIGCONT)
        node.stop(signal.SIGKILL)
        node.remove_data()


@pytest.fixture
def cluster(postgres, tmp_path):
    yield from two_nodes(postgres, tmp_path)


def namespace():
    return f"cluster-{uuid.uuid4().hex[:10]}"


def url(node, ns, path):
    return f"{node.url}/{path}.json?ns={ns}"


def owner_epoch(postgres, ns, database):
    return postgres.sql(f"SELECT epoch FROM hearth_namespaces WHERE ns = '{ns}'", database=database)


def database_of(node):
    return node.extra_args[1].rsplit("/", 1)[1].split("?")[0]


def read_when_served(node, ns, seconds=5):
    """The namespace's tree, read through `node` once it answers: right after its owner died, a
    request the node passes on to that owner fails (`503`), and the next takes the namespace over."""
    deadline = time.monotonic() + seconds
    while True:
        answer = requests.get(url(node, ns, ""), timeout=10)
        if answer.status_code == 200 or time.monotonic() > deadline:
            assert answer.status_code == 200, answer.text
            return answer.json()
        assert answer.status_code == 503, answer.text
        time.sleep(0.05)


def test_rest_requests_to_another_node_are_answered_by_the_owner_with_their_credentials(cluster, postgres):
    first, second = cluster
    ns = namespace()
    assert requests.put(url(first, ns, "greeting"), json="hello", headers=OWNER).status_code == 200

    # The write needs its Authorization header at the owner.
    written = requests.put(url(second, ns, "other"), json={"n": 1}, headers=OWNER)
    assert written.status_code == 200 and written.json() == {"n": 1}
    refused = requests.put(url(second, ns, "other"), json={"n": 2})
    assert refused.status_code == 401 and refused.json() == {"error": "Permission denied"}
    read = requests.get(url(second, ns, ""))
    assert read.json() == {"greeting": "hello", "other": {"n": 1}}
    # Both went through the owner: the namespace's epoch is still its first claim's.
    assert owner_epoch(postgres, ns, database_of(first)) == "1"


def test_a_write_through_one_node_reaches_an_event_stream_opened_on_the_other(cluster):
    first, second = cluster
    ns = namespace()
    assert requests.put(url(first, ns, "feed"), json={"n": 0}, headers=OWNER).status_code == 200
    stream = requests.get(url(second, ns, "feed"), headers={"Accept": "text/event-stream"}, stream=True, timeout=10)
    assert stream.status_code == 200
    lines = stream.iter_lines(decode_unicode=True)

    def next_event():
        event = data = None
        for line in lines:
            if line.startswith("event: "):
                event = line[len("event: "):]
            elif line.startswith("data: "):
                data = json.loads(line[len("data: "):])
            elif line == "" and event is not None:
                if event != "keep-alive":
                    return event, data
                event = data = None

    assert next_event() == ("put", {"path": "/", "data": {"n": 0}})
    for number in (1, 2, 3):
        node = first if number % 2 else second
        assert requests.put(url(node, ns, "feed/n"), json=number, headers=OWNER).status_code == 200
    # In order, once each.
    assert [next_event() for _ in range(3)] == [("put", {"path": "/n", "data": number}) for number in (1, 2, 3)]
    stream.close()


def test_a_value_holding_a_nul_character_is_stored_and_read_back(cluster):
    first, second = cluster
    ns = namespace()
    value = {"text": "before\u0000after", "other": "\u0000"}
    assert requests.put(url(first, ns, "v"), json=value, headers=OWNER).status_code == 200
    assert requests.post(url(second, ns, "list"), json="\u0000", headers=OWNER).status_code == 200
    first.stop(signal.SIGKILL)
    # Read back from PostgreSQL by the other node, once it has found the owner gone.
    tree = read_when_served(second, ns)
    assert tree["v"] == value and list(tree["list"].values()) == ["\u0000"]


def test_a_realtime_client_of_another_node_is_reset_to_the_owner(cluster):
    first, second = cluster
    ns = namespace()
    assert requests.put(url(first, ns, "a"), json=1, headers=OWNER).status_code == 200

    client = RealtimeClient(second, ns)
    assert client.handshake["d"]["t"] == "h"
    assert client.receive() == {"t": "c", "d": {"t": "r", "d": first.host}}
    client.close()

    # At the owner, the client is served: its listen sees what the other node's clients write.
    client = RealtimeClient(first, ns)
    pushes, answer = client.call("q", {"p": "/a", "h": ""})
    assert answer == {"s": "ok", "d": {}}
    assert [push["d"]["b"] for push in pushes] == [{"p": "a", "d": 1}]
    assert requests.put(url(second, ns, "a"), json=2, headers=OWNER).status_code == 200
    assert client.push()["b"] == {"p": "a", "d": 2}
    client.close()


def test_writes_acknowledged_before_the_owner_is_killed_survive_on_the_other_node(cluster, postgres):
    first, second = cluster
    ns = namespace()
    database = database_of(first)
    assert requests.put(url(first, ns, "counter"), json=0, headers=OWNER).status_code == 200
    acked_sets = []
    acked_updates = []
    acked_increments = []
    stop = threading.Event()

    def writer(index):
        session = requests.Session()
        number = 0
        while not stop.is_set():
            key = f"w{index}-{number:05d}"
            number += 1
            for node in (first, second):
                try:
                    answer = session.put(url(node, ns, f"sets/{key}"), json=number, headers=OWNER, timeout=5)
                except requests.RequestException:
                    continue
                if answer.status_code == 200:
                    acked_sets.append(key)
                    break
            for node in (first, second):
                try:
                    # A multi-path update: both locations always change together.
                    answer = session.patch(
                        url(node, ns, "pairs"), json={f"left/{key}": number, f"right/{key}": number}, headers=OWNER,
                        timeout=5)
                except requests.RequestException:
                    continue
                if answer.status_code == 200:
                    acked_updates.append(key)
                    break

    def incrementer():
        # Compare-and-set on the ETag: an increment is acknowledged only if nothing changed the
        # counter between its read and its write, whichever node answers.
        session = requests.Session()
        while not stop.is_set():
            for node in (first, second):
                try:
                    read = session.get(url(node, ns, "counter"), headers={**OWNER, "X-Firebase-ETag": "true"}, timeout=5)
                    if read.status_code != 200:
                        continue
                    written = session.put(
                        url(node, ns, "counter"), json=read.json() + 1, headers={**OWNER, "if-match": read.headers["ETag"]},
                        timeout=5)
                except requests.RequestException:
                    continue
                if written.status_code == 200:
                    acked_increments.append(written.json())
                break

    threads = [threading.Thread(target=writer, args=(index,)) for index in range(4)]
    threads += [threading.Thread(target=incrementer) for _ in range(2)]
    for thread in threads:
        thread.start()
    time.sleep(2)
    before = len(acked_sets)
    first.stop(signal.SIGKILL)
    killed = time.monotonic()
    # Writes go on through the other node once it has taken the namespace over.
    deadline = killed + 20
    while len(acked_sets) < before + 20 and time.monotonic() < deadline:
        time.sleep(0.05)
    resumed = time.monotonic() - killed
    time.sleep(1)
    stop.set()
    for thread in threads:
        thread.join(timeout=30)

    assert before > 0
    assert resumed < 5, f"writable again after {resumed:.1f} s"
    assert owner_epoch(postgres, ns, database) == "2"
    tree = requests.get(url(second, ns, ""), headers=OWNER).json()
    # Every acknowledged write is there, once; nothing is there that was never written.
    assert set(acked_sets) <= set(tree["sets"])
    assert set(acked_updates) <= set(tree["pairs"]["left"])
    assert tree["pairs"]["left"] == tree["pairs"]["right"]
    # No two acknowledged compare-and-sets wrote the same value (none committed on a stale read),
    # and none acknowledged was lost; an increment that committed unanswered as its node died is
    # the only kind the acknowledgements miss (one per thread at most).
    assert acked_increments and len(set(acked_increments)) == len(acked_increments)
    assert max(acked_increments) <= tree["counter"] <= max(acked_increments) + 2


def test_a_dead_owner_is_replaced_before_its_lease_runs_out(cluster):
    first, second = cluster
    ns = namespace()
    assert requests.put(url(first, ns, "a"), json=1, headers=OWNER).status_code == 200
    first.stop(signal.SIGKILL)
    killed = time.monotonic()
    # The dead owner's session, and the advisory lock it held on the namespace, ended with it:
    # the other node takes the namespace over without waiting for the lease. A request that
    # came before PostgreSQL noticed the session's end was passed on to the dead owner (`503`).
    while True:
        answer = requests.put(url(second, ns, "b"), json=2, headers=OWNER, timeout=10)
        taken = time.monotonic() - killed
        if answer.status_code != 503 or taken > LEASE:
            break
        time.sleep(0.05)
    assert answer.status_code == 200, answer.text
    assert taken < LEASE - 0.5, f"taken over after {taken:.2f} s"
    assert requests.get(url(second, ns, ""), headers=OWNER).json() == {"a": 1, "b": 2}


def test_an_owner_paused_past_its_lease_can_never_commit_again(cluster, postgres):
    first, second = cluster
    ns = namespace()
    assert requests.put(url(first, ns, "x"), json="first", headers=OWNER).status_code == 200
    etag = requests.get(url(first, ns, "x"), headers={**OWNER, "X-Firebase-ETag": "true"}).headers["ETag"]

    first.process.send_signal(signal.SIGSTOP)
    stale = {}

    def stale_write():
        # Sent while the owner is paused: it reaches the owner only once it runs again.
        try:
            stale["answer"] = requests.put(
                url(first, ns, "x"), json="stale", headers={**OWNER, "if-match": etag}, timeout=30)
        except requests.RequestException as error:
            stale["error"] = error

    thread = threading.Thread(target=stale_write)
    thread.start()
    time.sleep(LEASE + 1)
    # The other node takes the namespace over and writes.
    taken = requests.put(url(second, ns, "x"), json="second", headers=OWNER, timeout=10)
    assert taken.status_code == 200
    first.process.send_signal(signal.SIGCONT)
    thread.join(timeout=30)

    # The paused owner's write did not land: refused by the fencing, or passed on to the new owner
    # where its compare-and-set fails.
    assert "answer" in stale and stale["answer"].status_code != 200
    assert requests.get(url(second, ns, "x"), headers=OWNER).json() == "second"
    # And the old owner now passes its clients' requests on to the new one.
    later = requests.put(url(first, ns, "y"), json=1, headers=OWNER, timeout=10)
    assert later.status_code == 200
    assert requests.get(url(second, ns, ""), headers=OWNER).json() == {"x": "second", "y": 1}


def test_a_postgres_restart_fails_writes_cleanly_and_they_resume(cluster, postgres):
    first, _ = cluster
    ns = namespace()
    assert requests.put(url(first, ns, "before"), json=1, headers=OWNER).status_code == 200

    postgres.pg_ctl("stop", "-m", "immediate")
    # The commit waits for a connection as long as a statement may run (25 s), then fails.
    failed = requests.put(url(first, ns, "during"), json=2, headers=OWNER, timeout=60)
    assert failed.status_code >= 500
    postgres.pg_ctl("start")

    deadline = time.monotonic() + 20
    while True:
        answer = requests.put(url(first, ns, "after"), json=3, headers=OWNER, timeout=30)
        if answer.status_code == 200 or time.monotonic() > deadline:
            break
        time.sleep(0.2)
    assert answer.status_code == 200
    assert requests.get(url(first, ns, ""), headers=OWNER).json() == {"before": 1, "after": 3}


def test_other_namespaces_see_no_error_while_an_owner_dies(cluster):
    first, second = cluster
    mine, theirs = namespace(), namespace()
    assert requests.put(url(first, theirs, "a"), json=1, headers=OWNER).status_code == 200
    assert requests.put(url(second, mine, "a"), json=1, headers=OWNER).status_code == 200
    first.stop(signal.SIGKILL)
    for number in range(50):
        answer = requests.put(url(second, mine, f"n{number}"), json=number, headers=OWNER, timeout=5)
        assert answer.status_code == 200


def test_the_polls_of_a_long_polling_session_may_reach_any_node(cluster):
    first, second = cluster
    ns = namespace()
    assert requests.put(url(first, ns, "feed"), json={"n": 0}, headers=OWNER).status_code == 200
    client = LongPollClient(first, ns, keep_polling=False)
    assert client.receive()["d"]["t"] == "h"
    # A load balancer sends the session's next requests to the other node, which passes them on
    # to the node holding the session.
    client.url = f"{second.url}/.lp"
    client.running = True
    client.poller.start()
    client.send({"t": "d", "d": {"r": 1, "a": "q", "b": {"p": "/feed", "h": ""}}})
    messages = [client.receive(), client.receive()]
    assert {"t": "d", "d": {"a": "d", "b": {"p": "feed", "d": {"n": 0}}}} in messages
    assert {"t": "d", "d": {"r": 1, "b": {"s": "ok", "d": {}}}} in messages
    assert requests.put(url(second, ns, "feed/n"), json=1, headers=OWNER).status_code == 200
    assert client.receive() == {"t": "d", "d": {"a": "d", "b": {"p": "feed/n", "d": 1}}}
    client.close()
