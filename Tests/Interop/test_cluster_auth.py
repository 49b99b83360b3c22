"""Authentication on Hearth nodes sharing one PostgreSQL database: nodes started together agree
on one hash configuration and one signing key, an account made on one node signs in on the
other, tokens and refresh tokens issued by one are honoured by the other, an email stays unique
however sign-ups race across nodes, and a change on one node (a disabled account, a new
password, a deleted account) holds on the other at its next request."""

import json
import signal
import subprocess
import threading
import time
import uuid

import pytest
import requests

from auth_client import admin, api, decode_jwt, error_message, ok, refresh, unique_email
from conftest import HEARTH_BIN, HearthProcess

KEY = "cluster-key"
JWKS_PATH = "/www.googleapis.com/service_accounts/v1/jwk/securetoken@system.gserviceaccount.com"


@pytest.fixture
def cluster(postgres, tmp_path):
    """Two production nodes started at the same moment on one fresh database, so that each may
    find no hash configuration and no signing key yet; stopped by the end of the test."""
    url = postgres.create_database()
    rules = tmp_path / "database.rules.json"
    rules.write_text(json.dumps({"rules": {"users": {"$uid": {".read": "auth.uid === $uid",
                                                               ".write": "auth.uid === $uid"}}}}))
    nodes = [HearthProcess(extra_args=["--postgres", url, "--production", "--api-key", KEY, "--rules", str(rules)])
             for _ in range(2)]
    starting = [threading.Thread(target=node.start) for node in nodes]
    for thread in starting:
        thread.start()
    for thread in starting:
        thread.join()
    assert all(node.process and node.process.poll() is None for node in nodes)
    yield nodes
    for node in nodes:
        node.stop(signal.SIGKILL)
        node.remove_data()


def sign_up(node, email, password="secret1"):
    return ok(api(node, "signUp", {"email": email, "password": password, "returnSecureToken": True}, key=KEY))


def sign_in(node, email, password="secret1"):
    return api(node, "signInWithPassword", {"email": email, "password": password, "returnSecureToken": True}, key=KEY)


def lookup(node, id_token):
    return api(node, "lookup", {"idToken": id_token}, key=KEY)


def test_nodes_started_together_publish_one_signing_key(cluster):
    first, second = cluster
    published = [set(key["kid"] for key in ok(requests.get(f"{node.url}{JWKS_PATH}", timeout=10))["keys"])
                 for node in cluster]
    assert published[0] == published[1] and len(published[0]) == 1
    token = sign_up(first, unique_email())["idToken"]
    assert decode_jwt(token)[0]["kid"] in published[0]
    token = sign_up(second, unique_email())["idToken"]
    assert decode_jwt(token)[0]["kid"] in published[0]


def test_an_account_made_on_one_node_signs_in_on_the_other_with_its_tokens_honoured(cluster):
    first, second = cluster
    email = unique_email()
    made = sign_up(first, email)
    # The other node checks the password with the same hash configuration.
    signed_in = ok(sign_in(second, email))
    assert signed_in["localId"] == made["localId"]
    # Each node accepts the ID tokens the other signed.
    assert ok(lookup(second, made["idToken"]))["users"][0]["email"] == email
    assert ok(lookup(first, signed_in["idToken"]))["users"][0]["localId"] == made["localId"]
    # A refresh token issued by one node is exchanged on the other.
    refreshed = ok(refresh(second, made["refreshToken"], key=KEY))
    assert refreshed["user_id"] == made["localId"]
    # The database of either node lets the user at its own data, with a token from either.
    for node, token in ((first, signed_in["idToken"]), (second, made["idToken"])):
        written = requests.put(f"{node.url}/users/{made['localId']}.json", params={"auth": token}, json={"via": node.port},
                               timeout=10)
        assert written.status_code == 200, written.text
    refused = requests.put(f"{second.url}/users/someone-else.json", params={"auth": made["idToken"]}, json=1, timeout=10)
    assert refused.status_code == 401


def test_one_email_signs_up_once_however_the_sign_ups_race_across_nodes(cluster):
    email = unique_email()
    answers = []

    def attempt(node):
        answers.append(api(node, "signUp", {"email": email, "password": "secret1", "returnSecureToken": True}, key=KEY))

    racers = [threading.Thread(target=attempt, args=(cluster[i % 2],)) for i in range(12)]
    for racer in racers:
        racer.start()
    for racer in racers:
        racer.join()
    succeeded = [answer for answer in answers if answer.status_code == 200]
    assert len(succeeded) == 1
    assert sorted(error_message(answer) for answer in answers if answer.status_code != 200) == ["EMAIL_EXISTS"] * 11
    for node in cluster:
        assert ok(sign_in(node, email))["localId"] == succeeded[0].json()["localId"]


def test_a_change_on_one_node_holds_on_the_other_at_its_next_request(cluster):
    first, second = cluster
    email = unique_email()
    made = sign_up(first, email)
    # Tokens issued before a password change are revoked if they are from an earlier second.
    time.sleep(1.1)
    # A new password set through the second node: the first refuses the old one at once.
    changed = ok(api(second, "update", {"idToken": made["idToken"], "password": "secret2", "returnSecureToken": True},
                     key=KEY))
    assert error_message(sign_in(first, email)) == "INVALID_PASSWORD"
    assert ok(sign_in(first, email, "secret2"))["localId"] == made["localId"]
    # The password change revoked the earlier refresh token on both nodes.
    for node in cluster:
        assert refresh(node, made["refreshToken"], key=KEY).status_code == 400
    # Deleted through the first node: the second no longer knows the account.
    ok(api(first, "delete", {"idToken": changed["idToken"]}, key=KEY))
    assert error_message(sign_in(second, email, "secret2")) == "EMAIL_NOT_FOUND"
    assert error_message(lookup(second, changed["idToken"])) == "USER_NOT_FOUND"
    # The email is free again, on either node.
    assert sign_up(second, email)["localId"] != made["localId"]


def test_many_accounts_made_on_both_nodes_at_once_are_all_known_to_both(cluster):
    made = {}
    lock = threading.Lock()

    def make(node, count):
        for _ in range(count):
            email = unique_email("many")
            answer = sign_up(node, email)
            with lock:
                made[email] = answer["localId"]

    workers = [threading.Thread(target=make, args=(cluster[i % 2], 10)) for i in range(6)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    assert len(made) == 60 and len(set(made.values())) == 60
    for node in cluster:
        for email, uid in list(made.items())[::7]:
            assert ok(sign_in(node, email))["localId"] == uid


def test_credentials_issued_by_the_command_line_for_the_cluster_are_honoured_by_every_node(cluster):
    url = cluster[0].extra_args[1]
    made = subprocess.run([HEARTH_BIN, "database:secret", "create", "--postgres", url], capture_output=True, text=True,
                          timeout=60)
    assert made.returncode == 0, made.stderr
    secret = made.stdout.strip()
    for node in cluster:
        path = f"{node.url}/users/{uuid.uuid4().hex}.json"
        assert requests.put(path, params={"auth": secret}, json="admin", timeout=10).status_code == 200
    listed = subprocess.run([HEARTH_BIN, "database:secret", "list", "--postgres", url], capture_output=True, text=True,
                            timeout=60)
    assert listed.returncode == 0 and secret[:8] in listed.stdout
    revoked = subprocess.run([HEARTH_BIN, "database:secret", "revoke", secret[:8], "--postgres", url],
                             capture_output=True, text=True, timeout=60)
    assert revoked.returncode == 0, revoked.stderr
    for node in cluster:
        refused = requests.put(f"{node.url}/users/x.json", params={"auth": secret}, json="admin", timeout=10)
        assert refused.status_code == 401
    # Printed from PostgreSQL, the hash parameters are the ones both nodes hash with.
    printed = subprocess.run([HEARTH_BIN, "auth:hash-config", "--postgres", url], capture_output=True, text=True,
                             timeout=60)
    assert printed.returncode == 0 and "algorithm: SCRYPT" in printed.stdout


def test_nothing_is_decided_on_accounts_that_cannot_be_read(cluster, postgres):
    first, second = cluster
    email = unique_email()
    made = sign_up(first, email)
    postgres.pg_ctl("stop", "-m", "immediate")
    try:
        # Without PostgreSQL a node cannot know whether another disabled the account meanwhile:
        # it refuses rather than answer from its copy, and soon (not after every query's timeout).
        started = time.monotonic()
        refused = sign_in(second, email)
        assert refused.status_code == 503 and error_message(refused) == "The service is currently unavailable."
        assert time.monotonic() - started < 10
        started = time.monotonic()
        assert lookup(first, made["idToken"]).status_code == 503
        assert time.monotonic() - started < 10
    finally:
        postgres.pg_ctl("start")
    deadline = time.monotonic() + 20
    while (answer := sign_in(second, email)).status_code != 200 and time.monotonic() < deadline:
        time.sleep(0.2)
    assert ok(answer)["localId"] == made["localId"]


def test_a_node_far_behind_catches_up_page_by_page(postgres):
    """Accounts imported through one node in batches (each one change of 1,000 accounts) reach
    another node that reads the changes in pages of about 2,000 rows."""
    url = postgres.create_database()
    nodes = [HearthProcess(extra_args=["--postgres", url]).start() for _ in range(2)]
    try:
        first, second = nodes
        # The second node reads the accounts once, then falls behind: paused, it cannot follow.
        assert ok(admin(second, "/accounts:lookup", {"localId": ["nobody"]})) == {"kind": "identitytoolkit#GetAccountInfoResponse"}
        second.process.send_signal(signal.SIGSTOP)
        try:
            for batch in range(3):
                users = [{"localId": f"imported-{batch}-{index}", "email": f"imported-{batch}-{index}@example.com"}
                         for index in range(1000)]
                assert ok(admin(first, "/accounts:batchCreate", {"users": users})).get("error", []) == []
        finally:
            second.process.send_signal(signal.SIGCONT)
        found = ok(admin(second, "/accounts:lookup", {"localId": ["imported-0-0", "imported-1-500", "imported-2-999"]}))
        assert sorted(user["localId"] for user in found["users"]) == ["imported-0-0", "imported-1-500", "imported-2-999"]
    finally:
        for node in nodes:
            node.stop(signal.SIGKILL)
            node.remove_data()
