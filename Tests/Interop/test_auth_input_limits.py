"""What a caller may store on an account is bounded (docs/compatibility.md, Authentication): a
field past its limit is refused with Firebase's error and changes nothing, so no account, and no
ID token copying its profile, grows with what a client sends. Emails with control characters are
refused wherever an email enters, and never reach the log (development mode, as the emulator)."""

import json
import urllib.parse

from auth_client import (
    admin, api, decode_jwt, error_message, lookup_by_token, lookup_by_uid, ok, sign_up, unique_email, unique_uid,
)
from conftest import HearthProcess

TOO_LONG_PASSWORD = ("PASSWORD_DOES_NOT_MEET_REQUIREMENTS : Missing password requirements: "
                     "[Password may contain at most 4096 characters]")
# An email that, written raw, would add an SMTP command or a line of its own to the log.
INJECTED_EMAILS = ["z>\r\nrcpt to:<x@example.org", "victim@example.com\nFORGED line", "nul\u0000@example.com"]


def assert_error(response, message, status=400):
    assert response.status_code == status, response.text
    assert error_message(response) == message


def accounts_with_email(hearth, email):
    return ok(admin(hearth, "/accounts:lookup", {"email": [email]})).get("users", [])


def test_sign_up_refuses_an_oversized_display_name_and_creates_nothing(hearth):
    email = unique_email("big-name")
    refused = api(hearth, "signUp", {"email": email, "password": "secret1", "displayName": "n" * 257})
    assert_error(refused, "INVALID_DISPLAY_NAME")
    assert accounts_with_email(hearth, email) == []
    # 256 characters (UTF-16 units, as Firebase counts) are kept and reach the ID token.
    name = "\u00e9" * 256
    token = sign_up(hearth, email, displayName=name)["idToken"]
    assert decode_jwt(token)[1]["name"] == name


def test_update_refuses_oversized_profile_fields_and_changes_nothing(hearth):
    user = sign_up(hearth, unique_email("profile"), displayName="Before")
    assert_error(api(hearth, "update", {"idToken": user["idToken"], "displayName": "n" * 257}), "INVALID_DISPLAY_NAME")
    assert_error(api(hearth, "update", {"idToken": user["idToken"], "photoUrl": "https://x/" + "p" * 2040}),
                 "INVALID_PHOTO_URL")
    assert_error(api(hearth, "update", {"idToken": user["idToken"], "password": "p" * 4097}), TOO_LONG_PASSWORD)
    stored = lookup_by_token(hearth, user["idToken"])
    assert stored["displayName"] == "Before" and "photoUrl" not in stored
    assert ok(api(hearth, "update", {"idToken": user["idToken"], "photoUrl": "https://x/" + "p" * 2038}))


def test_passwords_are_bounded_at_4096_characters(hearth):
    email = unique_email("long-password")
    assert_error(api(hearth, "signUp", {"email": email, "password": "p" * 4097}), TOO_LONG_PASSWORD)
    assert accounts_with_email(hearth, email) == []
    sign_up(hearth, email, password="p" * 4096)
    assert ok(api(hearth, "signInWithPassword", {"email": email, "password": "p" * 4096}))
    assert_error(admin(hearth, "/accounts", {"password": "p" * 4097}), TOO_LONG_PASSWORD)


def test_admin_create_and_update_refuse_oversized_fields(hearth):
    uid = unique_uid()
    assert_error(admin(hearth, "/accounts", {"localId": uid, "displayName": "n" * 257}), "INVALID_DISPLAY_NAME")
    assert_error(admin(hearth, "/accounts", {"localId": uid, "photoUrl": "p" * 2049}), "INVALID_PHOTO_URL")
    assert_error(admin(hearth, "/accounts", {"localId": uid, "phoneNumber": "+1" + "5" * 15}),
                 "INVALID_PHONE_NUMBER : Invalid format.")
    assert lookup_by_uid(hearth, uid) is None
    ok(admin(hearth, "/accounts", {"localId": uid}))
    assert_error(admin(hearth, "/accounts:update", {"localId": uid, "phoneNumber": "+" + "1" * 16}),
                 "INVALID_PHONE_NUMBER : Invalid format.")
    assert_error(admin(hearth, "/accounts:update", {"localId": uid, "displayName": "n" * 257}), "INVALID_DISPLAY_NAME")
    assert_error(admin(hearth, "/accounts:update",
                       {"localId": uid, "linkProviderUserInfo": {"providerId": "google.com", "rawId": "r" * 257}}),
                 "INVALID_RAW_ID")
    assert_error(admin(hearth, "/accounts:update",
                       {"localId": uid, "linkProviderUserInfo": {"providerId": "google.com", "rawId": "r",
                                                                 "displayName": "n" * 257}}),
                 "INVALID_DISPLAY_NAME")
    assert "providerUserInfo" not in lookup_by_uid(hearth, uid)


def test_custom_claims_are_bounded_in_bytes(hearth):
    uid = ok(admin(hearth, "/accounts", {}))["localId"]
    # 600 characters, 1,209 bytes of UTF-8.
    claims = json.dumps({"note": "\u00e9" * 600}, ensure_ascii=False)
    assert_error(admin(hearth, "/accounts:update", {"localId": uid, "customAttributes": claims}), "CLAIMS_TOO_LARGE")
    assert "customAttributes" not in lookup_by_uid(hearth, uid)


def test_custom_token_claims_have_the_custom_claims_limits(hearth):
    def custom_token(claims):
        return json.dumps({"uid": unique_uid(), "claims": claims})

    too_large = api(hearth, "signInWithCustomToken", {"token": custom_token({"blob": "x" * 1000})})
    assert_error(too_large, "CLAIMS_TOO_LARGE")
    assert_error(api(hearth, "signInWithCustomToken", {"token": custom_token({"auth_time": 1})}),
                 "FORBIDDEN_CLAIM : auth_time")
    token = ok(api(hearth, "signInWithCustomToken", {"token": custom_token({"role": "x" * 900}),
                                                     "returnSecureToken": True}))["idToken"]
    assert decode_jwt(token)[1]["role"] == "x" * 900


def test_import_reports_oversized_fields_per_user(hearth):
    good, long_name, long_photo = unique_uid(), unique_uid(), unique_uid()
    response = ok(admin(hearth, "/accounts:batchCreate", {"users": [
        {"localId": good, "displayName": "Fine"},
        {"localId": long_name, "displayName": "n" * 257},
        {"localId": long_photo, "photoUrl": "p" * 2049},
        {"localId": "u" * 129},
    ]}))
    assert [(e["index"], e["message"]) for e in response["error"]] == [
        (1, "displayName is invalid"), (2, "photoUrl is invalid"), (3, "localId is invalid")]
    assert lookup_by_uid(hearth, good)["displayName"] == "Fine"
    assert lookup_by_uid(hearth, long_name) is None


def test_federated_profiles_are_bounded_too(hearth):
    token = json.dumps({"sub": unique_uid(), "name": "n" * 257})
    response = api(hearth, "signInWithIdp", {
        "requestUri": "http://localhost", "returnSecureToken": True,
        "postBody": urllib.parse.urlencode({"id_token": token, "providerId": "google.com"})})
    assert_error(response, "INVALID_IDP_RESPONSE : INVALID_DISPLAY_NAME")


def test_emails_with_control_characters_are_refused_wherever_an_email_enters(hearth):
    user = sign_up(hearth, unique_email("ctl"))
    uid = ok(admin(hearth, "/accounts", {}))["localId"]
    for email in INJECTED_EMAILS:
        assert_error(api(hearth, "signUp", {"email": email, "password": "secret1"}), "INVALID_EMAIL")
        assert_error(api(hearth, "signInWithPassword", {"email": email, "password": "secret1"}), "INVALID_EMAIL")
        assert_error(api(hearth, "update", {"idToken": user["idToken"], "email": email}), "INVALID_EMAIL")
        assert_error(api(hearth, "createAuthUri", {"identifier": email, "continueUri": "http://localhost"}),
                     "INVALID_IDENTIFIER")
        for kind in ("PASSWORD_RESET", "EMAIL_SIGNIN"):
            assert_error(api(hearth, "sendOobCode", {"requestType": kind, "email": email}), "INVALID_EMAIL")
        assert_error(api(hearth, "sendOobCode", {"requestType": "VERIFY_AND_CHANGE_EMAIL", "idToken": user["idToken"],
                                                 "newEmail": email}), "INVALID_EMAIL")
        assert_error(admin(hearth, "/accounts:sendOobCode", {"requestType": "VERIFY_EMAIL", "email": email}),
                     "INVALID_EMAIL")
        assert_error(api(hearth, "signInWithEmailLink", {"email": email, "oobCode": "any"}), "INVALID_EMAIL")
        assert_error(admin(hearth, "/accounts", {"email": email}), "INVALID_EMAIL")
        assert_error(admin(hearth, "/accounts:update", {"localId": uid, "email": email}), "INVALID_EMAIL")
        assert_error(admin(hearth, "/accounts:update", {"localId": uid, "linkProviderUserInfo": {
            "providerId": "google.com", "rawId": f"g-{uid}", "email": email}}), "INVALID_EMAIL")
        imported = ok(admin(hearth, "/accounts:batchCreate", {"users": [{"localId": unique_uid(), "email": email}]}))
        assert [e["message"] for e in imported["error"]] == ["email is invalid"]
    assert "email" not in lookup_by_uid(hearth, uid)


def test_an_email_cannot_forge_log_lines():
    hearth = HearthProcess().start()
    try:
        api(hearth, "sendOobCode", {"requestType": "EMAIL_SIGNIN",
                                    "email": "victim@example.com\n2030-01-01T00:00:00Z notice hearth: FORGED"})
        api(hearth, "signUp", {"email": "z>\r\nFORGED rcpt to:<x@example.org", "password": "secret1"})
    finally:
        hearth.stop()
        hearth.remove_data()
    log = "".join(hearth.output) + hearth.process.stdout.read()
    forged = [line for line in log.splitlines() if line.startswith(("2030-", "FORGED"))]
    assert forged == [], log
