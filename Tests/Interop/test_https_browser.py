"""A browser over HTTPS (issue "Operations I"): a headless Chromium that trusts the test server's
certificate (by its public key, as an enterprise policy would pin it) connects to Hearth's
`https://` port from a page of another origin: long-polling over HTTP/2 and a realtime WebSocket
over `wss://`, as Firebase's browser client uses them."""

import base64
import hashlib
import json
import tempfile

import pytest
import requests
from cryptography import x509
from cryptography.hazmat.primitives import serialization

from browser import load_long_poll_page, pages_url, start_chromium  # noqa: F401 (fixture)
from conftest import HearthProcess
from realtime_client import unique_namespace
from tls_support import CertificateAuthority


@pytest.fixture(scope="module")
def tls(tmp_path_factory):
    ca = CertificateAuthority(tempfile.mkdtemp(prefix="hearth-tls-browser-"))
    certificate, key, _ = ca.issue("server")
    server = HearthProcess(extra_args=["--tls-cert", certificate, "--tls-key", key]).start()
    with open(certificate, "rb") as file:
        leaf = x509.load_pem_x509_certificate(file.read())
    public_key = leaf.public_key().public_bytes(serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo)
    pin = base64.b64encode(hashlib.sha256(public_key).digest()).decode()
    driver = start_chromium(log_network=True, arguments=[
        f"--ignore-certificate-errors-spki-list={pin}", f"--user-data-dir={tempfile.mkdtemp(prefix='hearth-chromium-')}"])
    yield server, ca, driver
    driver.quit()
    server.stop()
    server.remove_data()


def test_long_polling_runs_over_http2_from_a_page(tls, pages_url):
    server, ca, driver = tls
    page = load_long_poll_page(driver, pages_url)
    namespace = unique_namespace()
    base = f"https://localhost:{server.port}"
    page.open("secure", base, namespace)
    page.wait_for(lambda: page.state("secure")["connected"], "the handshake over https")
    page.send("secure", {"t": "d", "d": {"r": 1, "a": "p", "b": {"p": "/secure/item", "d": {"over": "h2"}}}})

    def answered():
        return [message for message in page.messages("secure")
                if message.get("t") == "d" and message["d"].get("r") == 1]
    assert page.wait_for(answered, "the write's answer")[0]["d"]["b"] == {"s": "ok", "d": ""}
    assert requests.get(f"{base}/secure/item.json", params={"ns": namespace}, verify=ca.path, timeout=10).json() == {
        "over": "h2"}
    # Every answer from Hearth came over HTTP/2 (the browser's own record of its requests).
    protocols = set()
    for entry in driver.get_log("performance"):
        event = json.loads(entry["message"])["message"]
        if event["method"] == "Network.responseReceived" and event["params"]["response"]["url"].startswith(base):
            protocols.add(event["params"]["response"]["protocol"])
    assert protocols == {"h2"}, protocols
    assert page.errors() == []


def test_a_websocket_connects_over_wss_from_a_page(tls, pages_url):
    server, _, driver = tls
    load_long_poll_page(driver, pages_url)
    namespace = unique_namespace()
    first = driver.execute_async_script(
        """
        const done = arguments[arguments.length - 1];
        const socket = new WebSocket(arguments[0]);
        socket.onmessage = (event) => { socket.close(); done(JSON.parse(event.data)); };
        socket.onerror = () => done("error");
        """, f"wss://localhost:{server.port}/.ws?v=5&ns={namespace}")
    assert first != "error"
    assert first["t"] == "c" and first["d"]["t"] == "h", first
