"""Storage's defences against abuse: rules at a resumable start (spec storage-api §4.4), caps on and
expiry of resumable sessions, download tokens replaced through metadata (§5), object bodies served
sandboxed, custom metadata of at most 8 KiB (§4.5) and the names GCS refuses (§1.2)."""

import json
import os
import tempfile
import time
from urllib.parse import quote

import pytest
import requests

from conftest import BLOBS_IN_POSTGRES, PROJECT, HearthProcess, database_of, postgres_server, storage_directory
from storage_support import (
    BUCKET, OWNER, bucket_url, error_of, js_command, js_multipart_upload, js_resumable_start, object_url, signed_in,
    unique)
from tokens import mock_id_token

RULES = """rules_version = '2';
service firebase.storage {
  match /b/{bucket}/o {
    match /users/{uid}/{allPaths=**} {
      allow read, write: if request.auth != null && request.auth.uid == uid;
    }
    match /notes/{file} {
      allow read;
      allow create: if request.resource.size < 10 && request.resource.contentType == 'text/plain'
                    && request.resource.metadata.kind == 'note';
    }
    match /open/{allPaths=**} { allow read, write; }
  }
}
"""

ALICE = signed_in(mock_id_token("alice", project=PROJECT))
NOBODY = {}
DENIED = "Permission denied. No WRITE permission."


def rules_file():
    directory = tempfile.mkdtemp(prefix="hearth-storage-limits-")
    path = os.path.join(directory, "storage.rules")
    with open(path, "w") as rules:
        rules.write(RULES)
    return path


def serve(*flags):
    return HearthProcess(extra_args=["--storage-rules", rules_file(), *flags]).start()


@pytest.fixture(scope="module")
def server():
    process = serve()
    yield process
    process.stop()
    process.remove_data()


@pytest.fixture
def fresh_server():
    process = serve()
    yield process
    process.stop()
    process.remove_data()


def cloud_object_url(server, name, bucket=BUCKET):
    return f"{server.url}/storage/v1/b/{quote(bucket, safe='')}/o/{quote(name, safe='')}"


def cloud_error(response):
    """The GCS JSON API's error: `{"error": {"code", "message", "errors": [{…, "reason"}]}}`."""
    error = response.json()["error"]
    assert error["code"] == response.status_code and error["errors"][0]["message"] == error["message"], error
    return error["message"], error["errors"][0]["reason"]


def upload_files(server):
    """The uploads whose bytes the server keeps: its files, or its rows in PostgreSQL."""
    if BLOBS_IN_POSTGRES:
        rows = postgres_server().sql(
            "SELECT DISTINCT substring(owner FROM 8) FROM hearth_storage_pages WHERE owner LIKE 'upload:%' ORDER BY 1",
            database_of(server.data_dir))
        return rows.split() if rows else []
    directory = os.path.join(storage_directory(server.data_dir), "uploads")
    return sorted(os.listdir(directory)) if os.path.isdir(directory) else []


# 1. Resumable uploads: rules at start, caps and expiry.


def test_rules_refuse_a_resumable_start_as_they_refuse_its_finalize(server):
    refused = js_resumable_start(server, "users/alice/by-nobody.bin", 1024 * 1024, headers=NOBODY)
    assert refused.status_code == 403 and error_of(refused) == DENIED
    assert "X-Goog-Upload-URL" not in refused.headers
    assert js_resumable_start(server, "users/alice/own.bin", 10, headers=ALICE).status_code == 200
    # request.resource is the start's name, declared size, content type and metadata.
    note = {"kind": "note"}
    too_big = js_resumable_start(server, "notes/big", 20, "text/plain", metadata=note, headers=NOBODY)
    assert too_big.status_code == 403 and error_of(too_big) == DENIED
    wrong_type = js_resumable_start(server, "notes/png", 5, "image/png", metadata=note, headers=NOBODY)
    assert wrong_type.status_code == 403
    no_kind = js_resumable_start(server, "notes/plain", 5, "text/plain", headers=NOBODY)
    assert no_kind.status_code == 403
    allowed = js_resumable_start(server, "notes/ok", 5, "text/plain", metadata=note, headers=NOBODY)
    assert allowed.status_code == 200, allowed.text
    assert js_command(allowed.headers["X-Goog-Upload-URL"], "upload, finalize", 0, b"hello", headers=NOBODY).ok
    # Rules see the bytes at finalize: a start without a declared size, then too many bytes.
    undeclared = requests.post(
        bucket_url(server), params={"name": "notes/grown"}, data=json.dumps({"contentType": "text/plain",
                                                                             "metadata": note}),
        headers={"X-Goog-Upload-Protocol": "resumable", "X-Goog-Upload-Command": "start",
                 "Content-Type": "application/json"}, timeout=10)
    assert undeclared.status_code == 200, undeclared.text
    grown = js_command(undeclared.headers["X-Goog-Upload-URL"], "upload, finalize", 0, b"0123456789abc", headers=NOBODY)
    assert grown.status_code == 403 and error_of(grown) == DENIED
    assert requests.get(object_url(server, "notes/grown"), headers=OWNER, timeout=10).status_code == 404


def test_open_resumable_sessions_are_capped_per_caller(fresh_server):
    server = fresh_server
    urls = []
    for index in range(100):
        start = js_resumable_start(server, f"open/session-{index}", 10, headers=NOBODY)
        assert start.status_code == 200, (index, start.text)
        urls.append(start.headers["X-Goog-Upload-URL"])
    refused = js_resumable_start(server, "open/one-too-many", 10, headers=NOBODY)
    assert refused.status_code == 429
    assert error_of(refused) == "Too many resumable uploads in progress: at most 100 per caller."
    # Another caller has its own allowance; a finished session frees a place.
    assert js_resumable_start(server, "users/alice/mine", 10, headers=ALICE).status_code == 200
    assert js_command(urls[0], "cancel", headers=NOBODY).status_code == 200
    assert js_resumable_start(server, "open/after-cancel", 10, headers=NOBODY).status_code == 200


def test_unfinished_bytes_are_capped_per_caller():
    server = serve("--max-unfinished-upload-bytes", "1000")
    try:
        first = js_resumable_start(server, "open/first", 900, headers=NOBODY).headers["X-Goog-Upload-URL"]
        assert js_command(first, "upload", 0, b"a" * 900, headers=NOBODY).status_code == 200
        second = js_resumable_start(server, "open/second", 200, headers=NOBODY)
        assert second.status_code == 429
        message = "The resumable uploads in progress would exceed 1000 bytes per caller."
        assert error_of(second) == message
        undeclared = requests.post(
            bucket_url(server), params={"name": "open/undeclared"}, data=b"{}",
            headers={"X-Goog-Upload-Protocol": "resumable", "X-Goog-Upload-Command": "start"}, timeout=10)
        url = undeclared.headers["X-Goog-Upload-URL"]
        refused = js_command(url, "upload", 0, b"b" * 200, headers=NOBODY)
        assert refused.status_code == 429 and error_of(refused) == message
        assert js_command(url, "query", headers=NOBODY).headers["X-Goog-Upload-Size-Received"] == "0"
        assert js_command(first, "finalize", headers=NOBODY).status_code == 200
        assert js_command(url, "upload, finalize", 0, b"b" * 200, headers=NOBODY).status_code == 200
    finally:
        server.stop()
        server.remove_data()


def test_idle_resumable_sessions_expire_with_their_bytes_even_across_a_restart():
    server = serve("--resumable-upload-expiry", "2")
    try:
        idle = js_resumable_start(server, "open/idle", 10, headers=NOBODY).headers["X-Goog-Upload-URL"]
        assert js_command(idle, "upload", 0, b"12345", headers=NOBODY).status_code == 200
        restarted = js_resumable_start(server, "open/restarted", 10, headers=NOBODY).headers["X-Goog-Upload-URL"]
        assert js_command(restarted, "upload", 0, b"12345", headers=NOBODY).status_code == 200
        assert len(upload_files(server)) == 2
        time.sleep(2.5)
        assert js_command(idle, "upload", 5, b"67890", headers=NOBODY).status_code == 404
        server.stop()
        server = HearthProcess(data_dir=server.data_dir, port=server.port,
                               extra_args=server.extra_args).start()
        assert upload_files(server) == []
        assert js_command(restarted, "query", headers=NOBODY).status_code == 404
        busy = js_resumable_start(server, "open/busy", 10, headers=NOBODY).headers["X-Goog-Upload-URL"]
        for offset in range(0, 10, 2):
            time.sleep(0.8)
            assert js_command(busy, "upload", offset, b"xy", headers=NOBODY).status_code == 200, "activity keeps it"
        assert js_command(busy, "finalize", headers=NOBODY).status_code == 200
    finally:
        server.stop()
        server.remove_data()


# 2. Download tokens set through metadata.


def download(server, name, token):
    return requests.get(object_url(server, name), params={"alt": "media", "token": token}, timeout=10)


def test_setting_download_tokens_through_v0_metadata_replaces_them(server):
    name = f"users/alice/{unique()}"
    first = js_multipart_upload(server, name, b"secret").json()["downloadTokens"]
    patched = requests.patch(object_url(server, name), json={"metadata": {"firebaseStorageDownloadTokens": "a,b"}},
                             headers=OWNER, timeout=10)
    assert patched.status_code == 200 and patched.json()["downloadTokens"] == "a,b"
    assert "metadata" not in patched.json()
    assert download(server, name, "b").content == b"secret"
    revoked = download(server, name, first)
    assert revoked.status_code == 403 and error_of(revoked) == "Permission denied. No READ permission."
    for removal in [None, ""]:
        requests.patch(object_url(server, name), json={"metadata": {"firebaseStorageDownloadTokens": "c"}},
                       headers=OWNER, timeout=10)
        removed = requests.patch(object_url(server, name),
                                 json={"metadata": {"firebaseStorageDownloadTokens": removal}}, headers=OWNER,
                                 timeout=10)
        assert removed.status_code == 200 and "downloadTokens" not in removed.json(), removed.text
        assert download(server, name, "c").status_code == 403


@pytest.mark.parametrize("method", ["PATCH", "PUT"])
def test_setting_download_tokens_through_gcs_metadata_replaces_them(server, method):
    name = f"users/alice/{unique()}"
    first = js_multipart_upload(server, name, b"secret").json()["downloadTokens"]
    changed = requests.request(method, cloud_object_url(server, name),
                               json={"metadata": {"firebaseStorageDownloadTokens": "x"}}, timeout=10)
    assert changed.status_code == 200 and changed.json()["metadata"] == {"firebaseStorageDownloadTokens": "x"}
    assert download(server, name, first).status_code == 403
    assert download(server, name, "x").content == b"secret"
    removed = requests.request(method, cloud_object_url(server, name),
                               json={"metadata": {"firebaseStorageDownloadTokens": None}}, timeout=10)
    assert removed.status_code == 200 and "metadata" not in removed.json(), removed.text
    assert download(server, name, "x").status_code == 403


# 3. Object bodies cannot run on Hearth's origin.


def test_object_bodies_are_served_sandboxed(server):
    name = f"open/{unique()}.html"
    token = js_multipart_upload(server, name, b"<script>alert(1)</script>", "text/html").json()["downloadTokens"]
    encoded = quote(name, safe="")
    for url in [f"{object_url(server, name)}?alt=media", f"{object_url(server, name)}?alt=media&token={token}",
                f"{server.url}/storage/v1/b/{BUCKET}/o/{encoded}?alt=media",
                f"{server.url}/download/storage/v1/b/{BUCKET}/o/{encoded}?alt=media"]:
        response = requests.get(url, timeout=10)
        assert response.status_code == 200 and response.content == b"<script>alert(1)</script>", url
        assert response.headers["X-Content-Type-Options"] == "nosniff", url
        assert response.headers["Content-Security-Policy"] == "sandbox", url


# 4. Custom metadata: at most 8 KiB of keys and values.

TOO_LARGE = "The custom metadata of an object may have at most 8192 bytes of keys and values."


def test_oversized_custom_metadata_is_refused_everywhere(server):
    big = {"k": "x" * 8192}
    upload = js_multipart_upload(server, "open/big-meta", b"data", metadata=big)
    assert upload.status_code == 400 and error_of(upload) == TOO_LARGE
    many = js_multipart_upload(server, "open/many-keys", b"data", metadata={f"k{i}": "" for i in range(10000)})
    assert many.status_code == 400
    start = js_resumable_start(server, "open/big-meta", 4, metadata=big)
    assert start.status_code == 400 and error_of(start) == TOO_LARGE
    assert requests.get(object_url(server, "open/big-meta"), headers=OWNER, timeout=10).status_code == 404
    # Exactly 8 KiB (a GCS upload has no download token) is accepted.
    boundary = "b0undary"
    exact = requests.post(
        f"{server.url}/upload/storage/v1/b/{BUCKET}/o", params={"uploadType": "multipart"},
        data=(f"--{boundary}\r\nContent-Type: application/json\r\n\r\n"
              + json.dumps({"name": "open/exact", "metadata": {"k": "x" * 8191}})
              + f"\r\n--{boundary}\r\nContent-Type: text/plain\r\n\r\ndata\r\n--{boundary}--").encode(),
        headers={"Content-Type": f"multipart/related; boundary={boundary}"}, timeout=10)
    assert exact.status_code == 200, exact.text
    grown = requests.patch(cloud_object_url(server, "open/exact"), json={"metadata": {"k2": "y"}}, timeout=10)
    assert grown.status_code == 400
    assert cloud_error(grown) == (TOO_LARGE, "invalid")
    name = f"open/{unique()}"
    js_multipart_upload(server, name, b"data", metadata={"a": "1"})
    patched = requests.patch(object_url(server, name), json={"metadata": big}, headers=OWNER, timeout=10)
    assert patched.status_code == 400 and error_of(patched) == TOO_LARGE
    copy = requests.post(f"{cloud_object_url(server, name)}/copyTo/b/{BUCKET}/o/open%2Fcopy", json={"metadata": big},
                         timeout=10)
    rewrite = requests.post(f"{cloud_object_url(server, name)}/rewriteTo/b/{BUCKET}/o/open%2Fcopy",
                            json={"metadata": big}, timeout=10)
    assert copy.status_code == 400 and rewrite.status_code == 400 and cloud_error(copy) == (TOO_LARGE, "invalid")
    assert requests.get(cloud_object_url(server, "open/copy"), timeout=10).status_code == 404
    stored = requests.get(object_url(server, name), headers=OWNER, timeout=10).json()
    assert stored["metadata"] == {"a": "1"} and stored["metageneration"] == "1"


# 5. Names GCS refuses.


@pytest.mark.parametrize("name, reason", [
    (".", "Invalid object name: '.' and '..' are not allowed."),
    ("..", "Invalid object name: '.' and '..' are not allowed."),
    (".well-known/acme-challenge/x", "Invalid object name: it may not start with '.well-known/acme-challenge/'."),
])
def test_object_names_gcs_refuses_are_refused(server, name, reason):
    v0 = js_multipart_upload(server, name, b"data")
    assert v0.status_code == 400 and error_of(v0) == reason
    resumable = js_resumable_start(server, name, 4)
    assert resumable.status_code == 400 and error_of(resumable) == reason
    cloud = requests.post(f"{server.url}/upload/storage/v1/b/{BUCKET}/o", params={"uploadType": "media", "name": name},
                          data=b"data", timeout=10)
    assert cloud.status_code == 400 and cloud_error(cloud) == (reason, "invalid")
    listing = requests.get(f"{server.url}/storage/v1/b/{BUCKET}/o", timeout=10).json()
    assert name not in [item["name"] for item in listing.get("items", [])]
    # Names that merely contain dots are fine.
    assert js_multipart_upload(server, f"open/{name}/x", b"data").status_code == 200


@pytest.mark.parametrize("bucket", [
    "..", "../../x", "ab", "-bucket", "bucket-", "Upper.appspot.com", "a b", "192.168.5.4", "a..b", "x" * 64,
    "a." + "x" * 64 + ".com",
])
def test_bucket_names_gcs_refuses_are_refused(server, bucket):
    encoded = quote(bucket, safe="").replace(".", "%2E")
    message = f"Invalid bucket name: '{bucket}'"
    v0 = requests.post(f"{server.url}/v0/b/{encoded}/o", params={"name": "x"}, data=b"data", headers=OWNER, timeout=10)
    assert v0.status_code == 400 and error_of(v0) == message
    cloud = requests.get(f"{server.url}/storage/v1/b/{encoded}/o", timeout=10)
    assert cloud.status_code == 400 and cloud_error(cloud) == (message, "invalid")
    buckets = requests.get(f"{server.url}/storage/v1/b", timeout=10).json()["items"]
    assert bucket not in [item["name"] for item in buckets]


@pytest.mark.parametrize("bucket", [
    "demo-x.appspot.com", f"{PROJECT}.firebasestorage.app", "custom-bucket", PROJECT, "my_bucket.example.com",
    "a" * 63, ".".join(["x" * 63] * 3) + ".com",
])
def test_bucket_names_firebase_projects_use_are_accepted(server, bucket):
    uploaded = js_multipart_upload(server, "open/x", b"data", bucket=bucket)
    assert uploaded.status_code == 200, uploaded.text
