"""The console's requests feed (`/console/requests`) as a test reads it."""

import http.client
import json
import queue
import socket
import threading
import time

TIMEOUT = 30


class Feed:
    """The console's `/console/requests` stream, read in a thread from a connection the test
    can cut at once."""

    def __init__(self, server):
        host, port = server.console_url.removeprefix("http://").split(":")
        self.connection = http.client.HTTPConnection(host, int(port), timeout=TIMEOUT)
        self.connection.request("GET", "/console/requests")
        self.response = self.connection.getresponse()
        assert self.response.status == 200
        assert self.response.getheader("Content-Type") == "text/event-stream"
        self.records = queue.Queue()
        self.ready = threading.Event()
        threading.Thread(target=self._read, daemon=True).start()
        assert self.ready.wait(TIMEOUT), "the feed's greeting"

    def _read(self):
        event = None
        try:
            while line := self.response.readline().decode():
                line = line.rstrip("\n")
                if line.startswith(": following"):
                    self.ready.set()
                elif line.startswith("event: "):
                    event = line[len("event: "):]
                elif line.startswith("data: ") and event == "request":
                    self.records.put(json.loads(line[len("data: "):]))
        except Exception:  # noqa: BLE001 — the test cut the connection mid-read
            pass

    def next(self, matching, timeout=10):
        deadline = time.time() + timeout
        while time.time() < deadline:
            try:
                record = self.records.get(timeout=max(0.01, deadline - time.time()))
            except queue.Empty:
                break
            if matching(record):
                return record
        raise AssertionError("no matching request in the feed")

    def close(self):
        self.connection.sock.shutdown(socket.SHUT_RDWR)
        self.connection.close()
