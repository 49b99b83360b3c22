"""Accounts are durable: an acknowledged sign-up, password change or custom claim survives
`kill -9`, and so do the signing keys and the hash configuration (tokens and passwords issued
before the crash keep working after it)."""

import json
import signal

import requests

from auth_client import IDENTITY_TOOLKIT, api, decode_jwt, error_message, refresh, request, unique_email
from conftest import PROJECT, HearthProcess

KEY = "durable-key"


def test_accounts_tokens_and_keys_survive_kill_9():
    server = HearthProcess(extra_args=["--production", "--api-key", KEY]).start()
    restarted = None
    try:
        email = unique_email("durable")
        signed_up = api(server, "signUp", {"email": email, "password": "secret1", "returnSecureToken": True}, key=KEY)
        assert signed_up.status_code == 200, signed_up.text
        anonymous = api(server, "signUp", {"returnSecureToken": True}, key=KEY).json()
        changed = api(server, "update", {"idToken": signed_up.json()["idToken"], "displayName": "Dura"}, key=KEY)
        assert changed.status_code == 200
        kid = decode_jwt(signed_up.json()["idToken"])[0]["kid"]
        server.stop(signal.SIGKILL)

        restarted = HearthProcess(data_dir=server.data_dir, extra_args=["--production", "--api-key", KEY]).start()
        # The password verifies: the account and the hash configuration were kept.
        signed_in = api(restarted, "signInWithPassword", {"email": email, "password": "secret1"}, key=KEY)
        assert signed_in.status_code == 200, signed_in.text
        assert signed_in.json()["displayName"] == "Dura"
        assert error_message(api(restarted, "signInWithPassword", {"email": email, "password": "nope12"}, key=KEY)) \
            == "INVALID_PASSWORD"
        # Tokens issued before the crash still verify (same keys) and refresh (same sessions).
        looked_up = api(restarted, "lookup", {"idToken": signed_up.json()["idToken"]}, key=KEY)
        assert looked_up.status_code == 200, looked_up.text
        refreshed = refresh(restarted, anonymous["refreshToken"], key=KEY)
        assert refreshed.status_code == 200, refreshed.text
        assert refreshed.json()["user_id"] == anonymous["localId"]
        keys = requests.get(
            f"{restarted.url}/www.googleapis.com/service_accounts/v1/jwk/securetoken@system.gserviceaccount.com",
            timeout=10).json()["keys"]
        assert kid in [key["kid"] for key in keys]
        # A second sign-up with the same email is still refused: the email index was rebuilt.
        again = api(restarted, "signUp", {"email": email.upper(), "password": "secret1"}, key=KEY)
        assert error_message(again) == "EMAIL_EXISTS"
    finally:
        if restarted:
            restarted.stop()
        server.remove_data()


def test_development_accounts_survive_kill_9():
    server = HearthProcess().start()
    restarted = None
    try:
        email = unique_email("dev-durable")
        assert api(server, "signUp", {"email": email, "password": "secret1"}).status_code == 200
        uid = "claims-user"
        made = request(server, "POST", f"{IDENTITY_TOOLKIT}/v1/projects/{PROJECT}/accounts", key=None,
                       body={"localId": uid}, headers={"Authorization": "Bearer owner"})
        assert made.status_code == 200
        claims = request(server, "POST", f"{IDENTITY_TOOLKIT}/v1/projects/{PROJECT}/accounts:update", key=None,
                         body={"localId": uid, "customAttributes": json.dumps({"tier": "gold"})},
                         headers={"Authorization": "Bearer owner"})
        assert claims.status_code == 200
        server.stop(signal.SIGKILL)

        restarted = HearthProcess(data_dir=server.data_dir).start()
        assert api(restarted, "signInWithPassword", {"email": email, "password": "secret1"}).status_code == 200
        token = api(restarted, "signInWithCustomToken", {"token": json.dumps({"uid": uid}), "returnSecureToken": True})
        assert decode_jwt(token.json()["idToken"])[1]["tier"] == "gold"
    finally:
        if restarted:
            restarted.stop()
        server.remove_data()
