"""The real `google-cloud-storage` client and `firebase_admin.storage` against Hearth's GCS JSON API
subset (spec storage-api §9): multipart and chunked resumable uploads, downloads (whole and ranged),
metadata reads, PATCH, listing with prefixes and pages, delete, copy, not-found errors, the shared
object store with the Firebase v0 API, and that the GCS API bypasses Storage rules while v0 requests
of signed-in users do not.

Both clients find the server through `STORAGE_EMULATOR_HOST` (with scheme). firebase-admin for
Python has no storage-emulator code of its own and asks Application Default Credentials for a
credential when the app has none, so its apps here get an explicit credential: anonymous (no
`Authorization`) or a static OAuth token (`Authorization: Bearer <token>`, what a service account
sends) — the GCS API must treat both as admin (§9.1)."""

import os
from urllib.parse import quote

import firebase_admin
import google.oauth2.credentials
import pytest
import requests
from firebase_admin import storage as firebase_storage
from google.api_core.exceptions import NotFound
from google.auth.credentials import AnonymousCredentials
from google.cloud import storage
from requests.structures import CaseInsensitiveDict

from conftest import HearthProcess, PROJECT
from storage_support import BUCKET, OWNER, crc32c_base64, md5_base64, object_url, unique
from tokens import mock_id_token

CHUNK = 256 * 1024 * 4  # python-storage chunk sizes must be multiples of 256 KiB
USERS_ONLY_RULES = """rules_version = '2';
service firebase.storage {
  match /b/{bucket}/o {
    match /users/{uid}/{f=**} {
      allow read, write: if request.auth != null && request.auth.uid == uid;
    }
  }
}
"""


class RecordingSession(requests.Session):
    """A requests session that remembers (method, url, request headers, status, response headers)
    of every request the storage client makes, so tests can see which wire protocol it chose."""

    def __init__(self):
        super().__init__()
        self.exchanges = record_exchanges(self)


def record_exchanges(session):
    """Records every exchange of `session` (any requests.Session, including google-auth's
    AuthorizedSession) with the headers that really went out; returns the growing list."""
    exchanges = []

    def remember(response, *args, **kwargs):
        sent = response.request
        exchanges.append((sent.method, sent.url, CaseInsensitiveDict(sent.headers), response.status_code,
                          CaseInsensitiveDict(response.headers)))

    session.hooks["response"].append(remember)
    return exchanges










def v0_media_upload(server, name, data, headers):
    return requests.post(f"{server.url}/v0/b/{quote(BUCKET, safe='')}/o", params={"name": name}, data=data,
                         headers={**headers, "Content-Type": "text/plain"}, timeout=10)


def gcs_client(http=None):
    return storage.Client(project=PROJECT, credentials=AnonymousCredentials(), _http=http)


@pytest.fixture(scope="module")
def server():
    process = HearthProcess().start()
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("STORAGE_EMULATOR_HOST", process.url)
        yield process
    process.stop()
    process.remove_data()


@pytest.fixture
def recorder():
    return RecordingSession()


@pytest.fixture
def bucket(server, recorder):
    return gcs_client(recorder).bucket(BUCKET)


@pytest.fixture
def firebase_app(server):
    app = firebase_admin.initialize_app(
        credential=AnonymousCredentials(), options={"projectId": PROJECT, "storageBucket": BUCKET},
        name=unique("storage-admin"))
    yield app
    firebase_admin.delete_app(app)


def assert_hashes_and_size(blob, data):
    assert blob.size == len(data)
    assert blob.md5_hash == md5_base64(data)
    assert blob.crc32c == crc32c_base64(data)


# --- uploads and downloads -----------------------------------------------------------------------

@pytest.mark.parametrize("size", [65_535, 65_536, 70_000, 100_000, 131_072, 200_000, 1_000_000])
def test_multipart_uploads_of_every_size_keep_their_bytes(bucket, size):
    """Bodies around the 64 KiB a multipart part is handed on in: the closing delimiter may
    arrive in the chunk that makes the part long enough."""
    data = bytes((index * 7) % 251 for index in range(size))
    blob = bucket.blob(f"{unique()}/sized.bin")
    blob.upload_from_string(data, content_type="application/octet-stream")
    assert bucket.blob(blob.name).download_as_bytes() == data


def test_small_upload_is_multipart_and_reports_real_digests(bucket, recorder):
    data = b"hello from google-cloud-storage\n"
    blob = bucket.blob(f"{unique()}/hello.txt")
    blob.upload_from_string(data, content_type="text/plain")

    uploads = [(method, url) for method, url, *_ in recorder.exchanges if "/upload/" in url]
    assert len(uploads) == 1 and uploads[0][0] == "POST" and "uploadType=multipart" in uploads[0][1], uploads
    assert_hashes_and_size(blob, data)
    assert blob.content_type == "text/plain"
    assert blob.generation and blob.metageneration == 1

    fresh = bucket.blob(blob.name)
    fresh.reload()
    assert_hashes_and_size(fresh, data)
    assert fresh.content_type == "text/plain"
    assert fresh.generation == blob.generation
    assert fresh.download_as_bytes() == data


def test_large_upload_goes_through_several_resumable_chunks(bucket, recorder):
    data = os.urandom(9 * 1024 * 1024)
    blob = bucket.blob(f"{unique()}/big.bin")
    blob.chunk_size = CHUNK
    blob.upload_from_string(data, content_type="application/octet-stream")

    starts = [e for e in recorder.exchanges if e[0] == "POST" and "uploadType=resumable" in e[1]]
    chunks = [e for e in recorder.exchanges if e[0] == "PUT"]
    assert len(starts) == 1 and starts[0][3] in (200, 201)
    assert len(chunks) == 9, [(e[2].get("content-range"), e[3]) for e in chunks]
    for index, (_, _, headers, status, response_headers) in enumerate(chunks[:-1]):
        assert status == 308
        assert response_headers.get("Range") == f"bytes=0-{(index + 1) * CHUNK - 1}"
    assert chunks[-1][3] == 200
    assert_hashes_and_size(blob, data)

    assert bucket.blob(blob.name).download_as_bytes() == data


def test_download_of_a_byte_range(bucket):
    data = bytes(range(256)) * 64
    blob = bucket.blob(f"{unique()}/range.bin")
    blob.upload_from_string(data)
    assert blob.download_as_bytes(start=100, end=1099) == data[100:1100]  # end is inclusive
    assert blob.download_as_bytes(start=len(data) - 10) == data[-10:]


def test_reload_reports_the_object_resource(bucket):
    data = os.urandom(4096)
    name = f"{unique()}/dir/resource.bin"
    bucket.blob(name).upload_from_string(data, content_type="image/png")

    blob = bucket.blob(name)
    blob.reload()
    assert blob.name == name and blob.bucket.name == BUCKET
    assert_hashes_and_size(blob, data)
    assert blob.content_type == "image/png"
    assert blob.storage_class == "STANDARD"
    assert blob.time_created is not None and blob.updated is not None
    assert blob.etag
    assert blob.id == f"{BUCKET}/{name}/{blob.generation}"


def test_patch_of_content_type_and_custom_metadata(bucket):
    name = f"{unique()}/patched.txt"
    original = bucket.blob(name)
    original.upload_from_string(b"{}", content_type="text/plain")

    blob = bucket.blob(name)
    blob.content_type = "application/json"
    blob.metadata = {"owner": "alice", "stage": "draft"}
    blob.patch()
    assert blob.content_type == "application/json"
    assert blob.metadata == {"owner": "alice", "stage": "draft"}
    assert blob.metageneration == 2

    blob.metadata = {"stage": "final"}  # a merge: `owner` stays
    blob.patch()

    reloaded = bucket.blob(name)
    reloaded.reload()
    assert reloaded.content_type == "application/json"
    assert reloaded.metadata == {"owner": "alice", "stage": "final"}
    assert reloaded.metageneration == 3
    assert reloaded.generation == original.generation
    assert reloaded.download_as_bytes() == b"{}"


# --- listing -------------------------------------------------------------------------------------

def test_list_with_prefix_and_delimiter(bucket):
    root = unique("list")
    for name in ["a.txt", "b.txt", "photos/1.png", "photos/2.png", "docs/deep/x.md"]:
        bucket.blob(f"{root}/{name}").upload_from_string(name.encode())
    bucket.blob(f"{root}-sibling/outside.txt").upload_from_string(b"not under the prefix")

    blobs = bucket.list_blobs(prefix=f"{root}/", delimiter="/")
    names = [blob.name for blob in blobs]  # iterating fills `prefixes`
    assert names == [f"{root}/a.txt", f"{root}/b.txt"]
    assert blobs.prefixes == {f"{root}/docs/", f"{root}/photos/"}

    nested = bucket.list_blobs(prefix=f"{root}/photos/", delimiter="/")
    assert [blob.name for blob in nested] == [f"{root}/photos/1.png", f"{root}/photos/2.png"]
    assert nested.prefixes == set()

    everything = [blob.name for blob in bucket.list_blobs(prefix=f"{root}/")]
    assert everything == sorted(f"{root}/{name}" for name in
                                ["a.txt", "b.txt", "photos/1.png", "photos/2.png", "docs/deep/x.md"])
    listed = {blob.name: blob for blob in bucket.list_blobs(prefix=f"{root}/")}
    assert listed[f"{root}/a.txt"].size == len(b"a.txt")  # GCS list items are full resources
    assert listed[f"{root}/a.txt"].md5_hash == md5_base64(b"a.txt")


def test_list_pages_with_max_results(bucket, recorder):
    root = unique("pages")
    names = [f"{root}/item{index}" for index in range(5)]
    for name in names:
        bucket.blob(name).upload_from_string(b"x")

    pages = [[blob.name for blob in page] for page in bucket.list_blobs(prefix=f"{root}/", page_size=2).pages]
    assert pages == [names[0:2], names[2:4], names[4:5]]
    list_requests = [url for method, url, *_ in recorder.exchanges if method == "GET" and url.split("?")[0].endswith("/o")]
    assert all("maxResults=2" in url for url in list_requests[-3:])
    assert "pageToken=" not in list_requests[-3] and "pageToken=" in list_requests[-1]

    assert [blob.name for blob in bucket.list_blobs(prefix=f"{root}/", max_results=3)] == names[:3]


def test_list_pages_count_items_and_prefixes_together(bucket):
    root = unique("mixed")
    for name in ["a", "b", "d/1", "d/2", "e/1"]:
        bucket.blob(f"{root}/{name}").upload_from_string(b"x")
    iterator = bucket.list_blobs(prefix=f"{root}/", delimiter="/", page_size=2)
    pages = [([blob.name for blob in page], sorted(page.prefixes)) for page in iterator.pages]
    assert pages == [([f"{root}/a", f"{root}/b"], []), ([], [f"{root}/d/", f"{root}/e/"])]


# --- delete, not found, copy ---------------------------------------------------------------------

def test_delete_then_the_blob_no_longer_exists(bucket):
    blob = bucket.blob(f"{unique()}/doomed.txt")
    blob.upload_from_string(b"short-lived")
    assert blob.exists()
    blob.delete()
    assert blob.exists() is False
    assert bucket.get_blob(blob.name) is None
    with pytest.raises(NotFound):
        blob.delete()


def test_missing_blob_raises_not_found(bucket):
    blob = bucket.blob(f"{unique()}/never-written.txt")
    with pytest.raises(NotFound) as missing:
        blob.reload()
    assert missing.value.code == 404
    assert f"No such object: {BUCKET}/{blob.name}" in missing.value.message
    with pytest.raises(NotFound):
        blob.download_as_bytes()
    assert bucket.get_blob(blob.name) is None


def test_copy_blob(bucket):
    data = os.urandom(10000)
    source = bucket.blob(f"{unique()}/source.bin")
    source.upload_from_string(data, content_type="application/x-test")
    source.metadata = {"origin": "copy-test"}
    source.patch()

    copy = bucket.copy_blob(source, bucket, f"{unique()}/copy.bin")
    assert copy.name != source.name
    assert_hashes_and_size(copy, data)
    assert copy.content_type == "application/x-test"
    assert copy.metadata == {"origin": "copy-test"}
    assert copy.download_as_bytes() == data
    assert source.download_as_bytes() == data  # the source is untouched


# --- firebase_admin.storage ----------------------------------------------------------------------

def test_firebase_admin_bucket_round_trip(firebase_app):
    bucket = firebase_storage.bucket(app=firebase_app)
    assert bucket.name == BUCKET
    data = b"written through firebase_admin.storage"
    blob = bucket.blob(f"{unique('admin')}/note.txt")
    blob.upload_from_string(data, content_type="text/plain")
    assert_hashes_and_size(blob, data)

    fetched = bucket.get_blob(blob.name)
    assert fetched is not None and fetched.content_type == "text/plain"
    assert_hashes_and_size(fetched, data)
    assert fetched.download_as_bytes() == data
    fetched.delete()
    assert not bucket.blob(blob.name).exists()


def test_firebase_admin_with_an_oauth_token_is_admin_too(server):
    """A service-account credential makes the client send `Authorization: Bearer <OAuth token>`;
    Hearth cannot verify it and, as the emulator, treats GCS-API requests as admin anyway."""
    credential = google.oauth2.credentials.Credentials(token="ya29.not-a-real-oauth-token")
    app = firebase_admin.initialize_app(credential=credential, options={"projectId": PROJECT, "storageBucket": BUCKET},
                                        name=unique("storage-oauth"))
    try:
        bucket = firebase_storage.bucket(app=app)
        exchanges = record_exchanges(bucket.client._http)  # google-auth's AuthorizedSession
        blob = bucket.blob(f"{unique('oauth')}/token.txt")
        blob.upload_from_string(b"bearer")
        assert bucket.blob(blob.name).download_as_bytes() == b"bearer"
        assert any("/upload/" in url for _, url, *_ in exchanges)
        for method, url, headers, status, _ in exchanges:
            assert headers.get("Authorization") == "Bearer ya29.not-a-real-oauth-token", (method, url)
            assert status < 400, (method, url, status)
    finally:
        firebase_admin.delete_app(app)




# --- one object store for both APIs --------------------------------------------------------------

def test_gcs_upload_is_readable_through_the_v0_api(server, bucket):
    data = os.urandom(3000)
    name = f"{unique()}/shared/both apis.bin"
    bucket.blob(name).upload_from_string(data, content_type="application/x-shared")

    media = requests.get(object_url(server, name), params={"alt": "media"}, headers=OWNER, timeout=10)
    assert media.status_code == 200, media.text
    assert media.content == data
    assert media.headers["Content-Type"].startswith("application/x-shared")

    metadata = requests.get(object_url(server, name), headers=OWNER, timeout=10)
    assert metadata.status_code == 200, metadata.text
    body = metadata.json()
    assert body["name"] == name and body["bucket"] == BUCKET
    assert body["size"] == str(len(data)) and body["md5Hash"] == md5_base64(data)
    assert body["downloadTokens"]  # created on the first Firebase-API read (§3 step 3)


# --- rules apply to v0, not to the GCS API --------------------------------------------------------

@pytest.fixture(scope="module")
def ruled_server(tmp_path_factory):
    rules = tmp_path_factory.mktemp("storage-rules") / "storage.rules"
    rules.write_text(USERS_ONLY_RULES)
    process = HearthProcess(extra_args=["--storage-rules", str(rules)]).start()
    yield process
    process.stop()
    process.remove_data()


@pytest.fixture
def ruled_bucket(ruled_server):
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("STORAGE_EMULATOR_HOST", ruled_server.url)
        yield gcs_client().bucket(BUCKET)


def test_admin_client_writes_anywhere_despite_rules(ruled_bucket):
    for name in ["users/bob/from-admin.txt", f"{unique('outside')}/from-admin.txt"]:
        blob = ruled_bucket.blob(name)
        blob.upload_from_string(b"admin was here")
        assert ruled_bucket.blob(name).download_as_bytes() == b"admin was here"


def test_signed_in_user_is_confined_to_own_folder(ruled_server, ruled_bucket):
    alice = {"Authorization": f"Firebase {mock_id_token('alice', project=PROJECT)}"}
    data = b"alice's words"

    denied = v0_media_upload(ruled_server, "users/bob/x.txt", data, alice)
    assert denied.status_code == 403, denied.text
    error = denied.json()["error"]
    assert error["code"] == 403 and isinstance(error["message"], str) and error["message"]
    assert ruled_bucket.blob("users/bob/x.txt").exists() is False

    allowed = v0_media_upload(ruled_server, "users/alice/x.txt", data, alice)
    assert allowed.status_code == 200, allowed.text
    assert allowed.json()["name"] == "users/alice/x.txt"
    assert allowed.json()["size"] == str(len(data))
    assert ruled_bucket.blob("users/alice/x.txt").download_as_bytes() == data

    anonymous = v0_media_upload(ruled_server, "users/alice/y.txt", data, {})
    assert anonymous.status_code == 403, anonymous.text
