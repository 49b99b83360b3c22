"""A 2 GiB upload and download through a Hearth whose memory is limited to 256 MiB: Storage streams
objects to and from disk and never holds one in memory."""

import base64
import hashlib
import os
import uuid

import pytest
import requests

from conftest import HearthProcess

LIMIT = 256 * 1024 * 1024
SIZE = 2 * 1024 * 1024 * 1024
CHUNK = 4 * 1024 * 1024


def memory_cgroup():
    """A new cgroup (v1 or v2) limited to 256 MiB, as a directory whose `cgroup.procs` takes a pid;
    None where this machine lets no cgroup be made."""
    name = f"hearth-storage-{uuid.uuid4().hex[:8]}"
    for root, limit_file in (("/sys/fs/cgroup/memory", "memory.limit_in_bytes"), ("/sys/fs/cgroup", "memory.max")):
        path = os.path.join(root, name)
        try:
            os.mkdir(path)
        except OSError:
            continue
        try:
            with open(os.path.join(path, limit_file), "w") as limit:
                limit.write(str(LIMIT))
            return path
        except OSError:
            os.rmdir(path)
    return None


def peak_resident_bytes(pid):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    raise AssertionError("no VmHWM")


def pattern_chunks(digest):
    """SIZE bytes that are not all alike, fed to `digest` as they are produced."""
    block = bytes(range(256)) * (CHUNK // 256)
    for index in range(SIZE // CHUNK):
        chunk = index.to_bytes(8, "big") + block[8:]
        digest.update(chunk)
        yield chunk


def test_a_2_gib_object_streams_through_a_server_limited_to_256_mib():
    server = HearthProcess()
    cgroup = memory_cgroup()
    server.start()
    try:
        if cgroup:
            with open(os.path.join(cgroup, "cgroup.procs"), "w") as procs:
                procs.write(str(server.process.pid))
        sent = hashlib.md5()
        url = f"{server.url}/v0/b/memory.appspot.com/o"
        upload = requests.post(url, params={"name": "big/object.bin"}, data=pattern_chunks(sent),
                               headers={"Content-Type": "application/octet-stream"}, timeout=600)
        assert upload.status_code == 200, upload.text
        assert upload.json()["size"] == str(SIZE)
        assert upload.json()["md5Hash"] == base64.b64encode(sent.digest()).decode()

        received = hashlib.md5()
        total = 0
        with requests.get(f"{url}/big%2Fobject.bin", params={"alt": "media"}, stream=True, timeout=600) as download:
            assert download.status_code == 200
            assert download.headers["Content-Length"] == str(SIZE)
            for chunk in download.iter_content(CHUNK):
                received.update(chunk)
                total += len(chunk)
        assert total == SIZE
        assert received.digest() == sent.digest()
        assert server.process.poll() is None, "the server died"
        # Without a cgroup, the limit is checked on the process's own peak resident memory.
        assert peak_resident_bytes(server.process.pid) < LIMIT
    finally:
        server.stop()
        server.remove_data()
        if cgroup:
            try:
                os.rmdir(cgroup)
            except OSError:
                pass
