"""The console of a production server: administrators made with `hearth admin:create`, sign-in
with an HttpOnly, SameSite=Strict session cookie, CSRF tokens, and limited attempts."""

import subprocess

import pytest
import requests

from conftest import HEARTH_BIN, HearthProcess

TIMEOUT = 30
EMAIL = "Admin@Example.com"
PASSWORD = "correct horse battery"


def admin_create(data_dir, email, password):
    return subprocess.run([HEARTH_BIN, "admin:create", email, "--data-dir", data_dir], input=password + "\n",
                          capture_output=True, text=True, timeout=60)


@pytest.fixture(scope="module")
def production():
    server = HearthProcess(console=True, extra_args=["--production"])
    created = admin_create(server.data_dir, EMAIL, PASSWORD)
    assert created.returncode == 0, created.stderr
    assert "created console administrator admin@example.com" in created.stdout
    server.start()
    yield server
    server.stop()
    server.remove_data()


def open_token(server):
    return requests.get(f"{server.console_url}/console/session", timeout=TIMEOUT).json()["csrfToken"]


def sign_in(server, email=EMAIL, password=PASSWORD, token=None):
    return requests.post(f"{server.console_url}/console/sign-in", json={"email": email, "password": password},
                         headers={"X-Hearth-CSRF": token or open_token(server)}, timeout=TIMEOUT)


def test_admin_create_refuses_weak_passwords_bad_emails_and_duplicates(production):
    weak = admin_create(production.data_dir, "other@example.com", "short")
    assert weak.returncode != 0 and "at least 10 characters" in weak.stderr
    bad = admin_create(production.data_dir, "not an email", PASSWORD)
    assert bad.returncode != 0 and "not an email address" in bad.stderr
    again = admin_create(production.data_dir, "admin@example.com", PASSWORD)
    assert again.returncode != 0 and "exists" in again.stderr


def test_signed_out_visitors_get_the_sign_in_state_and_no_data(production):
    state = requests.get(f"{production.console_url}/console/session", timeout=TIMEOUT).json()
    assert state["mode"] == "production" and state["signInRequired"] is True and state["signedIn"] is False
    assert "email" not in state
    for method in ("GET", "PUT"):
        response = requests.request(method, f"{production.console_url}/console/api/.json", json=1,
                                    headers={"X-Hearth-CSRF": state["csrfToken"]}, timeout=TIMEOUT)
        assert response.status_code == 401 and response.json() == {"error": "SIGN_IN_REQUIRED"}
    for path in ("changes", "requests", "traffic", "auth/templates", "auth/email-previews/x"):
        assert requests.get(f"{production.console_url}/console/{path}", timeout=TIMEOUT).status_code == 401


def test_sign_in_sets_a_strict_http_only_cookie_and_the_session_acts_as_admin(production):
    response = sign_in(production)
    assert response.status_code == 200, response.text
    cookie = response.headers["Set-Cookie"]
    assert cookie.startswith("hearth_console=") and "HttpOnly" in cookie and "SameSite=Strict" in cookie
    assert "Path=/" in cookie
    session_token = response.json()["csrfToken"]
    cookies = response.cookies
    state = requests.get(f"{production.console_url}/console/session", cookies=cookies, timeout=TIMEOUT).json()
    assert state["signedIn"] is True and state["email"] == "admin@example.com" and state["csrfToken"] == session_token
    # Production rules refuse signed-out clients; the administrator's session reads and writes.
    url = f"{production.console_url}/console/api/console-prod/value.json"
    assert requests.get(f"{production.url}/console-prod/value.json", timeout=TIMEOUT).status_code == 401
    forged = requests.put(url, json="x", cookies=cookies, timeout=TIMEOUT)
    assert forged.status_code == 403 and forged.json() == {"error": "CSRF_TOKEN_MISMATCH"}
    stale = requests.put(url, json="x", cookies=cookies, headers={"X-Hearth-CSRF": open_token(production)},
                         timeout=TIMEOUT)
    assert stale.status_code == 403
    written = requests.put(url, json="from the console", cookies=cookies, headers={"X-Hearth-CSRF": session_token},
                           timeout=TIMEOUT)
    assert written.status_code == 200, written.text
    assert requests.get(url, cookies=cookies, headers={"X-Hearth-CSRF": session_token}, timeout=TIMEOUT).json() \
        == "from the console"
    # Authentication's admin API answers the session too.
    query = requests.post(
        f"{production.console_url}/console/api/identitytoolkit.googleapis.com/v1/projects/interop-project/accounts:query",
        json={"returnUserInfo": False}, cookies=cookies, headers={"X-Hearth-CSRF": session_token}, timeout=TIMEOUT)
    assert query.status_code == 200 and query.json() == {"recordsCount": "0"}
    # Signing out ends the session at once.
    signed_out = requests.post(f"{production.console_url}/console/sign-out", cookies=cookies,
                               headers={"X-Hearth-CSRF": session_token}, timeout=TIMEOUT)
    assert signed_out.status_code == 200 and "Max-Age=0" in signed_out.headers["Set-Cookie"]
    assert requests.get(url, cookies=cookies, headers={"X-Hearth-CSRF": session_token}, timeout=TIMEOUT).status_code \
        == 401


def test_sign_in_needs_the_csrf_token_and_the_right_password(production):
    no_token = requests.post(f"{production.console_url}/console/sign-in", json={"email": EMAIL, "password": PASSWORD},
                             timeout=TIMEOUT)
    assert no_token.status_code == 403 and "Set-Cookie" not in no_token.headers
    wrong = sign_in(production, email="nobody@example.com", password="wrong password")
    assert wrong.status_code == 400 and wrong.json() == {"error": "INVALID_LOGIN_CREDENTIALS"}
    assert "Set-Cookie" not in wrong.headers
    malformed = requests.post(f"{production.console_url}/console/sign-in", data="{",
                              headers={"X-Hearth-CSRF": open_token(production)}, timeout=TIMEOUT)
    assert malformed.status_code == 400 and malformed.json() == {"error": "INVALID_ARGUMENT"}


def test_failed_sign_ins_are_limited_even_for_the_right_password():
    server = HearthProcess(console=True, extra_args=["--production"])
    assert admin_create(server.data_dir, "limited@example.com", PASSWORD).returncode == 0
    server.start()
    try:
        for _ in range(5):
            assert sign_in(server, email="limited@example.com", password="wrong password").status_code == 400
        limited = sign_in(server, email="limited@example.com")
        assert limited.status_code == 429 and limited.json() == {"error": "TOO_MANY_ATTEMPTS_TRY_LATER"}
        assert 0 < int(limited.headers["Retry-After"]) <= 900
        assert "Set-Cookie" not in limited.headers
    finally:
        server.stop()
        server.remove_data()


def test_an_app_users_id_token_is_no_console_credential(production):
    """Only a console session opens the console: a user's Bearer token is not read by it."""
    response = requests.get(f"{production.console_url}/console/api/.json",
                            headers={"Authorization": "Bearer owner"}, timeout=TIMEOUT)
    assert response.status_code == 401


def test_metrics_need_an_admin_credential_in_production(production):
    """The figures tell an outsider how busy the server is: the console's session reads them,
    a signed-out client and the development-only `owner` do not."""
    for headers in ({}, {"Authorization": "Bearer owner"}):
        refused = requests.get(f"{production.url}/metrics", headers=headers, timeout=TIMEOUT)
        assert refused.status_code == 401 and refused.headers["WWW-Authenticate"] == "Bearer"
        assert refused.json() == {"error": "Permission denied: /metrics needs an admin credential."}
    signed_in = sign_in(production)
    token = signed_in.json()["csrfToken"]
    figures = requests.get(f"{production.console_url}/console/api/metrics", cookies=signed_in.cookies,
                           headers={"X-Hearth-CSRF": token}, timeout=TIMEOUT)
    assert figures.status_code == 200 and "hearth_database_writes_total" in figures.text
