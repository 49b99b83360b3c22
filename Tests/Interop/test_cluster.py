"""Hearth nodes sharing one PostgreSQL database: one owner per namespace, the others sending its
clients there, fencing of an owner that lost its namespace, and failover when an owner dies."""

import signal
import threading
import time
import uuid

import pytest
import requests

from conftest import OWNER, HearthProcess
from postgres_support import PostgresServer
from realtime_client import RealtimeClient

# Hearth's lease on a namespace (PostgresNamespaces): a dead owner's namespace is free after it.
LEASE = 3.0


@pytest.fixture(scope="module")
def postgres():
    server = PostgresServer().start()
    yield server
    server.stop()


@pytest.fixture
def cluster(postgres):
    """Two nodes on one fresh database; stopped (or killed) by the end of the test."""
    url = postgres.create_database()
    nodes = [HearthProcess(extra_args=["--postgres", url]).start() for _ in range(2)]
    yield nodes
    for node in nodes:
        if node.process.poll() is None:
            node.process.send_signal(signal.SIGCONT)
        node.stop(signal.SIGKILL)
        node.remove_data()


def namespace():
    return f"cluster-{uuid.uuid4().hex[:10]}"


def url(node, ns, path):
    return f"{node.url}/{path}.json?ns={ns}"


def owner_epoch(postgres, ns, database):
    return postgres.sql(f"SELECT epoch FROM hearth_namespaces WHERE ns = '{ns}'", database=database)


def database_of(node):
    return node.extra_args[1].rsplit("/", 1)[1].split("?")[0]


def test_rest_requests_to_another_node_are_redirected_to_the_owner(cluster):
    first, second = cluster
    ns = namespace()
    assert requests.put(url(first, ns, "greeting"), json="hello", headers=OWNER).status_code == 200

    written = requests.put(url(second, ns, "other"), json={"n": 1}, headers=OWNER)
    assert written.status_code == 200
    assert [answer.status_code for answer in written.history] == [307]
    assert written.history[0].headers["Location"] == f"{first.url}/other.json?ns={ns}"
    read = requests.get(url(second, ns, ""), headers=OWNER)
    assert read.json() == {"greeting": "hello", "other": {"n": 1}}


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
    assert taken.status_code == 200 and taken.history == []
    first.process.send_signal(signal.SIGCONT)
    thread.join(timeout=30)

    # The paused owner's write did not land: refused by the fencing, or sent on to the new owner
    # where its compare-and-set fails.
    assert "answer" in stale and stale["answer"].status_code != 200
    assert requests.get(url(second, ns, "x"), headers=OWNER).json() == "second"
    # And the old owner now sends its clients to the new one.
    later = requests.put(url(first, ns, "y"), json=1, headers=OWNER, timeout=10)
    assert later.status_code == 200 and [answer.status_code for answer in later.history] == [307]
    assert requests.get(url(second, ns, ""), headers=OWNER).json() == {"x": "second", "y": 1}


def test_a_postgres_restart_fails_writes_cleanly_and_they_resume(cluster, postgres):
    first, _ = cluster
    ns = namespace()
    assert requests.put(url(first, ns, "before"), json=1, headers=OWNER).status_code == 200

    postgres.pg_ctl("stop", "-m", "immediate")
    failed = requests.put(url(first, ns, "during"), json=2, headers=OWNER, timeout=30)
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
