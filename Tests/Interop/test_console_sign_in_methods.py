"""The console's sign-in method view: a built-in method switched off refuses clients at once,
and on again lets them in; identity providers are listed with their state."""

import time

import pytest
import requests
from selenium.webdriver.common.by import By

from auth_client import api, error_message
from browser import browser  # noqa: F401 (fixture)
from conftest import OWNER, PROJECT
from console_page import console  # noqa: F401 (fixture)

TIMEOUT = 30


def switch(console, method):
    return console.driver.find_element(By.CSS_SELECTOR, f"#method-{method}")


def test_switching_anonymous_sign_in_off_and_on(console, console_hearth):
    console.open("/auth/providers", "#method-anonymous")
    assert switch(console, "anonymous").is_selected()
    console.click("#method-anonymous")
    console.wait_for(lambda: not switch(console, "anonymous").is_selected(), "anonymous switched off")
    console.wait_for(lambda: api(console_hearth, "signUp", {"returnSecureToken": True}).status_code == 400,
                     "anonymous sign-up refused")
    assert error_message(api(console_hearth, "signUp", {"returnSecureToken": True})) == "ADMIN_ONLY_OPERATION"
    console.click("#method-anonymous")
    console.wait_for(lambda: api(console_hearth, "signUp", {"returnSecureToken": True}).status_code == 200,
                     "anonymous sign-up allowed again")


def test_email_link_follows_email_and_password(console, console_hearth):
    console.open("/auth/providers", "#method-email")
    console.click("#method-email")
    console.wait_for(lambda: switch(console, "email-link").get_attribute("disabled") is not None,
                     "the email link switch disabled with email/password off")
    console.click("#method-email")
    console.wait_for(lambda: switch(console, "email-link").get_attribute("disabled") is None, "email link switch back")
    assert switch(console, "email").is_selected() and switch(console, "email-link").is_selected()


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_the_sign_in_method_view_lists_providers_without_serious_violations(console, console_hearth, theme):
    created = requests.post(
        f"{console_hearth.url}/identitytoolkit.googleapis.com/v2/projects/{PROJECT}/oauthIdpConfigs",
        params={"oauthIdpConfigId": f"oidc.corp-{theme}"}, headers=OWNER, timeout=TIMEOUT,
        json={"displayName": "Corporate SSO", "enabled": True, "clientId": "hearth-console",
              "issuer": "https://issuer.example.com"})
    assert created.status_code == 200, created.text
    console.open("/auth/providers", "#method-anonymous")
    console.wait_for_text("table[aria-label='Identity providers']", f"Corporate SSO (oidc.corp-{theme})")
    console.click(f"#provider-oidc\\.corp-{theme}")
    console.wait_for(lambda: requests.get(
        f"{console_hearth.url}/identitytoolkit.googleapis.com/v2/projects/{PROJECT}/oauthIdpConfigs/oidc.corp-{theme}",
        headers=OWNER, timeout=TIMEOUT).json().get("enabled", False) is False, "the provider disabled")
    console.set_theme(theme)
    time.sleep(0.2)
    assert console.serious_violations() == [], theme
    console.screenshot(f"providers-{theme}")
