"""Hostile and malformed HTTP over raw sockets: requests that cannot be parsed get a status and a
short text and then the connection ends, slow or idle connections are closed after
`--http-idle-timeout`, and none of it disturbs event streams, realtime connections or the server's
health."""

import os
import socket
import ssl
import time
import uuid
from concurrent.futures import ThreadPoolExecutor

import pytest
import requests

from conftest import HearthProcess
from long_poll_client import LongPollClient
from realtime_client import RealtimeClient, unique_namespace

IDLE_TIMEOUT = 2
TWO_MEGABYTES = 2 * 1024 * 1024


@pytest.fixture(scope="module")
def server():
    # The realtime silence limit is raised so that only the HTTP idle timeout could end a silent
    # realtime connection here.
    hearth = HearthProcess(extra_args=["--http-idle-timeout", str(IDLE_TIMEOUT), "--realtime-silence-limit", "60"])
    hearth.start()
    yield hearth
    hearth.stop()
    hearth.remove_data()


def connect(server):
    return socket.create_connection(("127.0.0.1", server.port), timeout=5)


def send(sock, data):
    """Sends what the server will take: it may answer and close before reading it all."""
    try:
        sock.sendall(data)
    except (BrokenPipeError, ConnectionResetError, TimeoutError):
        pass


def wait_for_close(sock, seconds):
    """Reads until the server ends the connection or `seconds` pass; returns whether it ended,
    and what arrived."""
    received = b""
    deadline = time.monotonic() + seconds
    while (remaining := deadline - time.monotonic()) > 0:
        sock.settimeout(remaining)
        try:
            chunk = sock.recv(65536)
        except TimeoutError:
            break
        except ConnectionResetError:
            return True, received
        if not chunk:
            return True, received
        received += chunk
    return False, received


def answer_then_close(sock):
    """The status and body of the server's answer; fails unless the server then closes."""
    closed, received = wait_for_close(sock, 5)
    sock.close()
    assert closed, f"the connection stayed open after {received[:200]!r}"
    head, _, body = received.partition(b"\r\n\r\n")
    status_line = head.split(b"\r\n")[0]
    assert status_line.startswith(b"HTTP/1.1 "), received[:200]
    return int(status_line.split(b" ")[1]), body


def assert_short_text(body):
    assert 0 < len(body) < 1024, body


def client_hello():
    """The first bytes a TLS client sends: a real ClientHello."""
    incoming, outgoing = ssl.MemoryBIO(), ssl.MemoryBIO()
    tls = ssl.create_default_context().wrap_bio(incoming, outgoing, server_hostname="localhost")
    with pytest.raises(ssl.SSLWantReadError):
        tls.do_handshake()
    hello = outgoing.read()
    assert hello[0] == 0x16  # a TLS handshake record
    return hello


def get(server, path="/x.json"):
    return f"GET {path} HTTP/1.1\r\nHost: {server.host}\r\n\r\n".encode()


def test_an_unknown_method_is_refused(server):
    """`FOO` is no HTTP method: 400 or 405, then the connection ends."""
    sock = connect(server)
    send(sock, f"FOO /x.json HTTP/1.1\r\nHost: {server.host}\r\n\r\n".encode())
    status, body = answer_then_close(sock)
    assert status in (400, 405)
    assert_short_text(body)


def test_a_garbage_request_line_is_a_bad_request(server):
    sock = connect(server)
    send(sock, b"hello world\r\n\r\n")
    status, body = answer_then_close(sock)
    assert status == 400
    assert_short_text(body)


def test_a_header_line_of_two_megabytes_is_too_large(server):
    sock = connect(server)
    send(sock, f"GET /x.json HTTP/1.1\r\nHost: {server.host}\r\nX-Big: {'a' * TWO_MEGABYTES}\r\n\r\n".encode())
    status, body = answer_then_close(sock)
    assert status == 431
    assert_short_text(body)


def test_a_url_of_two_megabytes_is_too_long(server):
    sock = connect(server)
    send(sock, get(server, f"/{'a' * TWO_MEGABYTES}.json"))
    status, body = answer_then_close(sock)
    assert status in (414, 431)
    assert_short_text(body)


def test_a_tls_handshake_on_the_plain_port_is_a_bad_request(server):
    """A client that speaks HTTPS to the HTTP port gets a 400 in plain text, not silence."""
    sock = connect(server)
    send(sock, client_hello())
    status, body = answer_then_close(sock)
    assert status == 400
    assert_short_text(body)


def test_a_request_head_that_never_completes_is_closed(server):
    """A client that sends part of a head and then nothing loses the connection after the idle
    timeout."""
    sock = connect(server)
    send(sock, f"GET /x.json HTTP/1.1\r\nHost: {server.host}\r\n".encode())
    started = time.monotonic()
    closed, _ = wait_for_close(sock, IDLE_TIMEOUT + 2)
    sock.close()
    assert closed, f"still open {time.monotonic() - started:.1f} s after the partial head"


def test_a_request_head_sent_one_byte_per_second_is_closed(server):
    """Bytes that keep trickling in do not keep an incomplete head alive: the timeout bounds the
    whole head, not the gaps between its bytes."""
    sock = connect(server)
    head = f"GET /x.json HTTP/1.1\r\nHost: {server.host}\r\nX-Slow: {'a' * 60}\r\n\r\n".encode()
    started = time.monotonic()
    closed = False
    for byte in head:
        if time.monotonic() - started > IDLE_TIMEOUT + 2:
            break
        try:
            sock.sendall(bytes([byte]))
        except (BrokenPipeError, ConnectionResetError):
            closed = True
            break
        closed, _ = wait_for_close(sock, 1)
        if closed:
            break
    sock.close()
    assert closed, f"still open {time.monotonic() - started:.1f} s into a head sent byte by byte"


def test_an_idle_keep_alive_connection_is_closed_after_the_timeout(server):
    """A kept-alive connection serves further requests, and ends once it has been idle for the
    timeout."""
    sock = connect(server)
    for _ in range(2):
        sock.sendall(get(server))
        closed, answer = wait_for_close(sock, 0.5)
        assert not closed and answer.startswith(b"HTTP/1.1 200 "), answer
    answered = time.monotonic()
    closed, _ = wait_for_close(sock, IDLE_TIMEOUT + 2)
    idle = time.monotonic() - answered
    sock.close()
    assert closed, f"still open after {idle:.1f} s idle"
    assert idle > IDLE_TIMEOUT - 1, f"closed after only {idle:.1f} s idle"


def test_an_event_stream_with_a_silent_client_outlives_the_timeout(server):
    """A stream is a request in progress: it stays open, with keep-alive events, and still
    delivers changes."""
    path = f"/streams/{uuid.uuid4().hex}"
    sock = connect(server)
    sock.sendall(f"GET {path}.json HTTP/1.1\r\nHost: {server.host}\r\nAccept: text/event-stream\r\n\r\n".encode())
    closed, received = wait_for_close(sock, IDLE_TIMEOUT + 2)
    assert not closed, received
    assert received.startswith(b"HTTP/1.1 200 ") and b"event: keep-alive" in received, received
    assert requests.put(f"{server.url}{path}.json", json="still here", timeout=10).status_code == 200
    closed, received = wait_for_close(sock, 1)
    sock.close()
    assert b"event: put" in received and b'"still here"' in received, received


def test_a_silent_realtime_connection_outlives_the_timeout(server):
    """A WebSocket is no HTTP connection between requests: the idle timeout does not end it."""
    client = RealtimeClient(server, unique_namespace())
    try:
        time.sleep(IDLE_TIMEOUT + 2)
        _, response = client.call("g", {"p": "/x", "q": {}})
        assert response == {"s": "ok", "d": None}
    finally:
        client.close()


def test_a_held_long_poll_outlives_the_timeout(server):
    """A poll the server holds until it has something to send is a request in progress."""
    client = LongPollClient(server, unique_namespace(), keep_polling=False)
    sock = connect(server)
    sock.sendall(get(server, f"/.lp?id={client.id}&pw={client.password}&ser=2&ns={client.namespace}"))
    closed, received = wait_for_close(sock, IDLE_TIMEOUT + 2)
    sock.close()
    assert not closed and received == b"", received


def open_descriptors(server):
    return len(os.listdir(f"/proc/{server.process.pid}/fd"))


def bad_clients(server):
    """What several kinds of bad client send; the partial head is left for the idle timeout."""
    return [b"hello world\r\n\r\n", f"FOO / HTTP/1.1\r\nHost: {server.host}\r\n\r\n".encode(), client_hello(),
            f"GET /x.json HTTP/1.1\r\nHost: {server.host}\r\n".encode()]


def connect_and_send(server, data):
    sock = connect(server)
    send(sock, data)
    return sock


def test_many_malformed_connections_leave_the_server_healthy(server):
    """After 200 bad connections, the server answers as before and holds no more descriptors."""
    assert requests.get(f"{server.url}/x.json", timeout=10).status_code == 200
    before = open_descriptors(server)
    payloads = bad_clients(server)
    sockets = [connect_and_send(server, payloads[index % len(payloads)]) for index in range(200)]
    with ThreadPoolExecutor(len(sockets)) as pool:
        closed = list(pool.map(lambda sock: wait_for_close(sock, IDLE_TIMEOUT + 3)[0], sockets))
    for sock in sockets:
        sock.close()
    assert closed.count(False) == 0, f"{closed.count(False)} of {len(sockets)} connections left open"
    assert requests.get(f"{server.url}/x.json", timeout=10).status_code == 200
    deadline = time.monotonic() + 3
    while open_descriptors(server) > before + 5 and time.monotonic() < deadline:
        time.sleep(0.1)
    assert open_descriptors(server) <= before + 5, (before, open_descriptors(server))
