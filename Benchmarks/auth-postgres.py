#!/usr/bin/env python3
"""Authentication on PostgreSQL (issue "Scale-out I"): what sharing the accounts between nodes
costs one node, in one run.

Starts a PostgreSQL cluster (Debian's binaries, in a temporary directory, fsync on), then runs
`hearth-bench auth` (its figures over HTTP: password sign-ins, sign-ups, token refreshes,
ID-token verifications by `accounts:lookup` and by database reads with `auth=`) against one
production node with `--postgres`, and against the same node embedded (sign-ups from one address
unlimited, as the load comes from one address). On PostgreSQL every
request that reads accounts first asks for the rows other nodes changed (one indexed query), and
every change is one transaction on the shared head row.

Usage: auth-postgres.py --hearth .build/release/hearth --bench .build/release/hearth-bench
                        [--clients 16] [--seconds 5]
"""

import argparse
import os
import re
import shutil
import subprocess
import time

from postgres import PostgresServer, start_hearth


def auth_figures(bench, url, data, clients, seconds):
    """The bench's HTTP figures by name; its in-process verifier, which reads the data
    directory's accounts, has none to read for a node on PostgreSQL and is not counted."""
    run = subprocess.run([bench, "auth", "--url", url, "--data-dir", data, "--clients", str(clients),
                          "--seconds", str(seconds)], capture_output=True, text=True)
    figures = {}
    if run.returncode != 0:
        print(run.stderr.strip(), flush=True)
    for line in run.stdout.splitlines():
        print(line, flush=True)
        match = re.match(r"hearth auth (.+?): \d+ clients, \d+ in [\d.]+ s: ([\d.]+)/s", line)
        if match:
            figures[match.group(1)] = float(match.group(2))
    return figures


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--hearth", required=True)
    parser.add_argument("--bench", required=True)
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--seconds", type=int, default=5)
    options = parser.parse_args()

    server = PostgresServer().start()
    try:
        print(f"machine: {os.cpu_count()} cores, PostgreSQL {server.sql('SHOW server_version')}, "
              f"fsync {server.sql('SHOW fsync')}, {time.strftime('%Y-%m-%d', time.gmtime())}", flush=True)
        results = {}
        for label, url in (("postgres", server.create_database()), ("embedded", None)):
            process, hearth_url, data = start_hearth(options.hearth, url, extra=["--production", "--project", "bench", "--api-key", "bench", "--sign-ups-per-hour", "100000000"])
            try:
                print(f"-- hearth on {label}", flush=True)
                results[label] = auth_figures(options.bench, hearth_url, data, options.clients, options.seconds)
            finally:
                process.terminate()
                process.wait()
                shutil.rmtree(data, ignore_errors=True)
        for name, embedded in results["embedded"].items():
            shared = results["postgres"].get(name)
            if shared:
                print(f"{name}: {shared:.1f}/s on postgres, {embedded:.1f}/s embedded ({shared / embedded:.2f} x)")
    finally:
        server.stop()


if __name__ == "__main__":
    main()
