"""A minimal Firebase realtime-protocol client on top of a real WebSocket client (`websockets`).

It speaks the wire format of protocol §3–§4 directly, so that the tests can assert exact
frames: request numbers, response bodies, pushes and their order. In a cluster (every node
relaying), a client is served by whichever node it reaches.
"""

import json
import socket
import uuid

from websockets.sync.client import connect

MAX_FRAME = 16384


def unique_namespace():
    return f"ws-{uuid.uuid4().hex[:12]}"


class RealtimeClient:
    def __init__(self, hearth, namespace, read_handshake=True, last_session=None, transport_session=None):
        resume = f"&ls={last_session}" if last_session else ""
        upgrade = f"&s={transport_session}" if transport_session else ""
        path = f"/.ws?v=5&ns={namespace}{resume}{upgrade}"
        self.ws = connect(f"ws://{hearth.host}{path}", max_size=None, open_timeout=10, legacy=True)
        # A message read ahead, which the next receive() returns.
        self.pending = []
        self.next_request = 0
        self.handshake = self.receive() if read_handshake else None

    def close(self):
        self.ws.close()

    def drop(self):
        """Ends the connection abruptly: no WebSocket close frame, the TCP connection just ends."""
        self.ws.socket.shutdown(socket.SHUT_RDWR)

    # Frames

    def receive_frame(self, timeout=5):
        return self.ws.recv(timeout=timeout)

    def receive(self, timeout=5):
        """The next message: one read ahead, or the next on the wire."""
        return self.pending.pop(0) if self.pending else self.read_message(timeout)

    def read_message(self, timeout=5):
        """One whole message from the wire, reassembled when the server split it."""
        frame = self.receive_frame(timeout)
        if len(frame) <= 6 and frame.isdigit():
            frame = "".join(self.receive_frame(timeout) for _ in range(int(frame)))
        return json.loads(frame)

    def send_text(self, text):
        if len(text) <= MAX_FRAME:
            self.ws.send(text)
            return
        chunks = [text[i:i + MAX_FRAME] for i in range(0, len(text), MAX_FRAME)]
        self.ws.send(str(len(chunks)))
        for chunk in chunks:
            self.ws.send(chunk)

    def send(self, message):
        self.send_text(json.dumps(message, separators=(",", ":")))

    def expect_silence(self, seconds=0.3):
        try:
            frame = self.receive_frame(timeout=seconds)
        except TimeoutError:
            return
        raise AssertionError(f"expected no message, got {frame}")

    # Requests

    def request(self, action, body):
        self.next_request += 1
        self.send({"t": "d", "d": {"r": self.next_request, "a": action, "b": body}})
        return self.next_request

    def call(self, action, body, timeout=5):
        """Sends a request; returns the pushes received before its response, and the response body."""
        number = self.request(action, body)
        pushes = []
        while True:
            message = self.receive(timeout)
            data = message["d"]
            if message["t"] == "d" and data.get("r") == number:
                return pushes, data["b"]
            pushes.append(message)

    def push(self, timeout=5):
        """The next data push (`{"a": …, "b": …}`)."""
        message = self.receive(timeout)
        assert message["t"] == "d" and "r" not in message["d"], message
        return message["d"]
