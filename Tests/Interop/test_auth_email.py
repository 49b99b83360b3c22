"""Authentication's action emails sent by SMTP (`hearth serve --smtp-url smtp://user:password@host:port`) to an
aiosmtpd server started here: the sender (`noreply@` the host of the link, `[127.0.0.1]` here), the recipient, the
subject and the body of each kind of message, the link and code in it, templates read from `auth-emails/` in the
server's working directory, a refused delivery (503, and no code is kept), and in production mode the links to
`/__/auth/action`, the page served there and the REST calls its script makes."""

import html
import re
import time
import urllib.parse

import pytest
import requests

from auth_client import admin, api, error_message, lookup_by_token, ok, oob_codes, sign_in, sign_up, unique_email
from conftest import PROJECT, HearthProcess
from mail_support import mailbox, smtp_url  # noqa: F401 (fixture)

KEY = "test-api-key"
SENDER = "noreply@[127.0.0.1]"
PLACEHOLDER = re.compile(r"%[A-Z_]+%")

RESET_TEMPLATE = """Subject: Passwort zurücksetzen für %APP_NAME%

Hallo %DISPLAY_NAME%,
hier ist der Link für %EMAIL%:
%LINK%
"""
RESET_HTML_TEMPLATE = '<p>Hallo %DISPLAY_NAME%,</p><p><a href="%LINK%">Passwort für %EMAIL% zurücksetzen</a></p>\n'


@pytest.fixture(scope="module")
def server(mailbox, tmp_path_factory):
    """Development mode, with a password-reset template in `auth-emails/` of its working directory."""
    workdir = tmp_path_factory.mktemp("hearth-email")
    (workdir / "auth-emails").mkdir()
    (workdir / "auth-emails" / "resetPassword.txt").write_text(RESET_TEMPLATE, encoding="utf-8")
    (workdir / "auth-emails" / "resetPassword.html").write_text(RESET_HTML_TEMPLATE, encoding="utf-8")
    hearth = HearthProcess(cwd=str(workdir), extra_args=["--smtp-url", smtp_url(mailbox)]).start()
    yield hearth
    hearth.stop()
    hearth.remove_data()


@pytest.fixture(scope="module")
def production(mailbox):
    hearth = HearthProcess(extra_args=["--production", "--api-key", KEY, "--smtp-url", smtp_url(mailbox),
                                       "--authorized-domain", "app.example.com"]).start()
    yield hearth
    hearth.stop()
    hearth.remove_data()


@pytest.fixture(scope="module")
def refused(mailbox):
    """A server whose SMTP password is wrong, so that every delivery is refused."""
    hearth = HearthProcess(extra_args=["--smtp-url", smtp_url(mailbox, password="wrong")]).start()
    yield hearth
    hearth.stop()
    hearth.remove_data()


def only_code(hearth, address, request_type):
    codes = oob_codes(hearth, address, request_type)
    assert len(codes) == 1, codes
    return codes[0]


def assert_envelope(delivered, recipient):
    assert delivered.mail_from == SENDER
    assert delivered.rcpt_tos == [recipient]
    assert delivered.authenticated
    assert delivered.message["From"].addresses[0].addr_spec == SENDER
    assert delivered.message["To"].addresses[0].addr_spec == recipient
    assert delivered.message["Message-ID"]
    assert delivered.message["Date"].datetime is not None


def assert_default_text(delivered, link):
    """A built-in text: the app name in the subject, the link alone on its line, every placeholder replaced."""
    assert PROJECT in delivered.message["Subject"]
    assert delivered.message.get_content_type() == "text/plain"
    assert link in delivered.text.splitlines()
    assert not PLACEHOLDER.search(delivered.text) and not PLACEHOLDER.search(delivered.message["Subject"])
    assert " ," not in delivered.text  # an empty display name leaves no stray space


def query_of(link):
    return dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(link).query))


# Development mode: every kind of action email.

def test_password_reset_email_uses_the_template_files(server, mailbox):
    address = unique_email("reset")
    sign_up(server, address, displayName='Zoë <Admin> & "Co"')
    body = ok(api(server, "sendOobCode", {"requestType": "PASSWORD_RESET", "email": address}))
    assert body["email"] == address
    code = only_code(server, address, "PASSWORD_RESET")
    delivered = mailbox.message_to(address)
    assert_envelope(delivered, address)
    assert delivered.message["Subject"] == f"Passwort zurücksetzen für {PROJECT}"
    assert delivered.message.get_content_type() == "multipart/alternative"
    assert delivered.text.replace("\r\n", "\n") == (
        f'Hallo Zoë <Admin> & "Co",\nhier ist der Link für {address}:\n{code["oobLink"]}\n')
    assert f'<a href="{html.escape(code["oobLink"])}">' in delivered.html
    assert "<p>Hallo Zoë &lt;Admin&gt; &amp; &quot;Co&quot;,</p>" in delivered.html
    assert f"/emulator/action?mode=resetPassword&lang=en&oobCode={code['oobCode']}&" in code["oobLink"]


def test_verification_email(server, mailbox):
    address = unique_email("verify")
    token = sign_up(server, address)["idToken"]
    ok(api(server, "sendOobCode", {"requestType": "VERIFY_EMAIL", "idToken": token}))
    code = only_code(server, address, "VERIFY_EMAIL")
    delivered = mailbox.message_to(address)
    assert_envelope(delivered, address)
    assert_default_text(delivered, code["oobLink"])
    assert address in delivered.text
    assert query_of(delivered.link())["mode"] == "verifyEmail"
    assert query_of(delivered.link())["oobCode"] == code["oobCode"]


def test_sign_in_link_email(server, mailbox):
    address = unique_email("link")
    continue_url = "https://app.example.com/finish?a=1&b=2"
    ok(api(server, "sendOobCode", {"requestType": "EMAIL_SIGNIN", "email": address, "continueUrl": continue_url,
                                   "canHandleCodeInApp": True}))
    code = only_code(server, address, "EMAIL_SIGNIN")
    delivered = mailbox.message_to(address)
    assert_envelope(delivered, address)
    assert_default_text(delivered, code["oobLink"])
    query = query_of(delivered.link())
    assert query["mode"] == "signIn" and query["oobCode"] == code["oobCode"] and query["continueUrl"] == continue_url
    ok(api(server, "signInWithEmailLink", {"email": address, "oobCode": query["oobCode"]}))


def test_email_change_is_verified_at_the_new_address(server, mailbox):
    address, new_address = unique_email("old"), unique_email("new")
    token = sign_up(server, address)["idToken"]
    ok(api(server, "sendOobCode", {"requestType": "VERIFY_AND_CHANGE_EMAIL", "idToken": token,
                                   "newEmail": new_address}))
    code = only_code(server, address, "VERIFY_AND_CHANGE_EMAIL")
    assert code["newEmail"] == new_address
    delivered = mailbox.message_to(new_address)
    assert_envelope(delivered, new_address)
    assert_default_text(delivered, code["oobLink"])
    assert address in delivered.text and new_address in delivered.text
    assert query_of(delivered.link())["mode"] == "verifyAndChangeEmail"
    assert mailbox.messages_to(address) == []


def test_email_change_is_reported_to_the_old_address(server, mailbox):
    address, new_address = unique_email("before"), unique_email("after")
    token = sign_up(server, address)["idToken"]
    ok(api(server, "update", {"idToken": token, "email": new_address}))
    code = only_code(server, address, "RECOVER_EMAIL")
    delivered = mailbox.message_to(address)
    assert_envelope(delivered, address)
    assert_default_text(delivered, code["oobLink"])
    assert query_of(delivered.link())["mode"] == "recoverEmail"
    assert mailbox.messages_to(new_address) == []


def test_generated_links_are_not_sent(server, mailbox):
    address = unique_email("admin-link")
    sign_up(server, address)
    body = ok(admin(server, "/accounts:sendOobCode",
                    {"requestType": "PASSWORD_RESET", "email": address, "returnOobLink": True}))
    assert body["oobLink"]
    time.sleep(0.5)
    assert mailbox.messages_to(address) == []


def test_unknown_address_gets_no_reset_email(server, mailbox):
    address = unique_email("nobody")
    response = api(server, "sendOobCode", {"requestType": "PASSWORD_RESET", "email": address})
    assert response.status_code == 400 and error_message(response) == "EMAIL_NOT_FOUND"
    assert mailbox.messages_to(address) == []


def test_refused_delivery_fails_the_request_and_keeps_no_code(refused, mailbox):
    address = unique_email("refused")
    sign_up(refused, address)
    response = api(refused, "sendOobCode", {"requestType": "PASSWORD_RESET", "email": address})
    assert response.status_code == 503, response.text
    assert response.json()["error"]["code"] == 503
    assert error_message(response) == "The email could not be sent."
    assert response.json()["error"]["status"] == "UNAVAILABLE"
    assert oob_codes(refused, address) == []
    assert mailbox.messages_to(address) == []


# Production mode: links to the action page, the page, and the calls its script makes.

def production_email(production, mailbox, address, request_type, **fields):
    """Sends an action email in production mode and returns the delivered message and its link's query."""
    ok(api(production, "sendOobCode", {"requestType": request_type, **fields}, key=KEY))
    delivered = mailbox.message_to(address)
    assert_envelope(delivered, address)
    link = delivered.link()
    parts = urllib.parse.urlsplit(link)
    assert f"{parts.scheme}://{parts.netloc}" == production.url and parts.path == "/__/auth/action"
    query = query_of(link)
    assert query["apiKey"] == KEY and query["lang"] == "en" and query["oobCode"]
    return delivered, query


def page_call(production, operation, body):
    """The request the page's script makes: same origin, the link's API key, a JSON body."""
    return requests.post(f"{production.url}/identitytoolkit.googleapis.com/v1/accounts:{operation}",
                         params={"key": KEY}, json=body, headers={"Content-Type": "application/json"}, timeout=60)


def test_action_page_is_served(production, mailbox):
    address = unique_email("page")
    sign_up(production, address, key=KEY)
    _, query = production_email(production, mailbox, address, "PASSWORD_RESET", email=address)
    assert query["mode"] == "resetPassword"
    response = requests.get(f"{production.url}/__/auth/action", params=query, timeout=60)
    assert response.status_code == 200
    assert response.headers["Content-Type"].startswith("text/html")
    page = response.text
    assert page.lstrip().lower().startswith("<!doctype html>")
    assert "accounts:" in page and query["oobCode"] in page and KEY in page
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", page), "the page loads nothing from elsewhere"
    assert "<link" not in page


def test_action_page_escapes_its_parameters(production):
    hostile = '"</script><script>alert(1)</script><img src=x onerror=alert(2)>'
    response = requests.get(f"{production.url}/__/auth/action", timeout=60, params={
        "mode": "resetPassword", "oobCode": hostile, "apiKey": KEY, "continueUrl": hostile})
    assert response.status_code == 200
    assert "<script>alert(1)" not in response.text and "<img src=x" not in response.text
    assert response.text.count("<script") == 1


def test_page_resets_a_password(production, mailbox):
    address = unique_email("page-reset")
    sign_up(production, address, key=KEY)
    continue_url = "https://app.example.com/signed-out"
    _, query = production_email(production, mailbox, address, "PASSWORD_RESET", email=address,
                                continueUrl=continue_url)
    assert query["mode"] == "resetPassword" and query["continueUrl"] == continue_url
    checked = ok(page_call(production, "resetPassword", {"oobCode": query["oobCode"]}))
    assert checked["requestType"] == "PASSWORD_RESET" and checked["email"] == address
    weak = page_call(production, "resetPassword", {"oobCode": query["oobCode"], "newPassword": "abc"})
    assert weak.status_code == 400 and error_message(weak).startswith("WEAK_PASSWORD")
    ok(page_call(production, "resetPassword", {"oobCode": query["oobCode"], "newPassword": "new-secret"}))
    sign_in(production, address, "new-secret", key=KEY)
    used = page_call(production, "resetPassword", {"oobCode": query["oobCode"], "newPassword": "newer-secret"})
    assert used.status_code == 400 and error_message(used) == "INVALID_OOB_CODE"


def test_page_verifies_an_email(production, mailbox):
    address = unique_email("page-verify")
    token = sign_up(production, address, key=KEY)["idToken"]
    _, query = production_email(production, mailbox, address, "VERIFY_EMAIL", idToken=token)
    assert query["mode"] == "verifyEmail"
    applied = ok(page_call(production, "update", {"oobCode": query["oobCode"]}))
    assert applied["email"] == address and applied["emailVerified"] is True
    assert lookup_by_token(production, token, key=KEY)["emailVerified"] is True
    again = page_call(production, "update", {"oobCode": query["oobCode"]})
    assert again.status_code == 400 and error_message(again) == "INVALID_OOB_CODE"


def test_page_changes_an_email(production, mailbox):
    address, new_address = unique_email("page-old"), unique_email("page-new")
    token = sign_up(production, address, key=KEY)["idToken"]
    _, query = production_email(production, mailbox, new_address, "VERIFY_AND_CHANGE_EMAIL", idToken=token,
                                newEmail=new_address)
    assert query["mode"] == "verifyAndChangeEmail"
    applied = ok(page_call(production, "update", {"oobCode": query["oobCode"]}))
    assert applied["email"] == new_address


def test_page_recovers_an_email_and_offers_a_reset(production, mailbox):
    address, new_address = unique_email("page-recover"), unique_email("page-taken")
    token = sign_up(production, address, key=KEY)["idToken"]
    ok(api(production, "update", {"idToken": token, "email": new_address}, key=KEY))
    delivered = mailbox.message_to(address)
    assert_envelope(delivered, address)
    query = query_of(delivered.link())
    assert query["mode"] == "recoverEmail" and query["apiKey"] == KEY
    checked = ok(page_call(production, "resetPassword", {"oobCode": query["oobCode"]}))
    assert checked["requestType"] == "RECOVER_EMAIL" and checked["email"] == address
    applied = ok(page_call(production, "update", {"oobCode": query["oobCode"]}))
    assert applied["email"] == address
    ok(page_call(production, "sendOobCode", {"requestType": "PASSWORD_RESET", "email": address}))
    reset = [item for item in mailbox.messages_to(address) if item is not delivered]
    assert len(reset) == 1 and query_of(reset[0].link())["mode"] == "resetPassword"


def test_sign_in_link_leads_through_the_page(production, mailbox):
    address = unique_email("page-link")
    continue_url = "https://app.example.com/finish?x=1"
    _, query = production_email(production, mailbox, address, "EMAIL_SIGNIN", email=address,
                                continueUrl=continue_url, canHandleCodeInApp=True)
    assert query["mode"] == "signIn" and query["continueUrl"] == continue_url
    page = requests.get(f"{production.url}/__/auth/action", params=query, timeout=60)
    assert page.status_code == 200 and "app.example.com" in page.text
    # The page sends the browser on to continueUrl with the link's parameters, where the app signs in.
    signed_in = ok(api(production, "signInWithEmailLink", {"email": address, "oobCode": query["oobCode"]}, key=KEY))
    assert signed_in["email"] == address
