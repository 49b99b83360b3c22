#!/usr/bin/env python3
"""Backups and the log archive under load (issue "Operations I").

Starts `hearth serve --log-archive DIR` on a fresh data directory, fills it (a namespace of
--children objects imported in one write, --objects stored objects of 2 MB, --accounts
accounts), then measures, in one run:

- `hearth backup` of the idle directory against `cp -a` of the same directory (MB/s);
- REST writes (`hearth-bench rest-writes`, 50 clients, pushes) without a backup, then while
  backups run back to back: writes/s and p99 (targets: at least 0.8 x, p99 at most 2 x);
- the log archive's lag behind the durable log during those writes, from the server's
  `hearth_log_archive_lag_seconds` histogram (target: p99 at most 1 s);
- the same lag for the SQLite stores' changes, which share that histogram: over the fill
  (sign-ups and the 2 MB objects, whose bytes the archive copies), and over --signups sign-ups
  from 8 threads while REST writes run.

Usage: backup.py --hearth .build/release/hearth --bench .build/release/hearth-bench
                 [--children 500000] [--objects 100] [--accounts 200] [--seconds 10] [--signups 2000]
"""

import argparse
import concurrent.futures
import json
import os
import re
import shutil
import socket
import subprocess
import tempfile
import time
import urllib.request

OWNER = {"Authorization": "Bearer owner"}


def free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def request(url, method="GET", body=None, headers=None):
    call = urllib.request.Request(url, data=body, method=method, headers={**OWNER, **(headers or {})})
    with urllib.request.urlopen(call, timeout=600) as response:
        return response.read()


def directory_bytes(path):
    return sum(os.path.getsize(os.path.join(root, name)) for root, _, names in os.walk(path) for name in names)


def fill(url, children, objects, accounts):
    body = json.dumps({f"-Nk{index:012d}": {"name": f"user {index}", "score": index % 1000} for index in range(children)})
    request(f"{url}/import.json?print=silent", "PUT", body.encode())
    blob = os.urandom(2 << 20)
    for index in range(objects):
        request(f"{url}/v0/b/demo-hearth.appspot.com/o?name=files%2F{index}.bin", "POST", blob,
                {"Content-Type": "application/octet-stream"})
    for index in range(accounts):
        request(f"{url}/identitytoolkit.googleapis.com/v1/accounts:signUp?key=k", "POST",
                json.dumps({"email": f"u{index}@example.com", "password": "secret-123"}).encode(),
                {"Content-Type": "application/json"})


def writes(bench, url, seconds):
    output = subprocess.run([bench, "rest-writes", "--url", url, "--clients", "50", "--seconds", str(seconds),
                             "--kind", "push"], capture_output=True, text=True, check=True).stdout
    rate = float(re.search(r"requests in [\d.]+ s: ([\d.]+)/s", output).group(1))
    p99 = float(re.search(r"p99 ([\d.]+)", output).group(1))
    return rate, p99, output.strip()


def archive_lag_buckets(url):
    """The lag histogram's cumulative buckets: (upper bound, count)."""
    text = request(f"{url}/metrics").decode()
    return [(float("inf") if bound == "+Inf" else float(bound), int(float(count)))
            for bound, count in re.findall(r'^hearth_log_archive_lag_seconds_bucket\{le="([^"]+)"\} (\S+)$', text, re.M)]


def archive_lag_p99(url, since=None):
    """The upper bound of the histogram bucket that holds the 99th percentile, over the syncs
    since the buckets `since` were read (all of them without)."""
    buckets = archive_lag_buckets(url)
    if since:
        earlier = dict(since)
        buckets = [(bound, count - earlier.get(bound, 0)) for bound, count in buckets]
    total = buckets[-1][1] if buckets else 0
    for bound, count in buckets:
        if count >= 0.99 * total:
            return bound, total
    return None, total


def sign_ups(url, count, offset):
    """`count` sign-ups from 8 threads."""
    def one(index):
        request(f"{url}/identitytoolkit.googleapis.com/v1/accounts:signUp?key=k", "POST",
                json.dumps({"email": f"load{offset + index}@example.com", "password": "secret-123"}).encode(),
                {"Content-Type": "application/json"})
    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        list(pool.map(one, range(count)))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--hearth", required=True)
    parser.add_argument("--bench", required=True)
    parser.add_argument("--children", type=int, default=500_000)
    parser.add_argument("--objects", type=int, default=100)
    parser.add_argument("--accounts", type=int, default=200)
    parser.add_argument("--seconds", type=float, default=10)
    parser.add_argument("--signups", type=int, default=2000)
    arguments = parser.parse_args()
    work = tempfile.mkdtemp(prefix="hearth-backup-bench-")
    data, archive = f"{work}/data", f"{work}/archive"
    os.makedirs(archive)
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    server = subprocess.Popen([arguments.hearth, "serve", "--port", str(port), "--data-dir", data, "--no-console",
                               "--log-archive", archive], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        while "Hearth listening on" not in server.stdout.readline():
            pass
        fill(url, arguments.children, arguments.objects, arguments.accounts)
        time.sleep(2)
        bound, count = archive_lag_p99(url)
        print(f"log archive lag over the fill: p99 <= {bound} s over {count} syncs")
        size = directory_bytes(data)

        start = time.monotonic()
        subprocess.run(["cp", "-a", data, f"{work}/cp"], check=True)
        copy_seconds = time.monotonic() - start
        start = time.monotonic()
        subprocess.run([arguments.hearth, "backup", f"{work}/idle", "--data-dir", data], check=True,
                       capture_output=True)
        backup_seconds = time.monotonic() - start
        backup_bytes = directory_bytes(f"{work}/idle")
        print(f"data directory {size / 1e6:.1f} MB; cp -a {copy_seconds:.2f} s ({size / 1e6 / copy_seconds:.0f} MB/s); "
              f"hearth backup {backup_seconds:.2f} s ({backup_bytes / 1e6 / backup_seconds:.0f} MB/s, "
              f"{backup_bytes / 1e6:.1f} MB, verified)")

        alone = writes(arguments.bench, url, arguments.seconds)
        print(f"writes alone: {alone[2]}")
        backups, index = [], 0
        runner = subprocess.Popen(["bash", "-c", f"""
            end=$((SECONDS + {int(arguments.seconds) + 2}))
            while [ $SECONDS -lt $end ]; do
              {arguments.hearth} backup {work}/during-$RANDOM$RANDOM --data-dir {data} >/dev/null 2>&1 && echo done
            done"""], stdout=subprocess.PIPE, text=True)
        during = writes(arguments.bench, url, arguments.seconds)
        backups = runner.communicate()[0].split()
        print(f"writes during {len(backups)} backups: {during[2]}")
        print(f"ratio: {during[0] / alone[0]:.2f} x writes/s, {during[1] / alone[1]:.2f} x p99")
        bound, count = archive_lag_p99(url)
        print(f"log archive lag: p99 <= {bound} s over {count} syncs")
        before = archive_lag_buckets(url)
        started = time.monotonic()
        load = subprocess.Popen([arguments.bench, "rest-writes", "--url", url, "--clients", "50", "--seconds", "600",
                                 "--kind", "push"], stdout=subprocess.DEVNULL)
        sign_ups(url, arguments.signups, 0)
        elapsed = time.monotonic() - started
        load.terminate()
        load.wait()
        bound, count = archive_lag_p99(url, since=before)
        print(f"{arguments.signups} sign-ups beside REST writes in {elapsed:.1f} s; "
              f"log archive lag meanwhile: p99 <= {bound} s over {count} syncs")
    finally:
        server.terminate()
        server.wait()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
