"""Whether an open console slows the data path: realtime writes/s, REST writes/s and realtime
fan-out p99 against a running Hearth with its console, measured with the console closed, open
on the traffic view, and open on the requests view, in rounds that take the three states in
turn (so that drift of the machine falls on all three alike).

The console runs in a real headless Chromium (Selenium, from the interop suite's venv) on the
same machine as the server and the load generator; its CPU counts against the open states, as
an operator's browser on the server's machine would.

Usage: .build/interop-venv/bin/python Benchmarks/console-open.py --url http://127.0.0.1:PORT
       --console http://127.0.0.1:CONSOLE_PORT --bench .build/release/hearth-bench [--rounds 3]
"""

import argparse
import os
import re
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "Tests", "Interop"))

from browser import start_chromium  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402

STATES = {
    "closed": None,
    "traffic view open": ("/traffic", "#traffic-status", "Updated every second"),
    "requests view open": ("/requests", "#requests-status", "Following"),
}
RUNS = {
    "realtime writes/s": (["ws-writes", "--clients", "50", "--seconds", "10"], r": ([\d,.]+) writes/s"),
    "REST writes/s": (["rest-writes", "--clients", "50", "--seconds", "10"], r": ([\d,.]+) requests/s"),
    "fan-out p99 ms (1,000 WebSockets, 100 writes/s)":
        (["ws-fanout", "--connections", "1000", "--rate", "100", "--count", "1000"], r"p99 ([\d,.]+) ms"),
}


def open_state(driver, console, state):
    target = STATES[state]
    if target is None:
        driver.get("about:blank")
        return
    path, selector, text = target
    driver.get(console + path)
    deadline = time.time() + 30
    while time.time() < deadline:
        elements = driver.find_elements(By.CSS_SELECTOR, selector)
        if elements and text in elements[0].text:
            return
        time.sleep(0.1)
    raise RuntimeError(f"the console's {path} did not open")


def measure(bench, url, arguments, pattern):
    output = subprocess.run([bench, *arguments, "--url", url], capture_output=True, text=True, check=True).stdout
    match = re.search(pattern, output)
    if not match:
        raise RuntimeError(f"unexpected output: {output}")
    return float(match.group(1).replace(",", ""))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--url", required=True)
    parser.add_argument("--console", required=True)
    parser.add_argument("--bench", required=True)
    parser.add_argument("--rounds", type=int, default=3)
    arguments = parser.parse_args()
    driver = start_chromium()
    results = {(state, run): [] for state in STATES for run in RUNS}
    try:
        for _ in range(arguments.rounds):
            for state in STATES:
                open_state(driver, arguments.console, state)
                time.sleep(2)  # the view's first readings
                for run, (command, pattern) in RUNS.items():
                    results[(state, run)].append(measure(arguments.bench, arguments.url, command, pattern))
    finally:
        driver.quit()
    print(f"console open against closed, medians of {arguments.rounds} rounds:")
    for run in RUNS:
        figures = "; ".join(
            f"{state} {statistics.median(results[(state, run)]):,.1f} ({', '.join(f'{v:,.1f}' for v in results[(state, run)])})"
            for state in STATES)
        print(f"  {run}: {figures}")


if __name__ == "__main__":
    main()
