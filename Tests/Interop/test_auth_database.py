"""The Realtime Database trusts only verified tokens from Hearth's own Authentication.

Development mode believes any JWT until its `exp`: when it passes, a realtime connection gets an
`ac` push (`expired_token`) and then acts signed out (listens it may no longer read get `c`), and an
event stream gets `auth_revoked` and ends; `owner` stays admin. Production mode (`--production`)
trusts only ID tokens Hearth signed, for users that still exist and whose tokens were not revoked:
with the to-do seed's rules a signed-up user reads and writes only `users/<own uid>` over REST, event
streams and WebSocket; unsigned and tampered tokens are refused; a password change or an account
deletion revokes the sessions holding the older token.
"""

import json
import time

import pytest
import requests

from auth_client import b64url, b64url_decode, decode_jwt, unique_email
from conftest import OWNER, PROJECT, HearthProcess, database_secret, set_rules
from realtime_client import RealtimeClient, unique_namespace
from tokens import mock_id_token

DEFAULT_NAMESPACE = f"{PROJECT}-default-rtdb"
IDENTITY_TOOLKIT = "/identitytoolkit.googleapis.com/v1/accounts"

# The to-do seed's rules: each user owns users/<uid>; item titles must be non-empty strings.
TODO_RULES = json.dumps({"rules": {"users": {"$uid": {
    ".read": "auth != null && auth.uid == $uid",
    ".write": "auth != null && auth.uid == $uid",
    "items": {"$item_id": {"title": {".validate": "newData.isString() && newData.val().length > 0"}}},
}}}})

DENIED = {"error": "Permission denied"}
EXPIRED = {"s": "expired_token", "d": "Auth token is expired."}


# Helpers


def rest(server, method, path, token=None, namespace=DEFAULT_NAMESPACE, **kwargs):
    params = {"ns": namespace}
    if token:
        params["auth"] = token
    return requests.request(method, f"{server.url}/{path}.json", params=params, timeout=10, **kwargs)


def identity(server, op, body):
    """`POST /identitytoolkit.googleapis.com/v1/accounts:{op}?key=any`; the body of its 200 answer."""
    response = requests.post(f"{server.url}{IDENTITY_TOOLKIT}:{op}", params={"key": "any"}, json=body, timeout=30)
    assert response.status_code == 200, f"accounts:{op} → {response.status_code} {response.text}"
    return response.json()


def new_user(server):
    """A new email/password user: (uid, idToken)."""
    body = identity(server, "signUp", {"email": unique_email(), "password": "secret1", "returnSecureToken": True})
    return body["localId"], body["idToken"]


def tampered(token, **changes):
    """`token` with claims of its payload changed; header and signature kept as they were."""
    header, payload, signature = token.split(".")
    claims = json.loads(b64url_decode(payload))
    claims.update(changes)
    return f"{header}.{b64url(json.dumps(claims))}.{signature}"


def authenticate(client, token):
    """The response body of a realtime `auth` request (no pushes may precede it)."""
    pushes, response = client.call("auth", {"cred": token})
    assert pushes == [], pushes
    return response


def listen(client, path, action="q"):
    """A default listen on `path` (`q`, or the older `l`); returns the data pushes that preceded its `ok`."""
    pushes, response = client.call(action, {"p": f"/{path}", "h": ""})
    assert response["s"] == "ok", response
    return [push["d"] for push in pushes]


def pushes_until(client, action, seconds=5, others=()):
    """The data pushes `client` receives up to and including the first `action` push, plus any that
    arrive within a short grace period after it. Meanwhile `client` and `others` send the keepalive
    frame `0`, so that the suite's 2 s silence limit does not end them."""
    pushes = []
    deadline = time.monotonic() + seconds
    settle = None
    while True:
        now = time.monotonic()
        if settle is None and now > deadline:
            raise AssertionError(f"no {action!r} push within {seconds} s; received {pushes}")
        if settle is not None and now > settle:
            return pushes
        for connection in (client, *others):
            connection.send_text("0")
        try:
            message = client.receive(timeout=0.3)
        except TimeoutError:
            continue
        assert message["t"] == "d" and "r" not in message["d"], message
        pushes.append(message["d"])
        if settle is None and message["d"]["a"] == action:
            settle = time.monotonic() + 0.5


def assert_revoked_then_listen_cancelled(pushes, uid):
    """`ac` with `invalid_token` (and some reason), then `c` for the listen on users/<uid>."""
    assert [push["a"] for push in pushes] == ["ac", "c"], pushes
    assert pushes[0]["b"]["s"] == "invalid_token", pushes
    assert isinstance(pushes[0]["b"]["d"], str) and pushes[0]["b"]["d"], pushes
    assert pushes[1]["b"] == {"p": f"users/{uid}"}, pushes


def open_stream(server, path, token):
    """`GET <path>.json?auth=<token>` with `Accept: text/event-stream`: the streaming response."""
    return requests.get(f"{server.url}/{path}.json", params={"ns": DEFAULT_NAMESPACE, "auth": token},
                        headers={"Accept": "text/event-stream"}, stream=True, timeout=10)


class Stream:
    """An event stream being read: its events (name, data) other than keep-alives."""

    def __init__(self, response):
        assert response.status_code == 200, response.text
        self.response = response
        self.lines = response.iter_lines(decode_unicode=True)

    def next_event(self, seconds=5):
        """The next event other than keep-alive, or None when the stream ends. The suite's server
        sends a keep-alive every 0.5 s, so the deadline is checked often."""
        deadline = time.monotonic() + seconds
        name = None
        for line in self.lines:
            if time.monotonic() > deadline:
                raise AssertionError(f"no event within {seconds} s")
            if line.startswith("event: "):
                name = line[len("event: "):]
            elif line.startswith("data: ") and name != "keep-alive":
                data = line[len("data: "):]
                return name, (data if name == "auth_revoked" else json.loads(data))
        return None

    def close(self):
        self.response.close()


def assert_revoked_stream(stream, seconds=5):
    """`auth_revoked` with the text the Python Admin SDK matches, and then the stream ends."""
    assert stream.next_event(seconds) == ("auth_revoked", "credential is no longer valid")
    assert stream.next_event() is None


# Development mode: any JWT is believed until its exp.


@pytest.fixture
def dev_namespace(hearth):
    namespace = unique_namespace()
    set_rules(hearth, TODO_RULES, namespace)
    return namespace


def test_realtime_auth_with_an_expired_token_is_refused_as_expired(hearth, dev_namespace):
    now = int(time.time())
    expired = mock_id_token("alice", iat=now - 20, auth_time=now - 20, exp=now - 10)
    client = RealtimeClient(hearth, dev_namespace)
    try:
        assert authenticate(client, expired) == EXPIRED
        # The connection stays signed out.
        _, read = client.call("g", {"p": "/users/alice"})
        assert read["s"] == "permission_denied"
    finally:
        client.close()
    response = rest(hearth, "GET", "users/alice", expired, dev_namespace)
    assert (response.status_code, response.json()) == (401, {"error": "Auth token is expired."})


def test_realtime_connection_gets_ac_then_c_when_its_token_expires_and_owner_stays_admin(hearth, dev_namespace):
    exp = int(time.time()) + 2
    client = RealtimeClient(hearth, dev_namespace)
    owner = RealtimeClient(hearth, dev_namespace)
    try:
        response = authenticate(client, mock_id_token("alice", exp=exp))
        assert response["s"] == "ok", response
        assert response["d"]["auth"]["uid"] == "alice" and response["d"]["expires"] == exp
        _, put = client.call("p", {"p": "/users/alice/items/i1", "d": {"title": "Milk"}})
        assert put == {"s": "ok", "d": ""}
        assert listen(client, "users/alice") == [{"a": "d", "b": {"p": "users/alice",
                                                                  "d": {"items": {"i1": {"title": "Milk"}}}}}]
        _, owner_auth = owner.call("gauth", {"cred": "owner"})
        assert owner_auth["s"] == "ok" and owner_auth["d"]["auth"] is None
        listen(owner, "users/alice")

        pushes = pushes_until(client, "ac", seconds=6, others=[owner])
        assert time.time() >= exp
        # First ac, then the listen the connection may no longer read is revoked.
        assert pushes == [{"a": "ac", "b": EXPIRED}, {"a": "c", "b": {"p": "users/alice"}}]
        _, read = client.call("g", {"p": "/users/alice"})
        assert read["s"] == "permission_denied"
        _, write = client.call("p", {"p": "/users/alice/items/i2", "d": {"title": "Eggs"}})
        assert write["s"] == "permission_denied"

        # The owner connection was not signed out: it writes past the rules and its listen goes on.
        owner_pushes, owner_put = owner.call("p", {"p": "/users/alice/items/i3", "d": {"title": "Bread"}})
        assert owner_put == {"s": "ok", "d": ""}
        assert [push["d"] for push in owner_pushes] == [
            {"a": "d", "b": {"p": "users/alice/items/i3", "d": {"title": "Bread"}}}]
        # The revoked listen got nothing of it.
        client.expect_silence()
    finally:
        client.close()
        owner.close()
    assert requests.get(f"{hearth.url}/users/alice/items.json", params={"ns": dev_namespace}, headers=OWNER,
                        timeout=10).json() == {"i1": {"title": "Milk"}, "i3": {"title": "Bread"}}


def test_event_stream_gets_auth_revoked_and_ends_when_its_token_expires(hearth, dev_namespace):
    exp = int(time.time()) + 2
    response = requests.get(f"{hearth.url}/users/alice.json",
                            params={"ns": dev_namespace, "auth": mock_id_token("alice", exp=exp)},
                            headers={"Accept": "text/event-stream"}, stream=True, timeout=10)
    stream = Stream(response)
    try:
        assert stream.next_event() == ("put", {"path": "/", "data": None})
        assert_revoked_stream(stream, seconds=6)
        assert time.time() >= exp
    finally:
        stream.close()


# Production mode: only tokens Hearth signed.


class Production:
    def __init__(self, server, secret):
        self.server = server
        self.secret = secret

    def admin_value(self, path):
        response = rest(self.server, "GET", path, self.secret)
        assert response.status_code == 200, response.text
        return response.json()


@pytest.fixture(scope="module")
def production():
    server = HearthProcess(extra_args=["--production"])
    secret = database_secret(server.data_dir)
    server.start()
    try:
        refused = requests.put(f"{server.url}/.settings/rules.json", data=TODO_RULES, headers=OWNER, timeout=10)
        assert refused.status_code == 401, refused.text
        response = requests.put(f"{server.url}/.settings/rules.json", params={"auth": secret}, data=TODO_RULES,
                                timeout=10)
        assert response.status_code == 200, response.text
        yield Production(server, secret)
    finally:
        server.stop()
        server.remove_data()


def test_production_rules_are_set_with_the_database_secret_and_not_owner(production):
    server = production.server
    response = requests.get(f"{server.url}/.settings/rules.json", params={"auth": production.secret}, timeout=10)
    assert response.status_code == 200 and json.loads(response.text) == json.loads(TODO_RULES)
    assert requests.get(f"{server.url}/.settings/rules.json", headers=OWNER, timeout=10).status_code == 401
    assert rest(server, "GET", "users", "owner").status_code == 401


def test_signed_up_user_reads_and_writes_only_their_own_record_over_rest(production):
    server = production.server
    (alice, alice_token), (bob, bob_token) = new_user(server), new_user(server)
    put = rest(server, "PUT", f"users/{alice}/items/i1", alice_token, json={"title": "Milk"})
    assert put.status_code == 200, put.text
    assert rest(server, "GET", f"users/{alice}/items/i1/title", alice_token).json() == "Milk"
    assert rest(server, "PUT", f"users/{bob}/name", bob_token, json="Bob").status_code == 200

    for response in [
        rest(server, "GET", f"users/{alice}", bob_token),
        rest(server, "PUT", f"users/{alice}/items/i2", bob_token, json={"title": "Stolen"}),
        rest(server, "PATCH", f"users/{bob}", alice_token, json={"name": "Mallory"}),
        rest(server, "GET", f"users/{alice}"),
        rest(server, "GET", "users", alice_token),
        # Validation: an empty title is refused.
        rest(server, "PUT", f"users/{alice}/items/i1/title", alice_token, json=""),
        rest(server, "PUT", f"users/{alice}/items/i3", alice_token, json={"title": ""}),
    ]:
        assert (response.status_code, response.json()) == (401, DENIED), response.request.url
    assert production.admin_value(f"users/{alice}") == {"items": {"i1": {"title": "Milk"}}}
    assert production.admin_value(f"users/{bob}") == {"name": "Bob"}


def test_signed_up_user_streams_only_their_own_record(production):
    server = production.server
    (alice, alice_token), (_, bob_token) = new_user(server), new_user(server)
    denied = open_stream(server, f"users/{alice}", bob_token)
    assert (denied.status_code, denied.json()) == (401, DENIED)
    anonymous = requests.get(f"{server.url}/users/{alice}.json", headers={"Accept": "text/event-stream"},
                             stream=True, timeout=10)
    assert (anonymous.status_code, anonymous.json()) == (401, DENIED)
    stream = Stream(open_stream(server, f"users/{alice}", alice_token))
    try:
        assert stream.next_event() == ("put", {"path": "/", "data": None})
        assert rest(server, "PUT", f"users/{alice}/items/i1", alice_token, json={"title": "Milk"}).status_code == 200
        assert stream.next_event() == ("put", {"path": "/items/i1", "data": {"title": "Milk"}})
    finally:
        stream.close()


def test_signed_up_user_reads_and_writes_only_their_own_record_over_websocket(production):
    server = production.server
    (alice, alice_token), (bob, bob_token) = new_user(server), new_user(server)
    assert rest(server, "PUT", f"users/{bob}/name", bob_token, json="Bob").status_code == 200
    client = RealtimeClient(server, DEFAULT_NAMESPACE)
    try:
        _, before = client.call("g", {"p": f"/users/{alice}"})
        assert before["s"] == "permission_denied"
        response = authenticate(client, alice_token)
        assert response["s"] == "ok", response
        assert response["d"]["auth"]["uid"] == alice and response["d"]["auth"]["provider"] == "password"
        assert response["d"]["expires"] == decode_jwt(alice_token)[1]["exp"]

        assert listen(client, f"users/{alice}", action="l") == []
        pushes, put = client.call("p", {"p": f"/users/{alice}/items/i1", "d": {"title": "Milk"}})
        assert put == {"s": "ok", "d": ""}
        assert [push["d"] for push in pushes] == [
            {"a": "d", "b": {"p": f"users/{alice}/items/i1", "d": {"title": "Milk"}}}]
        pushes, merge = client.call("m", {"p": f"/users/{alice}/items", "d": {"i2/title": "Eggs"}})
        assert merge == {"s": "ok", "d": ""}
        assert [push["d"]["a"] for push in pushes] == ["m"]
        _, read = client.call("g", {"p": f"/users/{alice}/items"})
        assert read == {"s": "ok", "d": {"i1": {"title": "Milk"}, "i2": {"title": "Eggs"}}}

        for action, body in [
            ("q", {"p": f"/users/{bob}", "h": ""}),
            ("l", {"p": f"/users/{bob}", "h": ""}),
            ("g", {"p": f"/users/{bob}"}),
            ("p", {"p": f"/users/{bob}/name", "d": "Mallory"}),
            ("m", {"p": f"/users/{bob}", "d": {"name": "Mallory"}}),
            ("g", {"p": "/users"}),
            # Validation: an empty title is refused, and fails the whole merge.
            ("p", {"p": f"/users/{alice}/items/i3/title", "d": ""}),
            ("m", {"p": f"/users/{alice}/items", "d": {"i4/title": "Jam", "i5/title": ""}}),
        ]:
            pushes, response = client.call(action, body)
            assert response == {"s": "permission_denied", "d": "Permission denied"}, (action, body, response)
            assert pushes == [], (action, body, pushes)
    finally:
        client.close()
    assert production.admin_value(f"users/{alice}") == {"items": {"i1": {"title": "Milk"}, "i2": {"title": "Eggs"}}}
    assert production.admin_value(f"users/{bob}") == {"name": "Bob"}


def test_unsigned_token_of_a_real_user_is_refused(production):
    server = production.server
    alice, _ = new_user(server)
    unsigned = mock_id_token(alice)
    assert rest(server, "GET", f"users/{alice}", unsigned).status_code == 401
    assert rest(server, "PUT", f"users/{alice}/name", unsigned, json="A").status_code == 401
    assert open_stream(server, f"users/{alice}", unsigned).status_code == 401
    client = RealtimeClient(server, DEFAULT_NAMESPACE)
    try:
        response = authenticate(client, unsigned)
        assert response["s"] == "invalid_token", response
        _, read = client.call("g", {"p": f"/users/{alice}"})
        assert read["s"] == "permission_denied"
    finally:
        client.close()
    assert production.admin_value(f"users/{alice}") is None


def test_token_whose_subject_was_tampered_is_refused(production):
    server = production.server
    (_, attacker_token), (victim, victim_token) = new_user(server), new_user(server)
    assert rest(server, "PUT", f"users/{victim}/name", victim_token, json="Victim").status_code == 200
    # Only `sub` changed (the uid rules see), and `sub` and `user_id` both changed.
    for forged in (tampered(attacker_token, sub=victim), tampered(attacker_token, sub=victim, user_id=victim)):
        assert decode_jwt(forged)[1]["sub"] == victim
        assert forged.split(".")[0::2] == attacker_token.split(".")[0::2]
        assert rest(server, "GET", f"users/{victim}", forged).status_code == 401
        assert rest(server, "PUT", f"users/{victim}/name", forged, json="Mallory").status_code == 401
        assert open_stream(server, f"users/{victim}", forged).status_code == 401
        client = RealtimeClient(server, DEFAULT_NAMESPACE)
        try:
            response = authenticate(client, forged)
            assert response["s"] == "invalid_token", response
            _, read = client.call("g", {"p": f"/users/{victim}"})
            assert read["s"] == "permission_denied"
        finally:
            client.close()
    assert production.admin_value(f"users/{victim}") == {"name": "Victim"}


def test_password_change_revokes_sessions_of_older_tokens_and_the_new_token_works(production):
    server = production.server
    uid, old_token = new_user(server)
    signed_up = time.monotonic()
    assert rest(server, "PUT", f"users/{uid}/name", old_token, json="A").status_code == 200
    client = RealtimeClient(server, DEFAULT_NAMESPACE)
    stream = Stream(open_stream(server, f"users/{uid}", old_token))
    try:
        assert authenticate(client, old_token)["s"] == "ok"
        assert listen(client, f"users/{uid}") == [{"a": "d", "b": {"p": f"users/{uid}", "d": {"name": "A"}}}]
        assert stream.next_event() == ("put", {"path": "/", "data": {"name": "A"}})

        # Tokens issued at least a second before the change are revoked.
        time.sleep(max(0.0, 1.1 - (time.monotonic() - signed_up)))
        changed = identity(server, "update", {"idToken": old_token, "password": "newpass1", "returnSecureToken": True})
        new_token = changed["idToken"]
        assert new_token and new_token != old_token

        pushes = pushes_until(client, "ac", seconds=5)
        assert_revoked_then_listen_cancelled(pushes, uid)
        _, read = client.call("g", {"p": f"/users/{uid}"})
        assert read["s"] == "permission_denied"
        assert_revoked_stream(stream)
        old = rest(server, "GET", f"users/{uid}", old_token)
        assert old.status_code == 401
        assert authenticate(client, old_token)["s"] == "invalid_token"

        # The token from the update works everywhere.
        response = authenticate(client, new_token)
        assert response["s"] == "ok" and response["d"]["auth"]["uid"] == uid
        assert listen(client, f"users/{uid}") == [{"a": "d", "b": {"p": f"users/{uid}", "d": {"name": "A"}}}]
        assert rest(server, "PUT", f"users/{uid}/name", new_token, json="B").status_code == 200
        assert client.push() == {"a": "d", "b": {"p": f"users/{uid}/name", "d": "B"}}
        renewed = Stream(open_stream(server, f"users/{uid}", new_token))
        try:
            assert renewed.next_event() == ("put", {"path": "/", "data": {"name": "B"}})
        finally:
            renewed.close()
    finally:
        client.close()
        stream.close()


def test_deleting_the_account_revokes_the_session_holding_its_token(production):
    server = production.server
    uid, token = new_user(server)
    assert rest(server, "PUT", f"users/{uid}/name", token, json="A").status_code == 200
    client = RealtimeClient(server, DEFAULT_NAMESPACE)
    stream = Stream(open_stream(server, f"users/{uid}", token))
    try:
        assert authenticate(client, token)["s"] == "ok"
        listen(client, f"users/{uid}")
        assert stream.next_event() == ("put", {"path": "/", "data": {"name": "A"}})
        identity(server, "delete", {"idToken": token})
        assert_revoked_then_listen_cancelled(pushes_until(client, "ac", seconds=5), uid)
        _, read = client.call("g", {"p": f"/users/{uid}"})
        assert read["s"] == "permission_denied"
        assert_revoked_stream(stream)
    finally:
        client.close()
        stream.close()
    assert rest(server, "GET", f"users/{uid}", token).status_code == 401
