"""Storage crash safety: `kill -9` of the server, then a new server on the same data directory and
port (spec storage-api §4, §4.4, §9.3).

- An upload whose body is still arriving when the server dies leaves no object behind.
- Acknowledged writes (uploads, overwrites, metadata changes, deletes) survive byte for byte.
- Resumable uploads — the Firebase v0 protocol of the JS SDK (`X-Goog-Upload-*`, §4.4) and the
  GCS JSON protocol of google-cloud-storage (`Content-Range` / 308, §9.3) — keep every acknowledged
  chunk: after the restart the same upload URL reports them and accepts the rest."""

import base64
import hashlib
import http.client
import json
import os
import signal
import threading
import time
from urllib.parse import quote, urlsplit

import pytest
import requests

from conftest import HearthProcess
from storage_support import BUCKET, OWNER, bucket_url, md5_base64, object_url, unique

GRANULE = 262144  # 256 KiB: the resumable chunk size of the JS SDK and of Google's upload servers










def v0_metadata(server, name):
    return requests.get(object_url(server, name), headers=OWNER, timeout=10)


def v0_download(server, name):
    response = requests.get(object_url(server, name), params={"alt": "media"}, headers=OWNER, timeout=30)
    assert response.status_code == 200, (response.status_code, response.text[:300])
    return response.content


def v0_list(server, prefix):
    response = requests.get(bucket_url(server), params={"prefix": prefix, "delimiter": "/"}, headers=OWNER,
                            timeout=10)
    assert response.status_code == 200, response.text
    return response.json()


def v0_media_upload(server, name, data, content_type="application/octet-stream"):
    return requests.post(bucket_url(server), params={"name": name}, data=data,
                         headers={**OWNER, "Content-Type": content_type}, timeout=30)


def kill_and_restart(server):
    """`kill -9`, then a new server on the same data directory and port (retried briefly while the
    port is still being released)."""
    assert server.stop(signal.SIGKILL) == -signal.SIGKILL
    for attempt in range(10):
        try:
            return HearthProcess(data_dir=server.data_dir, port=server.port).start()
        except RuntimeError:
            if attempt == 9:
                raise
            time.sleep(0.5)


@pytest.fixture
def servers():
    """Started servers of one test (the last one is the live one); all stopped and their data
    directory removed at the end."""
    started = [HearthProcess().start()]
    yield started
    for process in started:
        process.stop()
    started[0].remove_data()


# --- (a) an upload interrupted by the crash leaves nothing -----------------------------------------

class SlowUpload(threading.Thread):
    """A v0 media upload whose body comes from a slow generator: `fast_bytes` at once, then a
    trickle towards `declared` bytes that never completes before the server is killed.
    `sent_fast` is set once the fast part has been written to the socket."""

    PIECE = 64 * 1024

    def __init__(self, server, name, declared, fast_bytes, chunked):
        super().__init__(daemon=True)
        self.server, self.name, self.declared, self.fast_bytes, self.chunked = \
            server, name, declared, fast_bytes, chunked
        self.sent_fast = threading.Event()
        self.sent = 0
        self.md5 = hashlib.md5()
        self.status = None  # an HTTP status, if the server ever answered
        self.error = None

    def body(self):
        while self.sent < self.declared:
            piece = os.urandom(min(self.PIECE, self.declared - self.sent))
            yield piece
            self.sent += len(piece)
            self.md5.update(piece)
            if self.sent >= self.fast_bytes:
                self.sent_fast.set()
                time.sleep(0.05)

    def run(self):
        connection = http.client.HTTPConnection("127.0.0.1", self.server.port, timeout=30)
        try:
            connection.putrequest("POST", f"/v0/b/{quote(BUCKET, safe='')}/o?name={quote(self.name, safe='')}")
            connection.putheader("Authorization", OWNER["Authorization"])
            connection.putheader("Content-Type", "application/octet-stream")
            if self.chunked:
                connection.putheader("Transfer-Encoding", "chunked")
            else:
                connection.putheader("Content-Length", str(self.declared))
            connection.endheaders()
            for piece in self.body():
                connection.send(b"%x\r\n%s\r\n" % (len(piece), piece) if self.chunked else piece)
            if self.chunked:
                connection.send(b"0\r\n\r\n")
            self.status = connection.getresponse().status
        except (OSError, http.client.HTTPException) as error:
            self.error = error
        finally:
            self.sent_fast.set()
            connection.close()


@pytest.mark.parametrize("framing", ["content-length", "chunked"])
def test_upload_cut_by_the_crash_leaves_no_object(servers, framing):
    server = servers[-1]
    folder = unique("cut")
    name = f"{folder}/partial.bin"
    upload = SlowUpload(server, name, declared=16 * 1024 * 1024, fast_bytes=2 * 1024 * 1024,
                        chunked=framing == "chunked")
    upload.start()
    assert upload.sent_fast.wait(15), "the first 2 MiB were never sent"
    assert upload.error is None and upload.status is None, (upload.error, upload.status)
    time.sleep(0.3)  # let the server take in what was sent
    assert v0_metadata(server, name).status_code == 404  # nothing visible while the body is arriving

    servers.append(kill_and_restart(server))
    upload.join(15)
    assert not upload.is_alive()
    assert upload.status is None, f"the interrupted upload was answered with {upload.status}"
    assert upload.sent < upload.declared

    server = servers[-1]
    missing = v0_metadata(server, name)
    assert missing.status_code == 404, missing.text
    assert v0_list(server, f"{folder}/") == {"prefixes": [], "items": []}
    assert folder + "/" not in v0_list(server, "")["prefixes"]

    # Control: the same framing, sent to the end, is a valid upload (and the name is free again).
    complete = SlowUpload(server, name, declared=300 * 1024, fast_bytes=301 * 1024, chunked=framing == "chunked")
    complete.start()
    complete.join(15)
    assert complete.status == 200, complete.error
    metadata = v0_metadata(server, name).json()
    assert metadata["size"] == str(300 * 1024)
    assert metadata["md5Hash"] == base64.b64encode(complete.md5.digest()).decode()


# --- (b) acknowledged writes survive ---------------------------------------------------------------

def test_acknowledged_writes_survive_kill_minus_nine(servers):
    server = servers[-1]
    folder = unique("acked")
    big = os.urandom(3 * 1024 * 1024 + 17)
    small = b"small and acknowledged"
    replaced_first, replaced_final = os.urandom(5000), os.urandom(7000)

    for name, data in [("big.bin", big), ("small.txt", small), ("replaced.bin", replaced_first),
                       ("replaced.bin", replaced_final), ("deleted.bin", b"gone")]:
        response = v0_media_upload(server, f"{folder}/{name}", data)
        assert response.status_code == 200, response.text
        assert response.json()["size"] == str(len(data))
    patched = requests.patch(object_url(server, f"{folder}/small.txt"), json={"metadata": {"kept": "yes"}},
                             headers=OWNER, timeout=10)
    assert patched.status_code == 200, patched.text
    deleted = requests.delete(object_url(server, f"{folder}/deleted.bin"), headers=OWNER, timeout=10)
    assert deleted.status_code == 204, deleted.text

    servers.append(kill_and_restart(server))
    server = servers[-1]

    assert v0_download(server, f"{folder}/big.bin") == big
    assert v0_download(server, f"{folder}/small.txt") == small
    assert v0_download(server, f"{folder}/replaced.bin") == replaced_final
    metadata = v0_metadata(server, f"{folder}/big.bin").json()
    assert metadata["size"] == str(len(big)) and metadata["md5Hash"] == md5_base64(big)
    small_metadata = v0_metadata(server, f"{folder}/small.txt").json()
    assert small_metadata["metadata"] == {"kept": "yes"} and small_metadata["metageneration"] == "2"
    assert v0_metadata(server, f"{folder}/deleted.bin").status_code == 404
    listed = [item["name"] for item in v0_list(server, f"{folder}/")["items"]]
    assert listed == [f"{folder}/big.bin", f"{folder}/replaced.bin", f"{folder}/small.txt"]


# --- (c) Firebase v0 resumable upload (JS SDK protocol, §4.4) ----------------------------------------

def v0_resumable_start(server, name, total, content_type):
    response = requests.post(
        bucket_url(server), params={"name": name}, data=json.dumps({"name": name, "contentType": content_type}),
        headers={**OWNER, "X-Goog-Upload-Protocol": "resumable", "X-Goog-Upload-Command": "start",
                 "X-Goog-Upload-Header-Content-Length": str(total),
                 "X-Goog-Upload-Header-Content-Type": content_type,
                 "Content-Type": "application/json; charset=utf-8"},
        timeout=10)
    assert response.status_code == 200, response.text
    assert response.headers["X-Goog-Upload-Status"] == "active"
    return response.headers["X-Goog-Upload-URL"]


def v0_resumable_command(upload_url, command, offset=None, data=b""):
    headers = {**OWNER, "X-Goog-Upload-Command": command}
    if offset is not None:
        headers["X-Goog-Upload-Offset"] = str(offset)
    return requests.post(upload_url, data=data, headers=headers, timeout=30)


def test_v0_resumable_upload_resumes_after_kill_minus_nine(servers):
    server = servers[-1]
    name = f"{unique('v0-resumable')}/file.bin"
    data = os.urandom(3 * GRANULE + 12345)
    upload_url = v0_resumable_start(server, name, len(data), "application/x-resumed")
    assert urlsplit(upload_url).port == server.port

    for offset in (0, GRANULE):
        chunk = v0_resumable_command(upload_url, "upload", offset, data[offset:offset + GRANULE])
        assert chunk.status_code == 200, chunk.text
        assert chunk.headers["X-Goog-Upload-Status"] == "active"

    servers.append(kill_and_restart(server))
    server = servers[-1]

    query = v0_resumable_command(upload_url, "query")
    assert query.status_code == 200, query.text
    assert query.headers["X-Goog-Upload-Status"] == "active"
    assert query.headers["X-Goog-Upload-Size-Received"] == str(2 * GRANULE)
    assert v0_metadata(server, name).status_code == 404  # not finalized yet

    final = v0_resumable_command(upload_url, "upload, finalize", 2 * GRANULE, data[2 * GRANULE:])
    assert final.status_code == 200, final.text
    assert final.headers["X-Goog-Upload-Status"] == "final"
    metadata = final.json()
    assert metadata["name"] == name and metadata["bucket"] == BUCKET
    assert metadata["size"] == str(len(data))
    assert metadata["md5Hash"] == md5_base64(data)
    assert metadata["contentType"] == "application/x-resumed"
    assert v0_download(server, name) == data


# --- (d) GCS JSON resumable upload (google-cloud-storage protocol, §9.3) ----------------------------

def gcs_resumable_start(server, name, content_type):
    response = requests.post(
        f"{server.url}/upload/storage/v1/b/{quote(BUCKET, safe='')}/o",
        params={"uploadType": "resumable", "name": name}, data=json.dumps({"name": name}),
        headers={"Content-Type": "application/json; charset=UTF-8", "X-Upload-Content-Type": content_type},
        timeout=10)
    assert response.status_code in (200, 201), response.text
    return response.headers["Location"]


def gcs_put(session_url, data, content_range):
    return requests.put(session_url, data=data, headers={"Content-Range": content_range}, timeout=30)


def gcs_download(server, name):
    response = requests.get(f"{server.url}/download/storage/v1/b/{quote(BUCKET, safe='')}/o/{quote(name, safe='')}",
                            params={"alt": "media"}, timeout=30)
    assert response.status_code == 200, response.text[:300]
    return response.content


def test_gcs_resumable_upload_resumes_after_kill_minus_nine(servers):
    server = servers[-1]
    name = f"{unique('gcs-resumable')}/file.bin"
    data = os.urandom(3 * GRANULE + 999)
    session_url = gcs_resumable_start(server, name, "application/x-gcs-resumed")
    assert urlsplit(session_url).port == server.port

    for first in (0, GRANULE):
        last = first + GRANULE - 1
        chunk = gcs_put(session_url, data[first:last + 1], f"bytes {first}-{last}/*")
        assert chunk.status_code == 308, chunk.text
        assert chunk.headers["Range"] == f"bytes=0-{last}"

    servers.append(kill_and_restart(server))
    server = servers[-1]

    status = gcs_put(session_url, b"", "bytes */*")
    assert status.status_code == 308, status.text
    assert status.headers["Range"] == f"bytes=0-{2 * GRANULE - 1}"

    final = gcs_put(session_url, data[2 * GRANULE:], f"bytes {2 * GRANULE}-{len(data) - 1}/{len(data)}")
    assert final.status_code == 200, final.text
    resource = final.json()
    assert resource["name"] == name and resource["bucket"] == BUCKET
    assert resource["size"] == str(len(data))
    assert resource["md5Hash"] == md5_base64(data)
    assert resource["contentType"] == "application/x-gcs-resumed"
    assert gcs_download(server, name) == data
    assert v0_download(server, name) == data
