"""Security rules enforced on every entry point, with real clients: raw REST and event streams,
firebase-admin with `databaseAuthVariableOverride`, and the realtime protocol over WebSocket."""

import json
import os
import time
import uuid

import firebase_admin
import pytest
import requests
from firebase_admin import db, exceptions

from conftest import OWNER, PROJECT, HearthProcess, set_rules, sign_up
from realtime_client import RealtimeClient, unique_namespace
from tokens import mock_id_token

# The tutorial rules: each user owns users/<uid>; item titles must be non-empty strings.
TUTORIAL_RULES = """{
  // Only the signed-in owner reads and writes their subtree.
  "rules": {
    "users": {
      "$uid": {
        ".read": "auth != null && auth.uid == $uid",
        ".write": "auth != null && auth.uid == $uid",
        "items": {
          "$item_id": {
            "title": { ".validate": "newData.isString() && newData.val().length > 0" }
          }
        }
      }
    }
  }
}"""

DENIED = {"error": "Permission denied"}
ALICE = mock_id_token("alice")
BOB = mock_id_token("bob")


@pytest.fixture
def namespace(hearth):
    name = f"rules-{uuid.uuid4().hex[:12]}"
    set_rules(hearth, TUTORIAL_RULES, name)
    return name


def rest(hearth, method, path, namespace, token=None, **kwargs):
    params = {"ns": namespace}
    if token:
        params["auth"] = token
    return requests.request(method, f"{hearth.url}/{path}.json", params=params, timeout=10, **kwargs)


def admin_value(hearth, path, namespace):
    response = requests.get(f"{hearth.url}/{path}.json", params={"ns": namespace}, headers=OWNER, timeout=10)
    assert response.status_code == 200
    return response.json()


def test_rest_owner_reads_and_writes_only_their_own_records(hearth, namespace):
    assert rest(hearth, "PUT", "users/alice/items/i1", namespace, ALICE, json={"title": "Milk"}).status_code == 200
    assert rest(hearth, "GET", "users/alice/items/i1/title", namespace, ALICE).json() == "Milk"

    for response in [
        rest(hearth, "GET", "users/alice", namespace),
        rest(hearth, "GET", "users/alice", namespace, BOB),
        rest(hearth, "PUT", "users/alice/items/i1", namespace, BOB, json={"title": "Stolen"}),
        rest(hearth, "DELETE", "users/alice", namespace),
        # Rules are not filters: alice may not read the parent of her record.
        rest(hearth, "GET", "users", namespace, ALICE),
        # A write above the rule that grants is not granted by it.
        rest(hearth, "PUT", "users", namespace, ALICE, json={"alice": {"name": "A"}}),
    ]:
        assert response.status_code == 401
        assert response.json() == DENIED
    assert admin_value(hearth, "users", namespace) == {"alice": {"items": {"i1": {"title": "Milk"}}}}


def test_rest_validation_failures_change_nothing(hearth, namespace):
    assert rest(hearth, "PUT", "users/alice/items/i1", namespace, ALICE, json={"title": "Milk"}).status_code == 200
    empty = rest(hearth, "PUT", "users/alice/items/i1/title", namespace, ALICE, json="")
    assert (empty.status_code, empty.json()) == (401, DENIED)
    number = rest(hearth, "PUT", "users/alice/items/i2", namespace, ALICE, json={"title": 42})
    assert number.status_code == 401
    # One bad entry fails the whole multi-path update.
    patch = rest(hearth, "PATCH", "users/alice/items", namespace, ALICE, json={"i3/title": "Eggs", "i4/title": ""})
    assert patch.status_code == 401
    assert admin_value(hearth, "users/alice/items", namespace) == {"i1": {"title": "Milk"}}
    pushed = rest(hearth, "POST", "users/alice/items", namespace, ALICE, json={"title": "Bread"})
    assert pushed.status_code == 200
    assert admin_value(hearth, f"users/alice/items/{pushed.json()['name']}/title", namespace) == "Bread"
    # Deleting is not validated.
    assert rest(hearth, "DELETE", "users/alice/items/i1/title", namespace, ALICE).status_code == 200


def test_rest_credentials(hearth, namespace):
    garbage = rest(hearth, "GET", "users/alice", namespace, "not-a-token")
    assert (garbage.status_code, garbage.json()) == (401, {"error": "Could not parse auth token."})
    # The admin credential bypasses rules; with an auth override it acts as that user.
    assert requests.get(f"{hearth.url}/users.json", params={"ns": namespace}, headers=OWNER).status_code == 200
    as_bob = requests.get(f"{hearth.url}/users/alice.json", headers=OWNER,
                          params={"ns": namespace, "auth_variable_override": json.dumps({"uid": "bob"})})
    assert as_bob.status_code == 401
    as_alice = requests.get(f"{hearth.url}/users/alice.json", headers=OWNER,
                            params={"ns": namespace, "auth_variable_override": json.dumps({"uid": "alice"})})
    assert as_alice.status_code == 200


def test_event_stream_denied_before_it_starts(hearth, namespace):
    response = requests.get(f"{hearth.url}/users/alice.json", params={"ns": namespace, "auth": BOB},
                            headers={"Accept": "text/event-stream"}, stream=True, timeout=10)
    assert (response.status_code, response.json()) == (401, DENIED)
    allowed = requests.get(f"{hearth.url}/users/alice.json", params={"ns": namespace, "auth": ALICE},
                           headers={"Accept": "text/event-stream"}, stream=True, timeout=10)
    assert allowed.status_code == 200
    first = next(allowed.iter_lines(decode_unicode=True))
    assert first == "event: put"
    allowed.close()


def test_admin_sdk_with_auth_variable_override(hearth, namespace):
    os.environ["FIREBASE_DATABASE_EMULATOR_HOST"] = hearth.host
    url = f"https://{namespace}.firebaseio.com"
    alice_app = firebase_admin.initialize_app(
        options={"projectId": PROJECT, "databaseURL": url, "databaseAuthVariableOverride": {"uid": "alice"}},
        name=f"alice-{namespace}")
    anonymous_app = firebase_admin.initialize_app(
        options={"projectId": PROJECT, "databaseURL": url, "databaseAuthVariableOverride": None},
        name=f"anonymous-{namespace}")
    try:
        items = db.reference("users/alice/items", app=alice_app)
        items.child("i1").set({"title": "Milk"})
        assert items.get() == {"i1": {"title": "Milk"}}
        with pytest.raises(exceptions.UnauthenticatedError, match="Permission denied"):
            db.reference("users/bob", app=alice_app).set({"name": "B"})
        with pytest.raises(exceptions.UnauthenticatedError, match="Permission denied"):
            items.child("i2").set({"title": ""})
        with pytest.raises(exceptions.UnauthenticatedError, match="Permission denied"):
            db.reference("users/alice", app=anonymous_app).get()
        assert admin_value(hearth, "users/alice/items", namespace) == {"i1": {"title": "Milk"}}
    finally:
        firebase_admin.delete_app(alice_app)
        firebase_admin.delete_app(anonymous_app)


def test_realtime_requests_are_checked(hearth):
    namespace = unique_namespace()
    set_rules(hearth, TUTORIAL_RULES, namespace)
    client = RealtimeClient(hearth, namespace)
    try:
        _, denied = client.call("q", {"p": "/users/alice", "h": ""})
        assert denied["s"] == "permission_denied"
        _, auth = client.call("auth", {"cred": ALICE})
        assert auth["s"] == "ok" and auth["d"]["auth"]["uid"] == "alice"
        pushes, ok = client.call("q", {"p": "/users/alice", "h": "stale"})
        assert ok["s"] == "ok" and pushes[0]["d"] == {"a": "d", "b": {"p": "users/alice", "d": None}}
        _, put = client.call("p", {"p": "/users/alice/items/i1", "d": {"title": "Milk"}})
        assert put == {"s": "ok", "d": ""}
        for action, body in [
            ("p", {"p": "/users/bob", "d": {"name": "B"}}),
            ("p", {"p": "/users/alice/items/i2/title", "d": ""}),
            ("m", {"p": "/users/alice/items", "d": {"i3/title": "Eggs", "i4/title": ""}}),
            ("o", {"p": "/users/bob", "d": "gone"}),
            ("om", {"p": "/users", "d": {"bob/x": 1}}),
            ("g", {"p": "/users/bob"}),
            ("q", {"p": "/users", "h": ""}),
        ]:
            _, response = client.call(action, body)
            assert response["s"] == "permission_denied", (action, body, response)
            assert response["d"] == "Permission denied"
        _, unauth = client.call("unauth", {})
        assert unauth["s"] == "ok"
        _, after_signout = client.call("g", {"p": "/users/alice"})
        assert after_signout["s"] == "permission_denied"
    finally:
        client.close()
    assert admin_value(hearth, "users", namespace) == {"alice": {"items": {"i1": {"title": "Milk"}}}}


def test_invalid_rules_are_refused_with_line_and_column(hearth):
    namespace = f"rules-{uuid.uuid4().hex[:12]}"
    set_rules(hearth, TUTORIAL_RULES, namespace)
    bad = '{\n  "rules": {\n    ".read": "skies === \'blue\'"\n  }\n}'
    response = requests.put(f"{hearth.url}/.settings/rules.json", params={"ns": namespace}, data=bad, headers=OWNER)
    assert response.status_code == 400
    assert "Line 3" in response.json()["error"] and "skies" in response.json()["error"]
    kept = requests.get(f"{hearth.url}/.settings/rules.json", params={"ns": namespace}, headers=OWNER)
    assert kept.text == TUTORIAL_RULES
    assert requests.get(f"{hearth.url}/.settings/rules.json", params={"ns": namespace}).status_code == 401


def wait_for(condition, seconds=10):
    deadline = time.time() + seconds
    while time.time() < deadline:
        if condition():
            return True
        time.sleep(0.1)
    return False


def test_rules_file_named_by_firebase_json_is_enforced_and_reloaded(tmp_path):
    (tmp_path / "firebase.json").write_text('{"database": {"rules": "database.rules.json"}}')
    rules_file = tmp_path / "database.rules.json"
    rules_file.write_text('{"rules": {".read": "auth != null", ".write": "auth != null"}}')
    server = HearthProcess(cwd=tmp_path).start()
    try:
        namespace = f"{PROJECT}-default-rtdb"
        assert rest(server, "PUT", "a", namespace, json=1).status_code == 401
        assert rest(server, "PUT", "a", namespace, ALICE, json=1).status_code == 200
        time.sleep(1.1)  # a later modification time
        rules_file.write_text('{"rules": {".read": true, ".write": true}}')
        assert wait_for(lambda: rest(server, "PUT", "a", namespace, json=2).status_code == 200)
        # An invalid edit leaves the rules in force.
        time.sleep(1.1)
        rules_file.write_text('{"rules": {".read": "nope"}}')
        time.sleep(2.5)
        assert rest(server, "PUT", "a", namespace, json=3).status_code == 200
    finally:
        server.stop()
        server.remove_data()


def test_invalid_rules_file_stops_the_server_at_start(tmp_path):
    rules_file = tmp_path / "rules.json"
    rules_file.write_text('{\n  "rules": {\n    "$a": {},\n    "$b": {}\n  }\n}')
    status, output = HearthProcess(extra_args=["--rules", str(rules_file)]).startup_failure()
    assert status != 0
    assert "Line 4" in output and "$b" in output


def test_production_mode_requires_sign_in_without_rules():
    server = HearthProcess(extra_args=["--production"]).start()
    try:
        namespace = f"{PROJECT}-default-rtdb"
        alice, bob = sign_up(server)[1], sign_up(server)[1]
        assert rest(server, "GET", "x", namespace).status_code == 401
        # Production trusts only tokens it signed: an unsigned token is refused.
        assert rest(server, "PUT", "x", namespace, ALICE, json=1).status_code == 401
        assert rest(server, "PUT", "x", namespace, alice, json=1).status_code == 200
        assert rest(server, "GET", "x", namespace, bob).json() == 1
    finally:
        server.stop()
        server.remove_data()


def test_listens_that_lose_access_are_revoked(hearth):
    namespace = unique_namespace()
    set_rules(hearth, TUTORIAL_RULES, namespace)
    client = RealtimeClient(hearth, namespace)
    try:
        client.call("auth", {"cred": ALICE})
        client.call("q", {"p": "/users/alice", "h": ""})
        query = {"i": "n", "l": 5, "vf": "l"}
        client.call("q", {"p": "/users/alice/items", "q": query, "t": 7, "h": ""})
        # Signing out revokes both listens, the tagged one with its query as sent.
        pushes, response = client.call("unauth", {})
        assert response["s"] == "ok"
        revoked = sorted((push["d"]["b"] for push in pushes), key=lambda body: body["p"])
        assert [push["d"]["a"] for push in pushes] == ["c", "c"]
        assert revoked == [{"p": "users/alice"}, {"p": "users/alice/items", "q": [query]}]
        # Revoked listens get no more data.
        requests.put(f"{hearth.url}/users/alice/x.json", params={"ns": namespace}, headers=OWNER, json=1)
        client.expect_silence()
    finally:
        client.close()


def test_rules_change_revokes_streams_and_listens(hearth):
    namespace = unique_namespace()
    set_rules(hearth, '{"rules": {".read": true, ".write": true}}', namespace)
    stream = requests.get(f"{hearth.url}/open.json", params={"ns": namespace},
                          headers={"Accept": "text/event-stream"}, stream=True, timeout=10)
    assert stream.status_code == 200
    lines = stream.iter_lines(decode_unicode=True)
    assert next(lines) == "event: put"
    client = RealtimeClient(hearth, namespace)
    try:
        client.call("q", {"p": "/open", "h": ""})
        set_rules(hearth, '{"rules": {".read": "auth != null", ".write": true}}', namespace)
        assert client.push() == {"a": "c", "b": {"p": "open"}}
        events = [line for line in lines if line]
        assert events[-2:] == ["event: cancel", "data: null"]  # and then the stream ended
    finally:
        client.close()
        stream.close()


def run_hearth(*args, cwd=None):
    from conftest import HEARTH_BIN
    import subprocess
    return subprocess.run([HEARTH_BIN, *args], cwd=cwd, capture_output=True, text=True, timeout=60)


def test_command_line_checks_and_explains(tmp_path):
    rules = tmp_path / "database.rules.json"
    rules.write_text(TUTORIAL_RULES)
    assert run_hearth("rules:check", str(rules)).returncode == 0
    bad = tmp_path / "bad.json"
    bad.write_text('{"rules": {\n  ".read": "root.child(\'x\') != null"}}')
    checked = run_hearth("rules:check", str(bad))
    assert checked.returncode == 1 and "Line 2" in checked.stderr and "snapshots cannot be compared" in checked.stderr

    denied = run_hearth("rules:test", "--rules", str(rules), "--path", "/users/alice/items/i1",
                        "--auth", '{"uid":"alice"}', "--set", '{"title":""}')
    assert denied.returncode == 1
    assert denied.stdout.startswith("DENIED")
    assert '.validate at /users/alice/items/i1/title' in denied.stdout and "→ false" in denied.stdout
    (tmp_path / "firebase.json").write_text('{"database": {"rules": "database.rules.json"}}')
    allowed = run_hearth("rules:test", "--path", "/users/alice", "--auth", '{"uid":"alice"}', cwd=tmp_path)
    assert allowed.returncode == 0 and allowed.stdout.startswith("ALLOWED")


def test_security_debug_explains_denials_to_debug_tokens(hearth):
    namespace = unique_namespace()
    set_rules(hearth, TUTORIAL_RULES, namespace)
    client = RealtimeClient(hearth, namespace)
    try:
        client.call("auth", {"cred": mock_id_token("alice", debug=True)})
        pushes, response = client.call("p", {"p": "/users/alice/items/i1/title", "d": ""})
        assert response["s"] == "permission_denied"
        assert [push["d"]["a"] for push in pushes] == ["sd"]
        message = pushes[0]["d"]["b"]["msg"]
        assert message.startswith("Attempt to write /users/alice/items/i1/title")
        assert '.validate at /users/alice/items/i1/title' in message and "→ false" in message
        # Without the claim, no explanation is sent.
        client.call("auth", {"cred": ALICE})
        pushes, response = client.call("p", {"p": "/users/bob", "d": 1})
        assert response["s"] == "permission_denied" and pushes == []
    finally:
        client.close()
