"""What the console's requests and traffic views read: `/metrics` in Prometheus's text format
(parsed by Prometheus's own Python client), the live feed of requests with each rules denial
explained, and the listeners and denials of `/console/traffic`."""

import json
import time
import uuid

import requests
from prometheus_client.parser import text_string_to_metric_families

from conftest import PROJECT
from console_feed import Feed
from realtime_client import RealtimeClient
from tokens import mock_id_token

TIMEOUT = 30
RULES = {"rules": {".read": True, "users": {"$uid": {
    ".write": "auth != null && auth.uid == $uid", ".validate": "newData.hasChildren(['name'])"}}}}


def metrics(server):
    """`{(name, labels): value}` of the server's `/metrics`."""
    response = requests.get(f"{server.url}/metrics", timeout=TIMEOUT)
    assert response.status_code == 200, response.text
    assert response.headers["Content-Type"].startswith("text/plain; version=0.0.4")
    samples = {}
    for family in text_string_to_metric_families(response.text):
        for sample in family.samples:
            samples[(sample.name, tuple(sorted(sample.labels.items())))] = sample.value
    return samples


def value(samples, name, **labels):
    return samples.get((name, tuple(sorted(labels.items()))), 0)


def namespace_with_rules(server):
    namespace = f"activity-{uuid.uuid4().hex[:10]}"
    response = requests.put(f"{server.url}/.settings/rules.json?ns={namespace}", data=json.dumps(RULES),
                            headers={"Authorization": "Bearer owner"}, timeout=TIMEOUT)
    assert response.ok, response.text
    return namespace


def test_metrics_count_writes_reads_requests_and_bytes(console_hearth):
    before = metrics(console_hearth)
    path = f"counted/{uuid.uuid4().hex}"
    for index in range(3):
        assert requests.put(f"{console_hearth.url}/{path}/{index}.json", json=index, timeout=TIMEOUT).ok
    assert requests.get(f"{console_hearth.url}/{path}.json", timeout=TIMEOUT).json() == [0, 1, 2]
    after = metrics(console_hearth)
    assert value(after, "hearth_database_writes_total") - value(before, "hearth_database_writes_total") == 3
    assert value(after, "hearth_database_reads_total") - value(before, "hearth_database_reads_total") == 1
    ok = ("hearth_http_requests_total", {"product": "database", "code": "2xx"})
    assert value(after, ok[0], **ok[1]) - value(before, ok[0], **ok[1]) == 4
    assert value(after, "hearth_received_bytes_total") > value(before, "hearth_received_bytes_total")
    assert value(after, "hearth_sent_bytes_total") > value(before, "hearth_sent_bytes_total")
    assert value(after, "hearth_connections") >= 1


def test_metrics_follow_listeners_and_realtime_sessions(console_hearth):
    baseline = metrics(console_hearth)
    client = RealtimeClient(console_hearth, f"{PROJECT}-default-rtdb")
    try:
        _, answer = client.call("q", {"p": f"/listened/{uuid.uuid4().hex}", "h": ""})
        assert answer["s"] == "ok"
        during = metrics(console_hearth)
        assert value(during, "hearth_database_listeners") == value(baseline, "hearth_database_listeners") + 1
        assert value(during, "hearth_realtime_sessions") == value(baseline, "hearth_realtime_sessions") + 1
        assert value(during, "hearth_realtime_messages_total") >= value(baseline, "hearth_realtime_messages_total") + 1
    finally:
        client.close()
    deadline = time.time() + 10
    while value(metrics(console_hearth), "hearth_database_listeners") != value(baseline, "hearth_database_listeners"):
        assert time.time() < deadline, "the listener of a closed connection still counted"
        time.sleep(0.05)


def test_metrics_refuse_other_methods_and_leave_nothing_behind(console_hearth):
    response = requests.post(f"{console_hearth.url}/metrics", data="x", timeout=TIMEOUT)
    assert response.status_code == 405 and response.headers["Allow"] == "GET, HEAD"
    assert requests.get(f"{console_hearth.url}/metrics.json", timeout=TIMEOUT).json() is None


def test_the_feed_explains_a_rest_denial_with_the_deciding_rule_and_a_replay(console_hearth):
    namespace = namespace_with_rules(console_hearth)
    feed = Feed(console_hearth)
    try:
        token = mock_id_token("bob")
        refused = requests.put(f"{console_hearth.url}/users/alice.json?ns={namespace}", json={"name": "Eve"},
                               headers={"Authorization": f"Bearer {token}"}, timeout=TIMEOUT)
        assert refused.status_code == 401
        record = feed.next(lambda r: r["path"] == "/users/alice.json" and r["method"] == "PUT")
        assert record["product"] == "database" and record["transport"] == "http"
        assert record["status"] == "401" and record["failed"] is True and record["user"] == "bob"
        assert record["console"] is False and record["micros"] >= 0
        denial = record["denial"]
        assert denial["namespace"] == namespace and denial["operation"] == "write" and denial["paths"] == ["/users/alice"]
        assert denial["auth"]["uid"] == "bob"
        [rule] = denial["evaluations"]
        assert rule["kind"] == ".write" and rule["source"] == "auth != null && auth.uid == $uid"
        assert rule["outcome"] == "false" and rule["variables"] == {"$uid": "alice"}
        assert rule["newData"] == '{"name":"Eve"}' and rule["data"] == "null"
        assert denial["replay"] == {"operation": "set", "path": "/users/alice", "value": '{"name":"Eve"}'}

        allowed = requests.put(f"{console_hearth.url}/users/alice.json?ns={namespace}", json={"name": "Alice"},
                               headers={"Authorization": f"Bearer {mock_id_token('alice')}"}, timeout=TIMEOUT)
        assert allowed.ok
        record = feed.next(lambda r: r["path"] == "/users/alice.json" and r["method"] == "PUT")
        assert record["status"] == "200" and record["user"] == "alice" and "denial" not in record
    finally:
        feed.close()


def test_the_feed_explains_a_failed_validation_over_the_realtime_protocol(console_hearth):
    namespace = namespace_with_rules(console_hearth)
    feed = Feed(console_hearth)
    client = RealtimeClient(console_hearth, namespace)
    try:
        _, answer = client.call("auth", {"cred": mock_id_token("alice")})
        assert answer["s"] == "ok"
        _, answer = client.call("m", {"p": "/users/alice", "d": {"age": 3}})
        assert answer["s"] == "permission_denied"
        record = feed.next(lambda r: r["transport"] == "realtime" and r["method"] == "update")
        assert record["path"] == "/users/alice" and record["status"] == "permission_denied"
        assert record["user"] == "alice" and record["namespace"] == namespace
        evaluations = record["denial"]["evaluations"]
        assert [(e["kind"], e["outcome"]) for e in evaluations] == [(".write", "true"), (".validate", "false")]
        assert record["denial"]["replay"] == {"operation": "update", "path": "/users/alice", "value": '{"age":3}'}
    finally:
        client.close()
        feed.close()


def test_the_feed_marks_the_consoles_own_requests(console_hearth):
    feed = Feed(console_hearth)
    try:
        token = requests.get(f"{console_hearth.console_url}/console/session", timeout=TIMEOUT).json()["csrfToken"]
        response = requests.get(f"{console_hearth.console_url}/console/api/feed-mark.json",
                                headers={"X-Hearth-CSRF": token}, timeout=TIMEOUT)
        assert response.ok
        record = feed.next(lambda r: r["path"] == "/feed-mark.json")
        assert record["console"] is True and record["user"] == "admin"
    finally:
        feed.close()


def test_traffic_lists_listeners_by_query_with_unindexed_ones_flagged_and_denials_by_path(console_hearth):
    namespace = namespace_with_rules(console_hearth)
    client = RealtimeClient(console_hearth, namespace)
    try:
        query = {"i": "score", "l": 5, "vf": "r"}
        _, answer = client.call("q", {"p": "/users", "q": query, "t": 1, "h": ""})
        assert answer["s"] == "ok"
        requests.put(f"{console_hearth.url}/users/carol.json?ns={namespace}", json={"name": "C"}, timeout=TIMEOUT)
        traffic = requests.get(f"{console_hearth.console_url}/console/traffic", timeout=TIMEOUT).json()
        [listener] = [entry for entry in traffic["listeners"] if entry["namespace"] == namespace]
        assert listener == {"namespace": namespace, "path": "/users", "query": 'orderBy="score"&limitToLast=5',
                            "unindexed": True, "listeners": 1}
        assert {"product": "database", "path": f"{namespace}:/users/carol", "count": 1} in traffic["denials"]
    finally:
        client.close()
