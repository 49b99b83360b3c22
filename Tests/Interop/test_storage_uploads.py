"""Uploads over raw HTTP as each SDK sends them (spec storage-api §4): media, multipart, the JS
and Apple resumable protocols, and every refusal of §4.4, each leaving stored objects unchanged."""

import json
import os
from urllib.parse import quote

import pytest
import requests

from conftest import HearthProcess
from storage_support import (
    APPLE, BUCKET, GRANULARITY, OWNER, apple_command, bucket_url, crc32c_base64, error_of, js_command,
    js_multipart_upload, js_resumable_start, md5_base64, object_url, unique)


@pytest.fixture(scope="module")
def server():
    process = HearthProcess(extra_args=["--max-object-size", str(3 * 1024 * 1024)]).start()
    yield process
    process.stop()
    process.remove_data()


def download(server, name):
    response = requests.get(object_url(server, name), params={"alt": "media"}, headers=OWNER, timeout=30)
    assert response.status_code == 200, response.text
    return response.content


def metadata_of(server, name):
    return requests.get(object_url(server, name), headers=OWNER, timeout=10)


def test_media_upload_takes_the_content_type_header(server):
    name = f"{unique()}/raw.txt"
    response = requests.post(bucket_url(server), params={"name": name}, data=b"raw bytes",
                             headers={**OWNER, "Content-Type": "text/plain"}, timeout=10)
    assert response.status_code == 200, response.text
    assert response.json()["contentType"] == "text/plain" and response.json()["size"] == "9"
    assert download(server, name) == b"raw bytes"


def test_media_upload_without_a_name_is_400(server):
    response = requests.post(bucket_url(server), data=b"x", headers=OWNER, timeout=10)
    assert response.status_code == 400


def test_multipart_with_a_bad_content_type_is_refused(server):
    name = f"{unique()}/bad"
    response = requests.post(bucket_url(server), params={"name": name}, data=b"--x\r\n",
                             headers={**OWNER, "X-Goog-Upload-Protocol": "multipart", "Content-Type": "text/plain"},
                             timeout=10)
    assert response.status_code == 400
    assert "Bad content type." in response.text
    assert metadata_of(server, name).status_code == 404


def test_an_upload_over_an_object_replaces_it_wholesale(server):
    name = f"{unique()}/replace.txt"
    first = js_multipart_upload(server, name, b"first", metadata={"v": "1"}).json()
    second = js_multipart_upload(server, name, b"second!").json()
    assert second["generation"] != first["generation"] and second["metageneration"] == "1"
    assert "metadata" not in second and second["downloadTokens"] != first["downloadTokens"]
    assert download(server, name) == b"second!"


def test_js_resumable_upload(server):
    name = f"{unique()}/docs/a.bin"
    data = os.urandom(GRANULARITY + 45056)
    start = js_resumable_start(server, name, len(data), content_type="application/pdf", metadata={"k": "v"})
    assert start.status_code == 200, start.text
    assert start.headers["X-Goog-Upload-Status"] == "active"
    assert start.headers["X-Goog-Upload-Chunk-Granularity"] == str(GRANULARITY)
    assert start.headers["X-GUploader-UploadID"]
    url = start.headers["X-Goog-Upload-URL"]
    assert url.startswith(f"{server.url}/v0/b/{BUCKET}/o?name=") and "upload_id=" in url
    chunk = js_command(url, "upload", 0, data[:GRANULARITY])
    assert chunk.status_code == 200 and chunk.headers["X-Goog-Upload-Status"] == "active"
    assert chunk.headers["X-Goog-Upload-Size-Received"] == str(GRANULARITY)
    query = js_command(url, "query")
    assert query.headers["X-Goog-Upload-Status"] == "active"
    assert query.headers["X-Goog-Upload-Size-Received"] == str(GRANULARITY)
    final = js_command(url, "upload, finalize", GRANULARITY, data[GRANULARITY:])
    assert final.status_code == 200, final.text
    assert final.headers["X-Goog-Upload-Status"] == "final"
    metadata = final.json()
    assert metadata["name"] == name and metadata["size"] == str(len(data))
    assert metadata["contentType"] == "application/pdf" and metadata["metadata"] == {"k": "v"}
    assert metadata["md5Hash"] == md5_base64(data) and metadata["crc32c"] == crc32c_base64(data)
    assert download(server, name) == data
    again = js_command(url, "finalize")
    assert again.status_code == 200 and again.headers["X-Goog-Upload-Status"] == "final"


def test_apple_resumable_upload_with_the_object_in_the_path_and_a_resent_overlap(server):
    name = f"{unique()}/ios photo+1.jpg"
    escaped = quote(name, safe="")
    data = os.urandom(2 * GRANULARITY + 1000)
    start = requests.post(
        f"{bucket_url(server)}/{escaped}?uploadType=resumable&name={escaped}", data=json.dumps(
            {"name": name, "contentType": "image/jpeg", "bucket": "", "metadata": None}),
        headers={**APPLE, **OWNER, "X-Goog-Upload-Protocol": "resumable", "X-Goog-Upload-Command": "start",
                 "X-Goog-Upload-Content-Type": "image/jpeg", "X-Goog-Upload-Content-Length": str(len(data)),
                 "Content-Type": "application/json; charset=UTF-8"}, timeout=10)
    assert start.status_code == 200, start.text
    url = start.headers["X-Goog-Upload-URL"]
    first = apple_command(url, "upload", 0, data[:GRANULARITY + 500], total=len(data))
    assert first.status_code == 200 and first.headers["X-Goog-Upload-Size-Received"] == str(GRANULARITY + 500)
    # After a query, gtm-session-fetcher resumes from the offset rounded down to the granularity.
    query = apple_command(url, "query")
    assert query.headers["X-Goog-Upload-Size-Received"] == str(GRANULARITY + 500)
    final = apple_command(url, "upload, finalize", GRANULARITY, data[GRANULARITY:], total=len(data))
    assert final.status_code == 200, final.text
    assert final.json()["name"] == name and final.json()["contentType"] == "image/jpeg"
    assert download(server, name) == data
    answered = apple_command(url, "query")
    assert answered.headers["X-Goog-Upload-Status"] == "final"
    assert answered.json()["md5Hash"] == md5_base64(data)


def test_a_finalize_after_the_last_chunk(server):
    name = f"{unique()}/two-step"
    start = js_resumable_start(server, name, 5)
    url = start.headers["X-Goog-Upload-URL"]
    assert js_command(url, "upload", 0, b"12345").status_code == 200
    final = js_command(url, "finalize")
    assert final.status_code == 200 and final.json()["size"] == "5"


def test_an_offset_past_the_received_bytes_is_400_and_stays_active(server):
    name = f"{unique()}/gap"
    url = js_resumable_start(server, name, 10).headers["X-Goog-Upload-URL"]
    assert js_command(url, "upload", 0, b"12345").status_code == 200
    gap = js_command(url, "upload", 7, b"890")
    assert gap.status_code == 400 and gap.headers["X-Goog-Upload-Status"] == "active"
    assert js_command(url, "query").headers["X-Goog-Upload-Size-Received"] == "5"
    assert js_command(url, "upload, finalize", 5, b"67890").status_code == 200
    assert download(server, name) == b"1234567890"


def test_a_finalize_short_of_the_declared_size_is_refused(server):
    name = f"{unique()}/short"
    url = js_resumable_start(server, name, 10).headers["X-Goog-Upload-URL"]
    short = js_command(url, "upload, finalize", 0, b"12345")
    assert short.status_code == 400, short.text
    assert metadata_of(server, name).status_code == 404


def test_commands_on_finished_cancelled_and_unknown_uploads(server):
    name = f"{unique()}/states"
    url = js_resumable_start(server, name, 3).headers["X-Goog-Upload-URL"]
    assert js_command(url, "upload, finalize", 0, b"abc").status_code == 200
    late = js_command(url, "upload", 3, b"more")
    assert late.status_code == 400 and late.headers.get("X-Goog-Upload-Status") != "active"
    assert js_command(url, "cancel").status_code == 400
    assert download(server, name) == b"abc"

    cancelled = js_resumable_start(server, f"{unique()}/cancelled", 3).headers["X-Goog-Upload-URL"]
    assert js_command(cancelled, "cancel").status_code == 200
    assert js_command(cancelled, "cancel").status_code == 200
    assert js_command(cancelled, "query").headers["X-Goog-Upload-Status"] == "cancelled"
    refused = js_command(cancelled, "finalize")
    assert refused.status_code == 400 and refused.headers.get("X-Goog-Upload-Status") != "active"

    unknown = f"{bucket_url(server)}?name=x&upload_id=not-an-upload&upload_protocol=resumable"
    assert js_command(unknown, "upload", 0, b"x").status_code == 404
    no_id = requests.post(bucket_url(server), params={"name": "x"}, data=b"x",
                          headers={**OWNER, "X-Goog-Upload-Command": "upload", "X-Goog-Upload-Offset": "0"}, timeout=10)
    assert no_id.status_code == 400


@pytest.mark.parametrize("headers", [
    {},
    {"X-Goog-Upload-Command": "rewind"},
    {"X-Goog-Upload-Command": "upload"},
])
def test_malformed_upload_commands_are_400(server, headers):
    name = f"{unique()}/malformed"
    url = js_resumable_start(server, name, 3).headers["X-Goog-Upload-URL"]
    response = requests.post(url, data=b"abc", headers={**OWNER, **headers}, timeout=10)
    assert response.status_code == 400, response.text
    assert js_command(url, "query").headers["X-Goog-Upload-Size-Received"] == "0"


def test_an_unknown_upload_protocol_is_400(server):
    response = requests.post(bucket_url(server), params={"name": f"{unique()}/p"}, data=b"x",
                             headers={**OWNER, "X-Goog-Upload-Protocol": "carrier-pigeon"}, timeout=10)
    assert response.status_code == 400


def test_objects_over_the_maximum_size_are_refused_by_every_protocol(server):
    limit = 3 * 1024 * 1024
    name = f"{unique()}/big"
    media = requests.post(bucket_url(server), params={"name": name}, data=b"x" * (limit + 1), headers=OWNER, timeout=30)
    assert media.status_code == 400
    assert error_of(media) == f"The object exceeds the maximum object size of {limit} bytes."
    multipart = js_multipart_upload(server, name, b"x" * (limit + 1))
    assert multipart.status_code == 400
    declared = js_resumable_start(server, name, limit + 1)
    assert declared.status_code == 400
    url = js_resumable_start(server, name, limit).headers["X-Goog-Upload-URL"]
    over = js_command(url, "upload, finalize", 0, b"x" * (limit + 1))
    assert over.status_code == 400
    assert metadata_of(server, name).status_code == 404
    exact = js_multipart_upload(server, name, b"x" * limit)
    assert exact.status_code == 200 and exact.json()["size"] == str(limit)


def test_a_refused_upload_leaves_the_stored_object_unchanged(server):
    name = f"{unique()}/kept"
    js_multipart_upload(server, name, b"original")
    too_big = requests.post(bucket_url(server), params={"name": name}, data=b"x" * (3 * 1024 * 1024 + 1), headers=OWNER,
                            timeout=30)
    assert too_big.status_code == 400
    url = js_resumable_start(server, name, 20).headers["X-Goog-Upload-URL"]
    assert js_command(url, "upload, finalize", 0, b"short").status_code == 400
    assert download(server, name) == b"original"


def test_a_resumable_protocol_without_a_start_command_is_400(server):
    name = f"{unique()}/no-start"
    response = requests.post(bucket_url(server), params={"name": name}, data=b"x",
                             headers={**OWNER, "X-Goog-Upload-Protocol": "resumable"}, timeout=10)
    assert response.status_code == 400
    assert metadata_of(server, name).status_code == 404
