"""The console's email templates view: a template edited and previewed in the browser, saved into
the template folder, and the next email delivered over SMTP written from it; the built-in text put
back; and the console's template API refusing bad input, changing nothing."""

import time

import pytest
import requests
from selenium.webdriver.common.by import By

from auth_client import api, ok, sign_up, unique_email
from browser import browser  # noqa: F401 (fixture)
from conftest import PROJECT, HearthProcess
from console_page import console  # noqa: F401 (fixture)
from mail_support import mailbox, smtp_url  # noqa: F401 (fixture)

TIMEOUT = 30
SUBJECT = "Welcome to %APP_NAME%, %DISPLAY_NAME%"
HTML = '<p style="color: #0b57d0">Hello <b>%DISPLAY_NAME%</b>, <a href="%LINK%">confirm %EMAIL%</a></p>'


@pytest.fixture(scope="module")
def workdir(tmp_path_factory):
    return tmp_path_factory.mktemp("hearth-templates")


@pytest.fixture(scope="module")
def console_hearth(mailbox, workdir):
    """A development server with its console, sending emails to the test's SMTP server and
    reading templates from `auth-emails/` of its working directory."""
    server = HearthProcess(console=True, cwd=str(workdir), extra_args=["--smtp-url", smtp_url(mailbox)]).start()
    yield server
    server.stop()
    server.remove_data()


def templates_api(hearth, method, path="", body=None, csrf=True):
    session = requests.get(f"{hearth.console_url}/console/session", timeout=TIMEOUT).json()
    headers = {"X-Hearth-CSRF": session["csrfToken"]} if csrf else {}
    return requests.request(method, f"{hearth.console_url}/console/auth/templates{path}", json=body, headers=headers,
                            timeout=TIMEOUT)


def verification_email(hearth, mailbox, name):
    address = unique_email(name)
    token = sign_up(hearth, address, displayName="Grace Hopper")["idToken"]
    ok(api(hearth, "sendOobCode", {"requestType": "VERIFY_EMAIL", "idToken": token}))
    return mailbox.message_to(address)


def fill(console, selector, text):
    field = console.wait_for_element(selector)
    field.clear()
    field.send_keys(text)


def test_a_template_edited_in_the_console_writes_the_next_email(console, console_hearth, mailbox, workdir):
    console.open("/auth/templates", "#template-subject")
    console.wait_for(lambda: console.driver.current_url.endswith("/auth/templates/verifyEmail"), "the first template")
    assert "Confirm your email address" in console.wait_for_element("#template-subject").get_attribute("value")
    assert "SMTP server" in console.wait_for_element("#templates-status").text

    fill(console, "#template-subject", SUBJECT)
    fill(console, "#template-html", HTML)
    console.click("#template-preview-button")
    console.wait_for_text("#preview-subject", f"Welcome to {PROJECT}, Ada Lovelace")
    assert "/emulator/action?mode=verifyEmail" in console.wait_for_element("#preview-text").text
    frame = console.wait_for_element("#preview-html")
    assert frame.get_attribute("sandbox") == ""
    console.driver.switch_to.frame(frame)
    try:
        console.wait_for_text("b", "Ada Lovelace")
        link = console.driver.find_element(By.CSS_SELECTOR, "a")
        assert link.text == "confirm ada@example.com"
        # The preview's own policy lets the email's inline style apply.
        assert link.find_element(By.XPATH, "..").value_of_css_property("color") == "rgba(11, 87, 208, 1)"
    finally:
        console.driver.switch_to.default_content()

    console.click("#template-save")
    console.wait_for_element("#template-reset")
    saved = (workdir / "auth-emails" / "verifyEmail.txt").read_text(encoding="utf-8")
    assert saved.startswith(f"Subject: {SUBJECT}\n\n")
    assert (workdir / "auth-emails" / "verifyEmail.html").read_text(encoding="utf-8") == HTML

    delivered = verification_email(console_hearth, mailbox, "templated")
    assert delivered.message["Subject"] == f"Welcome to {PROJECT}, Grace Hopper"
    assert "Hello <b>Grace Hopper</b>" in delivered.html

    console.click("#template-reset")
    console.click("#confirm-ok")
    console.wait_for(lambda: not console.driver.find_elements(By.CSS_SELECTOR, "#template-reset"), "the built-in text back")
    assert not (workdir / "auth-emails" / "verifyEmail.txt").exists()
    assert not (workdir / "auth-emails" / "verifyEmail.html").exists()
    delivered = verification_email(console_hearth, mailbox, "built-in")
    assert delivered.message["Subject"] == f"Confirm your email address for {PROJECT}"
    assert delivered.message.get_content_type() == "text/plain"


def test_an_invalid_template_is_refused_in_the_view(console, console_hearth, workdir):
    console.open("/auth/templates/resetPassword", "#template-subject")
    fill(console, "#template-text", " ")
    console.click("#template-save")
    console.wait_for_text("#template-problem", "the text body is empty")
    assert not (workdir / "auth-emails" / "resetPassword.txt").exists()


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_the_templates_view_has_no_serious_violations(console, console_hearth, theme):
    console.open("/auth/templates/resetPassword", "#template-subject")
    console.click("#template-preview-button")
    console.wait_for_element("#preview-subject")
    console.set_theme(theme)
    time.sleep(0.2)
    assert console.serious_violations() == [], theme
    console.screenshot(f"templates-{theme}")


def test_the_template_api_lists_every_kind(console_hearth):
    answer = templates_api(console_hearth, "GET")
    assert answer.status_code == 200, answer.text
    body = answer.json()
    assert body["sendsEmail"] is True
    assert [template["mode"] for template in body["templates"]] == [
        "verifyEmail", "resetPassword", "signIn", "verifyAndChangeEmail", "recoverEmail"]
    assert all("%LINK%" in template["text"] for template in body["templates"])


@pytest.mark.parametrize("draft, problem", [
    ({"subject": "two\nlines", "text": "x %LINK%"}, "the subject must be one line"),
    ({"subject": "   ", "text": "x %LINK%"}, "the subject is empty"),
    ({"subject": "Hi", "text": "\n"}, "the text body is empty"),
    ({"subject": "Hi", "text": "x" * 100_001}, "the text body is longer than 100000 bytes"),
])
def test_a_refused_template_writes_nothing(console_hearth, workdir, draft, problem):
    answer = templates_api(console_hearth, "PUT", "/signIn", draft)
    assert answer.status_code == 400
    assert problem in answer.json()["error"]
    assert not (workdir / "auth-emails" / "signIn.txt").exists()
    preview = templates_api(console_hearth, "POST", "/signIn/preview", draft)
    assert preview.status_code == 400 and problem in preview.json()["error"]


def test_malformed_unknown_and_forged_requests_are_refused(console_hearth, workdir):
    draft = {"subject": "Hi", "text": "x %LINK%"}
    assert templates_api(console_hearth, "PUT", "/signIn", draft, csrf=False).status_code == 403
    assert templates_api(console_hearth, "PUT", "/noSuchMode", draft).status_code == 404
    assert templates_api(console_hearth, "PUT", "/signIn", {"subject": 1, "text": "x"}).status_code == 400
    assert templates_api(console_hearth, "PUT", "/signIn", {"subject": "Hi", "text": "x", "html": 3}).status_code == 400
    assert templates_api(console_hearth, "POST", "/signIn", draft).status_code == 405
    assert not (workdir / "auth-emails" / "signIn.txt").exists()


def test_a_preview_is_served_sandboxed_and_only_while_kept(console_hearth):
    answer = templates_api(console_hearth, "POST", "/signIn/preview",
                           {"subject": "Sign in", "text": "%LINK%", "html": "<script>alert(1)</script>%DISPLAY_NAME%"})
    assert answer.status_code == 200, answer.text
    url = answer.json()["htmlURL"]
    page = requests.get(console_hearth.console_url + url, timeout=TIMEOUT)
    assert page.status_code == 200
    assert page.text == "<script>alert(1)</script>Ada Lovelace"
    policy = page.headers["Content-Security-Policy"]
    assert policy.startswith("sandbox;") and "script-src" not in policy and "frame-ancestors 'self'" in policy
    assert requests.get(console_hearth.console_url + url[:-4] + "AAAA", timeout=TIMEOUT).status_code == 404
    # Only the newest previews are kept.
    for _ in range(16):
        templates_api(console_hearth, "POST", "/signIn/preview", {"subject": "S", "text": "t", "html": "<p>x</p>"})
    assert requests.get(console_hearth.console_url + url, timeout=TIMEOUT).status_code == 404
