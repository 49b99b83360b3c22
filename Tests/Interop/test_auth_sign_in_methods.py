"""Sign-in methods turned off and on through the project's configuration
(`PATCH /v2/projects/{p}/config`, `signIn.email`, `signIn.phoneNumber`, `signIn.anonymous`):
clients get Firebase's refusal for a method that is off, administrators keep creating accounts,
and the setting survives a restart."""

import pytest
import requests
from firebase_admin import auth

from auth_client import (API_KEY, IDENTITY_TOOLKIT, admin_auth_app, api, error_message, sign_up, unique_email)
from conftest import OWNER, PROJECT, HearthProcess

TIMEOUT = 30
CONFIG = f"{IDENTITY_TOOLKIT}/v2/projects/{PROJECT}/config"


@pytest.fixture(scope="module")
def server():
    process = HearthProcess().start()
    yield process
    process.stop()
    process.remove_data()


def configure(server, sign_in, headers=OWNER):
    return requests.patch(f"{server.url}{CONFIG}", json={"signIn": sign_in}, headers=headers, timeout=TIMEOUT)


def methods(server):
    response = requests.get(f"{server.url}{CONFIG}", headers=OWNER, timeout=TIMEOUT)
    assert response.status_code == 200, response.text
    sign_in = response.json()["signIn"]
    return {name: sign_in[name] for name in ("email", "phoneNumber", "anonymous")}


def test_every_method_is_on_by_default_and_only_an_admin_changes_them(server):
    assert methods(server) == {"email": {"enabled": True, "passwordRequired": False},
                               "phoneNumber": {"enabled": True}, "anonymous": {"enabled": True}}
    refused = requests.patch(f"{server.url}{CONFIG}", params={"key": API_KEY},
                             json={"signIn": {"anonymous": {"enabled": False}}}, timeout=TIMEOUT)
    assert refused.status_code == 400
    assert error_message(refused).startswith("INSUFFICIENT_PERMISSION")
    assert methods(server)["anonymous"] == {"enabled": True}


def test_methods_turned_off_refuse_clients_with_firebases_errors(server):
    email = unique_email()
    sign_up(server, email)
    answer = configure(server, {"email": {"enabled": False}, "anonymous": {"enabled": False},
                                "phoneNumber": {"enabled": False}})
    assert answer.status_code == 200
    assert answer.json()["signIn"]["allowDuplicateEmails"] is False, "fields not named stay as they were"
    try:
        assert error_message(api(server, "signUp", {"returnSecureToken": True})) == "ADMIN_ONLY_OPERATION"
        assert error_message(api(server, "signUp", {"email": unique_email(), "password": "secret1"})) \
            == "OPERATION_NOT_ALLOWED"
        assert error_message(api(server, "signInWithPassword", {"email": email, "password": "secret1"})) \
            == "PASSWORD_LOGIN_DISABLED"
        assert error_message(api(server, "sendOobCode", {"requestType": "EMAIL_SIGNIN", "email": email,
                                                         "continueUrl": "https://example.com"})) \
            == "OPERATION_NOT_ALLOWED"
        assert error_message(api(server, "sendVerificationCode", {"phoneNumber": "+15555550100"})) \
            == "OPERATION_NOT_ALLOWED"
        # Administrators still create accounts of every kind.
        with admin_auth_app(server, "sign-in-methods") as app:
            created = auth.create_user(email=unique_email(), password="secret12", phone_number="+15555550101", app=app)
            assert created.uid
    finally:
        configure(server, {"email": {"enabled": True}, "anonymous": {"enabled": True}, "phoneNumber": {"enabled": True}})
    assert api(server, "signUp", {"returnSecureToken": True}).status_code == 200
    assert api(server, "signInWithPassword", {"email": email, "password": "secret1"}).status_code == 200


def test_requiring_a_password_turns_email_links_off_only(server):
    email = unique_email()
    sign_up(server, email)
    assert configure(server, {"email": {"passwordRequired": True}}).status_code == 200
    try:
        assert error_message(api(server, "sendOobCode", {"requestType": "EMAIL_SIGNIN", "email": email,
                                                         "continueUrl": "https://example.com"})) \
            == "OPERATION_NOT_ALLOWED"
        assert api(server, "signInWithPassword", {"email": email, "password": "secret1"}).status_code == 200
    finally:
        configure(server, {"email": {"passwordRequired": False}})
    assert api(server, "sendOobCode", {"requestType": "EMAIL_SIGNIN", "email": email,
                                       "continueUrl": "https://example.com"}).status_code == 200


def test_a_method_turned_off_stays_off_after_a_restart():
    process = HearthProcess().start()
    try:
        assert configure(process, {"anonymous": {"enabled": False}}).status_code == 200
        process.stop()
        process.start()
        assert methods(process)["anonymous"] == {"enabled": False}
        assert error_message(api(process, "signUp", {"returnSecureToken": True})) == "ADMIN_ONLY_OPERATION"
    finally:
        process.stop()
        process.remove_data()


def test_bad_configuration_values_are_refused_and_change_nothing(server):
    refused = configure(server, {"anonymous": {"enabled": "no"}})
    assert refused.status_code == 400
    assert methods(server)["anonymous"] == {"enabled": True}
