"""A long-polling realtime client that behaves as Firebase's browser client does (§3.9):
script responses calling `pLPCommand<cb>` and `pRTLPCB<cb>`, messages sent as web-safe base64
segments on polls, packets reordered by number."""

import base64
import json
import queue
import re
import threading

import requests

from conftest import CLUSTER_NODES

CALLBACK = "7"
START = re.compile(r"^parent\.pLPCommand7\('start','([A-Za-z0-9]+)','([A-Za-z0-9]+)'\);")
PACKET = re.compile(r"^parent\.pRTLPCB7\((\d+),(.*)\);$", re.S)
CLOSE = re.compile(r"^parent\.pLPCommand7\('close'(?:,(\d+))?\);$")
SEGMENT_CHARACTERS = 1840


def websafe_base64(text):
    encoded = base64.b64encode(text.encode()).decode()
    return encoded.replace("+", "-").replace("/", "_").replace("=", ".")


def segments_of(message, first_segment):
    encoded = websafe_base64(json.dumps(message, separators=(",", ":")))
    chunks = [encoded[i:i + SEGMENT_CHARACTERS] for i in range(0, len(encoded), SEGMENT_CHARACTERS)]
    return [(first_segment + i, len(chunks), chunk) for i, chunk in enumerate(chunks)]


class LongPollClient:
    def __init__(self, hearth, namespace, extra="", keep_polling=True):
        self.start(hearth.url, namespace, extra, keep_polling)
        # In a cluster, the node reached may not own the namespace: its first message is then
        # the reset naming the owner, where the SDKs start again (protocol §3.5).
        first = self.messages.queue[0] if self.messages.queue else None
        if CLUSTER_NODES > 1 and first and first.get("t") == "c" and first["d"].get("t") == "r":
            self.close()
            self.start(f"http://{first['d']['d']}", namespace, extra, keep_polling)

    def start(self, base_url, namespace, extra, keep_polling):
        self.url = f"{base_url}/.lp"
        self.namespace = namespace
        response = requests.get(f"{self.url}?start=t&ser=1&cb={CALLBACK}&v=5&ns={namespace}{extra}", timeout=10)
        assert response.status_code == 200, response.text
        assert response.headers["content-type"].startswith("application/javascript")
        match = START.match(response.text)
        assert match, response.text
        self.id, self.password = match.groups()
        self.next_segment = 0
        self.serial = 1
        self.packets = {}
        self.next_packet = 0
        self.messages = queue.Queue()
        self.closed_after = None
        self.lock = threading.Lock()
        self._take(response.text[match.end():])
        self.running = keep_polling
        self.poller = threading.Thread(target=self._poll_forever, daemon=True)
        if keep_polling:
            self.poller.start()

    def poll(self, segments=(), timeout=30):
        """One poll carrying `segments`; returns the response (its packet is taken)."""
        with self.lock:
            self.serial += 1
            serial = self.serial
        params = {"id": self.id, "pw": self.password, "ser": serial, "ns": self.namespace}
        for i, (number, total, chunk) in enumerate(segments):
            params.update({f"seg{i}": number, f"ts{i}": total, f"d{i}": chunk})
        response = requests.get(self.url, params=params, timeout=timeout)
        if response.status_code == 200:
            self._take(response.text)
        return response

    def send(self, message):
        """Sends one message on a poll of its own, as the client does when it has data; returns
        the thread waiting for that poll's answer."""
        segments = segments_of(message, self.next_segment)
        self.next_segment += len(segments)
        sender = threading.Thread(target=self.poll, args=(segments,), daemon=True)
        sender.start()
        return sender

    def receive(self, timeout=10):
        return self.messages.get(timeout=timeout)

    def close(self):
        self.running = False

    def _poll_forever(self):
        while self.running and self.closed_after is None:
            try:
                response = self.poll()
            except requests.RequestException:
                return
            if response.status_code != 200:
                return

    def _take(self, script):
        if not script:
            return
        closing = CLOSE.match(script)
        if closing:
            self.closed_after = int(closing.group(1)) if closing.group(1) else -1
            return
        match = PACKET.match(script)
        assert match, script
        with self.lock:
            self.packets[int(match.group(1))] = json.loads(match.group(2))
            while self.next_packet in self.packets:
                for message in self.packets.pop(self.next_packet):
                    self.messages.put(message)
                self.next_packet += 1
