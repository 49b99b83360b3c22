"""The seeds' blog (`Examples/Blog`) run as its users would: sign-up, a post fanned out to
`user-posts`, stars toggled in the seed's transaction by two users, counted with
`ServerValue.increment`, and a profile picture uploaded with HearthStorage and read back by anyone
through its download URL — under database and storage rules that need a signed-in owner."""

import json
import os
import subprocess
import tempfile

import pytest
import requests

from conftest import HEARTH_BIN, OWNER, PROJECT, HearthProcess

BLOG_BIN = os.path.join(os.path.dirname(HEARTH_BIN), "blog")
NAMESPACE = f"{PROJECT}-default-rtdb"
DATABASE_RULES = {
    "rules": {
        ".read": "auth != null",
        "posts": {".write": "auth != null"},
        "user-posts": {".write": "auth != null"},
        "users": {"$uid": {".write": "auth != null && auth.uid == $uid"}},
    }
}
STORAGE_RULES = """rules_version = '2';
service firebase.storage {
  match /b/{bucket}/o {
    match /images/{uid}/{file} {
      allow read;
      allow write: if request.auth != null && request.auth.uid == uid
                   && request.resource.contentType.matches('image/.*');
    }
  }
}
"""


@pytest.fixture
def server(tmp_path):
    (tmp_path / "database.rules.json").write_text(json.dumps(DATABASE_RULES))
    (tmp_path / "storage.rules").write_text(STORAGE_RULES)
    process = HearthProcess(extra_args=["--rules", str(tmp_path / "database.rules.json"),
                                        "--storage-rules", str(tmp_path / "storage.rules")]).start()
    yield process
    process.stop()
    process.remove_data()


class Blogger:
    """Runs of the blog program sharing one signed-in user (its own data directory)."""

    def __init__(self, server):
        self.server = server
        self.home = tempfile.mkdtemp()

    def run(self, *command):
        done = subprocess.run(
            [BLOG_BIN, "--host", "127.0.0.1", "--port", str(self.server.port), "--project", PROJECT, *command],
            capture_output=True, text=True, timeout=60, env={**os.environ, "XDG_DATA_HOME": self.home})
        assert done.returncode == 0, done.stdout + done.stderr
        return done.stdout.strip().splitlines()[-1]


def read(server, path):
    return requests.get(f"{server.url}/{path}.json", params={"ns": NAMESPACE}, headers=OWNER, timeout=10).json()


def test_the_blog_as_the_seeds_describe_it(server, tmp_path):
    ada, bob = Blogger(server), Blogger(server)
    ada_uid = ada.run("signup", "ada@example.com", "secret1", "ada").split()[1]
    bob_uid = bob.run("signup", "bob@example.com", "secret2", "bob").split()[1]

    key = ada.run("post", "Engines", "On the analytical engine").split()[1]
    post = read(server, f"posts/{key}")
    assert post == {"uid": ada_uid, "author": "ada", "title": "Engines", "body": "On the analytical engine"}
    assert read(server, f"user-posts/{ada_uid}/{key}") == post

    assert ada.run("star", key) == "starCount 1 committed true"
    assert bob.run("star", key) == "starCount 2 committed true"
    assert ada.run("star", key) == "starCount 1 committed true"
    assert read(server, f"posts/{key}/stars") == {bob_uid: True}

    bob.run("increment-star", key)
    assert read(server, f"posts/{key}/starCount") == 2
    assert read(server, f"user-posts/{ada_uid}/{key}/starCount") == 1

    picture = tmp_path / "avatar.jpg"
    picture.write_bytes(os.urandom(300_000))
    url = ada.run("avatar", str(picture)).split()[1]
    assert read(server, f"users/{ada_uid}/photoURL") == url
    downloaded = requests.get(url, timeout=10)
    assert downloaded.status_code == 200 and downloaded.content == picture.read_bytes()

    signed_out = subprocess.run(
        [BLOG_BIN, "--host", "127.0.0.1", "--port", str(server.port), "--project", PROJECT, "post", "x", "y"],
        capture_output=True, text=True, timeout=60, env={**os.environ, "XDG_DATA_HOME": tempfile.mkdtemp()})
    assert signed_out.returncode == 1 and "sign in first" in signed_out.stdout
