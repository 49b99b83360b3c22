"""Seed 001 (`Examples/GuestAccount`): an anonymous user fills a cart, then links a Google or an
email/password credential and keeps their uid and cart; a credential that already belongs to
another account is refused with Firebase's error."""

import json
import os
import subprocess
import tempfile

import pytest

from conftest import HEARTH_BIN, PROJECT, HearthProcess

GUEST_BIN = os.path.join(os.path.dirname(HEARTH_BIN), "guest-account")
RULES = {"rules": {"carts": {"$uid": {".read": "auth.uid == $uid", ".write": "auth.uid == $uid"}}}}


@pytest.fixture
def server(tmp_path):
    (tmp_path / "database.rules.json").write_text(json.dumps(RULES))
    process = HearthProcess(extra_args=["--rules", str(tmp_path / "database.rules.json")]).start()
    yield process
    process.stop()
    process.remove_data()


class Guest:
    """Runs of the program sharing one signed-in user."""

    def __init__(self, server):
        self.server = server
        self.home = tempfile.mkdtemp()

    def run(self, *command):
        done = subprocess.run(
            [GUEST_BIN, "--host", "127.0.0.1", "--port", str(self.server.port), "--project", PROJECT, *command],
            capture_output=True, text=True, timeout=60, env={**os.environ, "XDG_DATA_HOME": self.home})
        assert done.returncode == 0, done.stdout + done.stderr
        return done.stdout.strip().splitlines()[-1]


def google_token(sub, email):
    return json.dumps({"sub": sub, "email": email, "email_verified": True})


def test_anonymous_users_keep_their_data_when_they_link_an_account(server):
    ada = Guest(server)
    uid = ada.run("start").split()[1]
    assert ada.run("start") == f"uid {uid} anonymous true"
    ada.run("add", "apples")
    ada.run("add", "pears")
    assert ada.run("link-google", google_token("google-ada", "ada@example.com")) == f"uid {uid} anonymous false"
    assert ada.run("cart") == "cart apples, pears"

    bob = Guest(server)
    bob_uid = bob.run("start").split()[1]
    assert bob_uid != uid
    assert bob.run("link-google", google_token("google-ada", "ada@example.com")) == (
        "already in use: This credential is already associated with a different user account.")
    assert bob.run("link-email", "ada@example.com", "secret-1") == (
        "already in use: The email address is already in use by another account.")
    assert bob.run("link-email", "bob@example.com", "secret-2") == f"uid {bob_uid} anonymous false"
