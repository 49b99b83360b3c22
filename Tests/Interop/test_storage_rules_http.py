"""Storage rules enforced over HTTP (spec storage-api §10–§17): a rules file named by firebase.json or
--storage-rules, its reloading, /internal/setRules, the identity captured at a resumable start, the
download-token bypass, the production default, denials explained in the log, and
`hearth storage:rules-test`."""

import os
import subprocess
import tempfile
import time

import pytest
import requests

from conftest import HEARTH_BIN, PROJECT, HearthProcess, one_process_only, per_node_state, sign_up
from storage_support import (
    BUCKET, OWNER, apple_command, bucket_url, error_of, js_command, js_multipart_upload, js_resumable_start, object_url,
    signed_in, unique)
from tokens import mock_id_token

RULES = """rules_version = '2';
service firebase.storage {
  match /b/{bucket}/o {
    match /users/{uid}/{allPaths=**} {
      allow read, write: if request.auth != null && request.auth.uid == uid;
    }
    match /public/{allPaths=**} {
      allow list;
      allow get: if request.auth != null;
    }
    match /disallowSize0 { allow create: if request.resource.size != 0; }
    match /atMost4 { allow create: if request.resource.size <= 4; }
    match /docs/{file} {
      allow get: if resource.metadata.owner == request.auth.uid;
      allow create: if request.resource.metadata.owner == request.auth.uid;
      allow update: if resource.metadata.owner == request.auth.uid
                    && request.resource.metadata.owner == resource.metadata.owner;
      allow delete: if resource.contentType != 'text/plain';
    }
  }
}
"""

ALICE = signed_in(mock_id_token("alice", project=PROJECT))
BOB = signed_in(mock_id_token("bob", project=PROJECT))
NOBODY = {}


@pytest.fixture(scope="module")
def project_dir():
    directory = tempfile.mkdtemp(prefix="hearth-storage-rules-")
    with open(os.path.join(directory, "storage.rules"), "w") as rules:
        rules.write(RULES)
    with open(os.path.join(directory, "firebase.json"), "w") as project:
        project.write('{"storage": {"rules": "storage.rules"}}')
    return directory


@pytest.fixture(scope="module")
def server(project_dir):
    process = HearthProcess(cwd=project_dir).start()
    yield process
    process.stop()
    process.remove_data()


def test_owners_write_their_folder_and_nobody_elses(server):
    allowed = js_multipart_upload(server, "users/alice/a.png", b"png", "image/png", headers=ALICE)
    assert allowed.status_code == 200, allowed.text
    denied = js_multipart_upload(server, "users/alice/b.png", b"png", "image/png", headers=BOB)
    assert denied.status_code == 403
    assert error_of(denied) == "Permission denied. No WRITE permission."
    assert requests.get(object_url(server, "users/alice/b.png"), headers=OWNER, timeout=10).status_code == 404
    assert requests.get(object_url(server, "users/alice/a.png"), headers=BOB, timeout=10).status_code == 403
    read = requests.get(object_url(server, "users/alice/a.png"), headers=NOBODY, timeout=10)
    assert read.status_code == 403 and error_of(read) == "Permission denied. No READ permission."
    listing = requests.get(bucket_url(server), params={"prefix": "users/alice/", "delimiter": "/"}, headers=ALICE,
                           timeout=10)
    assert listing.status_code == 200 and [i["name"] for i in listing.json()["items"]] == ["users/alice/a.png"]
    other = requests.get(bucket_url(server), params={"prefix": "users/", "delimiter": "/"}, headers=ALICE, timeout=10)
    assert other.status_code == 403 and error_of(other) == "Permission denied. No LIST permission."


def test_a_download_url_bypasses_the_rules_and_a_wrong_token_does_not(server):
    name = "public/shared.txt"
    token = js_multipart_upload(server, name, b"shared").json()["downloadTokens"]
    assert requests.get(object_url(server, name), params={"alt": "media"}, timeout=10).status_code == 403
    assert requests.get(object_url(server, name), params={"alt": "media", "token": token}, timeout=10).content == b"shared"
    wrong = requests.get(object_url(server, name), params={"alt": "media", "token": "guess"}, timeout=10)
    assert wrong.status_code == 403
    listed = requests.get(bucket_url(server), params={"prefix": "public/", "delimiter": "/"}, timeout=10)
    assert listed.status_code == 200 and listed.json()["items"] == [{"name": name, "bucket": BUCKET}]


def test_a_denied_resumable_finalize_is_403_final_every_time(server):
    # Rules see the start's declared size; a start without one passes and its bytes are refused.
    assert js_resumable_start(server, "disallowSize0", 0, headers=NOBODY).status_code == 403
    start = requests.post(
        bucket_url(server), params={"name": "atMost4"}, data=b"{}",
        headers={"X-Goog-Upload-Protocol": "resumable", "X-Goog-Upload-Command": "start"}, timeout=10)
    assert start.status_code == 200
    url = start.headers["X-Goog-Upload-URL"]
    for command in ["upload, finalize", "finalize", "finalize"]:
        denied = js_command(url, command, 0, b"0123456789", headers=NOBODY)
        assert denied.status_code == 403 and denied.headers["X-Goog-Upload-Status"] == "final"
        assert error_of(denied) == "Permission denied. No WRITE permission."
    query = js_command(url, "query", headers=NOBODY)
    assert query.status_code == 403 and query.headers["X-Goog-Upload-Status"] == "final"
    assert requests.get(object_url(server, "atMost4"), headers=OWNER, timeout=10).status_code == 404


def test_the_identity_of_a_resumable_start_decides_its_finalize(server):
    name = "users/alice/from-apple.bin"
    start = js_resumable_start(server, name, 4, headers=ALICE)
    url = start.headers["X-Goog-Upload-URL"]
    final = apple_command(url, "upload, finalize", 0, b"data", total=4)
    assert final.status_code == 200, final.text
    # Bob cannot start in Alice's folder, so there is no session that Alice's credentials could finish.
    stolen = js_resumable_start(server, "users/alice/by-bob.bin", 4, headers=BOB)
    assert stolen.status_code == 403 and "X-Goog-Upload-URL" not in stolen.headers


def test_metadata_changes_are_updates_and_deletes_see_the_stored_object(server):
    owned = js_multipart_upload(server, "docs/a", b"text", "text/plain", metadata={"owner": "alice"}, headers=ALICE)
    assert owned.status_code == 200, owned.text
    missing_owner = js_multipart_upload(server, "docs/b", b"text", headers=ALICE)
    assert missing_owner.status_code == 403
    assert requests.get(object_url(server, "docs/a"), headers=BOB, timeout=10).status_code == 403
    takeover = requests.patch(object_url(server, "docs/a"), json={"metadata": {"owner": "bob"}}, headers=ALICE,
                              timeout=10)
    assert takeover.status_code == 403
    retyped = requests.patch(object_url(server, "docs/a"), json={"contentType": "text/markdown"}, headers=ALICE,
                             timeout=10)
    assert retyped.status_code == 200 and retyped.json()["metadata"] == {"owner": "alice"}
    assert requests.delete(object_url(server, "docs/a"), headers=ALICE, timeout=10).status_code == 204
    text = js_multipart_upload(server, "docs/c", b"t", "text/plain", metadata={"owner": "alice"}, headers=ALICE)
    assert text.status_code == 200
    assert requests.delete(object_url(server, "docs/c"), headers=ALICE, timeout=10).status_code == 403
    assert requests.get(object_url(server, "docs/c"), headers=OWNER, timeout=10).status_code == 200


# Each node reloads the file on its own, and the log read is one node's.
@one_process_only
def test_the_rules_file_is_reloaded_and_an_invalid_edit_keeps_the_rules(tmp_path):
    rules_file = tmp_path / "storage.rules"
    rules_file.write_text(RULES)
    server = HearthProcess(extra_args=["--storage-rules", str(rules_file)]).start()
    try:
        assert js_multipart_upload(server, "open/x", b"x", headers=NOBODY).status_code == 403
        rules_file.write_text(RULES.replace("match /disallowSize0", "match /open/{f} { allow write; }\n    match /disallowSize0"))
        deadline = time.time() + 10
        while js_multipart_upload(server, "open/x", b"x", headers=NOBODY).status_code != 200:
            assert time.time() < deadline, "the edited rules were not reloaded"
            time.sleep(0.3)
        rules_file.write_text("rules_version = '2'; service firebase.storage { match /b/{bucket}/o { allow }")
        time.sleep(2.5)
        assert js_multipart_upload(server, "open/y", b"y", headers=NOBODY).status_code == 200
    finally:
        server.stop()
        server.remove_data()
    log = "".join(server.output) + server.process.stdout.read()
    assert "the changed storage rules file is invalid; the previous rules stay in force" in log
    assert "storage rules denied create of /b/interop-project.appspot.com/o/open/x" in log
    assert "no allow statement for create matches /b/interop-project.appspot.com/o/open/x" in log


@per_node_state
def test_set_rules_replaces_the_rules_and_bad_rules_leave_none(server):
    def set_rules(text):
        return requests.put(f"{server.url}/internal/setRules",
                            json={"rules": {"files": [{"name": "storage.rules", "content": text}]}}, timeout=10)

    try:
        ok = set_rules("rules_version = '2'; service firebase.storage { match /b/{b}/o/{p=**} { allow read, write; } }")
        assert ok.status_code == 200 and ok.json() == {"message": "Rules updated successfully"}
        assert js_multipart_upload(server, "anything/x", b"x", headers=NOBODY).status_code == 200
        bad = set_rules("service firebase.storage { match /b/{b}/o { allow reed; } }")
        assert bad.status_code == 400
        assert bad.json() == {"message": "There was an error updating rules, see logs for more details"}
        refused = requests.get(object_url(server, "anything/x"), headers=OWNER, timeout=10)
        assert refused.status_code == 403
        assert error_of(refused) == "Permission denied. Storage Emulator has no loaded ruleset."
        empty = requests.put(f"{server.url}/internal/setRules", json={"rules": {}}, timeout=10)
        assert empty.status_code == 400 and empty.json() == {"message": "Request body must include 'rules.files' array"}
    finally:
        assert set_rules(RULES).status_code == 200


def test_a_rules_file_that_does_not_compile_stops_the_server(tmp_path):
    rules_file = tmp_path / "storage.rules"
    rules_file.write_text("rules_version = '2';\nservice firebase.storage {\n  match /b/{bucket}/o {\n    allow reed;\n  }\n}\n")
    status, output = HearthProcess(extra_args=["--storage-rules", str(rules_file)]).startup_failure()
    assert status != 0
    assert "4:11: unknown method 'reed'" in output


def test_production_requires_sign_in_by_default():
    server = HearthProcess(extra_args=["--production"]).start()
    try:
        uid, token = sign_up(server)
        name = f"{unique()}/signed-in"
        assert js_multipart_upload(server, name, b"x", headers=signed_in(token)).status_code == 200
        assert js_multipart_upload(server, f"{name}-2", b"x", headers=NOBODY).status_code == 403
        forged = js_multipart_upload(server, f"{name}-3", b"x", headers=signed_in(mock_id_token(uid, project=PROJECT)))
        assert forged.status_code == 401
    finally:
        server.stop()
        server.remove_data()


def test_the_rules_test_command(project_dir):
    def run(*arguments):
        return subprocess.run([HEARTH_BIN, "storage:rules-test", *arguments], cwd=project_dir, capture_output=True,
                              text=True, timeout=60)

    allowed = run("--method", "create", "--path", "users/alice/a.png", "--auth", '{"uid": "alice"}',
                  "--request-resource", '{"size": 10, "contentType": "image/png"}')
    assert allowed.returncode == 0, allowed.stderr
    assert allowed.stdout.splitlines()[0] == "ALLOWED"
    denied = run("--method", "update", "--path", "docs/a", "--auth", '{"uid": "bob"}',
                 "--resource", '{"metadata": {"owner": "alice"}}', "--request-resource", '{"metadata": {"owner": "bob"}}')
    assert denied.returncode == 1
    assert denied.stdout.splitlines() == [
        "DENIED",
        "  line 16: allow update: if resource.metadata.owner == request.auth.uid "
        "&& request.resource.metadata.owner == resource.metadata.owner → false",
    ]
