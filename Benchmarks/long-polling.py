"""Long-polling against WebSocket in a real headless Chromium, against a running Hearth.

Measures, with the long-polling page of the interop suite (`Tests/Interop/pages/long_poll.js`,
which speaks `/.lp` as Firebase's browser SDK does) and a browser WebSocket client
(`Benchmarks/pages/websocket.js`, framed as the SDK frames):

1. one 2 MB write (`/bench/big`, 10 strings of 200,000 characters), from just before it is sent
   to its `ok`: 5 runs per transport, median and minimum;
2. 2,000 small writes (`/bench/w/<i>` = i) sent at once, until the last `ok`: 3 runs per
   transport, median writes/s.

Timing happens in the page (`performance.now()`, `Benchmarks/pages/bench.js`); each run has a
fresh page, connection and namespace. The pages are served from 127.0.0.1 on another port than
Hearth's, as an app's would be.

Usage: .build/interop-venv/bin/python Benchmarks/long-polling.py --url http://127.0.0.1:PORT
"""

import argparse
import json
import os
import statistics
import sys
import time
import urllib.parse
import urllib.request
import uuid

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "Tests", "Interop"))

from browser import load_long_poll_page, serve_pages, start_chromium  # noqa: E402

BENCH_PAGES = os.path.join(HERE, "pages")
BIG = {"parts": 10, "characters": 200_000}
TRANSPORTS = ("lp", "ws")


class BenchError(Exception):
    pass


def rest_get(hearth_url, namespace, path, **params):
    query = urllib.parse.urlencode({"ns": namespace, **params})
    with urllib.request.urlopen(f"{hearth_url}/{path}.json?{query}", timeout=30) as response:
        return json.loads(response.read())


def wait_for(condition, what, timeout):
    """Calls `condition` every 50 ms until it returns something truthy, which it returns."""
    deadline = time.monotonic() + timeout
    while True:
        result = condition()
        if result:
            return result
        if time.monotonic() > deadline:
            raise BenchError(f"{what}: not within {timeout} s (last: {result!r})")
        time.sleep(0.05)


class Bench:
    def __init__(self, driver, pages_url, hearth_url):
        self.driver = driver
        self.pages_url = pages_url
        self.hearth_url = hearth_url
        self.scripts = [open(os.path.join(BENCH_PAGES, name)).read() for name in ("websocket.js", "bench.js")]
        self.runs = 0

    def js(self, script, *args):
        return self.driver.execute_script(script, *args)

    def errors(self):
        return self.js("return window.lp.errors().concat(window.ws.errors());")

    def run(self, transport, workload, timeout):
        """One timed run on a fresh page, connection and namespace; returns its seconds."""
        self.runs += 1
        namespace = f"bench-{uuid.uuid4().hex}"
        load_long_poll_page(self.driver, self.pages_url)
        for script in self.scripts:
            self.js(script)
        api = f"window.{transport}"
        self.js(f"{api}.open('bench', arguments[0], arguments[1]);", self.hearth_url, namespace)
        wait_for(lambda: self.js(f"return {api}.state('bench').connected;"), f"{transport} handshake", 15)
        run_id = f"run{self.runs}"
        self.js("window.bench.start.apply(null, arguments);", run_id, transport, "bench", workload, timeout * 1000)
        result = wait_for(lambda: (lambda r: r if r and r["done"] else None)(self.js(f"return window.bench.result('{run_id}');")),
                          f"{transport} run {run_id}", timeout + 10)
        state = self.js(f"return {api}.state('bench');")
        self.js(f"{api}.close('bench');")
        errors = self.errors()
        self.driver.get("about:blank")
        if result["failed"]:
            raise BenchError(f"{transport} {workload}: {result['failed']}; state {state}; page errors {errors}")
        if result["notOk"]:
            raise BenchError(f"{transport} {workload}: {result['notOk']} writes not ok, first {result['firstNotOk']}")
        if errors:
            raise BenchError(f"{transport} {workload}: page errors {errors}")
        self.check_stored(namespace, workload)
        return result["seconds"]

    def check_stored(self, namespace, workload):
        """The writes are in the database (read back over REST, outside the timing)."""
        if "big" in workload:
            value = rest_get(self.hearth_url, namespace, "bench/big")
            lengths = sorted(len(part) for part in (value or {}).values())
            if lengths != [BIG["characters"]] * BIG["parts"]:
                raise BenchError(f"/bench/big in {namespace} reads back with parts of {lengths[:12]} characters")
        else:
            stored = rest_get(self.hearth_url, namespace, "bench/w", shallow="true")
            if len(stored or ()) != workload["small"]:
                raise BenchError(f"/bench/w in {namespace} holds {len(stored or ())} of {workload['small']} writes")


def seconds_text(value):
    return f"{value:.2f}" if value < 1 else f"{value:.1f}"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--url", default="http://127.0.0.1:9000", help="Hearth's base URL (127.0.0.1)")
    parser.add_argument("--big-runs", type=int, default=5)
    parser.add_argument("--write-runs", type=int, default=3)
    parser.add_argument("--writes", type=int, default=2000)
    parser.add_argument("--timeout", type=float, default=120, help="seconds one run may take")
    arguments = parser.parse_args()
    hearth_url = arguments.url.rstrip("/")
    if urllib.parse.urlsplit(hearth_url).hostname not in ("127.0.0.1", "localhost"):
        parser.error("--url must be on 127.0.0.1")
    for name in ("big_runs", "write_runs", "writes"):
        if not 1 <= getattr(arguments, name) <= 100_000:
            parser.error(f"--{name.replace('_', '-')} must be between 1 and 100000")

    rest_get(hearth_url, f"bench-{uuid.uuid4().hex}", "")  # fails early when Hearth is not there
    pages, pages_url = serve_pages()
    driver = start_chromium()
    try:
        bench = Bench(driver, pages_url, hearth_url)
        big = {transport: [] for transport in TRANSPORTS}
        for _ in range(arguments.big_runs):
            for transport in TRANSPORTS:
                big[transport].append(bench.run(transport, {"big": BIG}, arguments.timeout))
        rates = {transport: [] for transport in TRANSPORTS}
        for _ in range(arguments.write_runs):
            for transport in TRANSPORTS:
                seconds = bench.run(transport, {"small": arguments.writes}, arguments.timeout)
                rates[transport].append(arguments.writes / seconds)
    finally:
        driver.quit()
        pages.shutdown()
        pages.server_close()

    lp, ws = big["lp"], big["ws"]
    print(f"hearth long-polling 2 MB write (Chromium, {len(lp)} runs): median {seconds_text(statistics.median(lp))} s "
          f"(min {seconds_text(min(lp))}) | websocket: median {seconds_text(statistics.median(ws))} s "
          f"(min {seconds_text(min(ws))})")
    lp, ws = rates["lp"], rates["ws"]
    print(f"hearth long-polling writes/s ({arguments.writes} at once, Chromium, {len(lp)} runs): "
          f"median {statistics.median(lp):.0f} (runs {', '.join(f'{rate:.0f}' for rate in lp)}) | websocket: "
          f"median {statistics.median(ws):.0f} (runs {', '.join(f'{rate:.0f}' for rate in ws)})")


if __name__ == "__main__":
    try:
        main()
    except BenchError as error:
        sys.exit(f"long-polling benchmark failed: {error}")
