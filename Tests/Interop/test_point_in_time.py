"""Restores to a point in time (issue "Operations I"): `hearth serve --log-archive DIR` archives
the database's durable log as it is written, and the changes of accounts, Storage and the
console as they commit; `hearth restore BACKUP --until TIME --log-archive DIR` takes a backup on
to any moment the archive reaches.

- Writes, sign-ups and uploads at known times, the data directory then deleted (`kill -9`
  first): restored `--until` each of several moments, the database is exactly as it was then
  (namespaces created after the backup included), exactly the accounts made by then can sign in,
  and exactly the files uploaded by then are there with their bytes.
- With the archive current, every write, sign-up and upload acknowledged before the loss is there.
- A moment before the backup completed, or an archive that does not reach back to the backup, is
  refused with nothing written; a restored database does not write into the archive of the
  history it left."""

import os
import shutil
import signal
import subprocess
import tempfile
import time

import requests

from conftest import HEARTH_BIN, OWNER, PROJECT, HearthProcess
from storage_support import js_resumable_start

NAMESPACE = f"{PROJECT}-default-rtdb"
OTHER = "created-after-backup"


def cli(*args):
    return subprocess.run([HEARTH_BIN, *args], capture_output=True, text=True, timeout=300)


def put(server, path, value, namespace=NAMESPACE):
    response = requests.put(f"{server.url}/{path}.json", params={"ns": namespace}, json=value, headers=OWNER, timeout=10)
    assert response.status_code == 200, response.text


def tree(server, namespace=NAMESPACE):
    return requests.get(f"{server.url}/.json", params={"ns": namespace}, headers=OWNER, timeout=30).json()


AUTH = "/identitytoolkit.googleapis.com/v1/accounts"
OBJECTS = f"/v0/b/{PROJECT}.appspot.com/o"


def sign_up(server, step):
    response = requests.post(f"{server.url}{AUTH}:signUp", params={"key": "k"}, timeout=10, json={
        "email": f"user{step}@example.com", "password": f"secret-{step}", "returnSecureToken": True})
    assert response.status_code == 200, response.text


def upload(server, step, data=None):
    response = requests.post(f"{server.url}{OBJECTS}", params={"name": f"files/f{step}.bin"},
                             data=file_bytes(step) if data is None else data,
                             headers={**OWNER, "Content-Type": "application/octet-stream"}, timeout=10)
    assert response.status_code == 200, response.text


def file_bytes(step):
    return bytes((step * 7 + index) % 251 for index in range(20_000 + step))


def signs_in(server, step):
    return requests.post(f"{server.url}{AUTH}:signInWithPassword", params={"key": "k"}, timeout=10, json={
        "email": f"user{step}@example.com", "password": f"secret-{step}", "returnSecureToken": True}).status_code == 200


def downloaded(server, step):
    response = requests.get(f"{server.url}{OBJECTS}/files%2Ff{step}.bin", params={"alt": "media"}, headers=OWNER, timeout=10)
    return response.content if response.status_code == 200 else None


def restored_state(backup, archive, until, folder):
    """The database's two namespaces, the steps whose account signs in, and the steps whose file
    downloads with its bytes, restored `--until`."""
    target = tempfile.mkdtemp(dir=folder)
    os.rmdir(target)
    made = cli("restore", backup, "--data-dir", target, "--until", str(until), "--log-archive", archive)
    assert made.returncode == 0, made.stderr
    server = HearthProcess(data_dir=target).start()
    try:
        steps = range(1, 6)
        return (tree(server), tree(server, OTHER), [step for step in steps if signs_in(server, step)],
                [step for step in steps if downloaded(server, step) == file_bytes(step)])
    finally:
        server.stop()


def test_restores_to_each_moment_the_archive_reaches():
    folder = tempfile.mkdtemp(prefix="hearth-pitr-")
    archive, backup = folder + "/archive", folder + "/backup"
    os.makedirs(archive)
    server = HearthProcess(extra_args=["--log-archive", archive])
    try:
        server.start()
        put(server, "state", 0)
        # An upload under way when the backup is taken (a row the backup's copy drops).
        assert js_resumable_start(server, "pending/big.bin", 500_000).status_code == 200
        assert cli("backup", backup, "--data-dir", server.data_dir).returncode == 0
        moments = []  # (moment between writes, state then, other namespace then)
        time.sleep(0.05)
        for step in range(1, 6):
            moments.append(int(time.time() * 1000))
            if step == 3:
                put(server, "", {"n": step}, namespace=OTHER)
            response = requests.patch(f"{server.url}/.json", params={"ns": NAMESPACE},
                                      json={"state": step, f"steps/s{step}": True}, headers=OWNER, timeout=10)
            assert response.status_code == 200
            sign_up(server, step)
            if step == 2:
                # Replaced at once: the first bytes may be gone before they are archived.
                upload(server, step, data=b"replaced at once")
            upload(server, step)
            time.sleep(0.05)
        moments.append(int(time.time() * 1000))
        # The disk is lost one second after the last acknowledgement (the target: everything
        # acknowledged a second before the loss is recoverable).
        time.sleep(1)
        server.stop(signal.SIGKILL)
        shutil.rmtree(server.data_dir)

        for index, moment in enumerate(moments):
            main, other, accounts, files = restored_state(backup, archive, moment, folder)
            assert main["state"] == index, (index, main)
            assert sorted(main.get("steps", {})) == [f"s{step}" for step in range(1, index + 1)]
            assert other == ({"n": 3} if index >= 3 else None), (index, other)
            assert accounts == list(range(1, index + 1)), (index, accounts)
            assert files == list(range(1, index + 1)), (index, files)

        # The restored database begins a history of its own: the archive refuses it.
        restored = HearthProcess(extra_args=["--log-archive", archive])
        made = cli("restore", backup, "--data-dir", restored.data_dir, "--until", str(moments[-1]), "--log-archive", archive)
        assert made.returncode == 0, made.stderr
        status, output = restored.startup_failure()
        assert status != 0 and "holds another history" in output, output
        restored.remove_data()

        target = folder + "/too-early"
        refused = cli("restore", backup, "--data-dir", target, "--until", "1000", "--log-archive", archive)
        assert refused.returncode != 0 and "--until must be at or after it" in refused.stderr, refused.stderr
        assert not os.path.exists(target)
    finally:
        server.stop()
        server.remove_data()
        shutil.rmtree(folder, ignore_errors=True)


def test_an_archive_that_does_not_reach_the_backup_is_refused():
    folder = tempfile.mkdtemp(prefix="hearth-pitr-gap-")
    archive, backup = folder + "/archive", folder + "/backup"
    server = HearthProcess()
    try:
        server.start()
        put(server, "a", 1)
        assert cli("backup", backup, "--data-dir", server.data_dir).returncode == 0
        put(server, "b", 2)   # never archived
        server.stop()
        os.makedirs(archive)
        server.extra_args = ["--log-archive", archive]
        server.start()
        put(server, "c", 3)
        server.stop()
        target = folder + "/target"
        refused = cli("restore", backup, "--data-dir", target, "--until", str(int(time.time() * 1000)),
                      "--log-archive", archive)
        assert refused.returncode != 0 and "was not taken while its data directory archived" in refused.stderr, refused.stderr
        assert not os.path.exists(target)
    finally:
        server.stop()
        server.remove_data()
        shutil.rmtree(folder, ignore_errors=True)
