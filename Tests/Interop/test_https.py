"""HTTPS in the binary (issue "Operations I"): `hearth serve --tls-cert FILE --tls-key FILE`.

- The official clients work over `https://` with the test CA: firebase-admin's database (as in
  production: an https database URL and a bearer credential) and google-cloud-storage.
- The certificate is reloaded when its files change, without a restart.
- `--http-redirect-port` sends plain-HTTP requests to the same path over HTTPS.
- HTTP/2 is negotiated by ALPN (curl, built with nghttp2): REST, event streams and long-polling
  answer over it; HTTP/1.1 clients and WebSockets keep HTTP/1.1.
- Plain HTTP on the TLS port, and clients that do not trust the certificate or ask for another
  name, are refused cleanly; an expired certificate or one that does not match its key is refused
  at start with a message naming it, and on a reload the certificate in force stays."""

import socket
import ssl
import tempfile
import time

import json
import subprocess

import firebase_admin
import google.oauth2.credentials
import pytest
import requests
from firebase_admin import credentials, db
from google.auth.credentials import AnonymousCredentials
from google.cloud import storage
from websockets.sync.client import connect

from conftest import PROJECT, HearthProcess, free_port
from tls_support import CertificateAuthority

BUCKET = f"{PROJECT}.appspot.com"


class OwnerCredential(credentials.Base):
    """The development admin credential, sent as a bearer token as production's are."""

    def get_credential(self):
        return google.oauth2.credentials.Credentials("owner")


@pytest.fixture(scope="module")
def ca():
    return CertificateAuthority(tempfile.mkdtemp(prefix="hearth-tls-"))


@pytest.fixture(scope="module")
def tls_server(ca):
    certificate, key, _ = ca.issue("server")
    server = HearthProcess(extra_args=["--tls-cert", certificate, "--tls-key", key]).start()
    assert any(line.startswith(f"Hearth listening on https://") for line in server.output)
    yield server
    server.stop()
    server.remove_data()


def served_serial(port, ca, name="localhost"):
    context = ssl.create_default_context(cafile=ca.path)
    with socket.create_connection(("127.0.0.1", port), timeout=10) as raw:
        with context.wrap_socket(raw, server_hostname=name) as tls:
            from cryptography import x509
            return x509.load_der_x509_certificate(tls.getpeercert(binary_form=True)).serial_number


def test_the_admin_sdk_and_cloud_storage_work_over_https(tls_server, ca, monkeypatch):
    monkeypatch.setenv("REQUESTS_CA_BUNDLE", ca.path)
    monkeypatch.delenv("FIREBASE_DATABASE_EMULATOR_HOST", raising=False)
    url = f"https://localhost:{tls_server.port}"
    app = firebase_admin.initialize_app(OwnerCredential(), {"databaseURL": url}, name="https-admin")
    try:
        reference = db.reference("/https/greeting", app=app)
        reference.set({"text": "over TLS"})
        assert reference.get() == {"text": "over TLS"}
        pushed = db.reference("/https/list", app=app).push(7)
        assert db.reference(f"/https/list/{pushed.key}", app=app).get() == 7
    finally:
        firebase_admin.delete_app(app)

    monkeypatch.setenv("STORAGE_EMULATOR_HOST", url)
    bucket = storage.Client(project=PROJECT, credentials=AnonymousCredentials()).bucket(BUCKET)
    blob = bucket.blob("tls/hello.txt")
    blob.upload_from_string(b"hello over https", content_type="text/plain")
    assert bucket.blob("tls/hello.txt").download_as_bytes() == b"hello over https"
    # The URLs Storage gives back lead to the HTTPS port.
    assert bucket.get_blob("tls/hello.txt").media_link.startswith(f"https://localhost:{tls_server.port}/")
    large = bucket.blob("tls/large.bin", chunk_size=256 * 1024)
    large.upload_from_string(b"x" * (600 * 1024))
    assert bucket.blob("tls/large.bin").download_as_bytes() == b"x" * (600 * 1024)


def test_realtime_clients_connect_over_wss(tls_server, ca):
    context = ssl.create_default_context(cafile=ca.path)
    url = f"wss://localhost:{tls_server.port}/.ws?v=5&ns={PROJECT}-default-rtdb"
    with connect(url, ssl=context, open_timeout=10) as socket_:
        handshake = json.loads(socket_.recv(timeout=10))
        assert handshake["t"] == "c" and handshake["d"]["t"] == "h", handshake
        socket_.send(json.dumps({"t": "d", "d": {"r": 1, "a": "g", "b": {"p": "/https/greeting", "q": {}}}}))
        while True:
            message = json.loads(socket_.recv(timeout=10))
            if message.get("d", {}).get("r") == 1:
                break
        assert message["d"]["b"]["s"] == "ok", message


def curl(ca, *args):
    return subprocess.run(["curl", "-sS", "--cacert", ca.path, *args], capture_output=True, text=True, timeout=30)


def test_http2_serves_rest_event_streams_and_long_polling(tls_server, ca):
    base = f"https://localhost:{tls_server.port}"
    put = curl(ca, "--http2", "-X", "PUT", "-d", '{"n":1}', "-w", " %{http_version}", f"{base}/h2.json")
    assert put.stdout == '{"n":1} 2', put
    old = curl(ca, "--http1.1", "-w", " %{http_version}", f"{base}/h2.json")
    assert old.stdout == '{"n":1} 1.1', old
    # An event stream's first put arrives over HTTP/2 (its HTTP/1.1-only header is dropped).
    stream = subprocess.run(["curl", "-sSN", "--http2", "--cacert", ca.path, "--max-time", "2",
                             "-H", "Accept: text/event-stream", f"{base}/h2.json"], capture_output=True, text=True)
    assert stream.stdout.startswith('event: put\ndata: {"path":"/","data":{"n":1}}'), stream
    poll = curl(ca, "--http2", "-w", " %{http_version}", f"{base}/.lp?start=t&ser=1&cb=1&v=5&ns={PROJECT}-default-rtdb")
    assert poll.stdout.endswith(" 2") and "pLPCommand" in poll.stdout, poll


def test_bad_clients_are_refused_cleanly(tls_server, ca):
    # Plain HTTP on the TLS port: the handshake fails and the connection is closed.
    with pytest.raises(requests.exceptions.ConnectionError):
        requests.get(f"http://127.0.0.1:{tls_server.port}/.json", timeout=10)
    # A client that does not trust the certificate.
    with pytest.raises(requests.exceptions.SSLError):
        requests.get(f"https://localhost:{tls_server.port}/.json", timeout=10)
    # A client that asks for another name.
    with pytest.raises(ssl.SSLCertVerificationError):
        served_serial(tls_server.port, ca, name="other.example.com")
    # The server still serves.
    assert requests.get(f"https://localhost:{tls_server.port}/healthz", verify=ca.path, timeout=10).status_code == 200


def test_the_certificate_is_reloaded_when_its_files_change(ca):
    certificate, key, first = ca.issue("reloaded")
    server = HearthProcess(extra_args=["--tls-cert", certificate, "--tls-key", key]).start()
    try:
        assert served_serial(server.port, ca) == first
        # An expired replacement is refused; the certificate in force stays.
        expired_certificate, expired_key, _ = ca.issue("expired", valid_from=-10, valid_days=5)
        with open(expired_certificate, "rb") as source, open(certificate, "wb") as target:
            target.write(source.read())
        with open(expired_key, "rb") as source, open(key, "wb") as target:
            target.write(source.read())
        time.sleep(2.5)
        assert served_serial(server.port, ca) == first
        # A valid one is put in force for new connections.
        _, _, second = ca.issue("reloaded")
        deadline = time.time() + 10
        while served_serial(server.port, ca) != second and time.time() < deadline:
            time.sleep(0.2)
        assert served_serial(server.port, ca) == second
        assert requests.get(f"https://localhost:{server.port}/healthz", verify=ca.path, timeout=10).status_code == 200
    finally:
        server.stop()
        server.remove_data()


def test_the_redirect_port_sends_plain_http_to_https(ca):
    certificate, key, _ = ca.issue("redirected")
    redirect_port = free_port()
    server = HearthProcess(extra_args=["--tls-cert", certificate, "--tls-key", key,
                                       "--http-redirect-port", str(redirect_port)]).start()
    try:
        requests.put(f"https://localhost:{server.port}/moved.json", json="here", verify=ca.path, timeout=10)
        answer = requests.post(f"http://localhost:{redirect_port}/moved.json?print=pretty", data="{}",
                               allow_redirects=False, timeout=10)
        assert answer.status_code == 308
        assert answer.headers["Location"] == f"https://localhost:{server.port}/moved.json?print=pretty"
        followed = requests.get(f"http://localhost:{redirect_port}/moved.json", verify=ca.path, timeout=10)
        assert followed.json() == "here" and followed.url.startswith("https://")
        with socket.create_connection(("127.0.0.1", redirect_port), timeout=10) as raw:
            raw.sendall(b"GET / HTTP/1.1\r\nHost: evil.example/x@y\r\nConnection: close\r\n\r\n")
            assert raw.recv(100).startswith(b"HTTP/1.1 400")
    finally:
        server.stop()
        server.remove_data()
    status, output = HearthProcess(extra_args=["--http-redirect-port", str(redirect_port)]).startup_failure()
    assert status != 0 and "--http-redirect-port needs --tls-cert" in output, output


def test_a_client_that_never_finishes_its_handshake_is_closed(ca):
    certificate, key, _ = ca.issue("silent")
    server = HearthProcess(extra_args=["--tls-cert", certificate, "--tls-key", key, "--http-idle-timeout", "1"]).start()
    try:
        with socket.create_connection(("127.0.0.1", server.port), timeout=10) as silent:
            started = time.monotonic()
            assert silent.recv(100) == b""
            assert time.monotonic() - started < 5
    finally:
        server.stop()
        server.remove_data()


def test_unusable_certificates_are_refused_at_start(ca):
    expired, expired_key, _ = ca.issue("old", valid_from=-10, valid_days=5)
    status, output = HearthProcess(extra_args=["--tls-cert", expired, "--tls-key", expired_key]).startup_failure()
    assert status != 0 and f"the certificate {expired} expired" in output, output
    certificate, _, _ = ca.issue("one")
    _, other_key, _ = ca.issue("two")
    status, output = HearthProcess(extra_args=["--tls-cert", certificate, "--tls-key", other_key]).startup_failure()
    assert status != 0 and "is not the key of the certificate" in output, output
    status, output = HearthProcess(extra_args=["--tls-cert", certificate]).startup_failure()
    assert status != 0 and "--tls-cert and --tls-key go together" in output, output
