"""Certificates over ACME (issue "Operations I"): `hearth serve --https NAME`.

Let's Encrypt's test server, Pebble, runs beside Hearth with its mock DNS (every name is
127.0.0.1) and validates Hearth's answers for real: TLS-ALPN-01 on the main port, HTTP-01 on the
redirect port.

- A certificate is obtained, served to clients that trust Pebble's root, and kept in the data
  directory: a restart serves it again without a new order.
- A certificate is renewed once two thirds of its lifetime have passed, without a restart.
- Until a certificate is obtained (the ACME server unreachable), handshakes are refused and the
  server keeps serving nothing else; clients asking for another name are refused."""

import json
import os
import shutil
import socket
import ssl
import subprocess
import tempfile
import time

import pytest
import requests
from cryptography import x509

from conftest import HearthProcess, free_port
from tls_support import CertificateAuthority

NAME = "hearth.test"


@pytest.fixture(scope="module")
def ca():
    """The CA of Pebble's own HTTPS (its directory), which Hearth is told to trust."""
    return CertificateAuthority(tempfile.mkdtemp(prefix="hearth-acme-"))


class Pebble:
    """Pebble and its mock DNS, validating on the given ports of 127.0.0.1."""

    def __init__(self, ca, http_port, tls_port, validity_seconds=None):
        self.folder = tempfile.mkdtemp(prefix="hearth-pebble-")
        self.port, self.management_port, dns_port = free_port(), free_port(), free_port()
        certificate, key, _ = ca.issue("pebble")
        config = {"pebble": {
            "listenAddress": f"127.0.0.1:{self.port}", "managementListenAddress": f"127.0.0.1:{self.management_port}",
            "certificate": certificate, "privateKey": key, "httpPort": http_port, "tlsPort": tls_port,
            "ocspResponderURL": "", "externalAccountBindingRequired": False}}
        if validity_seconds:
            config["pebble"]["certificateValidityPeriod"] = validity_seconds
        config_path = os.path.join(self.folder, "pebble.json")
        with open(config_path, "w") as file:
            json.dump(config, file)
        self.ca = ca
        self.dns = subprocess.Popen(
            ["pebble-challtestsrv", "-dns01", f"127.0.0.1:{dns_port}", "-defaultIPv4", "127.0.0.1", "-defaultIPv6", "",
             "-http01", "", "-https01", "", "-tlsalpn01", "", "-management", f"127.0.0.1:{free_port()}"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        # Validations at once; a nonce in twenty refused, as by default, so that retries are tested.
        self.process = subprocess.Popen(
            ["pebble", "-config", config_path, "-dnsserver", f"127.0.0.1:{dns_port}"],
            env={**os.environ, "PEBBLE_VA_NOSLEEP": "1"}, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        deadline = time.time() + 30
        while True:
            try:
                self.root_path = os.path.join(self.folder, "root.pem")
                root = requests.get(f"https://127.0.0.1:{self.management_port}/roots/0", verify=ca.path, timeout=5)
                root.raise_for_status()
                with open(self.root_path, "w") as file:
                    file.write(root.text)
                break
            except requests.exceptions.ConnectionError:
                if time.time() > deadline or self.process.poll() is not None:
                    raise
                time.sleep(0.2)

    @property
    def directory(self):
        return f"https://localhost:{self.port}/dir"

    def hearth_args(self):
        return ["--https", NAME, "--acme-directory", self.directory, "--acme-ca-roots", self.ca.path]

    def stop(self):
        for process in (self.process, self.dns):
            process.terminate()
            process.wait(timeout=10)
        shutil.rmtree(self.folder, ignore_errors=True)


def served_certificate(port, root_path, name=NAME):
    """The leaf certificate the port serves to a client that trusts `root_path` and asks for `name`."""
    context = ssl.create_default_context(cafile=root_path)
    with socket.create_connection(("127.0.0.1", port), timeout=10) as raw:
        with context.wrap_socket(raw, server_hostname=name) as tls:
            return x509.load_der_x509_certificate(tls.getpeercert(binary_form=True))


def await_certificate(port, root_path, differing_from=None, timeout=60):
    """Waits until the port serves a certificate from Pebble (other than `differing_from`'s serial)."""
    deadline = time.time() + timeout
    while True:
        try:
            certificate = served_certificate(port, root_path)
            if certificate.serial_number != differing_from:
                return certificate
        except (ssl.SSLError, ConnectionError, OSError):
            pass
        assert time.time() < deadline, "no certificate from the ACME server served in time"
        time.sleep(0.3)


def https_get(port, root_path, path):
    """A GET over HTTPS to 127.0.0.1 for the ACME name: status and body."""
    context = ssl.create_default_context(cafile=root_path)
    with socket.create_connection(("127.0.0.1", port), timeout=10) as raw:
        with context.wrap_socket(raw, server_hostname=NAME) as tls:
            tls.sendall(f"GET {path} HTTP/1.1\r\nHost: {NAME}:{port}\r\nConnection: close\r\n\r\n".encode())
            answer = b""
            while chunk := tls.recv(65536):
                answer += chunk
    head, _, body = answer.partition(b"\r\n\r\n")
    return int(head.split()[1]), body


def test_a_certificate_is_obtained_over_tls_alpn_01_served_and_kept_across_restarts(ca):
    port = free_port()
    pebble = Pebble(ca, http_port=free_port(), tls_port=port)
    server = HearthProcess(port=port, extra_args=pebble.hearth_args())
    try:
        server.start()
        assert any(line.startswith("Hearth listening on https://") for line in server.output)
        certificate = await_certificate(port, pebble.root_path)
        names = certificate.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
        assert names.get_values_for_type(x509.DNSName) == [NAME]
        assert "Pebble" in certificate.issuer.rfc4514_string()
        status, body = https_get(port, pebble.root_path, "/healthz")
        assert status == 200, body
        # Kept in the data directory, owner-only: a restart serves it again at once.
        folder = os.path.join(server.data_dir, "tls")
        for kept in ("certificate.pem", "acme-account-key.pem"):
            assert os.stat(os.path.join(folder, kept)).st_mode & 0o077 == 0, kept
        server.stop()
        server.start()
        assert served_certificate(port, pebble.root_path).serial_number == certificate.serial_number
        # An account key that cannot be read stops no one: the kept certificate serves on.
        server.stop()
        with open(os.path.join(folder, "acme-account-key.pem"), "w") as file:
            file.write("not a key")
        server.start()
        assert served_certificate(port, pebble.root_path).serial_number == certificate.serial_number
        time.sleep(1)
        assert server.process.poll() is None
        with open(os.path.join(folder, "acme-account-key.pem")) as file:
            assert file.read() == "not a key", "the unreadable key was replaced"
    finally:
        server.stop()
        server.remove_data()
        pebble.stop()


def test_http_01_is_answered_on_the_redirect_port_which_still_redirects(ca):
    port, redirect_port = free_port(), free_port()
    pebble = Pebble(ca, http_port=redirect_port, tls_port=free_port())
    server = HearthProcess(port=port, extra_args=[*pebble.hearth_args(), "--http-redirect-port", str(redirect_port)])
    try:
        server.start()
        certificate = await_certificate(port, pebble.root_path)
        assert "Pebble" in certificate.issuer.rfc4514_string()
        moved = requests.get(f"http://127.0.0.1:{redirect_port}/.well-known/acme-challenge/unknown", allow_redirects=False,
                             timeout=10)
        assert moved.status_code == 308
        assert moved.headers["Location"] == f"https://127.0.0.1:{port}/.well-known/acme-challenge/unknown"
    finally:
        server.stop()
        server.remove_data()
        pebble.stop()


def test_the_certificate_is_renewed_before_expiry_without_a_restart(ca):
    port = free_port()
    # Certificates of 15 seconds: renewed after 10.
    pebble = Pebble(ca, http_port=free_port(), tls_port=port, validity_seconds=15)
    server = HearthProcess(port=port, extra_args=pebble.hearth_args())
    try:
        server.start()
        first = await_certificate(port, pebble.root_path)
        renewed = await_certificate(port, pebble.root_path, differing_from=first.serial_number, timeout=30)
        assert renewed.not_valid_before_utc >= first.not_valid_before_utc
        assert renewed.not_valid_after_utc > first.not_valid_after_utc
        assert time.time() < first.not_valid_after_utc.timestamp(), "renewed only after the first had expired"
        assert server.process.poll() is None
        status, _ = https_get(port, pebble.root_path, "/healthz")
        assert status == 200
    finally:
        server.stop()
        server.remove_data()
        pebble.stop()


def test_without_a_certificate_handshakes_are_refused_and_other_names_never_trusted(ca):
    port = free_port()
    pebble = Pebble(ca, http_port=free_port(), tls_port=port)
    # An ACME server that cannot be reached: the port serves, but no handshake succeeds.
    unreachable = HearthProcess(
        port=port, extra_args=["--https", NAME, "--acme-directory", f"https://localhost:{free_port()}/dir"])
    try:
        unreachable.start()
        for _ in range(3):
            with pytest.raises((ssl.SSLError, ConnectionError)):
                served_certificate(port, pebble.root_path)
        assert unreachable.process.poll() is None
        unreachable.stop()
        # With the certificate obtained, a client asking for another name refuses it.
        server = HearthProcess(port=port, data_dir=unreachable.data_dir, extra_args=pebble.hearth_args())
        server.start()
        await_certificate(port, pebble.root_path)
        with pytest.raises(ssl.SSLCertVerificationError):
            served_certificate(port, pebble.root_path, name="other.test")
        server.stop()
        # A kept certificate for other names is not served when the names change.
        renamed = HearthProcess(
            port=port, data_dir=unreachable.data_dir,
            extra_args=["--https", "other.test", "--acme-directory", f"https://localhost:{free_port()}/dir"])
        renamed.start()
        try:
            with pytest.raises((ssl.SSLError, ConnectionError)):
                served_certificate(port, pebble.root_path, name="other.test")
        finally:
            renamed.stop()
    finally:
        unreachable.stop()
        unreachable.remove_data()
        pebble.stop()


def test_settings_that_cannot_work_are_refused_at_start():
    refusals = [
        (["--https", "localhost"], "--https localhost"),
        (["--https", "*.hearth.test"], "--https *.hearth.test"),
        (["--https", "10.0.0.1"], "--https 10.0.0.1"),
        (["--https", NAME, "--https", NAME.upper()], "names a name twice"),
        (["--https", NAME, "--acme-challenge", "http-01"], "--acme-challenge http-01 needs --http-redirect-port"),
        (["--https", NAME, "--tls-cert", "c.pem", "--tls-key", "k.pem"], "exclude each other"),
        (["--https", NAME, "--acme-directory", "http://ca.test/dir"], "--acme-directory must be an https:// URL"),
        (["--https", NAME, "--acme-email", "not an address"], "is not an email address"),
        (["--https", NAME, "--acme-ca-roots", "/nonexistent/roots.pem"], "cannot be read"),
        (["--acme-email", "ops@hearth.test"], "--acme-email needs --https"),
    ]
    for flags, message in refusals:
        server = HearthProcess(extra_args=flags)
        status, output = server.startup_failure()
        server.remove_data()
        assert status != 0 and message in output, (flags, output)
