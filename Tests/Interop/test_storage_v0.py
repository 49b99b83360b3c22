"""The Firebase v0 Storage API over raw HTTP, sent exactly as the JS and Apple SDKs send it (spec
storage-api §1–§8): metadata, downloads, ranges, download tokens, PATCH, list, delete, and their errors."""

import uuid

import pytest
import requests

from conftest import HearthProcess, free_port, one_process_only
from storage_support import (
    BUCKET, JS, OWNER, TIMESTAMP, bucket_url, crc32c_base64, error_of, js_multipart_upload, md5_base64, object_url,
    unique)


@pytest.fixture(scope="module")
def server():
    process = HearthProcess().start()
    yield process
    process.stop()
    process.remove_data()


def upload(server, name, data=b"hello world", **options):
    response = js_multipart_upload(server, name, data, **options)
    assert response.status_code == 200, response.text
    return response.json()


def test_an_upload_answers_with_the_metadata_of_section_2(server):
    name = f"{unique()}/someFile"
    data = b"hello world"
    metadata = upload(server, name, data, content_type="text/plain", metadata={"owner": "alice"})
    assert set(metadata) == {
        "name", "bucket", "generation", "metageneration", "contentType", "timeCreated", "updated", "storageClass",
        "size", "md5Hash", "crc32c", "etag", "contentEncoding", "contentDisposition", "downloadTokens", "metadata"}
    assert metadata["name"] == name and metadata["bucket"] == BUCKET
    assert metadata["size"] == "11" and metadata["metageneration"] == "1"
    assert int(metadata["generation"]) > 0
    assert metadata["md5Hash"] == md5_base64(data) == "XrY7u+Ae7tCTyyK7j1rNww=="
    assert metadata["crc32c"] == crc32c_base64(data)
    assert metadata["contentType"] == "text/plain"
    assert metadata["contentEncoding"] == "identity" and metadata["contentDisposition"] == "inline"
    assert metadata["storageClass"] == "STANDARD"
    assert TIMESTAMP.match(metadata["timeCreated"]) and metadata["updated"] == metadata["timeCreated"]
    assert metadata["metadata"] == {"owner": "alice"}
    uuid.UUID(metadata["downloadTokens"])
    fetched = requests.get(object_url(server, name), headers={**JS, **OWNER}, timeout=10)
    assert fetched.status_code == 200 and fetched.json() == metadata


def test_download_streams_the_bytes_with_the_gcs_headers(server):
    name = f"{unique()}/photo.png"
    data = bytes(range(256)) * 40
    metadata = upload(server, name, data, content_type="image/png")
    response = requests.get(object_url(server, name), params={"alt": "media"}, headers={**JS, **OWNER}, timeout=10)
    assert response.status_code == 200
    assert response.content == data
    assert response.headers["Content-Type"] == "image/png"
    assert response.headers["Content-Length"] == str(len(data))
    assert response.headers["Accept-Ranges"] == "bytes"
    assert response.headers["Content-Disposition"] == "inline; filename*=photo.png"
    assert response.headers["x-goog-hash"] == f"crc32c={crc32c_base64(data)},md5={md5_base64(data)}"
    assert response.headers["x-goog-generation"] == metadata["generation"]


@pytest.mark.parametrize("header, status, expected", [
    ("bytes=2-5", 206, (2, 6)),
    ("bytes=10-", 206, (10, 16)),
    ("bytes=-3", 206, (13, 16)),
    ("bytes=0-1000", 206, (0, 16)),
    ("bytes=50-60", 200, (0, 16)),
    ("pages=1-2", 200, (0, 16)),
])
def test_ranges(server, header, status, expected):
    name = f"{unique()}/range.bin"
    data = b"0123456789abcdef"
    upload(server, name, data)
    response = requests.get(object_url(server, name), params={"alt": "media"}, headers={**OWNER, "Range": header},
                            timeout=10)
    assert response.status_code == status
    start, end = expected
    assert response.content == data[start:end]
    if status == 206:
        assert response.headers["Content-Range"] == f"bytes {start}-{end - 1}/{len(data)}"


def test_an_empty_object_answers_a_js_get_bytes_range_with_200(server):
    name = f"{unique()}/empty"
    upload(server, name, b"")
    response = requests.get(object_url(server, name), params={"alt": "media"}, headers={**OWNER, "Range": "bytes=0-100"},
                            timeout=10)
    assert response.status_code == 200 and response.content == b""


def test_a_download_url_works_with_no_other_header(server):
    name = f"{unique()}/shared file.txt"
    metadata = upload(server, name, b"shared")
    token = metadata["downloadTokens"].split(",")[0]
    response = requests.get(object_url(server, name), params={"alt": "media", "token": token}, timeout=10)
    assert response.status_code == 200 and response.content == b"shared"


def test_patch_merges_custom_metadata_and_removes_nulls(server):
    name = f"{unique()}/doc"
    before = upload(server, name, metadata={"keep": "1", "drop": "2"})
    response = requests.patch(
        object_url(server, name), json={"contentType": "text/markdown", "cacheControl": "max-age=60",
                                        "metadata": {"drop": None, "added": 5}, "size": "999", "bucket": ""},
        headers={**JS, **OWNER}, timeout=10)
    assert response.status_code == 200, response.text
    after = response.json()
    assert after["metadata"] == {"keep": "1", "added": "5"}
    assert after["contentType"] == "text/markdown" and after["cacheControl"] == "max-age=60"
    assert after["size"] == before["size"] and after["bucket"] == BUCKET
    assert after["metageneration"] == "2" and after["generation"] == before["generation"]
    assert response.headers["Cache-Control"] == "max-age=60"
    cleared = requests.patch(object_url(server, name), json={"metadata": None, "contentType": None},
                             headers={**JS, **OWNER}, timeout=10).json()
    assert "metadata" not in cleared and "contentType" not in cleared
    assert cleared["metageneration"] == "3"


def test_patch_of_a_missing_object_is_404(server):
    response = requests.patch(object_url(server, f"{unique()}/missing"), json={"contentType": "a/b"}, headers=OWNER,
                              timeout=10)
    assert response.status_code == 404


def test_list_pages_through_items_and_prefixes(server):
    root = unique("list")
    for name in ["a", "b", "c/1", "c/2", "d/x/1", "e"]:
        upload(server, f"{root}/{name}")
    upload(server, f"{root}//hidden")
    first = requests.get(bucket_url(server), params={"prefix": f"{root}/", "delimiter": "/", "maxResults": "3"},
                         headers={**JS, **OWNER}, timeout=10)
    assert first.status_code == 200, first.text
    page = first.json()
    assert page["items"] == [{"name": f"{root}/a", "bucket": BUCKET}, {"name": f"{root}/b", "bucket": BUCKET}]
    assert page["prefixes"] == [f"{root}/c/"]
    second = requests.get(bucket_url(server), params={"prefix": f"{root}/", "delimiter": "/", "maxResults": "3",
                                                      "pageToken": page["nextPageToken"]}, headers=OWNER, timeout=10).json()
    assert second["prefixes"] == [f"{root}/d/"]
    assert second["items"] == [{"name": f"{root}/e", "bucket": BUCKET}]
    assert "nextPageToken" not in second
    flat = requests.get(bucket_url(server), params={"prefix": f"{root}/c/"}, headers=OWNER, timeout=10).json()
    assert [item["name"] for item in flat["items"]] == [f"{root}/c/1", f"{root}/c/2"]
    assert flat["prefixes"] == [] and "nextPageToken" not in flat
    for item in page["items"] + second["items"]:
        assert all(isinstance(value, str) for value in item.values())


def test_names_made_of_the_last_code_points_are_listed_once(server):
    # U+10FFFF is the largest code point: a listing must still find names that hold it after a
    # prefix, and must pass a folder of such names once.
    root = unique("edge")
    last = "\U0010FFFF" * 5
    names = [f"{root}/{last}z", f"{root}/{last}/inner", f"{root}/plain"]
    for name in names:
        upload(server, name)
    flat = requests.get(bucket_url(server), params={"prefix": f"{root}/"}, headers={**JS, **OWNER}, timeout=10).json()
    assert [item["name"] for item in flat["items"]] == [f"{root}/plain", f"{root}/{last}/inner", f"{root}/{last}z"]
    folders = requests.get(bucket_url(server), params={"prefix": f"{root}/", "delimiter": "/"}, headers={**JS, **OWNER},
                           timeout=10).json()
    assert folders["prefixes"] == [f"{root}/{last}/"]
    assert [item["name"] for item in folders["items"]] == [f"{root}/plain", f"{root}/{last}z"]
    assert "nextPageToken" not in folders


def test_list_refuses_a_prefix_without_a_trailing_slash(server):
    response = requests.get(bucket_url(server), params={"prefix": "photos", "delimiter": "/"}, headers=OWNER, timeout=10)
    assert response.status_code == 400
    assert error_of(response) == (
        "The prefix parameter is required to be empty or ends with a single / character.")


def test_delete_answers_204_then_the_object_is_gone(server):
    name = f"{unique()}/gone"
    upload(server, name)
    deleted = requests.delete(object_url(server, name), headers={**JS, **OWNER}, timeout=10)
    assert deleted.status_code == 204 and deleted.content == b""
    assert requests.get(object_url(server, name), headers=OWNER, timeout=10).status_code == 404
    assert requests.delete(object_url(server, name), headers=OWNER, timeout=10).status_code == 404


def test_missing_objects_are_404(server):
    missing = object_url(server, f"{unique()}/nothing")
    assert requests.get(missing, headers=OWNER, timeout=10).status_code == 404
    assert requests.get(missing, params={"alt": "media"}, headers=OWNER, timeout=10).status_code == 404


def test_download_tokens_are_made_and_revoked_by_admins_only(server):
    name = f"{unique()}/tokens"
    first = upload(server, name)["downloadTokens"]
    denied = requests.post(object_url(server, name), params={"create_token": "true"}, timeout=10)
    assert denied.status_code == 403 and error_of(denied) == "Missing admin credentials."
    created = requests.post(object_url(server, name), params={"create_token": "true"}, headers=OWNER, timeout=10)
    assert created.status_code == 200
    tokens = created.json()["downloadTokens"].split(",")
    assert tokens[0] == first and len(tokens) == 2
    assert created.json()["metageneration"] == "2"
    bad = requests.post(object_url(server, name), params={"create_token": "yes"}, headers=OWNER, timeout=10)
    assert bad.status_code == 400
    removed = requests.post(object_url(server, name), params={"delete_token": first}, headers=OWNER, timeout=10)
    assert removed.json()["downloadTokens"] == tokens[1]
    old = requests.get(object_url(server, name), params={"alt": "media", "token": first}, timeout=10)
    assert old.status_code == 200, "development rules are open, so the old token's request still reads"
    missing = requests.post(object_url(server, f"{unique()}/none"), params={"create_token": "true"}, headers=OWNER,
                            timeout=10)
    assert missing.status_code == 404


@pytest.mark.parametrize("name", ["a" * 1025, "line\nbreak", "carriage\rreturn"])
def test_invalid_object_names_are_refused_and_store_nothing(server, name):
    response = js_multipart_upload(server, name, b"x")
    assert response.status_code == 400, response.text
    listing = requests.get(bucket_url(server), headers=OWNER, timeout=10).json()
    assert all(item["name"] != name for item in listing["items"])


def test_a_1024_byte_name_is_accepted(server):
    name = "n/" + "é" * 511
    assert len(name.encode()) == 1024
    assert upload(server, name)["name"] == name


def test_an_object_path_with_an_unencoded_slash_is_refused(server):
    response = requests.get(f"{bucket_url(server)}/folder/file.png", headers=OWNER, timeout=10)
    assert response.status_code == 400
    assert error_of(response) == "Invalid HTTP method/URL pair."


def test_cors_preflights_allow_the_sdk_headers(server):
    response = requests.options(
        object_url(server, "x"),
        headers={"Origin": "http://localhost:5173", "Access-Control-Request-Method": "POST",
                 "Access-Control-Request-Headers": "authorization,x-goog-upload-command,x-firebase-storage-version"},
        timeout=10)
    assert response.status_code in (200, 204)
    assert response.headers["Access-Control-Allow-Origin"] in ("http://localhost:5173", "*")
    allowed = response.headers["Access-Control-Allow-Headers"].lower()
    assert "x-goog-upload-command" in allowed and "authorization" in allowed
    exposed = requests.get(object_url(server, "x"), headers={**OWNER, "Origin": "http://localhost:5173"}, timeout=10)
    expose = exposed.headers["Access-Control-Expose-Headers"].lower()
    assert "x-goog-upload-status" in expose and "x-goog-upload-url" in expose


def test_reset_removes_every_object(server):
    name = f"{unique()}/reset"
    upload(server, name)
    assert requests.post(f"{server.url}/internal/reset", timeout=10).status_code == 200
    assert requests.get(object_url(server, name), headers=OWNER, timeout=10).status_code == 404


def test_buckets_are_separate_and_created_on_first_use(server):
    name = f"{unique()}/same-name"
    upload(server, name, b"default bucket")
    for bucket in ["custom-bucket", "interop-project.firebasestorage.app"]:
        assert requests.get(object_url(server, name, bucket), headers=OWNER, timeout=10).status_code == 404
        other = js_multipart_upload(server, name, f"in {bucket}".encode(), bucket=bucket)
        assert other.status_code == 200 and other.json()["bucket"] == bucket
        read = requests.get(object_url(server, name, bucket), params={"alt": "media"}, headers=OWNER, timeout=10)
        assert read.content == f"in {bucket}".encode()
    default = requests.get(object_url(server, name), params={"alt": "media"}, headers=OWNER, timeout=10)
    assert default.content == b"default bucket"


@one_process_only
def test_storage_port_serves_storage_alone():
    storage_port = free_port()
    process = HearthProcess(extra_args=["--storage-port", str(storage_port)]).start()
    try:
        name = f"{unique()}/on-9199"
        own_port = f"http://127.0.0.1:{storage_port}"
        uploaded = requests.post(f"{own_port}/v0/b/{BUCKET}/o", params={"name": name}, data=b"own port", headers=OWNER,
                                 timeout=10)
        assert uploaded.status_code == 200, uploaded.text
        shared = requests.get(object_url(process, name), params={"alt": "media"}, headers=OWNER, timeout=10)
        assert shared.content == b"own port"
        database = requests.get(f"{own_port}/.json", timeout=10)
        assert database.status_code == 400 and error_of(database) == "Invalid HTTP method/URL pair."
    finally:
        process.stop()
        process.remove_data()
