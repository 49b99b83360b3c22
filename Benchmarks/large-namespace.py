#!/usr/bin/env python3
"""A namespace larger than the cache: start-up, cold reads, writes and listens, server memory.

Generates a namespace of about --gigabytes of data (users, each with 50 posts of ~1.4 KB), writing
its leaf rows straight into the namespace's SQLite file (the layout `hearth database:create`
makes), then starts `hearth serve --database-cache-mb N` on it and measures:

- when the port opens and when the first read is answered;
- random reads of one post each (nearly all cold: the data is many times the cache), with
  their latency percentiles;
- the same reads beside writes (PUT of a post's title) and event streams listening to users;
- the server's resident memory, sampled throughout, and the cache's hit rate (`/metrics`).

Usage: large-namespace.py --hearth .build/release/hearth [--gigabytes 10] [--cache-mb 256]
                          [--data-dir DIR] [--seconds 20]
A --data-dir that holds a namespace already is reused as it is.
"""

import argparse
import http.client
import os
import random
import shutil
import sqlite3
import subprocess
import tempfile
import threading
import time

NAMESPACE = "bench-default-rtdb"
POSTS = 50
BODY = ("Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt. " * 16)[:1400]


def user_key(index):
    return f"u{index:08d}"


def user_rows(index):
    """The leaf rows of one user, in key order."""
    base = f"/users/{user_key(index)}"
    rows = [(f"{base}/name", f'"user {index}"')]
    for post in range(POSTS):
        prefix = f"{base}/posts/p{post:02d}"
        rows.append((f"{prefix}/body", f'"{BODY}"'))
        rows.append((f"{prefix}/time", str(1_700_000_000_000 + index * POSTS + post)))
        rows.append((f"{prefix}/title", f'"post {post} of user {index}"'))
    rows.append((f"{base}/since", str(1_600_000_000_000 + index)))
    return rows


def generate(hearth, data_dir, gigabytes):
    file = os.path.join(data_dir, "database", f"{NAMESPACE}.sqlite")
    if os.path.exists(file):
        users = sqlite3.connect(file).execute("SELECT value FROM settings WHERE name = 'bench_users'").fetchone()
        if users:
            print(f"reusing {file} ({os.path.getsize(file) / 2**30:.2f} GiB, {users[0]} users)")
            return int(users[0])
    subprocess.run([hearth, "database:create", NAMESPACE, "--data-dir", data_dir], check=True, stdout=subprocess.DEVNULL)
    start = time.time()
    connection = sqlite3.connect(file)
    connection.execute("PRAGMA journal_mode=OFF")
    connection.execute("PRAGMA synchronous=OFF")
    users = 0
    while os.path.getsize(file) < gigabytes * 2**30:
        with connection:
            for index in range(users, users + 2000):
                connection.executemany("INSERT INTO leaves (path, value) VALUES (?, ?)", user_rows(index))
        users += 2000
        print(f"\r  {users} users, {os.path.getsize(file) / 2**30:.2f} GiB", end="", flush=True)
    with connection:
        connection.execute("INSERT INTO settings (name, value) VALUES ('bench_users', ?)", (str(users),))
    connection.execute("PRAGMA journal_mode=WAL")
    connection.close()
    print(f"\ngenerated {users} users, {users * len(user_rows(0))} rows, {os.path.getsize(file) / 2**30:.2f} GiB in {time.time() - start:.0f} s")
    return users


class Server:
    def __init__(self, hearth, data_dir, cache_mb, port):
        self.port = port
        self.start = time.time()
        self.process = subprocess.Popen(
            [hearth, "serve", "--port", str(port), "--data-dir", data_dir, "--project", "bench", "--no-console",
             "--database-cache-mb", str(cache_mb), "--namespace-idle-timeout", "3600"],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        for line in self.process.stdout:
            if "Hearth listening" in line:
                break
        self.listening = time.time() - self.start
        threading.Thread(target=lambda: [None for _ in self.process.stdout], daemon=True).start()
        self.peak_rss = 0
        self.sampling = True
        threading.Thread(target=self.sample, daemon=True).start()

    def rss(self):
        with open(f"/proc/{self.process.pid}/status") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) * 1024
        return 0

    def sample(self):
        while self.sampling:
            self.peak_rss = max(self.peak_rss, self.rss())
            time.sleep(0.2)

    def metric(self, name):
        connection = http.client.HTTPConnection("127.0.0.1", self.port)
        connection.request("GET", "/metrics")
        text = connection.getresponse().read().decode()
        return sum(float(line.split()[-1]) for line in text.splitlines() if line.startswith(name))

    def stop(self):
        self.sampling = False
        self.process.terminate()
        self.process.wait()


def percentile(values, fraction):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * fraction))] * 1000 if ordered else float("nan")


def load(port, users, seconds, threads, write_share, listened):
    """Runs `threads` clients for `seconds`: each request reads a random post, or with
    `write_share` writes one (a listened user's, half the time); returns latencies."""
    reads, writes = [], []
    deadline = time.time() + seconds
    lock = threading.Lock()

    def client(seed):
        generator = random.Random(seed)
        connection = http.client.HTTPConnection("127.0.0.1", port)
        while time.time() < deadline:
            user = generator.randrange(users)
            post = f"p{generator.randrange(POSTS):02d}"
            started = time.perf_counter()
            if generator.random() < write_share:
                if listened and generator.random() < 0.5:
                    user = generator.choice(listened)
                body = f'"written {generator.random()}"'
                connection.request("PUT", f"/users/{user_key(user)}/posts/{post}/title.json?ns={NAMESPACE}&print=silent", body)
                connection.getresponse().read()
                kind = writes
            else:
                connection.request("GET", f"/users/{user_key(user)}/posts/{post}.json?ns={NAMESPACE}")
                response = connection.getresponse()
                assert response.status == 200 and b"body" in response.read()
                kind = reads
            elapsed = time.perf_counter() - started
            with lock:
                kind.append(elapsed)

    workers = [threading.Thread(target=client, args=(seed,)) for seed in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    return reads, writes


def listen(port, user, counts, index, stop):
    """Follows one user as an event stream, counting events."""
    connection = http.client.HTTPConnection("127.0.0.1", port)
    connection.request("GET", f"/users/{user_key(user)}.json?ns={NAMESPACE}", headers={"Accept": "text/event-stream"})
    response = connection.getresponse()
    while not stop.is_set():
        line = response.fp.readline()
        if not line:
            return
        if line.startswith(b"event: put") or line.startswith(b"event: patch"):
            counts[index] += 1


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--hearth", required=True)
    parser.add_argument("--gigabytes", type=float, default=10)
    parser.add_argument("--cache-mb", type=int, default=256)
    parser.add_argument("--data-dir")
    parser.add_argument("--seconds", type=int, default=20)
    parser.add_argument("--threads", type=int, default=8)
    parser.add_argument("--listeners", type=int, default=100)
    parser.add_argument("--port", type=int, default=9421)
    arguments = parser.parse_args()
    data_dir = arguments.data_dir or tempfile.mkdtemp(prefix="hearth-large-")
    users = generate(arguments.hearth, data_dir, arguments.gigabytes)
    file = os.path.join(data_dir, "database", f"{NAMESPACE}.sqlite")
    print(f"namespace file: {os.path.getsize(file) / 2**30:.2f} GiB; cache {arguments.cache_mb} MiB")

    server = Server(arguments.hearth, data_dir, arguments.cache_mb, arguments.port)
    connection = http.client.HTTPConnection("127.0.0.1", arguments.port)
    connection.request("GET", f"/users/{user_key(7)}/name.json?ns={NAMESPACE}")
    assert connection.getresponse().read() == b'"user 7"'
    first_read = time.time() - server.start
    print(f"listening after {server.listening:.3f} s, first read answered after {first_read:.3f} s, RSS {server.rss() / 2**20:.0f} MiB")

    reads, _ = load(arguments.port, users, arguments.seconds, arguments.threads, 0, [])
    hits, misses = server.metric("hearth_database_cache_hits_total"), server.metric("hearth_database_cache_misses_total")
    print(f"cold reads: {len(reads) / arguments.seconds:.0f}/s, p50 {percentile(reads, 0.5):.2f} ms, p99 {percentile(reads, 0.99):.2f} ms; "
          f"page hit rate {hits / max(1, hits + misses):.1%} ({hits:.0f} hits, {misses:.0f} misses); RSS now {server.rss() / 2**20:.0f} MiB, peak {server.peak_rss / 2**20:.0f} MiB")

    listened = random.Random(1).sample(range(users), arguments.listeners)
    counts = [0] * len(listened)
    stop = threading.Event()
    streams = [threading.Thread(target=listen, args=(arguments.port, user, counts, index, stop), daemon=True)
               for index, user in enumerate(listened)]
    for stream in streams:
        stream.start()
    time.sleep(2)
    reads, writes = load(arguments.port, users, arguments.seconds, arguments.threads, 0.2, listened)
    time.sleep(1)
    stop.set()
    hits2, misses2 = server.metric("hearth_database_cache_hits_total"), server.metric("hearth_database_cache_misses_total")
    hits2, misses2 = hits2 - hits, misses2 - misses
    print(f"with {arguments.listeners} event streams and writes: reads {len(reads) / arguments.seconds:.0f}/s "
          f"p50 {percentile(reads, 0.5):.2f} ms p99 {percentile(reads, 0.99):.2f} ms; writes {len(writes) / arguments.seconds:.0f}/s "
          f"p50 {percentile(writes, 0.5):.2f} ms p99 {percentile(writes, 0.99):.2f} ms; events received {sum(counts) - len(listened)} "
          f"(after the first put of each stream); page hit rate {hits2 / max(1, hits2 + misses2):.1%}")
    print(f"server memory: RSS now {server.rss() / 2**20:.0f} MiB, peak {server.peak_rss / 2**20:.0f} MiB over the run")
    server.stop()
    if not arguments.data_dir:
        shutil.rmtree(data_dir)


if __name__ == "__main__":
    main()
