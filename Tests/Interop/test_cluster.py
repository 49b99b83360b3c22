"""Hearth nodes sharing one PostgreSQL database: one owner per namespace, the others forwarding
its REST requests and sending its realtime clients there, fencing of an owner that lost its
namespace, and failover when an owner dies."""

import json
import os
import signal
import subprocess
import threading
import time
import uuid

import pytest
import requests

from conftest import HEARTH_BIN, OWNER, HearthProcess
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


class ConcurrentWriters:
    """Four threads setting new keys and making multi-path updates, and two incrementing a counter
    by compare-and-set on its ETag, each through whichever of `nodes` answers, recording what was
    acknowledged."""

    def __init__(self, nodes, ns, timeout=5):
        self.nodes, self.ns, self.timeout = nodes, ns, timeout
        self.sets, self.updates, self.increments = [], [], []
        self.stopping = threading.Event()
        assert requests.put(url(nodes[0], ns, "counter"), json=0, headers=OWNER).status_code == 200
        self.threads = [threading.Thread(target=self.write, args=(index,)) for index in range(4)]
        self.threads += [threading.Thread(target=self.increment) for _ in range(2)]
        for thread in self.threads:
            thread.start()

    def write(self, index):
        session = requests.Session()
        number = 0
        while not self.stopping.is_set():
            key = f"w{index}-{number:05d}"
            number += 1
            for node in self.nodes:
                try:
                    answer = session.put(url(node, self.ns, f"sets/{key}"), json=number, headers=OWNER, timeout=self.timeout)
                except requests.RequestException:
                    continue
                if answer.status_code == 200:
                    self.sets.append(key)
                    break
            for node in self.nodes:
                try:
                    # A multi-path update: both locations always change together.
                    answer = session.patch(
                        url(node, self.ns, "pairs"), json={f"left/{key}": number, f"right/{key}": number}, headers=OWNER,
                        timeout=self.timeout)
                except requests.RequestException:
                    continue
                if answer.status_code == 200:
                    self.updates.append(key)
                    break

    def increment(self):
        # Compare-and-set on the ETag: an increment is acknowledged only if nothing changed the
        # counter between its read and its write, whichever node answers.
        session = requests.Session()
        while not self.stopping.is_set():
            for node in self.nodes:
                try:
                    read = session.get(
                        url(node, self.ns, "counter"), headers={**OWNER, "X-Firebase-ETag": "true"}, timeout=self.timeout)
                    if read.status_code != 200:
                        continue
                    written = session.put(
                        url(node, self.ns, "counter"), json=read.json() + 1,
                        headers={**OWNER, "if-match": read.headers["ETag"]}, timeout=self.timeout)
                except requests.RequestException:
                    continue
                if written.status_code == 200:
                    self.increments.append(written.json())
                break

    def seconds_until_more(self, since, count, within):
        """Waits until `count` more sets than at `since` (a monotonic time) were acknowledged, at
        most `within` seconds; returns the seconds from `since`. The writers go on a second more,
        then stop."""
        target = len(self.sets) + count
        while len(self.sets) < target and time.monotonic() < since + within:
            time.sleep(0.05)
        waited = time.monotonic() - since
        time.sleep(1)
        self.stop()
        return waited

    def stop(self):
        self.stopping.set()
        for thread in self.threads:
            thread.join(timeout=60)

    def check(self, tree):
        """Every acknowledged write is in `tree`, once; nothing is there that was never written."""
        assert set(self.sets) <= set(tree["sets"])
        assert set(self.updates) <= set(tree["pairs"]["left"])
        assert tree["pairs"]["left"] == tree["pairs"]["right"]
        # No two acknowledged compare-and-sets wrote the same value (none committed on a stale
        # read), and none acknowledged was lost; an increment that committed unanswered (its node
        # died, its answer was lost) is the only kind the acknowledgements miss, one per thread.
        assert self.increments and len(set(self.increments)) == len(self.increments)
        assert max(self.increments) <= tree["counter"] <= max(self.increments) + 2


def test_writes_acknowledged_before_the_owner_is_killed_survive_on_the_other_node(cluster, postgres):
    first, second = cluster
    ns = namespace()
    database = database_of(first)
    writers = ConcurrentWriters([first, second], ns)
    time.sleep(2)
    before = len(writers.sets)
    first.stop(signal.SIGKILL)
    killed = time.monotonic()
    # Writes go on through the other node once it has taken the namespace over.
    resumed = writers.seconds_until_more(killed, 20, within=20)

    assert before > 0
    assert resumed < 5, f"writable again after {resumed:.1f} s"
    assert owner_epoch(postgres, ns, database) == "2"
    writers.check(requests.get(url(second, ns, ""), headers=OWNER).json())


def test_postgres_stopped_at_once_under_concurrent_writes_loses_nothing_acknowledged(cluster, postgres):
    first, second = cluster
    ns = namespace()
    # A commit waits up to 30 s for its answer while PostgreSQL is down.
    writers = ConcurrentWriters([first, second], ns, timeout=60)
    time.sleep(2)
    before = len(writers.sets)
    # An immediate shutdown is a crash: no checkpoint, recovery from the WAL at the next start.
    postgres.pg_ctl("stop", "-m", "immediate")
    time.sleep(2)
    during = len(writers.sets)
    postgres.pg_ctl("start")
    resumed = writers.seconds_until_more(time.monotonic(), 20, within=40)

    assert before > 0
    assert len(writers.sets) >= during + 20, f"writes did not resume ({resumed:.1f} s after the restart)"
    writers.check(requests.get(url(second, ns, ""), headers=OWNER).json())


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


def test_on_disconnect_writes_of_an_owner_that_lost_its_namespace_reach_the_new_owner(cluster):
    first, second = cluster
    ns = namespace()
    assert requests.put(url(first, ns, "presence/me"), json="online", headers=OWNER).status_code == 200
    client = RealtimeClient(first, ns)
    _, answer = client.call("auth", {"cred": "owner"})
    assert answer["s"] == "ok"
    _, answer = client.call("o", {"p": "/presence/me", "d": "offline"})
    assert answer == {"s": "ok", "d": ""}
    # The owner pauses past its lease; the other node takes the namespace over.
    first.process.send_signal(signal.SIGSTOP)
    time.sleep(LEASE + 1)
    assert requests.put(url(second, ns, "taken"), json=True, headers=OWNER, timeout=10).status_code == 200
    first.process.send_signal(signal.SIGCONT)
    # Back, the old owner finds the namespace lost and ends the connection: its onDisconnect
    # write goes to the new owner.
    deadline = time.monotonic() + 15
    while requests.get(url(second, ns, "presence/me"), headers=OWNER).json() != "offline":
        assert time.monotonic() < deadline, "the onDisconnect write was lost"
        time.sleep(0.1)
    client.close()


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


@pytest.mark.parametrize("arguments, refusal", [
    (["--advertise", "a.internal:9000"], "--advertise needs --postgres"),
    (["--blob-dir", "/tmp"], "--blob-dir needs --postgres"),
    (["--relay"], "--relay needs --postgres"),
    (["--postgres", "mysql://x@y/z"], "--postgres:"),
    (["--postgres", "postgres://x@127.0.0.1/z", "--advertise", "nowhere"], "--advertise must be host:port"),
    (["--postgres", "postgres://x@127.0.0.1/z", "--port", "0"], "needs --advertise host:port"),
    (["--postgres", "postgres://x@127.0.0.1/z", "--backup-dir", "/tmp/hearth-backups"], "--log-archive and --backup-dir"),
    (["--postgres", "postgres://x@127.0.0.1/z", "--relay", "--tls-cert", "c.pem", "--tls-key", "k.pem"],
     "--relay links nodes over plain HTTP"),
])
def test_serve_refuses_cluster_flags_that_cannot_work(tmp_path, arguments, refusal):
    started = subprocess.run(
        [HEARTH_BIN, "serve", "--data-dir", str(tmp_path), "--no-console", *arguments],
        capture_output=True, text=True, timeout=60, env={**os.environ, "HEARTH_POSTGRES_URL": ""})
    assert started.returncode != 0
    assert refusal in started.stderr, started.stderr
    # Refused before anything was made.
    assert os.listdir(tmp_path) == []
