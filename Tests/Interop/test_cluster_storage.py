"""Storage on Hearth nodes sharing one PostgreSQL database, which keeps the objects' bytes too,
or with one blob directory (`--blob-dir`): an object uploaded through one node is listed,
downloaded, changed and deleted through the other, a resumable upload moves between nodes chunk
by chunk, and changes of one object's metadata through both nodes at once are applied one at a
time, none lost."""

import json
import os
import signal
import threading
from urllib.parse import urlsplit

import pytest
import requests

from conftest import HearthProcess
from storage_support import (
    GRANULARITY, JS, OWNER, bucket_url, js_command, js_multipart_upload, js_resumable_start, object_url, unique)


@pytest.fixture(params=["blobs in postgres", "blob directory"])
def cluster(postgres, tmp_path, request):
    """Two development nodes on one fresh database, and one blob directory or none."""
    url = postgres.create_database()
    blobs = ["--blob-dir", str(tmp_path / "blobs")] if request.param == "blob directory" else []
    nodes = [HearthProcess(extra_args=["--postgres", url, *blobs]).start() for _ in range(2)]
    yield nodes
    for node in nodes:
        node.stop(signal.SIGKILL)
        node.remove_data()


def on(node, url):
    """`url` (an upload URL one node answered) sent to `node` instead."""
    parts = urlsplit(url)
    return parts._replace(netloc=node.host).geturl()


def test_an_object_uploaded_through_one_node_is_served_and_changed_through_the_other(cluster):
    first, second = cluster
    name = f"{unique()}/photo.bin"
    data = bytes(range(256)) * 64
    uploaded = js_multipart_upload(first, name, data, content_type="image/png", metadata={"by": "first"})
    assert uploaded.status_code == 200, uploaded.text

    downloaded = requests.get(object_url(second, name), params={"alt": "media"}, headers={**JS, **OWNER}, timeout=10)
    assert downloaded.status_code == 200 and downloaded.content == data
    listed = requests.get(bucket_url(second), params={"prefix": name.split("/")[0] + "/"}, headers={**JS, **OWNER},
                          timeout=10)
    assert [item["name"] for item in listed.json()["items"]] == [name]

    patched = requests.patch(object_url(second, name), json={"metadata": {"by": "second"}}, headers={**JS, **OWNER},
                             timeout=10)
    assert patched.status_code == 200, patched.text
    seen = requests.get(object_url(first, name), headers={**JS, **OWNER}, timeout=10).json()
    assert seen["metadata"] == {"by": "second"} and seen["metageneration"] == "2"

    assert requests.delete(object_url(second, name), headers={**JS, **OWNER}, timeout=10).status_code == 204
    assert requests.get(object_url(first, name), headers={**JS, **OWNER}, timeout=10).status_code == 404


def test_a_resumable_upload_moves_between_nodes_chunk_by_chunk(cluster):
    first, second = cluster
    name = f"{unique()}/large.bin"
    data = bytes((i * 7) % 251 for i in range(3 * GRANULARITY))
    started = js_resumable_start(first, name, len(data))
    assert started.status_code == 200, started.text
    upload_url = started.headers["X-Goog-Upload-URL"]
    nodes = [second, first, second]
    for index, node in enumerate(nodes):
        chunk = data[index * GRANULARITY:(index + 1) * GRANULARITY]
        command = "upload, finalize" if index == len(nodes) - 1 else "upload"
        answer = js_command(on(node, upload_url), command, offset=index * GRANULARITY, data=chunk)
        assert answer.status_code == 200, answer.text
    assert json.loads(answer.text)["size"] == str(len(data))
    for node in cluster:
        downloaded = requests.get(object_url(node, name), params={"alt": "media"}, headers={**JS, **OWNER}, timeout=10)
        assert downloaded.content == data


def test_metadata_changes_through_both_nodes_at_once_are_applied_one_at_a_time(cluster):
    name = f"{unique()}/counter.txt"
    assert js_multipart_upload(cluster[0], name, b"x").status_code == 200
    errors = []

    def patch(index):
        node = cluster[index % 2]
        answer = requests.patch(object_url(node, name), json={"metadata": {f"k{index}": str(index)}},
                                headers={**JS, **OWNER}, timeout=30)
        if answer.status_code != 200:
            errors.append(answer.text)

    patchers = [threading.Thread(target=patch, args=(index,)) for index in range(20)]
    for patcher in patchers:
        patcher.start()
    for patcher in patchers:
        patcher.join()
    assert errors == []
    final = requests.get(object_url(cluster[1], name), headers={**JS, **OWNER}, timeout=10).json()
    # Each change read the one before it: none was lost, each raised the metageneration once.
    assert final["metadata"] == {f"k{index}": str(index) for index in range(20)}
    assert final["metageneration"] == "21"


def test_ranges_across_the_bytes_pages_are_served_whole(cluster):
    first, second = cluster
    name = f"{unique()}/pages.bin"
    data = os.urandom(4 * 256 * 1024 + 1000)
    assert js_multipart_upload(first, name, data).status_code == 200
    for header, expected in (
        ("bytes=262000-786500", data[262000:786501]),
        ("bytes=262144-524287", data[262144:524288]),
        ("bytes=-1500", data[-1500:]),
        ("bytes=1048570-", data[1048570:]),
    ):
        answer = requests.get(object_url(second, name), params={"alt": "media"},
                              headers={**JS, **OWNER, "Range": header}, timeout=10)
        assert answer.status_code == 206 and answer.content == expected, header
    whole = requests.get(object_url(second, name), params={"alt": "media"}, headers={**JS, **OWNER}, timeout=10)
    assert whole.content == data
