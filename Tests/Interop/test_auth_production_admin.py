"""Production's admin credentials and limits: service-account key files exchanged for access tokens
by Google's own auth library, custom tokens signed by the Admin SDK with such a key, the database
accepting the access token, `owner` and the emulator endpoints refused, sign-ups per address per
hour, the lock after repeated wrong passwords, and the recent-login rule."""

import subprocess
import time

import firebase_admin
import google.auth.transport.requests
import pytest
import requests
from firebase_admin import auth as admin_auth
from firebase_admin import credentials
from google.oauth2 import service_account

from auth_client import IDENTITY_TOOLKIT, api, decode_jwt, error_message, refresh, request, unique_email
from conftest import HEARTH_BIN, OWNER, PROJECT, HearthProcess, store_args

KEY = "prod-key"
PUBLIC_URL = "https://auth.example.com"
SIGN_UPS_PER_HOUR = 5


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    hearth = HearthProcess(extra_args=[
        "--production", "--api-key", KEY, "--sign-ups-per-hour", str(SIGN_UPS_PER_HOUR), "--recent-login-minutes", "0",
        "--public-url", PUBLIC_URL, "--authorized-domain", "app.example.com"])
    hearth.key_file = str(tmp_path_factory.mktemp("sa") / "service-account.json")
    issued = subprocess.run(
        [HEARTH_BIN, "auth:service-account", *store_args(hearth.data_dir), "--project", PROJECT,
         "--server", f"http://127.0.0.1:{hearth.port}", "--output", hearth.key_file],
        capture_output=True, text=True, timeout=60)
    assert issued.returncode == 0, issued.stderr
    hearth.start()
    yield hearth
    hearth.stop()
    hearth.remove_data()


@pytest.fixture(scope="module")
def access_token(server):
    """An access token obtained exactly as Google's auth library obtains one: a signed assertion
    posted to the key file's `token_uri`."""
    creds = service_account.Credentials.from_service_account_file(
        server.key_file, scopes=["https://www.googleapis.com/auth/cloud-platform"])
    creds.refresh(google.auth.transport.requests.Request())
    return creds.token


def bearer(token):
    return {"Authorization": f"Bearer {token}"}


def admin_call(server, path, body, token):
    return request(server, "POST", f"{IDENTITY_TOOLKIT}/v1/projects/{PROJECT}{path}", key=None, body=body,
                   headers=bearer(token))


def sign_up_with_password(server, email, password="secret1"):
    response = api(server, "signUp", {"email": email, "password": password, "returnSecureToken": True}, key=KEY)
    assert response.status_code == 200, response.text
    return response.json()


def test_the_key_file_looks_like_a_google_service_account_key(server):
    import json
    key = json.load(open(server.key_file))
    assert key["type"] == "service_account" and key["project_id"] == PROJECT
    assert key["private_key"].startswith("-----BEGIN PRIVATE KEY-----")
    assert key["token_uri"] == f"http://127.0.0.1:{server.port}/oauth2.googleapis.com/token"


def test_an_access_token_is_an_admin_credential_and_owner_is_not(server, access_token):
    uid = f"admin-made-{time.time_ns()}"
    made = admin_call(server, "/accounts", {"localId": uid, "email": unique_email()}, access_token)
    assert made.status_code == 200, made.text
    looked_up = admin_call(server, "/accounts:lookup", {"localId": [uid]}, access_token)
    assert [user["localId"] for user in looked_up.json()["users"]] == [uid]
    refused = admin_call(server, "/accounts:lookup", {"localId": [uid]}, "owner")
    assert refused.status_code == 401 and refused.json()["error"]["status"] == "UNAUTHENTICATED"
    forged = admin_call(server, "/accounts:lookup", {"localId": [uid]}, access_token[:-4] + "AAAA")
    assert forged.status_code == 401


def test_the_token_endpoint_refuses_assertions_it_cannot_verify(server):
    token_url = f"{server.url}/oauth2.googleapis.com/token"
    wrong_grant = requests.post(token_url, data={"grant_type": "password", "assertion": "x"}, timeout=10)
    assert wrong_grant.status_code == 400 and wrong_grant.json()["error"] == "unsupported_grant_type"
    forged = requests.post(
        token_url, data={"grant_type": "urn:ietf:params:oauth:grant-type:jwt-bearer",
                         "assertion": "eyJhbGciOiJSUzI1NiJ9.eyJpc3MiOiJ4In0.c2ln"}, timeout=10)
    assert forged.status_code == 400 and forged.json()["error"] == "invalid_grant"


def test_the_database_accepts_the_access_token_as_admin(server, access_token):
    namespace = f"{PROJECT}-default-rtdb"
    written = requests.put(f"{server.url}/admin-area.json", params={"ns": namespace}, json={"ok": True},
                           headers=bearer(access_token), timeout=10)
    assert written.status_code == 200, written.text
    assert requests.get(f"{server.url}/admin-area.json", params={"ns": namespace}, headers=OWNER,
                        timeout=10).status_code == 401


def test_custom_tokens_signed_with_the_key_file_sign_in_and_others_do_not(server):
    app = firebase_admin.initialize_app(credentials.Certificate(server.key_file), name=f"prod-{time.time_ns()}")
    try:
        token = admin_auth.create_custom_token("custom-user", {"role": "editor"}, app=app).decode()
    finally:
        firebase_admin.delete_app(app)
    signed_in = api(server, "signInWithCustomToken", {"token": token, "returnSecureToken": True}, key=KEY)
    assert signed_in.status_code == 200, signed_in.text
    assert signed_in.json()["isNewUser"] is True
    header, claims = decode_jwt(signed_in.json()["idToken"])
    assert header["alg"] == "RS256"
    assert claims["sub"] == "custom-user" and claims["role"] == "editor"
    assert claims["firebase"]["sign_in_provider"] == "custom"
    # The emulator's unsigned form of a custom token is refused in production.
    unsigned = api(server, "signInWithCustomToken", {"token": '{"uid":"x"}'}, key=KEY)
    assert error_message(unsigned).startswith("INVALID_CUSTOM_TOKEN")
    tampered = token.split(".")
    tampered[2] = tampered[2][:-4] + ("AAAA" if not tampered[2].endswith("AAAA") else "BBBB")
    refused = api(server, "signInWithCustomToken", {"token": ".".join(tampered)}, key=KEY)
    assert error_message(refused).startswith("INVALID_CUSTOM_TOKEN")


def test_action_links_point_at_the_public_url_whatever_the_host_header_says(server, access_token):
    email = unique_email("link")
    sign_up_with_password(server, email)
    response = request(server, "POST", f"{IDENTITY_TOOLKIT}/v1/projects/{PROJECT}/accounts:sendOobCode", key=None,
                       body={"requestType": "PASSWORD_RESET", "email": email, "returnOobLink": True},
                       headers={**bearer(access_token), "Host": "evil.example"})
    assert response.status_code == 200, response.text
    assert response.json()["oobLink"].startswith(f"{PUBLIC_URL}/__/auth/action?mode=resetPassword&")


def test_continue_urls_must_point_at_an_authorized_domain(server):
    email = unique_email("continue")
    sign_up_with_password(server, email)
    refused = api(server, "sendOobCode", {"requestType": "PASSWORD_RESET", "email": email,
                                          "continueUrl": "https://evil.example/steal"}, key=KEY)
    assert error_message(refused) == "UNAUTHORIZED_DOMAIN"
    for allowed in ("http://localhost:3000/done", "https://app.example.com/done", "https://auth.example.com/x"):
        sent = api(server, "sendOobCode", {"requestType": "EMAIL_SIGNIN", "email": unique_email("c"),
                                           "continueUrl": allowed}, key=KEY)
        assert sent.status_code == 200, (allowed, sent.text)
    domains = request(server, "GET", f"{IDENTITY_TOOLKIT}/v1/projects", key=KEY).json()["authorizedDomains"]
    assert domains == ["app.example.com", "auth.example.com", "localhost"]


def test_action_emails_to_one_address_are_limited_per_hour(server):
    email = unique_email("flood")
    sign_up_with_password(server, email)
    for _ in range(10):
        assert api(server, "sendOobCode", {"requestType": "PASSWORD_RESET", "email": email}, key=KEY).status_code == 200
    flooded = api(server, "sendOobCode", {"requestType": "PASSWORD_RESET", "email": email}, key=KEY)
    assert error_message(flooded).startswith("TOO_MANY_ATTEMPTS_TRY_LATER")


def test_emulator_endpoints_are_not_served_in_production(server):
    for method, path in [("DELETE", f"/emulator/v1/projects/{PROJECT}/accounts"),
                         ("GET", f"/emulator/v1/projects/{PROJECT}/oobCodes"),
                         ("GET", f"/emulator/v1/projects/{PROJECT}/config")]:
        response = request(server, method, path, key=None)
        assert response.status_code == 404, (method, path, response.text)


def test_repeated_wrong_passwords_lock_the_account_until_a_password_reset(server, access_token):
    email = unique_email("locked")
    sign_up_with_password(server, email)
    for _ in range(5):
        wrong = api(server, "signInWithPassword", {"email": email, "password": "wrong-one"}, key=KEY)
        assert error_message(wrong) == "INVALID_PASSWORD"
    locked = api(server, "signInWithPassword", {"email": email, "password": "secret1"}, key=KEY)
    assert locked.status_code == 400
    assert error_message(locked).startswith("TOO_MANY_ATTEMPTS_TRY_LATER : ")
    link = admin_call(server, "/accounts:sendOobCode",
                      {"requestType": "PASSWORD_RESET", "email": email, "returnOobLink": True}, access_token).json()
    assert link["oobLink"].startswith(f"{PUBLIC_URL}/__/auth/action?mode=resetPassword")
    reset = api(server, "resetPassword", {"oobCode": link["oobCode"], "newPassword": "secret2"}, key=KEY)
    assert reset.status_code == 200, reset.text
    assert api(server, "signInWithPassword", {"email": email, "password": "secret2"}, key=KEY).status_code == 200


def test_credential_changes_need_a_recent_sign_in(server, access_token):
    email = unique_email("recent")
    signed_up = sign_up_with_password(server, email)
    time.sleep(1.1)
    stale = api(server, "update", {"idToken": signed_up["idToken"], "password": "secret2"}, key=KEY)
    assert error_message(stale) == "CREDENTIAL_TOO_OLD_LOGIN_AGAIN"
    assert error_message(api(server, "delete", {"idToken": signed_up["idToken"]}, key=KEY)) == \
        "CREDENTIAL_TOO_OLD_LOGIN_AGAIN"
    # Profile changes are not sensitive, and refreshing keeps the sign-in time.
    assert api(server, "update", {"idToken": signed_up["idToken"], "displayName": "R"}, key=KEY).status_code == 200
    refreshed = refresh(server, signed_up["refreshToken"], key=KEY).json()["id_token"]
    assert error_message(api(server, "update", {"idToken": refreshed, "password": "secret2"}, key=KEY)) == \
        "CREDENTIAL_TOO_OLD_LOGIN_AGAIN"
    # An admin is never asked to sign in again.
    assert admin_call(server, "/accounts:update", {"localId": signed_up["localId"], "password": "secret3"},
                      access_token).status_code == 200
    # A fresh sign-in may change the password: the window here is 0 minutes, so the two requests
    # must fall in the same second; a second boundary between them is retried.
    for _ in range(5):
        fresh = api(server, "signInWithPassword", {"email": email, "password": "secret3", "returnSecureToken": True},
                    key=KEY).json()
        changed = api(server, "update", {"idToken": fresh["idToken"], "password": "secret4"}, key=KEY)
        if changed.status_code == 200:
            break
        assert error_message(changed) == "CREDENTIAL_TOO_OLD_LOGIN_AGAIN"
    else:
        raise AssertionError("a fresh sign-in could not change the password")


def test_sign_ups_from_one_address_are_limited_per_hour():
    hearth = HearthProcess(extra_args=["--production", "--sign-ups-per-hour", "3"]).start()
    try:
        email = unique_email()
        assert api(hearth, "signUp", {"email": email, "password": "secret1"}).status_code == 200
        # An empty idToken links nothing: the sign-up counts like any other.
        assert api(hearth, "signUp", {"idToken": "", "returnSecureToken": True}).status_code == 200
        assert api(hearth, "signUp", {"returnSecureToken": True}).status_code == 200
        refused = api(hearth, "signUp", {"email": unique_email(), "password": "secret1"})
        assert refused.status_code == 400
        assert error_message(refused).startswith("TOO_MANY_ATTEMPTS_TRY_LATER")
        # Signing in is not limited.
        assert api(hearth, "signInWithPassword", {"email": email, "password": "secret1"}).status_code == 200
    finally:
        hearth.stop()
        hearth.remove_data()


def test_a_refresh_token_does_not_outlive_its_account_into_a_new_one_with_the_same_uid(server, access_token):
    app = firebase_admin.initialize_app(credentials.Certificate(server.key_file), name=f"reuse-{time.time_ns()}")
    try:
        token = admin_auth.create_custom_token("reused-uid", app=app).decode()
    finally:
        firebase_admin.delete_app(app)
    session = api(server, "signInWithCustomToken", {"token": token, "returnSecureToken": True}, key=KEY).json()
    assert admin_call(server, "/accounts:delete", {"localId": "reused-uid"}, access_token).status_code == 200
    time.sleep(1.1)
    assert admin_call(server, "/accounts", {"localId": "reused-uid"}, access_token).status_code == 200
    assert error_message(refresh(server, session["refreshToken"], key=KEY)) == "TOKEN_EXPIRED"


def test_a_revoked_service_account_key_stops_working_at_once(server):
    key_file = server.key_file.replace(".json", "-revoked.json")
    issued = subprocess.run(
        [HEARTH_BIN, "auth:service-account", *store_args(server.data_dir), "--project", PROJECT,
         "--server", f"http://127.0.0.1:{server.port}", "--output", key_file], capture_output=True, text=True, timeout=60)
    assert issued.returncode == 0, issued.stderr
    creds = service_account.Credentials.from_service_account_file(
        key_file, scopes=["https://www.googleapis.com/auth/cloud-platform"])
    creds.refresh(google.auth.transport.requests.Request())
    assert admin_call(server, "/accounts:query", {"returnUserInfo": False}, creds.token).status_code == 200
    import json
    key_id = json.load(open(key_file))["private_key_id"]
    revoked = subprocess.run([HEARTH_BIN, "auth:service-account", *store_args(server.data_dir), "--revoke", key_id],
                             capture_output=True, text=True, timeout=60)
    assert revoked.returncode == 0, revoked.stderr
    assert admin_call(server, "/accounts:query", {"returnUserInfo": False}, creds.token).status_code == 401
    unknown = subprocess.run([HEARTH_BIN, "auth:service-account", *store_args(server.data_dir), "--revoke", key_id],
                             capture_output=True, text=True, timeout=60)
    assert unknown.returncode != 0 and "No service-account key" in unknown.stderr


def test_phone_sign_in_needs_an_sms_provider_in_production(server):
    refused = api(server, "sendVerificationCode", {"phoneNumber": "+15555550100"}, key=KEY)
    assert error_message(refused).startswith("OPERATION_NOT_ALLOWED")


def test_enumeration_protection_locks_unknown_addresses_as_it_locks_known_ones(server, access_token):
    config = f"{IDENTITY_TOOLKIT}/v2/projects/{PROJECT}/config"
    privacy = {"emailPrivacyConfig": {"enableImprovedEmailPrivacy": True}}
    assert request(server, "PATCH", config, key=None, body=privacy, headers=bearer(access_token)).status_code == 200
    try:
        known = unique_email("known")
        assert admin_call(server, "/accounts", {"email": known, "password": "secret1"}, access_token).status_code == 200
        answers = {}
        for email in (known, unique_email("unknown")):
            answers[email] = [error_message(api(server, "signInWithPassword", {"email": email, "password": "wrong-one"},
                                                key=KEY)) for _ in range(6)]
        known_answers, unknown_answers = answers.values()
        assert known_answers[:5] == ["INVALID_LOGIN_CREDENTIALS"] * 5
        assert known_answers[5].startswith("TOO_MANY_ATTEMPTS_TRY_LATER : ")
        assert unknown_answers == known_answers
    finally:
        privacy["emailPrivacyConfig"]["enableImprovedEmailPrivacy"] = False
        request(server, "PATCH", config, key=None, body=privacy, headers=bearer(access_token))
