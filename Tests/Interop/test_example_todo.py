"""The to-do app of the seeds (`Examples/TodoApp`) driven as a user would: sign-up and sign-in with
the seed's error messages, a live item list under the seed's rules shared by two running copies of
the app, the signed-in user kept across restarts, and a password reset through the outbox."""

import json
import os
import queue
import subprocess
import tempfile
import threading
import time

import pytest
import requests

from conftest import HEARTH_BIN, PROJECT, HearthProcess

TODO_BIN = os.path.join(os.path.dirname(HEARTH_BIN), "todo-app")
SEED_RULES = {
    "rules": {
        "users": {
            "$uid": {
                ".read": "auth != null && auth.uid == $uid",
                ".write": "auth != null && auth.uid == $uid",
                "items": {"$item_id": {"title": {".validate": "newData.isString() && newData.val().length > 0"}}},
            }
        }
    }
}


class TodoApp:
    """One running copy of the app, with its own data directory (its signed-in user)."""

    def __init__(self, server, data_home):
        env = {**os.environ, "XDG_DATA_HOME": data_home}
        self.process = subprocess.Popen(
            [TODO_BIN, "--host", "127.0.0.1", "--port", str(server.port), "--project", PROJECT],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, bufsize=1, env=env)
        self.lines = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.process.stdout:
            self.lines.put(line.rstrip("\n"))

    def send(self, command):
        self.process.stdin.write(command + "\n")
        self.process.stdin.flush()

    def expect(self, wanted, seconds=15):
        """Waits for a line equal to `wanted` (or starting with it, for a trailing `…`)."""
        deadline = time.time() + seconds
        seen = []
        while time.time() < deadline:
            try:
                line = self.lines.get(timeout=max(0.01, deadline - time.time()))
            except queue.Empty:
                break
            seen.append(line)
            if line == wanted or (wanted.endswith("…") and line.startswith(wanted[:-1])):
                return line
        raise AssertionError(f"expected {wanted!r}, saw {seen!r}")

    def close(self):
        if self.process.poll() is None:
            self.send("quit")
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()


@pytest.fixture
def server(tmp_path):
    rules = tmp_path / "database.rules.json"
    rules.write_text(json.dumps(SEED_RULES))
    process = HearthProcess(extra_args=["--rules", str(rules)]).start()
    yield process
    process.stop()
    process.remove_data()


def outbox_code(server, email, request_type):
    codes = requests.get(f"{server.url}/emulator/v1/projects/{PROJECT}/oobCodes", timeout=10).json()["oobCodes"]
    return [c["oobCode"] for c in codes if c["email"] == email and c["requestType"] == request_type][-1]


def test_the_todo_app_as_the_seed_describes_it(server):
    ada_home, bob_home = tempfile.mkdtemp(), tempfile.mkdtemp()
    apps = []
    try:
        ada = TodoApp(server, ada_home)
        apps.append(ada)
        ada.send("signin ada@example.com secret1")
        ada.expect("User account not found. Try registering")
        ada.send("signup not-an-email secret1")
        ada.expect("Enter a valid email.")
        ada.send("signup ada@example.com secret1")
        ada.expect("signed in as ada@example.com")
        ada.send("signup ada@example.com secret1")
        ada.expect("Email already in use.")
        ada.send("add Buy milk")
        ada.expect("+ Buy milk")
        ada.send("add")
        ada.expect("Error: …")

        # A second copy signed in as the same user (kept on disk) sees the list and its changes live.
        other_window = TodoApp(server, ada_home)
        apps.append(other_window)
        other_window.expect("signed in as ada@example.com")
        other_window.expect("+ Buy milk")
        ada.send("add Walk the dog")
        other_window.expect("+ Walk the dog")
        ada.send("remove Buy milk")
        other_window.expect("- Buy milk")

        # Another user has a list of their own.
        bob = TodoApp(server, bob_home)
        apps.append(bob)
        bob.send("signup bob@example.com secret2")
        bob.expect("signed in as bob@example.com")
        bob.send("list")
        bob.expect("items: ")

        ada.send("signout")
        ada.expect("signed out")
        ada.send("signin ada@example.com wrong-password")
        ada.expect("Incorrect username/password combination")
        ada.send("reset nobody@example.com")
        ada.expect("User account not found. Try registering")
        ada.send("reset ada@example.com")
        ada.expect("You'll receive an email shortly to reset your password.")
        code = outbox_code(server, "ada@example.com", "PASSWORD_RESET")
        reset = requests.post(f"{server.url}/identitytoolkit.googleapis.com/v1/accounts:resetPassword",
                              params={"key": "todo-app-key"}, json={"oobCode": code, "newPassword": "new-secret"},
                              timeout=10)
        assert reset.status_code == 200, reset.text
        ada.send("signin ada@example.com new-secret")
        ada.expect("signed in as ada@example.com")
        ada.expect("+ Walk the dog")
    finally:
        for app in apps:
            app.close()
