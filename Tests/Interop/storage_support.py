"""Requests to Hearth's Storage as the Firebase client SDKs send them (spec storage-api §1.4, §4)."""

import base64
import hashlib
import json
import random
import re
import uuid
from urllib.parse import quote

import google_crc32c
import requests

from conftest import PROJECT

BUCKET = f"{PROJECT}.appspot.com"
OWNER = {"Authorization": "Firebase owner"}
JS = {"X-Firebase-Storage-Version": "webjs/10.14.1", "X-Firebase-GMPID": "1:1234:web:abcd"}
APPLE = {"X-Firebase-Storage-Version": "ios/11.5.0", "User-Agent": "Hearth-Interop/1 (GTMSUF/1)"}
TIMESTAMP = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$")
GRANULARITY = 262144


def signed_in(token):
    return {"Authorization": f"Firebase {token}"}


def unique(prefix="t"):
    return f"{prefix}-{uuid.uuid4().hex[:10]}"


def object_url(server, name, bucket=BUCKET):
    """`/v0/b/{bucket}/o/{name}` with the name encoded as one path component, as JS does."""
    return f"{server.url}/v0/b/{quote(bucket, safe='')}/o/{quote(name, safe='')}"


def bucket_url(server, bucket=BUCKET):
    return f"{server.url}/v0/b/{quote(bucket, safe='')}/o"


def md5_base64(data):
    return base64.b64encode(hashlib.md5(data).digest()).decode()


def crc32c_base64(data):
    return base64.b64encode(google_crc32c.Checksum(data).digest()).decode()


def js_multipart_upload(server, name, data, content_type="application/octet-stream", metadata=None, headers=None,
                        bucket=BUCKET):
    """`uploadBytes`: a multipart/related body of the metadata JSON and the bytes."""
    boundary = f"{random.randrange(10**9)}{random.randrange(10**9)}"
    resource = {"name": name, "contentType": content_type}
    if metadata is not None:
        resource["metadata"] = metadata
    body = (
        f"--{boundary}\r\nContent-Type: application/json; charset=utf-8\r\n\r\n{json.dumps(resource)}\r\n"
        f"--{boundary}\r\nContent-Type: {content_type}\r\n\r\n"
    ).encode() + data + f"\r\n--{boundary}--".encode()
    return requests.post(
        bucket_url(server, bucket), params={"name": name}, data=body,
        headers={**JS, **(headers if headers is not None else OWNER), "X-Goog-Upload-Protocol": "multipart",
                 "Content-Type": f"multipart/related; boundary={boundary}"},
        timeout=30)


def js_resumable_start(server, name, total, content_type="application/octet-stream", metadata=None, headers=None,
                       bucket=BUCKET):
    """`uploadBytesResumable` above 256 KiB: the start request."""
    resource = {"name": name, "contentType": content_type}
    if metadata is not None:
        resource["metadata"] = metadata
    return requests.post(
        bucket_url(server, bucket), params={"name": name}, data=json.dumps(resource),
        headers={**JS, **(headers if headers is not None else OWNER), "X-Goog-Upload-Protocol": "resumable",
                 "X-Goog-Upload-Command": "start", "X-Goog-Upload-Header-Content-Length": str(total),
                 "X-Goog-Upload-Header-Content-Type": content_type,
                 "Content-Type": "application/json; charset=utf-8"},
        timeout=30)


def js_command(upload_url, command, offset=None, data=b"", headers=None):
    """A JS command on an upload URL: POST, no `X-Goog-Upload-Protocol`."""
    sent = {**JS, **(headers if headers is not None else OWNER), "X-Goog-Upload-Command": command}
    if offset is not None:
        sent["X-Goog-Upload-Offset"] = str(offset)
    return requests.post(upload_url, data=data, headers=sent, timeout=30)


def apple_command(upload_url, command, offset=None, data=b"", total=None):
    """An Apple (gtm-session-fetcher) command on an upload URL: PUT, no credentials."""
    sent = {"User-Agent": APPLE["User-Agent"], "X-Goog-Upload-Protocol": "resumable", "X-Goog-Upload-Command": command}
    if offset is not None:
        sent["X-Goog-Upload-Offset"] = str(offset)
    if total is not None:
        sent["X-Goog-Upload-Content-Length"] = str(total)
    return requests.put(upload_url, data=data, headers=sent, timeout=30)


def error_of(response):
    """The `{"error": {"code", "message"}}` body of a failed request."""
    body = response.json()
    assert set(body) == {"error"}, body
    assert body["error"]["code"] == response.status_code, body
    return body["error"]["message"]
