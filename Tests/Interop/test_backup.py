"""`hearth backup` and `hearth restore` against a server under load (issue "Operations I").

- A backup taken while 50 clients write multi-path updates, upload files and sign up holds, once
  restored into a new directory and served, every write acknowledged before the backup began, no
  update torn, every file with its exact bytes (md5), and every account able to sign in.
- A backup killed with SIGKILL is refused by `hearth restore` as incomplete, and writes nothing;
  the backup before it still restores.
- Restoring into a data directory that is not empty is refused, and changes nothing."""

import hashlib
import os
import shutil
import signal
import subprocess
import tempfile
import threading
import time
import uuid

import requests

from conftest import HEARTH_BIN, OWNER, PROJECT, HearthProcess
from storage_support import OWNER as STORAGE_OWNER, bucket_url, object_url

NAMESPACE = f"{PROJECT}-default-rtdb"
WRITERS, UPLOADERS, SIGNERS = 40, 5, 5


def run_cli(*args, timeout=300):
    return subprocess.run([HEARTH_BIN, *args], capture_output=True, text=True, timeout=timeout)


class Load:
    """50 clients writing until told to stop; each records what was acknowledged, and when."""

    def __init__(self, server):
        self.server = server
        self.stopping = threading.Event()
        self.updates = {}      # writer -> [(acknowledged at, counter)]
        self.uploads = []      # (acknowledged at, name, md5)
        self.accounts = []     # (acknowledged at, email, password)
        self.errors = []
        self.threads = [threading.Thread(target=self.write, args=(n,)) for n in range(WRITERS)]
        self.threads += [threading.Thread(target=self.upload, args=(n,)) for n in range(UPLOADERS)]
        self.threads += [threading.Thread(target=self.sign_up, args=(n,)) for n in range(SIGNERS)]

    def run(self, body):
        try:
            body()
        except Exception as error:  # noqa: BLE001 - reported by the test
            self.errors.append(repr(error))

    def write(self, writer):
        def body():
            session, acknowledged, counter = requests.Session(), [], 0
            self.updates[writer] = acknowledged
            while not self.stopping.is_set():
                counter += 1
                update = {f"pairs/w{writer}/a": counter, f"pairs/w{writer}/b": counter, f"seen/w{writer}/c{counter}": True}
                response = session.patch(f"{self.server.url}/.json", params={"ns": NAMESPACE}, json=update,
                                         headers=OWNER, timeout=30)
                assert response.status_code == 200, response.text
                acknowledged.append((time.time(), counter))
        self.run(body)

    def upload(self, uploader):
        def body():
            session, count = requests.Session(), 0
            while not self.stopping.is_set():
                count += 1
                name = f"backup/u{uploader}-{count}-{uuid.uuid4().hex[:6]}.bin"
                data = os.urandom(20_000 + 5_000 * (count % 40))
                response = session.post(bucket_url(self.server), params={"name": name}, data=data,
                                        headers={**STORAGE_OWNER, "Content-Type": "application/octet-stream"}, timeout=30)
                assert response.status_code == 200, response.text
                self.uploads.append((time.time(), name, hashlib.md5(data).hexdigest()))
        self.run(body)

    def sign_up(self, signer):
        def body():
            session, count = requests.Session(), 0
            while not self.stopping.is_set():
                count += 1
                email, password = f"s{signer}-{count}-{uuid.uuid4().hex[:6]}@example.com", f"pw-{uuid.uuid4().hex}"
                response = session.post(
                    f"{self.server.url}/identitytoolkit.googleapis.com/v1/accounts:signUp", params={"key": "k"},
                    json={"email": email, "password": password, "returnSecureToken": True}, timeout=30)
                assert response.status_code == 200, response.text
                self.accounts.append((time.time(), email, password))
        self.run(body)

    def __enter__(self):
        for thread in self.threads:
            thread.start()
        return self

    def __exit__(self, *exc):
        self.stopping.set()
        for thread in self.threads:
            thread.join(timeout=60)


def test_a_backup_under_load_restores_every_write_acknowledged_before_it_began():
    server = HearthProcess().start()
    backup = tempfile.mkdtemp(prefix="hearth-backup-") + "/b"
    restored = HearthProcess()
    try:
        with Load(server) as load:
            time.sleep(2)
            began = time.time()
            made = run_cli("backup", backup, "--data-dir", server.data_dir)
            time.sleep(0.5)
        assert made.returncode == 0, made.stderr
        assert "verified" in made.stdout
        # Run where no firebase.json names the rules files: the backup says it holds none.
        assert "No rules file is in this backup" in made.stdout, made.stdout
        assert not load.errors, load.errors[:3]
        server.stop()

        restore = run_cli("restore", backup, "--data-dir", restored.data_dir)
        assert restore.returncode == 0, restore.stderr
        restored.start()
        tree = requests.get(f"{restored.url}/.json", params={"ns": NAMESPACE}, headers=OWNER, timeout=60).json()
        pairs, seen = tree.get("pairs", {}), tree.get("seen", {})
        checked = 0
        for writer, acknowledged in load.updates.items():
            before = [counter for at, counter in acknowledged if at < began]
            pair = pairs.get(f"w{writer}", {})
            # No update torn: both halves and the record of the counter come together.
            assert pair.get("a") == pair.get("b"), (writer, pair)
            if pair:
                assert seen[f"w{writer}"].get(f"c{pair['a']}") is True, (writer, pair)
            if before:
                assert pair.get("a", 0) >= before[-1], (writer, pair, before[-1])
                checked += 1
        assert checked > WRITERS // 2

        uploaded = [(name, md5) for at, name, md5 in load.uploads if at < began]
        assert uploaded
        for name, md5 in uploaded:
            response = requests.get(object_url(restored, name), params={"alt": "media"}, headers=STORAGE_OWNER, timeout=30)
            assert response.status_code == 200, (name, response.status_code)
            assert hashlib.md5(response.content).hexdigest() == md5, name

        signed_up = [(email, password) for at, email, password in load.accounts if at < began]
        assert signed_up
        for email, password in signed_up:
            response = requests.post(
                f"{restored.url}/identitytoolkit.googleapis.com/v1/accounts:signInWithPassword", params={"key": "k"},
                json={"email": email, "password": password, "returnSecureToken": True}, timeout=30)
            assert response.status_code == 200, (email, response.text)
    finally:
        server.stop()
        restored.stop()
        server.remove_data()
        restored.remove_data()
        shutil.rmtree(os.path.dirname(backup), ignore_errors=True)


def test_a_killed_backup_is_refused_and_the_previous_one_still_restores():
    server = HearthProcess().start()
    folder = tempfile.mkdtemp(prefix="hearth-backups-")
    complete, killed = folder + "/complete", folder + "/killed"
    target, occupied = folder + "/target", folder + "/occupied"
    restored = HearthProcess()
    try:
        requests.put(f"{server.url}/kept.json", params={"ns": NAMESPACE}, json={"value": 42}, headers=OWNER, timeout=10)
        # Enough bytes that the copy takes a while.
        for index in range(12):
            data = os.urandom(8 << 20)
            response = requests.post(bucket_url(server), params={"name": f"big/{index}.bin"}, data=data,
                                     headers={**STORAGE_OWNER, "Content-Type": "application/octet-stream"}, timeout=60)
            assert response.status_code == 200, response.text
        made = run_cli("backup", complete, "--data-dir", server.data_dir)
        assert made.returncode == 0, made.stderr

        process = subprocess.Popen([HEARTH_BIN, "backup", killed, "--data-dir", server.data_dir],
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.time() + 60
        while not os.path.isdir(killed + "/storage/blobs") and time.time() < deadline:
            time.sleep(0.001)
        process.send_signal(signal.SIGKILL)
        process.wait()
        assert not os.path.exists(killed + "/manifest.json")

        refused = run_cli("restore", killed, "--data-dir", target)
        assert refused.returncode != 0
        assert "has no manifest: the backup was interrupted" in refused.stderr
        assert not os.path.exists(target) or os.listdir(target) == []

        os.makedirs(occupied)
        open(occupied + "/keep", "w").close()
        refused = run_cli("restore", complete, "--data-dir", occupied)
        assert refused.returncode != 0
        assert "is not empty" in refused.stderr
        assert os.listdir(occupied) == ["keep"]

        # A restore killed half-way leaves no data directory a server would start on.
        process = subprocess.Popen([HEARTH_BIN, "restore", complete, "--data-dir", restored.data_dir],
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        staging = os.path.dirname(restored.data_dir)
        prefix = os.path.basename(restored.data_dir) + ".restoring-"
        deadline = time.time() + 60
        while not any(name.startswith(prefix) for name in os.listdir(staging)) and time.time() < deadline:
            time.sleep(0.001)
        process.send_signal(signal.SIGKILL)
        process.wait()
        assert not os.path.exists(restored.data_dir) or os.listdir(restored.data_dir) == []
        for name in os.listdir(staging):
            if name.startswith(prefix):
                shutil.rmtree(os.path.join(staging, name))

        restore = run_cli("restore", complete, "--data-dir", restored.data_dir)
        assert restore.returncode == 0, restore.stderr
        restored.start()
        assert requests.get(f"{restored.url}/kept.json", params={"ns": NAMESPACE}, headers=OWNER,
                            timeout=10).json() == {"value": 42}
        response = requests.get(object_url(restored, "big/11.bin"), params={"alt": "media"}, headers=STORAGE_OWNER,
                                timeout=60)
        assert response.status_code == 200 and len(response.content) == 8 << 20
    finally:
        server.stop()
        restored.stop()
        server.remove_data()
        restored.remove_data()
        shutil.rmtree(folder, ignore_errors=True)


def test_objects_overwritten_during_a_backup_are_all_in_it():
    """An object acknowledged before the backup began is in it, in one of its versions, however
    often it is overwritten while the backup runs."""
    server = HearthProcess().start()
    folder = tempfile.mkdtemp(prefix="hearth-backup-overwrite-")
    backup = folder + "/b"
    restored = HearthProcess()
    try:
        versions = {}
        for index in range(300):
            data = os.urandom(2000)
            response = requests.post(bucket_url(server), params={"name": f"o/{index}"}, data=data,
                                     headers={**STORAGE_OWNER, "Content-Type": "application/octet-stream"}, timeout=30)
            assert response.status_code == 200
            versions[f"o/{index}"] = {hashlib.md5(data).hexdigest()}
        process = subprocess.Popen([HEARTH_BIN, "backup", backup, "--data-dir", server.data_dir],
                                   stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        session = requests.Session()
        while process.poll() is None:
            for index in range(300):
                data = os.urandom(2000)
                response = session.post(bucket_url(server), params={"name": f"o/{index}"}, data=data,
                                        headers={**STORAGE_OWNER, "Content-Type": "application/octet-stream"}, timeout=30)
                assert response.status_code == 200
                versions[f"o/{index}"].add(hashlib.md5(data).hexdigest())
                if process.poll() is not None:
                    break
        assert process.wait() == 0, process.stderr.read()
        server.stop()
        restore = run_cli("restore", backup, "--data-dir", restored.data_dir)
        assert restore.returncode == 0, restore.stderr
        restored.start()
        for name, md5s in versions.items():
            response = requests.get(object_url(restored, name), params={"alt": "media"}, headers=STORAGE_OWNER, timeout=30)
            assert response.status_code == 200, name
            assert hashlib.md5(response.content).hexdigest() in md5s, name
    finally:
        server.stop()
        restored.stop()
        server.remove_data()
        restored.remove_data()
        shutil.rmtree(folder, ignore_errors=True)
