#!/usr/bin/env python3
"""The database on PostgreSQL (issue "Scale-out I"): durable writes per namespace against
PostgreSQL's own commit rate, in one run.

Starts a PostgreSQL cluster (Debian's binaries, in a temporary directory, fsync on), then:

- one Hearth node with `--postgres` on a fresh database: `hearth-bench rest-writes` with
  --clients keep-alive clients, each kind (overwrites, new keys, pushes), all into one namespace;
  then `ws-writes` (realtime sets over WebSockets);
- the same node's data directory twin without `--postgres` (embedded), for comparison;
- `pgbench` at the same concurrency with a one-row INSERT per transaction: the commits per
  second PostgreSQL itself sustains on this machine (target: Hearth's durable writes/s at least
  0.8 x that, and at least 10,000/s).

Usage: postgres.py --hearth .build/release/hearth --bench .build/release/hearth-bench
                   [--clients 50] [--seconds 10]
"""

import argparse
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "Tests", "Interop"))
from postgres_support import PostgresServer, _binary  # noqa: E402


def free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def start_hearth(hearth, postgres_url=None, extra=()):
    """A Hearth node on a fresh data directory (on `postgres_url` if given), once it is ready."""
    port = free_port()
    data = tempfile.mkdtemp(prefix="hearth-bench-pg-")
    arguments = [hearth, "serve", "--port", str(port), "--data-dir", data, "--no-console", "--log-level", "error",
                 *extra]
    if postgres_url:
        arguments += ["--postgres", postgres_url]
    process = subprocess.Popen(arguments, stdout=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    for _ in range(200):
        try:
            urllib.request.urlopen(f"{url}/readyz", timeout=1).read()
            return process, url, data
        except OSError:
            time.sleep(0.05)
    raise RuntimeError("hearth did not start")


def bench(binary, *arguments):
    output = subprocess.run([binary, *arguments], check=True, capture_output=True, text=True).stdout.strip()
    print(output, flush=True)
    return output


def writes_per_second(output):
    return float(re.search(r": ([\d.]+)/s;", output).group(1))


def pgbench(server, database, clients, seconds):
    script = os.path.join(server.directory, "commit.sql")
    with open(script, "w") as file:
        file.write("INSERT INTO bench_commits (value) VALUES (:client_id);\n")
    server.sql("CREATE TABLE IF NOT EXISTS bench_commits (id bigserial PRIMARY KEY, value int)", database)
    output = subprocess.run(
        [_binary("pgbench"), "-h", "127.0.0.1", "-p", str(server.port), "-U", "postgres", "-n", "-f", script,
         "-c", str(clients), "-j", "2", "-T", str(seconds), database],
        check=True, capture_output=True, text=True).stdout
    rate = float(re.search(r"tps = ([\d.]+)", output).group(1))
    print(f"pgbench one-row INSERT per transaction: {clients} clients, {seconds} s: {rate:.0f} commits/s", flush=True)
    return rate


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--hearth", required=True)
    parser.add_argument("--bench", required=True)
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--seconds", type=int, default=10)
    options = parser.parse_args()

    server = PostgresServer().start()
    try:
        print(f"machine: {os.cpu_count()} cores, PostgreSQL {server.sql('SHOW server_version')}, "
              f"fsync {server.sql('SHOW fsync')}, synchronous_commit {server.sql('SHOW synchronous_commit')}, "
              f"{time.strftime('%Y-%m-%d', time.gmtime())}", flush=True)
        results = {}
        for label, url in (("postgres", server.create_database()), ("embedded", None)):
            process, hearth_url, data = start_hearth(options.hearth, url)
            try:
                print(f"-- hearth on {label}", flush=True)
                common = ["--url", hearth_url, "--clients", str(options.clients), "--seconds", str(options.seconds)]
                rates = [writes_per_second(bench(options.bench, "rest-writes", *common))]
                rates.append(writes_per_second(bench(options.bench, "rest-writes", *common, "--kind", "new-keys")))
                rates.append(writes_per_second(bench(options.bench, "rest-writes", *common, "--kind", "push")))
                bench(options.bench, "ws-writes", *common)
                results[label] = rates
            finally:
                process.terminate()
                process.wait()
                shutil.rmtree(data, ignore_errors=True)
        database = "pgbench_commits"
        server.create_database(database)
        commits = pgbench(server, database, options.clients, options.seconds)
        for kind, rate in zip(("overwrites", "new keys", "pushes"), results["postgres"]):
            print(f"hearth on postgres, REST {kind}: {rate:.0f} writes/s = {rate / commits:.2f} x pgbench's commits/s")
    finally:
        server.stop()


if __name__ == "__main__":
    main()
