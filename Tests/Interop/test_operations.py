"""Health probes and scheduled backups (issue "Operations I").

- `/healthz` and `/readyz` answer load balancers without a credential, in development and in
  production, and refuse other methods.
- `--log-format json` writes one JSON object per line; the lines written while a request is served
  carry its id (the load balancer's `X-Request-Id`, or a new one, answered in the same header) and
  the caller's uid.
- `hearth serve --backup-dir D --backup-every 1s --backup-keep 2` takes backups while serving,
  keeps the newest two complete ones, reports the newest on `/metrics`, and each restores."""

import json
import os
import re
import shutil
import subprocess
import tempfile
import time

import requests

from conftest import HEARTH_BIN, OWNER, PROJECT, HearthProcess, database_secret, set_rules, sign_up

NAMESPACE = f"{PROJECT}-default-rtdb"


def test_health_probes_answer_without_credentials(hearth):
    live = requests.get(f"{hearth.url}/healthz", timeout=10)
    assert live.status_code == 200 and live.json() == {"status": "ok"}
    assert live.headers["Cache-Control"] == "no-store"
    ready = requests.get(f"{hearth.url}/readyz", timeout=10)
    assert ready.status_code == 200 and ready.json() == {"status": "ok"}
    assert requests.head(f"{hearth.url}/readyz", timeout=10).status_code == 200
    refused = requests.post(f"{hearth.url}/readyz", data="x", timeout=10)
    assert refused.status_code == 405 and refused.headers["Allow"] == "GET, HEAD"
    # A database path of the same name is still the database's.
    requests.put(f"{hearth.url}/healthz.json", json=1, headers=OWNER, timeout=10)
    assert requests.get(f"{hearth.url}/healthz.json", headers=OWNER, timeout=10).json() == 1


def test_health_probes_need_no_credential_in_production():
    server = HearthProcess(extra_args=["--production"])
    database_secret(server.data_dir)
    server.start()
    try:
        assert requests.get(f"{server.url}/readyz", timeout=10).json() == {"status": "ok"}
        assert requests.get(f"{server.url}/healthz", timeout=10).status_code == 200
        # Everything else still wants one.
        assert requests.get(f"{server.url}/metrics", timeout=10).status_code == 401
    finally:
        server.stop()
        server.remove_data()


def complete_backups(folder):
    return sorted(name for name in os.listdir(folder) if os.path.exists(f"{folder}/{name}/manifest.json"))


def test_scheduled_backups_keep_the_newest_and_restore():
    folder = tempfile.mkdtemp(prefix="hearth-scheduled-")
    server = HearthProcess(extra_args=["--backup-dir", folder, "--backup-every", "1s", "--backup-keep", "2"])
    restored = HearthProcess()
    try:
        server.start()
        requests.put(f"{server.url}/before.json", params={"ns": NAMESPACE}, json="first", headers=OWNER, timeout=10)
        seen = set()
        deadline = time.time() + 60
        while len(seen) < 4 and time.time() < deadline:
            seen.update(complete_backups(folder))
            time.sleep(0.2)
        assert len(seen) >= 4, seen
        requests.put(f"{server.url}/after.json", params={"ns": NAMESPACE}, json="second", headers=OWNER, timeout=10)
        time.sleep(2.5)
        metrics = requests.get(f"{server.url}/metrics", timeout=10).text
        began = float(re.search(r"^hearth_backup_last_began_seconds (\S+)$", metrics, re.M).group(1))
        assert time.time() - began < 5
        assert int(float(re.search(r"^hearth_backup_last_bytes (\S+)$", metrics, re.M).group(1))) > 0
        server.stop()
        kept = complete_backups(folder)
        assert len(kept) == 2, kept
        assert sorted(os.listdir(folder)) == kept
        made = subprocess.run([HEARTH_BIN, "restore", f"{folder}/{kept[-1]}", "--data-dir", restored.data_dir],
                              capture_output=True, text=True, timeout=120)
        assert made.returncode == 0, made.stderr
        restored.start()
        tree = requests.get(f"{restored.url}/.json", params={"ns": NAMESPACE}, headers=OWNER, timeout=10).json()
        assert tree == {"before": "first", "after": "second"}
    finally:
        server.stop()
        restored.stop()
        server.remove_data()
        restored.remove_data()
        shutil.rmtree(folder, ignore_errors=True)


def test_bad_schedules_are_refused():
    for args, message in [(["--backup-every", "6x"], "--backup-every must be"), (["--backup-keep", "0"], "--backup-keep must be")]:
        made = subprocess.run([HEARTH_BIN, "serve", "--backup-dir", "/nonexistent", *args], capture_output=True, text=True,
                              timeout=60)
        assert made.returncode != 0 and message in made.stderr, made.stderr


def test_json_logs_carry_the_request_id_and_the_callers_uid():
    server = HearthProcess(extra_args=["--log-format", "json"]).start()
    try:
        set_rules(server, '{"rules": {".read": false, ".write": false}}')
        uid, token = sign_up(server)
        denied = requests.get(f"{server.url}/secret.json", params={"ns": NAMESPACE, "auth": token},
                              headers={"X-Request-Id": "probe-42"}, timeout=10)
        assert denied.status_code == 401
        assert denied.headers["X-Request-Id"] == "probe-42"
        fresh = requests.get(f"{server.url}/healthz", timeout=10).headers["X-Request-Id"]
        assert re.fullmatch(r"[0-9a-f]{16}", fresh)
        replaced = requests.get(f"{server.url}/healthz", headers={"X-Request-Id": "a b<c>"}, timeout=10)
        assert re.fullmatch(r"[0-9a-f]{16}", replaced.headers["X-Request-Id"])
        server.stop()
        output = "".join(server.output) + server.process.stdout.read()
        lines = [json.loads(line) for line in output.splitlines() if line.startswith("{")]
        assert lines and all({"time", "level", "product", "message"} <= set(line) for line in lines)
        denial = next(line for line in lines if line["message"] == "permission denied")
        assert denial["request"] == "probe-42" and denial["uid"] == uid, denial
        assert denial["product"] == "database" and denial["level"] == "warning", denial
    finally:
        server.stop()
        server.remove_data()
