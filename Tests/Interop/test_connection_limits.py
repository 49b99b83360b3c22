"""Limits on what one client may hold of Hearth's connections: a request body that arrives too
slowly ends its connection (`--min-body-rate` after `--body-rate-grace`), and production caps the
connections one address may hold open (`--max-connections-per-address`)."""

import socket
import time

import pytest
import requests

from conftest import HearthProcess
from realtime_client import unique_namespace


def connect(server):
    return socket.create_connection(("127.0.0.1", server.port), timeout=5)


def closed_by_server(sock, seconds):
    """Whether the server closes `sock` within `seconds` (reads answer nothing or fail)."""
    sock.settimeout(seconds)
    try:
        while sock.recv(4096):
            pass
        return True
    except ConnectionResetError:
        return True
    except socket.timeout:
        return False


def answers(sock, server):
    """Whether `sock` gets an HTTP answer to a request (in production, without a credential, a
    refusal)."""
    sock.sendall(f"GET /.json?shallow=true HTTP/1.1\r\nHost: {server.host}\r\n\r\n".encode())
    sock.settimeout(5)
    try:
        return sock.recv(4096).startswith(b"HTTP/1.1 ")
    except (ConnectionResetError, socket.timeout):
        return False


@pytest.fixture(scope="module")
def strict():
    """A server that wants 100 bytes a second of a request body after one second."""
    server = HearthProcess(extra_args=["--min-body-rate", "100", "--body-rate-grace", "1"]).start()
    yield server
    server.stop()
    server.remove_data()


def test_a_body_that_arrives_too_slowly_ends_its_connection_and_writes_nothing(strict):
    namespace = unique_namespace()
    body = b'"' + b"x" * 998 + b'"'
    sock = connect(strict)
    sock.sendall(
        f"PUT /slow.json?ns={namespace} HTTP/1.1\r\nHost: {strict.host}\r\nContent-Length: {len(body)}\r\n\r\n".encode())
    started = time.time()
    sent = 0
    closed = False
    # A byte every half second: 2 bytes/s against the 100 required once the second of grace
    # has passed.
    while time.time() - started < 6:
        try:
            sock.sendall(body[sent:sent + 1])
        except (BrokenPipeError, ConnectionResetError):
            closed = True
            break
        sent += 1
        if closed_by_server(sock, 0.5):
            closed = True
            break
    assert closed, "the slow body kept its connection"
    assert time.time() - started < 4
    assert requests.get(f"{strict.url}/slow.json?ns={namespace}").json() is None
    # A body at an ordinary rate goes through.
    assert requests.put(f"{strict.url}/fast.json?ns={namespace}", data=body).status_code == 200


def test_a_slow_body_within_the_rate_is_accepted(strict):
    namespace = unique_namespace()
    body = b'"' + b"y" * 298 + b'"'
    sock = connect(strict)
    sock.sendall(
        f"PUT /steady.json?ns={namespace} HTTP/1.1\r\nHost: {strict.host}\r\nContent-Length: {len(body)}\r\n\r\n".encode())
    # 100 bytes every half second: 200 bytes/s, twice the minimum, over 1.5 s.
    for offset in range(0, len(body), 100):
        sock.sendall(body[offset:offset + 100])
        time.sleep(0.5)
    assert sock.recv(4096).startswith(b"HTTP/1.1 200")
    assert requests.get(f"{strict.url}/steady.json?ns={namespace}").json() == "y" * 298
    sock.close()


def test_production_caps_the_connections_of_one_address():
    server = HearthProcess(extra_args=["--production", "--max-connections-per-address", "3"]).start()
    try:
        held = [connect(server) for _ in range(3)]
        assert all(answers(sock, server) for sock in held)
        refused = connect(server)
        assert closed_by_server(refused, 2), "a fourth connection was kept"
        # A connection closed makes room for another.
        held.pop().close()
        time.sleep(0.3)
        again = connect(server)
        assert answers(again, server)
        for sock in held + [again, refused]:
            sock.close()
    finally:
        server.stop()
        server.remove_data()


def test_development_sets_no_cap_by_default(hearth):
    held = [connect(hearth) for _ in range(40)]
    assert all(answers(sock, hearth) for sock in held)
    for sock in held:
        sock.close()


@pytest.mark.parametrize("console", [False, True])
def test_shutdown_does_not_wait_for_connections_that_never_sent_a_request(console):
    """Browsers open spare connections they may not use; a server told to stop closes them
    rather than wait for their idle timeout (here two minutes)."""
    server = HearthProcess(console=console, extra_args=["--http-idle-timeout", "120"]).start()
    ports = [server.port] + ([server.console_port] if console else [])
    spare = [socket.create_connection(("127.0.0.1", port), timeout=5) for port in ports]
    try:
        assert requests.get(f"{server.url}/.json", timeout=10).ok
        started = time.monotonic()
        assert server.stop() == 0
        assert time.monotonic() - started < 60
        assert all(closed_by_server(sock, 5) for sock in spare)
    finally:
        for sock in spare:
            sock.close()
        server.remove_data()
