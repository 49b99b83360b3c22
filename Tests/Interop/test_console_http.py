"""The console's origin at the HTTP level: its page and headers, where it refuses to serve, and
the CSRF token every change must carry (`docs/console.md`)."""

import gzip
import subprocess

import pytest
import requests

from conftest import HEARTH_BIN, HearthProcess

TIMEOUT = 30


def session(server, cookies=None):
    return requests.get(f"{server.console_url}/console/session", cookies=cookies, timeout=TIMEOUT).json()


def test_every_deep_link_answers_the_page_with_a_strict_policy(console_hearth):
    for path in ["/", "/database/some-ns/data/a/b", "/auth/users", "/auth/users/some-uid"]:
        response = requests.get(console_hearth.console_url + path, timeout=TIMEOUT)
        assert response.status_code == 200, path
        assert response.headers["Content-Type"] == "text/html; charset=utf-8"
        assert '<script type="module" src="/assets/app.js">' in response.text
        policy = response.headers["Content-Security-Policy"]
        assert "script-src 'self'" in policy and "default-src 'none'" in policy and "frame-ancestors 'none'" in policy
        assert "unsafe-inline" not in policy
        assert response.headers["X-Frame-Options"] == "DENY"
        assert response.headers["X-Content-Type-Options"] == "nosniff"


def test_assets_are_compressed_and_revalidated_by_etag(console_hearth):
    url = f"{console_hearth.console_url}/assets/data-view.js"
    raw = requests.get(url, headers={"Accept-Encoding": "identity"}, timeout=TIMEOUT)
    assert raw.status_code == 200 and raw.headers["Content-Type"] == "text/javascript; charset=utf-8"
    assert "Content-Encoding" not in raw.headers
    compressed = requests.get(url, headers={"Accept-Encoding": "gzip"}, stream=True, timeout=TIMEOUT)
    assert compressed.headers["Content-Encoding"] == "gzip"
    body = compressed.raw.read()
    assert len(body) < len(raw.content) and gzip.decompress(body) == raw.content
    assert raw.headers["Cache-Control"] == "no-cache"
    again = requests.get(url, headers={"If-None-Match": raw.headers["ETag"]}, timeout=TIMEOUT)
    assert again.status_code == 304 and again.content == b""
    assert requests.get(f"{console_hearth.console_url}/assets/missing.js", timeout=TIMEOUT).status_code == 404


def test_a_loopback_console_refuses_other_host_names(console_hearth):
    """A page on another site that rebinds its name to 127.0.0.1 reaches the port, not the console."""
    response = requests.get(f"{console_hearth.console_url}/console/session", headers={"Host": "attacker.example"},
                            timeout=TIMEOUT)
    assert response.status_code == 403 and response.json() == {"error": "HOST_NOT_ALLOWED"}
    assert requests.get(f"http://localhost:{console_hearth.console_port}/console/session", timeout=TIMEOUT).ok


def test_a_change_without_the_csrf_token_is_refused_and_changes_nothing(console_hearth):
    url = f"{console_hearth.console_url}/console/api/console-csrf/value.json"
    refused = requests.put(url, json="forged", timeout=TIMEOUT)
    assert refused.status_code == 403 and refused.json() == {"error": "CSRF_TOKEN_MISMATCH"}
    wrong = requests.put(url, json="forged", headers={"X-Hearth-CSRF": "not-the-token"}, timeout=TIMEOUT)
    assert wrong.status_code == 403
    assert requests.get(f"{console_hearth.url}/console-csrf/value.json", timeout=TIMEOUT).json() is None
    token = session(console_hearth)["csrfToken"]
    accepted = requests.put(url, json="real", headers={"X-Hearth-CSRF": token}, timeout=TIMEOUT)
    assert accepted.status_code == 200
    assert requests.get(f"{console_hearth.url}/console-csrf/value.json", timeout=TIMEOUT).json() == "real"


def test_product_answers_come_back_inert_on_the_console_origin(console_hearth):
    """The console forwards to the products with the administrator's credential (the page holds
    none); whatever a product answers cannot run on the console's origin."""
    requests.put(f"{console_hearth.url}/console-read/x.json", json=1, headers={"Authorization": "Bearer owner"},
                 timeout=TIMEOUT)
    url = f"{console_hearth.console_url}/console/api/console-read.json?shallow=true"
    answer = requests.get(url, headers={"X-Hearth-CSRF": session(console_hearth)["csrfToken"]}, timeout=TIMEOUT)
    assert answer.json() == {"x": 1}
    # Reads need the token too: a link or an image elsewhere cannot make the console act.
    assert requests.get(url, timeout=TIMEOUT).status_code == 403
    assert answer.headers["Content-Security-Policy"] == "default-src 'none'; sandbox"


def test_object_bodies_are_never_served_on_the_console_origin(console_hearth):
    response = requests.get(
        f"{console_hearth.console_url}/console/api/v0/b/interop-project.appspot.com/o/page.html?alt=media",
        headers={"X-Hearth-CSRF": session(console_hearth)["csrfToken"]}, timeout=TIMEOUT)
    assert response.status_code == 403 and response.json() == {"error": "OBJECT_BODIES_NOT_SERVED"}


def test_the_console_needs_a_port_of_its_own():
    for clash in (["--port", "4100", "--console-port", "4100"], ["--port", "4101", "--storage-port", "4102", "--console-port", "4102"]):
        result = subprocess.run([HEARTH_BIN, "serve", *clash], capture_output=True, text=True, timeout=60)
        assert result.returncode != 0
        assert "the console needs a port of its own" in result.stderr


def test_no_console_serves_nothing_on_the_console_port():
    server = HearthProcess().start()
    try:
        assert not any("Console listening" in line for line in server.output)
    finally:
        server.stop()
        server.remove_data()
