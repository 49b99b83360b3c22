"""Query-based read rules, the pattern Firebase documents: a `.read` rule that reads `query.*`
grants exactly the queries it describes, on every entry point — REST, event streams, realtime
listens and gets over WebSocket, and long-polling — and what is returned is the query's window
and nothing else."""

import json
import uuid

import pytest
import requests

from conftest import OWNER, set_rules
from long_poll_client import LongPollClient
from realtime_client import RealtimeClient
from tokens import mock_id_token

RULES = json.dumps({"rules": {
    # Each user reads only the notes they own, by asking for exactly those.
    "notes": {".indexOn": ["owner"],
              ".read": "auth != null && query.orderByChild == 'owner' && query.equalTo == auth.uid"},
    # At most 100 entries at a time.
    "scores": {".indexOn": ["score"], ".read": "query.orderByChild == 'score' && query.limitToFirst <= 100"},
    # Only a range inside [10, 20].
    "ranges": {".indexOn": ["score"],
               ".read": "query.orderByChild == 'score' && query.startAt >= 10 && query.endAt <= 20"},
    # Any read ordered by score, but not a plain read.
    "ranked": {".indexOn": ["score"], ".read": "query.orderByChild == 'score'"},
}})

NOTES = {"n1": {"owner": "alice", "text": "milk"}, "n2": {"owner": "bob", "text": "eggs"},
         "n3": {"owner": "alice", "text": "bread"}}
SCORES = {"a": {"score": 5}, "b": {"score": 12}, "c": {"score": 20}, "d": {"score": 25}, "e": {"score": 1}}

ALICE = mock_id_token("alice")
BOB = mock_id_token("bob")
DENIED = "permission denied"


@pytest.fixture(scope="module")
def namespace(hearth):
    name = f"query-rules-{uuid.uuid4().hex[:12]}"
    set_rules(hearth, RULES, name)
    data = {"notes": NOTES, "scores": SCORES, "ranges": SCORES, "ranked": SCORES}
    seeded = requests.put(f"{hearth.url}/.json", params={"ns": name}, headers=OWNER, json=data, timeout=10)
    assert seeded.status_code == 200, seeded.text
    return name


# Queries are written as the SDK calls that make them: {"orderBy": "owner", "equalTo": "alice"}.

def rest_parameters(query):
    """REST query parameters: JSON-encoded values (`orderBy="owner"&equalTo="alice"`)."""
    return {name: json.dumps(value) for name, value in query.items()}


def wire_query(query):
    """The realtime protocol's query object (§7.1); `{}` for a plain read."""
    wire = {"i": query["orderBy"]} if "orderBy" in query else {}
    if "equalTo" in query:
        wire.update(sp=query["equalTo"], ep=query["equalTo"])
    if "startAt" in query:
        wire["sp"] = query["startAt"]
    if "endAt" in query:
        wire["ep"] = query["endAt"]
    if "limitToFirst" in query:
        wire.update(l=query["limitToFirst"], vf="l")
    if "limitToLast" in query:
        wire.update(l=query["limitToLast"], vf="r")
    return wire


def filters(query):
    return bool(set(query) - {"orderBy"})


# Each way of reading returns the data it was given, or DENIED.

def rest_get(hearth, namespace, path, query, token):
    params = {"ns": namespace, **rest_parameters(query)}
    if token:
        params["auth"] = token
    response = requests.get(f"{hearth.url}/{path}.json", params=params, timeout=10)
    return rest_outcome(response)


def event_stream(hearth, namespace, path, query, token):
    """The first event of a stream of the query: a `put` at `/` with the window."""
    params = {"ns": namespace, **rest_parameters(query)}
    if token:
        params["auth"] = token
    with requests.get(f"{hearth.url}/{path}.json", params=params, headers={"Accept": "text/event-stream"},
                      stream=True, timeout=10) as response:
        if response.status_code != 200:
            return rest_outcome(response)
        lines = response.iter_lines(decode_unicode=True)
        assert next(lines) == "event: put"
        event = json.loads(next(lines).removeprefix("data: "))
        assert event["path"] == "/"
        return event["data"]


def rest_outcome(response):
    if response.status_code == 401:
        assert response.json() == {"error": "Permission denied"}
        return DENIED
    assert response.status_code == 200, response.text
    return response.json()


def realtime_listen(hearth, namespace, path, query, token):
    client = RealtimeClient(hearth, namespace)
    try:
        return listen(client.call, path, query, token)
    finally:
        client.close()


def realtime_get(hearth, namespace, path, query, token):
    client = RealtimeClient(hearth, namespace)
    try:
        sign_in(client.call, token)
        pushes, response = client.call("g", {"p": f"/{path}", "q": wire_query(query)})
        assert pushes == []
        if response["s"] == "permission_denied":
            assert response["d"] == "Permission denied"
            return DENIED
        assert response["s"] == "ok", response
        return response["d"]
    finally:
        client.close()


def long_poll_listen(hearth, namespace, path, query, token):
    client = LongPollClient(hearth, namespace)
    try:
        assert client.receive()["d"]["t"] == "h"
        return listen(LongPollCalls(client).call, path, query, token)
    finally:
        client.close()


class LongPollCalls:
    """Requests over a long-polling client, answered as ``RealtimeClient.call`` answers them."""

    def __init__(self, client):
        self.client = client
        self.next_request = 0

    def call(self, action, body):
        self.next_request += 1
        self.client.send({"t": "d", "d": {"r": self.next_request, "a": action, "b": body}})
        pushes = []
        while True:
            message = self.client.receive()
            if message["t"] == "d" and message["d"].get("r") == self.next_request:
                return pushes, message["d"]["b"]
            pushes.append(message)


def sign_in(call, token):
    if token:
        _, response = call("auth", {"cred": token})
        assert response["s"] == "ok", response


def listen(call, path, query, token):
    """A listen as the SDKs send it: tagged with the query when it filters, a default listen when
    it only orders. The data comes before the ok (§5.4)."""
    sign_in(call, token)
    body = {"p": f"/{path}", "h": ""}
    if filters(query):
        body.update(q=wire_query(query), t=1)
    pushes, response = call("q", body)
    if response["s"] == "permission_denied":
        assert response["d"] == "Permission denied"
        assert pushes == []
        return DENIED
    assert response == {"s": "ok", "d": {}}
    assert len(pushes) == 1, pushes
    data = pushes[0]["d"]
    assert data["a"] == "d" and data["b"]["p"] == path and data["b"].get("t") == body.get("t"), data
    return data["b"]["d"]


TRANSPORTS = [rest_get, event_stream, realtime_listen, realtime_get, long_poll_listen]
ONE_SHOT_READS = [rest_get, event_stream, realtime_get]


def transports(functions):
    return pytest.mark.parametrize("read", functions, ids=[function.__name__ for function in functions])


@transports(TRANSPORTS)
def test_a_user_reads_the_notes_they_own_by_asking_for_them(hearth, namespace, read):
    """alice, ordering by owner and filtering on her own uid, gets her notes and no one else's."""
    query = {"orderBy": "owner", "equalTo": "alice"}
    assert read(hearth, namespace, "notes", query, ALICE) == {"n1": NOTES["n1"], "n3": NOTES["n3"]}


@transports(TRANSPORTS)
@pytest.mark.parametrize("query, token", [
    ({"orderBy": "owner"}, ALICE),
    ({"orderBy": "owner", "equalTo": "bob"}, ALICE),
    ({"orderBy": "owner", "equalTo": "alice"}, BOB),
    ({"orderBy": "owner", "equalTo": "alice"}, None),
], ids=["without equalTo", "another uid", "as another user", "signed out"])
def test_notes_of_others_are_denied(hearth, namespace, read, query, token):
    """A query that is not exactly "my notes" is refused as a whole: rules are not filters."""
    assert read(hearth, namespace, "notes", query, token) == DENIED


@transports(TRANSPORTS)
def test_a_bounded_page_of_scores_is_allowed(hearth, namespace, read):
    """limitToFirst within the rule's bound: the lowest scores, as many as asked for."""
    query = {"orderBy": "score", "limitToFirst": 3}
    assert read(hearth, namespace, "scores", query, None) == {"e": {"score": 1}, "a": {"score": 5}, "b": {"score": 12}}


@transports(TRANSPORTS)
@pytest.mark.parametrize("query", [
    {"orderBy": "score", "limitToFirst": 200},
    {"orderBy": "score", "limitToLast": 3},
    {"orderBy": "score"},
], ids=["over the bound", "limitToLast", "no limit"])
def test_an_unbounded_or_too_large_page_of_scores_is_denied(hearth, namespace, read, query):
    """`query.limitToFirst <= 100` refuses larger limits, and fails (denies) when there is none."""
    assert read(hearth, namespace, "scores", query, None) == DENIED


@transports(TRANSPORTS)
def test_a_range_inside_the_allowed_bounds_is_allowed(hearth, namespace, read):
    """startAt/endAt within [10, 20]: the entries in that range, both bounds included."""
    query = {"orderBy": "score", "startAt": 10, "endAt": 20}
    assert read(hearth, namespace, "ranges", query, None) == {"b": {"score": 12}, "c": {"score": 20}}


@transports(TRANSPORTS)
@pytest.mark.parametrize("query", [
    {"orderBy": "score", "startAt": 5, "endAt": 20},
    {"orderBy": "score", "startAt": 10, "endAt": 25},
    {"orderBy": "score", "startAt": 10},
], ids=["starts too low", "ends too high", "open-ended"])
def test_a_range_beyond_the_allowed_bounds_is_denied(hearth, namespace, read, query):
    """A range reaching outside [10, 20], or without an end, is refused."""
    assert read(hearth, namespace, "ranges", query, None) == DENIED


@transports(ONE_SHOT_READS)
def test_a_read_that_only_orders_is_authorised_as_that_query(hearth, namespace, read):
    """Ordering by a child without filtering is still a query: `query.orderByChild` is that child,
    and the whole location is returned."""
    assert read(hearth, namespace, "ranked", {"orderBy": "score"}, None) == SCORES


@transports(ONE_SHOT_READS)
def test_a_plain_read_is_not_a_query(hearth, namespace, read):
    """Without orderBy, `query.orderByChild` is null: a rule that requires an order denies it."""
    assert read(hearth, namespace, "ranked", {}, None) == DENIED
