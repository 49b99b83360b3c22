"""Raw HTTP against Hearth's Auth server in development mode, which behaves as the Firebase Auth
emulator does (with real password hashing): transport and credentials, sign-up and sign-in, custom
tokens, lookup/update/delete, token refresh, session cookies, action-code flows, admin bulk
operations, password-hash import, and the emulator's own endpoints."""

import base64
import json
import re
import time
import urllib.parse

import pytest

from auth_client import (
    API_KEY, CUSTOM_TOKEN_AUDIENCE, EMULATOR_SERVICE_ACCOUNT, HASH_VECTORS, IDENTITY_TOOLKIT, MISSING_API_KEY,
    admin, api, decode_jwt, emulator, emulator_action, encode_jwt, error_message, import_users, is_digit_string,
    latest_oob_code, legacy, lookup_by_token, lookup_by_uid, ok, oob_codes, refresh, request, sign_in, sign_up,
    token_request, unique_email, unique_uid,
)
from conftest import OWNER, PROJECT

RFC3339 = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$")
UNAUTHENTICATED_MESSAGE = (
    "Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid "
    "authentication credential. See https://developers.google.com/identity/sign-in/web/devconsole-project.")
TARGET_PROJECT_REFUSED = "INSUFFICIENT_PERMISSION : Only authenticated requests can specify target_project_id."
WEAK_PASSWORD = "WEAK_PASSWORD : Password should be at least 6 characters"


def assert_token_triple(body):
    assert body["idToken"] and body["refreshToken"]
    assert body["expiresIn"] == "3600"


def assert_error(response, message, status=400):
    assert response.status_code == status, response.text
    assert error_message(response) == message, response.text


# Transport

def test_root_answers_the_auth_emulator_readiness_document(hearth):
    response = request(hearth, "GET", "/", key=None)
    assert response.status_code == 200
    assert response.json()["authEmulator"]["ready"] is True


def test_sign_up_without_an_api_key_is_permission_denied(hearth):
    response = api(hearth, "signUp", {}, key=None)
    assert response.status_code == 403
    assert response.json()["error"]["status"] == "PERMISSION_DENIED"
    assert error_message(response) == MISSING_API_KEY


def test_api_key_is_accepted_in_the_header_or_the_query(hearth):
    by_header = api(hearth, "signUp", {}, key=None, headers={"X-Goog-Api-Key": API_KEY})
    assert by_header.status_code == 200, by_header.text
    by_query = api(hearth, "signUp", {}, key=API_KEY)
    assert by_query.status_code == 200, by_query.text
    assert by_query.headers["Content-Type"].startswith("application/json")


def test_target_project_needs_a_bearer_credential_in_any_letter_case(hearth):
    assert_error(api(hearth, "signUp", {"targetProjectId": PROJECT}), TARGET_PROJECT_REFUSED)
    privileged = api(hearth, "signUp", {"targetProjectId": PROJECT}, key=None, headers={"Authorization": "bEArEr OWNER"})
    assert privileged.status_code == 200, privileged.text
    assert privileged.json()["localId"]


def test_admin_paths_refuse_unknown_bearer_tokens_api_keys_and_anonymous_callers(hearth):
    response = admin(hearth, "/accounts:lookup", {"localId": ["x"]}, headers={"Authorization": "Bearer nonsense"})
    assert response.status_code == 401
    error = response.json()["error"]
    assert error["status"] == "UNAUTHENTICATED"
    assert error["message"] == UNAUTHENTICATED_MESSAGE
    assert error["errors"][0] == {"message": "Invalid Credentials", "domain": "global", "reason": "authError",
                                  "location": "Authorization", "locationType": "header"}
    path = f"{IDENTITY_TOOLKIT}/v1/projects/{PROJECT}/accounts:lookup"
    assert_error(request(hearth, "POST", path, key=API_KEY, body={"localId": ["x"]}), TARGET_PROJECT_REFUSED)
    anonymous = request(hearth, "POST", path, key=None, body={"localId": ["x"]})
    assert anonymous.status_code == 403
    assert anonymous.json()["error"]["status"] == "PERMISSION_DENIED"


def test_legacy_sign_up_route_answers_like_v1(hearth):
    body = ok(legacy(hearth, "signupNewUser", {}))
    assert body["kind"] == "identitytoolkit#SignupNewUserResponse"
    assert len(body["localId"]) == 28
    assert_token_triple(body)


def test_admin_email_sign_in_link_with_integer_request_type(hearth):
    email = unique_email("bob")
    body = ok(api(hearth, "sendOobCode", {"email": email, "requestType": 6, "returnOobLink": True},
                  key=None, headers=OWNER))
    assert "mode=signIn" in body["oobLink"]
    assert body["oobCode"] and body["email"] == email


def test_numeric_valid_since_is_coerced_not_a_schema_error(hearth):
    response = api(hearth, "update", {"localId": unique_uid("nosuch"), "validSince": 1611780718}, key=None, headers=OWNER)
    assert_error(response, "USER_NOT_FOUND")


def test_cors_preflight_reflects_origin_and_requested_headers(hearth):
    response = request(hearth, "OPTIONS", "/", key=None, headers={
        "Origin": "example.com", "Access-Control-Request-Method": "POST",
        "Access-Control-Request-Headers": "X-Client-Version,X-Firebase-Locale"})
    assert response.status_code == 204
    assert response.headers["Access-Control-Allow-Origin"] == "example.com"
    allowed = response.headers["Access-Control-Allow-Headers"].lower()
    assert "x-client-version" in allowed and "x-firebase-locale" in allowed


def test_unknown_auth_route_is_not_found(hearth):
    for path in (f"{IDENTITY_TOOLKIT}/v1/accounts:noSuchOperation", f"{IDENTITY_TOOLKIT}/v1/no/such/path"):
        response = request(hearth, "POST", path, body={})
        assert response.status_code == 404, path
        error = response.json()["error"]
        assert error["code"] == 404 and error["message"] == "Not Found" and error["status"] == "NOT_FOUND"


def test_error_body_shape(hearth):
    response = api(hearth, "signUp", {"email": unique_email(), "password": "12345"})
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == 400
    assert error["message"] == WEAK_PASSWORD
    assert error["errors"][0] == {"message": WEAK_PASSWORD, "domain": "global", "reason": "invalid"}


def test_snake_case_keys_unknown_fields_and_malformed_json(hearth):
    email = unique_email()
    body = ok(api(hearth, "signUp", {"email": email, "password": "secret1", "display_name": "Snake",
                                     "return_secure_token": True, "clientType": "CLIENT_TYPE_WEB",
                                     "instanceId": "whatever", "someFutureField": {"x": 1}}))
    assert lookup_by_token(hearth, body["idToken"])["displayName"] == "Snake"
    malformed = api(hearth, "signUp", data="{not json", headers={"Content-Type": "application/json"})
    assert malformed.status_code == 400
    error = malformed.json()["error"]
    assert error["status"] == "INVALID_ARGUMENT"
    assert error["message"].startswith("Invalid JSON payload received.")


# Sign-up and sign-in

def test_anonymous_sign_up(hearth):
    response = api(hearth, "signUp", {"returnSecureToken": True})
    body = ok(response)
    assert body["kind"] == "identitytoolkit#SignupNewUserResponse"
    assert re.fullmatch(r"[A-Za-z0-9]{28}", body["localId"])
    assert_token_triple(body)
    assert "email" not in body
    header, claims = decode_jwt(body["idToken"])
    assert header == {"alg": "none", "typ": "JWT"}
    assert body["idToken"].endswith(".")
    assert claims["provider_id"] == "anonymous"
    assert claims["firebase"]["sign_in_provider"] == "anonymous"
    assert claims["firebase"]["identities"] == {}
    assert claims["sub"] == claims["user_id"] == body["localId"]


def test_anonymous_sign_up_ignores_profile_fields(hearth):
    body = sign_up(hearth, displayName="A", photoUrl="http://x/p.png")
    user = lookup_by_token(hearth, body["idToken"])
    assert "displayName" not in user and "photoUrl" not in user


def test_email_sign_up_lower_cases_the_email_and_derives_the_password_provider(hearth):
    email = unique_email("Alice")
    body = ok(api(hearth, "signUp", {"email": email, "password": "secret1", "displayName": "A",
                                     "photoUrl": "http://x", "returnSecureToken": True}))
    stored = email.lower()
    assert body["email"] == stored
    assert body["kind"] == "identitytoolkit#SignupNewUserResponse"
    _, claims = decode_jwt(body["idToken"])
    assert claims["email"] == stored and claims["email_verified"] is False
    assert claims["firebase"] == {"identities": {"email": [stored]}, "sign_in_provider": "password"}
    assert claims["name"] == "A"
    assert "provider_id" not in claims
    user = lookup_by_token(hearth, body["idToken"])
    assert user["displayName"] == "A"
    assert "photoUrl" not in user
    assert user["providerUserInfo"] == [{"providerId": "password", "rawId": stored, "federatedId": stored,
                                         "email": stored, "displayName": "A"}]
    assert_error(api(hearth, "signUp", {"email": email, "password": "secret1", "displayName": "A"}), "EMAIL_EXISTS")


def test_sign_up_validation_errors(hearth):
    assert_error(api(hearth, "signUp", {"password": "secret1"}), "MISSING_EMAIL")
    assert_error(api(hearth, "signUp", {"email": unique_email()}), "MISSING_PASSWORD")
    assert_error(api(hearth, "signUp", {"email": "", "password": ""}), "INVALID_EMAIL")
    assert_error(api(hearth, "signUp", {"email": "nope", "password": "secret1"}), "INVALID_EMAIL")
    assert_error(api(hearth, "signUp", {"email": unique_email(), "password": "12345"}), WEAK_PASSWORD)
    assert_error(api(hearth, "signUp", {"localId": "u1"}), "UNEXPECTED_PARAMETER : User ID")


def test_admin_create_user_with_local_id(hearth):
    uid = unique_uid("u1")
    body = ok(admin(hearth, "/accounts", {"localId": uid, "email": unique_email()}))
    assert body["localId"] == uid
    assert "idToken" not in body and "refreshToken" not in body
    assert_error(admin(hearth, "/accounts", {"localId": uid}), "DUPLICATE_LOCAL_ID")


def test_password_sign_in(hearth):
    email = unique_email()
    created = sign_up(hearth, email)
    before = lookup_by_uid(hearth, created["localId"])["lastLoginAt"]
    time.sleep(0.01)
    response = api(hearth, "signInWithPassword", {"email": email.upper(), "password": "secret1", "returnSecureToken": True})
    body = ok(response)
    assert body["kind"] == "identitytoolkit#VerifyPasswordResponse"
    assert body["registered"] is True
    assert body["localId"] == created["localId"] and body["email"] == email
    assert body["displayName"] == ""
    assert_token_triple(body)
    after = lookup_by_uid(hearth, created["localId"])["lastLoginAt"]
    assert int(after) > int(before)


def test_password_sign_in_errors(hearth):
    email = unique_email()
    sign_up(hearth, email)
    assert_error(api(hearth, "signInWithPassword", {"email": email, "password": "wrong-password"}), "INVALID_PASSWORD")
    assert_error(api(hearth, "signInWithPassword", {"email": unique_email("nobody"), "password": "secret1"}),
                 "EMAIL_NOT_FOUND")
    assert_error(api(hearth, "signInWithPassword", {"email": email}), "MISSING_PASSWORD")


def test_email_enumeration_protection_hides_which_accounts_exist(hearth):
    email = unique_email()
    sign_up(hearth, email)
    original = ok(emulator(hearth, "GET", "/config"))
    try:
        ok(emulator(hearth, "PATCH", "/config", {"emailPrivacyConfig": {"enableImprovedEmailPrivacy": True}}))
        assert_error(api(hearth, "signInWithPassword", {"email": email, "password": "wrong-password"}),
                     "INVALID_LOGIN_CREDENTIALS")
        assert_error(api(hearth, "signInWithPassword", {"email": unique_email("nobody"), "password": "secret1"}),
                     "INVALID_LOGIN_CREDENTIALS")
        uri = ok(api(hearth, "createAuthUri", {"identifier": email, "continueUri": "http://localhost"}))
        assert set(uri) == {"kind", "sessionId"}
        nobody = unique_email("nobody")
        reset = ok(api(hearth, "sendOobCode", {"requestType": "PASSWORD_RESET", "email": nobody}))
        assert reset["email"] == nobody
    finally:
        ok(emulator(hearth, "PATCH", "/config", {"emailPrivacyConfig": original["emailPrivacyConfig"]}))


def test_disabled_user_cannot_sign_in_refresh_or_use_old_tokens(hearth):
    email = unique_email()
    user = sign_up(hearth, email)
    ok(admin(hearth, "/accounts:update", {"localId": user["localId"], "disableUser": True}))
    assert_error(api(hearth, "signInWithPassword", {"email": email, "password": "secret1"}), "USER_DISABLED")
    assert_error(refresh(hearth, user["refreshToken"]), "USER_DISABLED")
    assert_error(api(hearth, "lookup", {"idToken": user["idToken"]}), "USER_DISABLED")


# Custom tokens

def test_sign_in_with_json_custom_token_and_claims(hearth):
    uid = unique_uid("cu1")
    token = json.dumps({"uid": uid, "claims": {"role": "admin"}})
    first = ok(api(hearth, "signInWithCustomToken", {"token": token, "returnSecureToken": True}))
    assert first["isNewUser"] is True
    assert first["kind"] == "identitytoolkit#VerifyCustomTokenResponse"
    _, claims = decode_jwt(first["idToken"])
    assert claims["role"] == "admin"
    assert claims["sub"] == uid
    assert claims["firebase"]["sign_in_provider"] == "custom"
    refreshed = ok(refresh(hearth, first["refreshToken"]))
    assert decode_jwt(refreshed["id_token"])[1]["role"] == "admin"
    second = ok(api(hearth, "signInWithCustomToken", {"token": token, "returnSecureToken": True}))
    assert second["isNewUser"] is False


def test_custom_token_errors(hearth):
    now = int(time.time())
    wrong_audience = encode_jwt({"alg": "none", "typ": "JWT"}, {
        "iss": EMULATOR_SERVICE_ACCOUNT, "sub": EMULATOR_SERVICE_ACCOUNT, "aud": "https://example.com/wrong",
        "uid": unique_uid(), "iat": now, "exp": now + 3600})
    response = api(hearth, "signInWithCustomToken", {"token": wrong_audience})
    assert response.status_code == 400
    assert error_message(response).startswith("INVALID_CUSTOM_TOKEN")
    assert_error(api(hearth, "signInWithCustomToken", {"token": json.dumps({"uid": "x", "claims": {"sub": "y"}})}),
                 "FORBIDDEN_CLAIM : sub")
    assert_error(api(hearth, "signInWithCustomToken", {"token": json.dumps({"claims": {"a": 1}})}), "MISSING_IDENTIFIER")
    assert_error(api(hearth, "signInWithCustomToken", {}), "MISSING_CUSTOM_TOKEN")


def test_admin_sdk_style_unsigned_custom_token_is_accepted(hearth):
    uid = unique_uid("admin-style")
    now = int(time.time())
    token = encode_jwt({"alg": "none", "typ": "JWT"}, {
        "iss": EMULATOR_SERVICE_ACCOUNT, "sub": EMULATOR_SERVICE_ACCOUNT, "aud": CUSTOM_TOKEN_AUDIENCE,
        "uid": uid, "iat": now, "exp": now + 3600})
    assert token.endswith(".")
    body = ok(api(hearth, "signInWithCustomToken", {"token": token, "returnSecureToken": True}))
    assert lookup_by_token(hearth, body["idToken"])["localId"] == uid


def test_custom_token_response_has_no_local_id(hearth):
    uid = unique_uid("cu2")
    body = ok(api(hearth, "signInWithCustomToken", {"token": json.dumps({"uid": uid}), "returnSecureToken": True}))
    assert set(body) == {"kind", "isNewUser", "idToken", "refreshToken", "expiresIn"}
    assert_token_triple(body)
    assert lookup_by_token(hearth, body["idToken"])["localId"] == uid


# Lookup, update, delete

def test_lookup_by_id_token_formats(hearth):
    body = sign_up(hearth, unique_email())
    response = ok(api(hearth, "lookup", {"idToken": body["idToken"]}))
    assert response["kind"] == "identitytoolkit#GetAccountInfoResponse"
    assert len(response["users"]) == 1
    user = response["users"][0]
    assert user["localId"] == body["localId"]
    assert is_digit_string(user["createdAt"]) and is_digit_string(user["lastLoginAt"])
    assert RFC3339.match(user["lastRefreshAt"]), user["lastRefreshAt"]
    assert is_digit_string(user["validSince"])
    assert isinstance(user["passwordUpdatedAt"], int) and not isinstance(user["passwordUpdatedAt"], bool)
    assert user["passwordHash"]
    assert_error(api(hearth, "lookup", {}), "MISSING_ID_TOKEN")


def test_admin_lookup_without_matches_omits_users(hearth):
    body = ok(admin(hearth, "/accounts:lookup", {"email": [unique_email("NOBODY").upper()]}))
    assert "users" not in body
    email = unique_email("alice")
    alice = sign_up(hearth, email)
    both = ok(admin(hearth, "/accounts:lookup", {"email": [email.upper()], "localId": [alice["localId"]]}))
    assert [user["localId"] for user in both["users"]] == [alice["localId"]]


def test_profile_update_and_attribute_deletion(hearth):
    user = sign_up(hearth, unique_email())
    body = ok(api(hearth, "update", {"idToken": user["idToken"], "displayName": "B", "photoUrl": "http://p"}))
    assert body["kind"] == "identitytoolkit#SetAccountInfoResponse"
    assert body["displayName"] == "B" and body["photoUrl"] == "http://p"
    assert "idToken" not in body and "refreshToken" not in body
    cleared = ok(api(hearth, "update", {"idToken": user["idToken"], "deleteAttribute": ["DISPLAY_NAME", "PHOTO_URL"]}))
    assert "displayName" not in cleared and "photoUrl" not in cleared
    stored = lookup_by_token(hearth, user["idToken"])
    assert "displayName" not in stored and "photoUrl" not in stored


def test_password_change_revokes_older_tokens_and_returns_new_ones(hearth):
    email = unique_email()
    user = sign_up(hearth, email)
    time.sleep(1.1)
    body = ok(api(hearth, "update", {"idToken": user["idToken"], "password": "newpass1", "returnSecureToken": True}))
    assert_token_triple(body)
    assert_error(api(hearth, "lookup", {"idToken": user["idToken"]}), "TOKEN_EXPIRED")
    assert lookup_by_token(hearth, body["idToken"])["localId"] == user["localId"]
    assert_error(api(hearth, "signInWithPassword", {"email": email, "password": "secret1"}), "INVALID_PASSWORD")
    sign_in(hearth, email, "newpass1")


def test_password_change_returns_tokens_even_within_the_second_of_sign_up(hearth):
    # The tokens come with every change that sets validSince, also when its value (seconds) stays
    # the same; retried until sign-up and change fall within one second.
    for _ in range(3):
        user = sign_up(hearth, unique_email())
        body = ok(api(hearth, "update", {"idToken": user["idToken"], "password": "newpass1", "returnSecureToken": True}))
        if int(time.time()) == decode_jwt(user["idToken"])[1]["iat"]:
            break
    assert_token_triple(body)


def test_anonymous_user_gains_a_password_by_update_or_sign_up(hearth):
    anonymous = sign_up(hearth)
    body = ok(api(hearth, "update", {"idToken": anonymous["idToken"], "email": unique_email("n"), "password": "secret1",
                                     "returnSecureToken": True}))
    assert "password" in [entry["providerId"] for entry in body["providerUserInfo"]]
    assert decode_jwt(body["idToken"])[1]["firebase"]["sign_in_provider"] == "password"
    other = sign_up(hearth)
    linked = ok(api(hearth, "signUp", {"idToken": other["idToken"], "email": unique_email("m"), "password": "secret1",
                                       "returnSecureToken": True}))
    assert linked["localId"] == other["localId"]
    assert_token_triple(linked)
    assert decode_jwt(linked["idToken"])[1]["firebase"]["sign_in_provider"] == "password"


def test_update_refusals(hearth):
    taken = unique_email("taken")
    sign_up(hearth, taken)
    user = sign_up(hearth, unique_email())
    assert_error(api(hearth, "update", {"idToken": user["idToken"], "email": taken}), "EMAIL_EXISTS")
    assert_error(api(hearth, "update", {"displayName": "x"}), "INVALID_REQ_TYPE : Unsupported request parameters.")
    assert_error(api(hearth, "update", {"idToken": user["idToken"], "customAttributes": "{}"}), "INSUFFICIENT_PERMISSION")
    assert_error(admin(hearth, "/accounts:update", {}), "MISSING_LOCAL_ID")
    assert_error(api(hearth, "update", {"idToken": user["idToken"], "disableUser": True}), "OPERATION_NOT_ALLOWED")


def test_custom_attributes_reach_new_tokens_and_are_validated(hearth):
    email = unique_email()
    user = sign_up(hearth, email)
    uid = user["localId"]
    ok(admin(hearth, "/accounts:update", {"localId": uid, "customAttributes": json.dumps({"admin": True})}))
    assert decode_jwt(sign_in(hearth, email)["idToken"])[1]["admin"] is True
    assert decode_jwt(ok(refresh(hearth, user["refreshToken"]))["id_token"])[1]["admin"] is True
    assert_error(admin(hearth, "/accounts:update", {"localId": uid, "customAttributes": "{bad"}), "INVALID_CLAIMS")
    at_limit = json.dumps({"a": "x" * 992}, separators=(",", ":"))
    assert len(at_limit) == 1000
    ok(admin(hearth, "/accounts:update", {"localId": uid, "customAttributes": at_limit}))
    too_large = json.dumps({"a": "x" * 993}, separators=(",", ":"))
    assert len(too_large) == 1001
    assert_error(admin(hearth, "/accounts:update", {"localId": uid, "customAttributes": too_large}), "CLAIMS_TOO_LARGE")
    assert_error(admin(hearth, "/accounts:update", {"localId": uid, "customAttributes": '{"aud":1}'}),
                 "FORBIDDEN_CLAIM : aud")


def test_admin_revocation_by_valid_since(hearth):
    user = sign_up(hearth, unique_email())
    time.sleep(1.1)
    valid_since = str(int(time.time()))
    ok(admin(hearth, "/accounts:update", {"localId": user["localId"], "validSince": valid_since}))
    assert_error(api(hearth, "lookup", {"idToken": user["idToken"]}), "TOKEN_EXPIRED")
    assert lookup_by_uid(hearth, user["localId"])["validSince"] == valid_since


def test_delete_with_id_token(hearth):
    user = sign_up(hearth, unique_email())
    response = api(hearth, "delete", {"idToken": user["idToken"]})
    assert ok(response) == {"kind": "identitytoolkit#DeleteAccountResponse"}
    assert_error(api(hearth, "lookup", {"idToken": user["idToken"]}), "USER_NOT_FOUND")
    assert_error(refresh(hearth, user["refreshToken"]), "INVALID_REFRESH_TOKEN")


def test_delete_errors(hearth):
    assert_error(api(hearth, "delete", {"localId": "x"}), "MISSING_ID_TOKEN")
    assert_error(admin(hearth, "/accounts:delete", {"localId": unique_uid("nosuch")}), "USER_NOT_FOUND")


# Tokens

def test_refresh_form_encoded_and_json(hearth):
    user = sign_up(hearth, unique_email())
    body = ok(refresh(hearth, user["refreshToken"]))
    assert body["id_token"] and body["access_token"] == body["id_token"]
    assert body["refresh_token"]
    assert is_digit_string(body["expires_in"])
    assert body["token_type"] == "Bearer"
    assert body["user_id"] == user["localId"]
    assert body["project_id"] == "12345"
    as_json = ok(refresh(hearth, user["refreshToken"], as_json=True))
    assert as_json["user_id"] == user["localId"] and as_json["access_token"] == as_json["id_token"]


def test_development_refresh_token_is_the_emulator_format(hearth):
    user = sign_up(hearth, unique_email())
    session = json.loads(base64.b64decode(user["refreshToken"]))
    assert session["_AuthEmulatorRefreshToken"] == "DO NOT MODIFY"
    assert session["localId"] == user["localId"]
    assert session["provider"] == "password"
    assert session["projectId"] == PROJECT


def test_refresh_errors(hearth):
    valid = sign_up(hearth)["refreshToken"]
    assert_error(token_request(hearth, data={"refresh_token": valid}), "MISSING_GRANT_TYPE")
    assert_error(token_request(hearth, data={}), "MISSING_GRANT_TYPE")
    assert_error(token_request(hearth, data={"grant_type": "other", "refresh_token": valid}), "INVALID_GRANT_TYPE")
    assert_error(token_request(hearth, data={"grant_type": "refresh_token"}), "MISSING_REFRESH_TOKEN")
    assert_error(token_request(hearth, data={"grant_type": "refresh_token", "refresh_token": "malformedToken"}),
                 "INVALID_REFRESH_TOKEN")
    assert_error(token_request(hearth, data={"refresh_token": "malformedToken"}), "INVALID_REFRESH_TOKEN")


def test_refreshed_token_keeps_the_sign_in_time(hearth):
    email = unique_email()
    created = sign_up(hearth, email)
    signed_in = sign_in(hearth, email)
    time.sleep(1.1)
    refreshed = ok(refresh(hearth, signed_in["refreshToken"]))
    _, claims = decode_jwt(refreshed["id_token"])
    last_login = int(lookup_by_uid(hearth, created["localId"])["lastLoginAt"])
    assert claims["auth_time"] == last_login // 1000
    assert claims["iat"] > claims["auth_time"]
    assert claims["exp"] - claims["iat"] == 3600
    assert claims["iss"] == f"https://securetoken.google.com/{PROJECT}"
    assert claims["aud"] == PROJECT
    assert claims["sub"] == claims["user_id"] == created["localId"]
    header, _ = decode_jwt(refreshed["id_token"])
    assert header == {"alg": "none", "typ": "JWT"} and refreshed["id_token"].endswith(".")


def test_session_cookie(hearth):
    user = sign_up(hearth, unique_email())
    body = ok(admin(hearth, ":createSessionCookie", {"idToken": user["idToken"], "validDuration": "3600"}))
    _, claims = decode_jwt(body["sessionCookie"])
    assert claims["iss"] == f"https://session.firebase.google.com/{PROJECT}"
    assert claims["exp"] - claims["iat"] == 3600
    assert claims["sub"] == user["localId"]
    for duration in ("299", "1209601"):
        assert_error(admin(hearth, ":createSessionCookie", {"idToken": user["idToken"], "validDuration": duration}),
                     "INVALID_DURATION")
    assert_error(admin(hearth, ":createSessionCookie", {"validDuration": "3600"}), "MISSING_ID_TOKEN")
    default = ok(admin(hearth, ":createSessionCookie", {"idToken": user["idToken"]}))
    _, claims = decode_jwt(default["sessionCookie"])
    assert claims["exp"] - claims["iat"] == 1209600


# Action codes

def test_email_verification_code_is_listed_and_applied_once(hearth):
    email = unique_email()
    user = sign_up(hearth, email)
    body = ok(api(hearth, "sendOobCode", {"requestType": "VERIFY_EMAIL", "idToken": user["idToken"]}))
    assert body["kind"] == "identitytoolkit#GetOobConfirmationCodeResponse"
    assert body["email"] == email
    assert "oobCode" not in body and "oobLink" not in body
    [entry] = oob_codes(hearth, email, "VERIFY_EMAIL")
    assert set(entry) >= {"email", "requestType", "oobCode", "oobLink"}
    code = entry["oobCode"]
    assert entry["oobLink"].startswith(f"{hearth.url}/emulator/action?mode=verifyEmail&lang=en&oobCode={code}&apiKey=")
    applied = ok(api(hearth, "update", {"oobCode": code}))
    assert applied["emailVerified"] is True
    assert applied["email"] == email
    assert_error(api(hearth, "update", {"oobCode": code}), "INVALID_OOB_CODE")
    assert lookup_by_token(hearth, user["idToken"])["emailVerified"] is True


def test_action_links_carry_the_clients_language(hearth):
    email = unique_email()
    sign_up(hearth, email)
    for locale, expected in [("pt-BR", "pt-BR"), ("de", "de"), ("bad value!", "en")]:
        before = {code["oobLink"] for code in oob_codes(hearth, email, "PASSWORD_RESET")}
        ok(api(hearth, "sendOobCode", {"requestType": "PASSWORD_RESET", "email": email},
               headers={"X-Firebase-Locale": locale}))
        [link] = {code["oobLink"] for code in oob_codes(hearth, email, "PASSWORD_RESET")} - before
        assert urllib.parse.parse_qs(urllib.parse.urlsplit(link).query)["lang"] == [expected]


def test_password_reset_flow(hearth):
    assert_error(api(hearth, "sendOobCode", {"requestType": "PASSWORD_RESET", "email": unique_email("nobody")}),
                 "EMAIL_NOT_FOUND")
    email = unique_email()
    user = sign_up(hearth, email)
    ok(api(hearth, "sendOobCode", {"requestType": "PASSWORD_RESET", "email": email}))
    code = latest_oob_code(hearth, email, "PASSWORD_RESET")
    checked = ok(api(hearth, "resetPassword", {"oobCode": code}))
    assert checked["kind"] == "identitytoolkit#ResetPasswordResponse"
    assert checked["requestType"] == "PASSWORD_RESET" and checked["email"] == email
    assert_error(api(hearth, "resetPassword", {"oobCode": code, "newPassword": "abc"}), WEAK_PASSWORD)
    time.sleep(1.1)
    reset = ok(api(hearth, "resetPassword", {"oobCode": code, "newPassword": "newpass1"}))
    assert reset["email"] == email
    assert_error(api(hearth, "lookup", {"idToken": user["idToken"]}), "TOKEN_EXPIRED")
    assert_error(api(hearth, "resetPassword", {"oobCode": code, "newPassword": "newpass2"}), "INVALID_OOB_CODE")
    signed_in = sign_in(hearth, email, "newpass1")
    assert lookup_by_token(hearth, signed_in["idToken"])["emailVerified"] is True


def test_email_link_sign_in(hearth):
    email = unique_email("new")
    settings = {"continueUrl": "https://app.example/finish", "canHandleCodeInApp": True}
    ok(api(hearth, "sendOobCode", {"requestType": "EMAIL_SIGNIN", "email": email, **settings}))
    code = latest_oob_code(hearth, email, "EMAIL_SIGNIN")
    body = ok(api(hearth, "signInWithEmailLink", {"email": email, "oobCode": code}))
    assert body["kind"] == "identitytoolkit#EmailLinkSigninResponse"
    assert body["isNewUser"] is True and body["email"] == email and body["localId"]
    assert_token_triple(body)
    assert decode_jwt(body["idToken"])[1]["firebase"]["sign_in_provider"] == "password"
    uri = ok(api(hearth, "createAuthUri", {"identifier": email, "continueUri": "http://localhost"}))
    assert uri["signinMethods"] == ["emailLink"]
    ok(api(hearth, "sendOobCode", {"requestType": "EMAIL_SIGNIN", "email": email, **settings}))
    checked = ok(api(hearth, "resetPassword", {"oobCode": latest_oob_code(hearth, email, "EMAIL_SIGNIN")}))
    assert checked["requestType"] == "EMAIL_SIGNIN"
    assert "email" not in checked


def test_email_link_for_another_address_is_refused(hearth):
    email = unique_email()
    ok(api(hearth, "sendOobCode", {"requestType": "EMAIL_SIGNIN", "email": email,
                                   "continueUrl": "https://app.example/finish", "canHandleCodeInApp": True}))
    code = latest_oob_code(hearth, email, "EMAIL_SIGNIN")
    assert_error(api(hearth, "signInWithEmailLink", {"email": unique_email("other"), "oobCode": code}),
                 "INVALID_EMAIL : The email provided does not match the sign-in email address.")


def test_verify_and_change_email(hearth):
    taken = unique_email("taken")
    sign_up(hearth, taken)
    email = unique_email()
    user = sign_up(hearth, email)
    change = {"requestType": "VERIFY_AND_CHANGE_EMAIL", "idToken": user["idToken"]}
    assert_error(api(hearth, "sendOobCode", {**change, "newEmail": taken}), "EMAIL_EXISTS")
    assert_error(api(hearth, "sendOobCode", change), "MISSING_NEW_EMAIL")
    new_email = unique_email("changed")
    ok(api(hearth, "sendOobCode", {**change, "newEmail": new_email}))
    [entry] = oob_codes(hearth, email, "VERIFY_AND_CHANGE_EMAIL")
    assert entry["newEmail"] == new_email
    checked = ok(api(hearth, "resetPassword", {"oobCode": entry["oobCode"]}))
    assert checked["requestType"] == "VERIFY_AND_CHANGE_EMAIL" and checked["newEmail"] == new_email
    applied = ok(api(hearth, "update", {"oobCode": entry["oobCode"]}))
    assert applied["email"] == new_email
    stored = lookup_by_uid(hearth, user["localId"])
    assert stored["email"] == new_email and stored["emailVerified"] is True


def test_send_oob_code_request_errors(hearth):
    email = unique_email()
    sign_up(hearth, email)
    assert_error(api(hearth, "sendOobCode", {"requestType": "PASSWORD_RESET", "email": email, "returnOobLink": True}),
                 "INSUFFICIENT_PERMISSION")
    relative = api(hearth, "sendOobCode", {"requestType": "PASSWORD_RESET", "email": email, "continueUrl": "relative/path"})
    assert relative.status_code == 400
    assert error_message(relative).startswith("INVALID_CONTINUE_URI")
    assert_error(api(hearth, "sendOobCode", {"email": email}), "MISSING_REQ_TYPE")


def test_emulator_action_handler_resets_passwords(hearth):
    email = unique_email()
    sign_up(hearth, email)
    ok(api(hearth, "sendOobCode", {"requestType": "PASSWORD_RESET", "email": email}))
    code = latest_oob_code(hearth, email, "PASSWORD_RESET")
    missing = emulator_action(hearth, mode="resetPassword", oobCode=code, apiKey=API_KEY)
    assert missing.status_code == 400
    assert missing.json()["authEmulator"]["urlTemplate"].endswith("&newPassword=NEW_PASSWORD_HERE")
    placeholder = emulator_action(hearth, mode="resetPassword", oobCode=code, apiKey=API_KEY,
                                  newPassword="NEW_PASSWORD_HERE")
    assert placeholder.status_code == 400
    done = emulator_action(hearth, mode="resetPassword", oobCode=code, apiKey=API_KEY, newPassword="newpass2")
    assert done.status_code == 200, done.text
    assert done.json()["authEmulator"]["success"]
    sign_in(hearth, email, "newpass2")
    ok(api(hearth, "sendOobCode", {"requestType": "PASSWORD_RESET", "email": email}))
    code = latest_oob_code(hearth, email, "PASSWORD_RESET")
    redirected = emulator_action(hearth, mode="resetPassword", oobCode=code, apiKey=API_KEY, newPassword="newpass3",
                                 continueUrl="https://app.example/done")
    assert redirected.status_code == 303
    assert redirected.headers["Location"] == "https://app.example/done"
    sign_in(hearth, email, "newpass3")


def test_emulator_action_handler_redirects_sign_in_links(hearth):
    email = unique_email()
    ok(api(hearth, "sendOobCode", {"requestType": "EMAIL_SIGNIN", "email": email,
                                   "continueUrl": "https://app.example/x", "canHandleCodeInApp": True}))
    code = latest_oob_code(hearth, email, "EMAIL_SIGNIN")
    response = emulator_action(hearth, mode="signIn", oobCode=code, apiKey=API_KEY, continueUrl="https://app.example/x")
    assert response.status_code == 303
    location = urllib.parse.urlsplit(response.headers["Location"])
    assert f"{location.scheme}://{location.netloc}{location.path}" == "https://app.example/x"
    assert urllib.parse.parse_qs(location.query) == {"mode": ["signIn"], "oobCode": [code], "apiKey": [API_KEY]}


def test_admin_oob_link_keeps_the_continue_url_byte_exact(hearth):
    continue_url = "http://localhost?a=1&b=5#f=1"
    body = ok(api(hearth, "sendOobCode", {"requestType": "EMAIL_SIGNIN", "email": unique_email(), "returnOobLink": True,
                                          "continueUrl": continue_url, "canHandleCodeInApp": True},
                  key=None, headers=OWNER))
    query = urllib.parse.parse_qs(urllib.parse.urlsplit(body["oobLink"]).query)
    assert query["mode"] == ["signIn"]
    assert query["oobCode"] == [body["oobCode"]]
    assert query["apiKey"][0]
    assert query["continueUrl"] == [continue_url]


# createAuthUri

def test_create_auth_uri(hearth):
    nobody = ok(api(hearth, "createAuthUri", {"identifier": unique_email("nobody"), "continueUri": "http://localhost"}))
    assert nobody["kind"] == "identitytoolkit#CreateAuthUriResponse"
    assert nobody["registered"] is False
    assert nobody["allProviders"] == [] and nobody["signinMethods"] == []
    assert nobody["sessionId"]
    email = unique_email()
    sign_up(hearth, email)
    known = ok(api(hearth, "createAuthUri", {"identifier": email, "continueUri": "http://localhost",
                                             "sessionId": "my-session"}))
    assert known["registered"] is True
    assert known["allProviders"] == ["password"] and known["signinMethods"] == ["password"]
    assert known["sessionId"] == "my-session"
    assert_error(api(hearth, "createAuthUri", {"continueUri": "http://localhost"}), "MISSING_IDENTIFIER")
    assert_error(api(hearth, "createAuthUri", {"identifier": email}), "MISSING_CONTINUE_URI")
    assert_error(api(hearth, "createAuthUri", {"identifier": "x", "continueUri": "http://localhost"}),
                 "INVALID_IDENTIFIER")


# Admin bulk operations

def test_batch_create(hearth):
    assert_error(import_users(hearth, []), "MISSING_USER_ACCOUNT")
    first, second = unique_uid("a"), unique_uid("b")
    email = unique_email("a").upper()
    body = ok(import_users(hearth, [{"localId": first, "email": email},
                                     {"localId": second, "email": unique_email("b")}]))
    assert body["kind"] == "identitytoolkit#UploadAccountResponse"
    assert body.get("error", []) == []
    assert lookup_by_uid(hearth, first)["email"] == email.lower()


def test_batch_create_rejections(hearth):
    uid = unique_uid("a")
    assert_error(import_users(hearth, [{"localId": uid}, {"localId": uid}]), f"DUPLICATE_LOCAL_ID : {uid}")
    raw_id = unique_uid("dup")
    google = [{"providerId": "google.com", "rawId": raw_id}]
    response = admin(hearth, "/accounts:batchCreate", {"sanityCheck": True, "users": [
        {"localId": unique_uid(), "providerUserInfo": google}, {"localId": unique_uid(), "providerUserInfo": google}]})
    assert_error(response, f"DUPLICATE_RAW_ID : Provider id(google.com), Raw id({raw_id})")
    body = ok(import_users(hearth, [{"localId": unique_uid(), "email": unique_email()},
                                    {"localId": unique_uid(), "email": "not-an-email"}]))
    assert body["error"] == [{"index": 1, "message": "email is invalid"}]


@pytest.mark.parametrize("name", list(HASH_VECTORS))
def test_imported_password_hash_verifies_on_sign_in(hearth, name):
    hash_config, password, salt, password_hash = HASH_VECTORS[name]
    email = unique_email(name)
    user = {"localId": unique_uid(name), "email": email, "passwordHash": password_hash}
    if salt is not None:
        user["salt"] = salt
    body = ok(import_users(hearth, [user], **hash_config))
    assert body.get("error", []) == []
    signed_in = sign_in(hearth, email, password)
    assert signed_in["localId"] == user["localId"]
    assert_error(api(hearth, "signInWithPassword", {"email": email, "password": password + "x"}), "INVALID_PASSWORD")


def test_imported_provider_entries_carry_a_federated_id(hearth):
    uid, raw_id = unique_uid("i1"), unique_uid("gg1")
    ok(import_users(hearth, [{"localId": uid, "providerUserInfo": [{"providerId": "google.com", "rawId": raw_id}]}]))
    [entry] = [entry for entry in lookup_by_uid(hearth, uid)["providerUserInfo"] if entry["providerId"] == "google.com"]
    assert entry["rawId"] == raw_id and entry["federatedId"] == raw_id


def test_batch_delete(hearth):
    assert_error(admin(hearth, "/accounts:batchDelete", {"localIds": []}), "LOCAL_ID_LIST_EXCEEDS_LIMIT")
    assert_error(admin(hearth, "/accounts:batchDelete", {"localIds": [f"x{i}" for i in range(1001)]}),
                 "LOCAL_ID_LIST_EXCEEDS_LIMIT")
    uid = unique_uid()
    ok(import_users(hearth, [{"localId": uid}]))
    refused = ok(admin(hearth, "/accounts:batchDelete", {"localIds": [uid]}))
    assert refused["errors"] == [{"index": 0, "localId": uid,
                                  "message": "NOT_DISABLED : Disable the account before batch deletion."}]
    assert lookup_by_uid(hearth, uid) is not None
    assert ok(admin(hearth, "/accounts:batchDelete", {"localIds": [uid], "force": True})) == {}
    assert lookup_by_uid(hearth, uid) is None
    assert ok(admin(hearth, "/accounts:batchDelete", {"localIds": [unique_uid("nosuch")], "force": True})) == {}


def test_query_accounts(hearth):
    ok(import_users(hearth, [{"localId": unique_uid("q")}, {"localId": unique_uid("q")}]))
    count = ok(admin(hearth, "/accounts:query", {"returnUserInfo": False}))
    assert is_digit_string(count["recordsCount"]) and int(count["recordsCount"]) >= 2
    assert "userInfo" not in count
    for path in ("/accounts:query", ":queryAccounts"):
        body = ok(admin(hearth, path, {}))
        uids = [user["localId"] for user in body["userInfo"]]
        assert uids == sorted(uids)
        assert int(body["recordsCount"]) == len(uids)


# Emulator management (these two delete every account of the project)

def test_deleting_all_accounts_keeps_action_codes(hearth):
    email = unique_email()
    sign_up(hearth, email)
    ok(api(hearth, "sendOobCode", {"requestType": "PASSWORD_RESET", "email": email}))
    code = latest_oob_code(hearth, email, "PASSWORD_RESET")
    assert ok(emulator(hearth, "DELETE", "/accounts")) == {}
    listed = ok(admin(hearth, "/accounts:batchGet", method="GET", params={"maxResults": 100}))
    assert listed.get("users", []) == []
    assert code in [entry["oobCode"] for entry in oob_codes(hearth)]


def test_batch_get_pages_in_local_id_order(hearth):
    ok(emulator(hearth, "DELETE", "/accounts"))
    uids = sorted([unique_uid("p"), unique_uid("p")])
    ok(import_users(hearth, [{"localId": uids[1]}, {"localId": uids[0]}]))
    page = ok(admin(hearth, "/accounts:batchGet", method="GET", params={"maxResults": 2}))
    assert page["kind"] == "identitytoolkit#DownloadAccountResponse"
    assert [user["localId"] for user in page["users"]] == uids
    assert page["nextPageToken"]
    last = ok(admin(hearth, "/accounts:batchGet", method="GET",
                    params={"maxResults": 2, "nextPageToken": page["nextPageToken"]}))
    assert last.get("users", []) == []
    assert "nextPageToken" not in last


def test_emulator_config_patch_changes_only_the_given_field(hearth):
    config = ok(emulator(hearth, "GET", "/config"))
    assert config["signIn"] == {"allowDuplicateEmails": False}
    assert config["emailPrivacyConfig"] == {"enableImprovedEmailPrivacy": False}
    try:
        patched = ok(emulator(hearth, "PATCH", "/config", {"signIn": {"allowDuplicateEmails": True}}))
        assert patched["signIn"] == {"allowDuplicateEmails": True}
        assert patched["emailPrivacyConfig"] == {"enableImprovedEmailPrivacy": False}
        assert ok(emulator(hearth, "GET", "/config"))["signIn"] == {"allowDuplicateEmails": True}
    finally:
        ok(emulator(hearth, "PATCH", "/config", {"signIn": {"allowDuplicateEmails": False}}))


# Response hygiene

def test_successful_responses_never_carry_need_confirmation_or_error_message(hearth):
    email = unique_email()
    created = sign_up(hearth, email)
    ok(api(hearth, "sendOobCode", {"requestType": "PASSWORD_RESET", "email": email}))
    reset_code = latest_oob_code(hearth, email, "PASSWORD_RESET")
    link_email = unique_email("link")
    link = {"requestType": "EMAIL_SIGNIN", "email": link_email, "continueUrl": "https://app.example/x",
            "canHandleCodeInApp": True}
    responses = [
        created,
        sign_in(hearth, email),
        sign_up(hearth),
        ok(api(hearth, "lookup", {"idToken": created["idToken"]})),
        ok(api(hearth, "update", {"idToken": created["idToken"], "displayName": "N"})),
        ok(api(hearth, "createAuthUri", {"identifier": email, "continueUri": "http://localhost"})),
        ok(api(hearth, "resetPassword", {"oobCode": reset_code})),
        ok(api(hearth, "sendOobCode", link)),
        ok(api(hearth, "signInWithEmailLink", {"email": link_email,
                                                "oobCode": latest_oob_code(hearth, link_email, "EMAIL_SIGNIN")})),
        ok(api(hearth, "signInWithCustomToken", {"token": json.dumps({"uid": unique_uid()}), "returnSecureToken": True})),
        ok(refresh(hearth, created["refreshToken"])),
        ok(admin(hearth, "/accounts:lookup", {"localId": [created["localId"]]})),
    ]
    for body in responses:
        assert "needConfirmation" not in body, body
        assert "errorMessage" not in body, body
