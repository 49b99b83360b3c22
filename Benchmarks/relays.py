#!/usr/bin/env python3
"""Relays (issue "Scale-out I"): one namespace's realtime fan-out served by N = 1, 2 and 4 nodes
of a cluster, in one run.

Starts a PostgreSQL cluster (Debian's binaries, in a temporary directory), then for each N a
fresh database and N Hearth nodes started with `--postgres ... --relay`. The first node owns the
namespace (it writes first); `hearth-bench ws-fanout` spreads its listeners evenly over the N
nodes and writes through the first, so every other node serves its listeners from a replica:

- rate: --listeners listeners, --rate writes/s, --count writes each: the deliveries per second
  the cluster sustained (target: N nodes >= 0.8 x N x one node's);
- latency: 1,000 listeners at 100 writes/s on one node, then over 2 nodes (what the relay's hop
  costs, below saturation); then --latency-listeners listeners over 2 nodes at --latency-rate
  writes/s (target: p99 <= 50 ms at 1,000 writes/s, 10,000 listeners);
- rules: the rate run on 2 nodes again with read rules that depend on `auth` (target: >= 0.8 x
  the rules-off rate).

Usage: relays.py --hearth .build/release/hearth --bench .build/release/hearth-bench
"""

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "Tests", "Interop"))
from postgres import start_hearth  # noqa: E402
from postgres_support import PostgresServer  # noqa: E402

OWNER = ["-H", "Authorization: Bearer owner"]


def cluster(options, server, count, extra=()):
    """`count` relaying nodes on a fresh database; the first owns namespace `bench`."""
    url = server.create_database()
    nodes = [start_hearth(options.hearth, url, ["--relay", *extra]) for _ in range(count)]
    subprocess.run(["curl", "-sf", "-X", "PUT", *OWNER, "-d", '{"sent":0,"n":0}',
                    f"{nodes[0][1]}/bench/ws-fanout.json?ns=bench"], check=True, capture_output=True)
    return nodes


def stop(nodes):
    for process, _, data in nodes:
        process.terminate()
        process.wait()
        shutil.rmtree(data, ignore_errors=True)


def fanout(options, nodes, listeners, rate, count):
    arguments = [options.bench, "ws-fanout", "--url", nodes[0][1], "--connections", str(listeners), "--rate", str(rate),
                 "--count", str(count)]
    if len(nodes) > 1:
        arguments += ["--also-on", ",".join(url for _, url, _ in nodes[1:])]
    output = subprocess.run(arguments, check=True, capture_output=True, text=True).stdout.strip()
    print(output, flush=True)
    return float(re.search(r"([\d.]+) deliveries/s", output).group(1))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--hearth", required=True)
    parser.add_argument("--bench", required=True)
    parser.add_argument("--listeners", type=int, default=2000)
    parser.add_argument("--rate", type=int, default=200)
    parser.add_argument("--count", type=int, default=400)
    parser.add_argument("--latency-listeners", type=int, default=10000)
    parser.add_argument("--latency-rate", type=int, default=20)
    parser.add_argument("--latency-count", type=int, default=100)
    options = parser.parse_args()

    server = PostgresServer().start()
    try:
        print(f"machine: {os.cpu_count()} cores, PostgreSQL {server.sql('SHOW server_version')}, "
              f"{time.strftime('%Y-%m-%d', time.gmtime())}", flush=True)
        rates = {}
        for count in (1, 2, 4):
            print(f"-- {count} node(s)", flush=True)
            nodes = cluster(options, server, count)
            try:
                rates[count] = fanout(options, nodes, options.listeners, options.rate, options.count)
            finally:
                stop(nodes)
        for count in (1, 2):
            print(f"-- latency below saturation, {count} node(s)", flush=True)
            nodes = cluster(options, server, count)
            try:
                fanout(options, nodes, 1000, 100, 300)
            finally:
                stop(nodes)
        print("-- latency across 2 nodes, many listeners", flush=True)
        nodes = cluster(options, server, 2)
        try:
            fanout(options, nodes, options.latency_listeners, options.latency_rate, options.latency_count)
        finally:
            stop(nodes)
        print("-- read rules on, 2 nodes", flush=True)
        rules = tempfile.NamedTemporaryFile("w", suffix=".json", delete=False)
        json.dump({"rules": {".read": "auth == null || auth.uid != 'blocked'", ".write": True}}, rules)
        rules.close()
        nodes = cluster(options, server, 2, ["--rules", rules.name])
        try:
            ruled = fanout(options, nodes, options.listeners, options.rate, options.count)
        finally:
            stop(nodes)
            os.unlink(rules.name)
        for count in (2, 4):
            print(f"{count} nodes: {rates[count]:.0f} deliveries/s = {rates[count] / rates[1]:.2f} x one node's "
                  f"(target {0.8 * count:.1f} x)")
        print(f"read rules on, 2 nodes: {ruled:.0f} deliveries/s = {ruled / rates[2]:.2f} x rules off")
    finally:
        server.stop()


if __name__ == "__main__":
    main()
