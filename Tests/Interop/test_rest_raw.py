"""Raw HTTP for what the Admin SDK does not send: shallow, export, silent, overrides, streaming."""

import json
import socket
import time
import uuid

import requests

from conftest import OWNER, one_process_only, read_until_closed, set_rules, stalled_socket


def location(hearth):
    return f"{hearth.url}/raw/{uuid.uuid4().hex}"


def test_shallow_export_silent_and_method_override(hearth):
    base = location(hearth)
    assert requests.put(f"{base}.json", json={"dinosaurs": {"a": 1}, "scores": {"b": 2}}).status_code == 200
    assert requests.get(f"{base}.json?shallow=true").json() == {"dinosaurs": True, "scores": True}
    assert requests.get(f"{base}/dinosaurs/a.json?shallow=true").json() == 1
    silent = requests.put(f"{base}/p.json?print=silent", json={".value": "x", ".priority": 5})
    assert silent.status_code == 204 and silent.content == b""
    assert requests.get(f"{base}/p.json").json() == "x"
    assert requests.get(f"{base}/p.json?format=export").json() == {".value": "x", ".priority": 5}
    assert requests.post(f"{base}/scores.json", headers={"X-HTTP-Method-Override": "DELETE"}).status_code == 200
    assert requests.get(f"{base}/scores.json").json() is None
    assert requests.post(f"{base}/q.json?x-http-method-override=PATCH", json={"a/b": 1}).status_code == 200
    assert requests.get(f"{base}/q.json").json() == {"a": {"b": 1}}
    pretty = requests.get(f"{base}/q.json?print=pretty")
    assert pretty.text == '{\n  "a" : {\n    "b" : 1\n  }\n}'


def test_firebase_cli_probes(hearth):
    namespace = f"cli-{uuid.uuid4().hex[:8]}"
    probe = requests.get(f"{hearth.url}/.json", params={"ns": namespace, "shallow": "true", "limitToFirst": "1"}, headers=OWNER)
    assert probe.status_code == 200 and probe.json() is None
    requests.put(f"{hearth.url}/.json", params={"ns": namespace, "disableTriggers": "true", "writeSizeLimit": "unlimited"},
                 headers=OWNER, json={"b": 1, "a": {"x": 2}})
    probe = requests.get(f"{hearth.url}/.json", params={"ns": namespace, "shallow": "true", "limitToFirst": "1"}, headers=OWNER)
    assert probe.json() == {"a": True}
    names = [entry["name"] for entry in requests.get(f"{hearth.url}/.inspect/databases.json", params={"ns": "interop-project"}).json()]
    assert namespace in names


def test_priority_queries_and_key_bounds_with_markers(hearth):
    base = location(hearth)
    requests.put(f"{base}.json", json={
        "a": {".value": 1, ".priority": 3}, "b": {".value": 2, ".priority": 1}, "c": {".value": 3, ".priority": "z"}})
    ordered = requests.get(f'{base}.json?orderBy="$priority"&limitToFirst=2&format=export').json()
    assert set(ordered) == {"a", "b"}
    after = requests.get(f'{base}.json?orderBy="$priority"&startAfter=1,"[MAX_NAME]"').json()
    assert set(after) == {"a", "c"}


class EventStream:
    """A minimal SSE reader over a raw socket, so the test controls exactly when it reads."""

    def __init__(self, hearth, path, query=""):
        self.sock = socket.create_connection(("127.0.0.1", hearth.port))
        self.sock.sendall(
            f"GET {path}.json{query} HTTP/1.1\r\nHost: {hearth.host}\r\nAccept: text/event-stream\r\n\r\n".encode())
        self.buffer = b""
        head = self._read_until(b"\r\n\r\n")
        assert b" 200 " in head.split(b"\r\n")[0], head
        assert b"text/event-stream" in head

    def _read_until(self, marker, timeout=10):
        self.sock.settimeout(timeout)
        while marker not in self.buffer:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise ConnectionError("closed")
            self.buffer += chunk
        head, self.buffer = self.buffer.split(marker, 1)
        return head

    def next_event(self):
        # Chunked transfer: skip chunk-size lines, keep event lines.
        lines = []
        while True:
            line = self._read_until(b"\n").decode().rstrip("\r")
            if line.startswith("event: ") or line.startswith("data: "):
                lines.append(line)
            if len(lines) == 2:
                name = lines[0][len("event: "):]
                return name, json.loads(lines[1][len("data: "):])

    def close(self):
        self.sock.close()


def test_stream_events_keep_alive_and_writes_above(hearth):
    base = f"/raw/{uuid.uuid4().hex}"
    requests.put(f"{hearth.url}{base}/s.json", json={"a": 1})
    stream = EventStream(hearth, f"{base}/s")
    try:
        assert stream.next_event() == ("put", {"path": "/", "data": {"a": 1}})
        requests.put(f"{hearth.url}{base}/s/b.json", json=2)
        assert stream.next_event() == ("put", {"path": "/b", "data": 2})
        requests.patch(f"{hearth.url}{base}/s.json", json={"c/d": 3, "a": None})
        assert stream.next_event() == ("patch", {"path": "/", "data": {"c/d": 3, "a": None}})
        requests.patch(f"{hearth.url}{base}.json", json={"s/e": 4, "other": 5})
        assert stream.next_event() == ("patch", {"path": "/", "data": {"e": 4}})
        requests.put(f"{hearth.url}{base}.json", json={"s": "replaced"})
        assert stream.next_event() == ("put", {"path": "/", "data": "replaced"})
        requests.put(f"{hearth.url}{base}/unrelated.json", json=1)
        assert stream.next_event() == ("keep-alive", None)
    finally:
        stream.close()


def test_stream_of_a_query_sends_the_window(hearth):
    base = f"/raw/{uuid.uuid4().hex}"
    set_rules(hearth, '{"rules": {".read": true, ".write": true, "raw": {"$id": {"w": {".indexOn": "v"}}}}}')
    requests.put(f"{hearth.url}{base}/w.json", json={"a": {"v": 3}, "b": {"v": 1}, "c": {"v": 2}})
    stream = EventStream(hearth, f"{base}/w", '?orderBy="v"&limitToLast=2')
    try:
        assert stream.next_event() == ("put", {"path": "/", "data": {"a": {"v": 3}, "c": {"v": 2}}})
        requests.delete(f"{hearth.url}{base}/w/a.json")
        assert stream.next_event() == ("put", {"path": "/", "data": {"b": {"v": 1}, "c": {"v": 2}}})
    finally:
        stream.close()


# Through a node that passes the stream on, the socket buffers of each hop hold more than the
# owner's bound before the owner sees the client stall.
@one_process_only
def test_a_client_that_stops_reading_is_disconnected(hearth):
    base = f"/raw/{uuid.uuid4().hex}"
    sock = stalled_socket(hearth)
    sock.sendall(f"GET {base}/big.json HTTP/1.1\r\nHost: x\r\nAccept: text/event-stream\r\n\r\n".encode())
    time.sleep(0.2)
    payload = "x" * (1024 * 1024)
    # 16 MB of events against the 4 MB bound the suite starts Hearth with.
    for index in range(16):
        assert requests.put(f"{hearth.url}{base}/big/{index % 4}.json", json=payload + str(index)).status_code == 200
    # Whatever the kernel had already accepted still arrives, then the connection ends.
    closed, received = read_until_closed(sock)
    sock.close()
    assert closed, f"the server kept the stalled stream open after {received} bytes"
    assert received < 12 * 1024 * 1024, received
    # The server is still healthy.
    assert requests.get(f"{hearth.url}{base}/big/0.json").json() == payload + "12"


def test_priority_paths(hearth):
    base = location(hearth)
    requests.put(f"{base}/a.json", json={"b": 1})
    written = requests.put(f"{base}/a/.priority.json", json=7)
    assert written.status_code == 200 and written.json() == 7
    assert requests.get(f"{base}/a.json?format=export").json() == {".priority": 7, "b": 1}
    assert requests.get(f"{base}/a/.priority.json").json() == 7
    assert requests.patch(f"{base}.json", json={"a/.priority": "p", "c": 1}).status_code == 200
    assert requests.get(f"{base}.json?format=export").json() == {"a": {".priority": "p", "b": 1}, "c": 1}
    assert requests.delete(f"{base}/a/.priority.json").status_code == 200
    assert requests.get(f"{base}/a.json?format=export").json() == {"b": 1}
    # A missing node cannot hold a priority.
    requests.put(f"{base}/missing/.priority.json", json=1)
    assert requests.get(f"{base}/missing.json?format=export").json() is None
    for method in ("post", "patch"):
        refused = requests.request(method, f"{base}/a/.priority.json", json={"x": 1})
        assert refused.status_code == 400 and refused.json() == {"error": "Invalid path: Invalid token in path"}
    assert requests.put(f"{base}/a/.priority/x.json", json=1).status_code == 400
    assert requests.get(f"{base}/a.json?format=export").json() == {"b": 1}


def test_preflights_of_every_product_answer_a_page_on_another_origin(hearth):
    """A browser app on its own origin (here one on a public address calling a Hearth on this
    machine, which Private Network Access asks about) gets the same kind of answer from each
    product: its methods, the headers asked for, an hour of caching."""
    asked = {"Origin": "https://app.example", "Access-Control-Request-Method": "PUT",
             "Access-Control-Request-Headers": "authorization, content-type",
             "Access-Control-Request-Private-Network": "true"}
    for path, status, origin in (
            (f"/raw/{uuid.uuid4().hex}.json", 200, "*"),
            ("/identitytoolkit.googleapis.com/v1/accounts:signUp", 204, "https://app.example"),
            ("/v0/b/bucket.appspot.com/o", 204, "https://app.example")):
        answer = requests.options(f"{hearth.url}{path}", headers=asked)
        assert answer.status_code == status, path
        assert answer.headers["Access-Control-Allow-Origin"] == origin, path
        assert "PUT" in answer.headers["Access-Control-Allow-Methods"], path
        assert answer.headers["Access-Control-Allow-Headers"] == "authorization, content-type", path
        assert answer.headers["Access-Control-Max-Age"] == "3600", path
        assert answer.headers["Access-Control-Allow-Private-Network"] == "true", path
        assert answer.headers["X-Content-Type-Options"] == "nosniff", path


def test_every_product_answers_with_nosniff(hearth):
    for method, path in (("GET", f"/raw/{uuid.uuid4().hex}.json"), ("GET", "/.lp?start=t&cb=1"),
                         ("POST", "/identitytoolkit.googleapis.com/v1/accounts:lookup?key=k"),
                         ("GET", "/v0/b/bucket.appspot.com/o")):
        answer = requests.request(method, f"{hearth.url}{path}", json={} if method == "POST" else None)
        assert answer.headers["X-Content-Type-Options"] == "nosniff", path
