"""Requests exactly as the Firebase JS SDK (v1 REST names, compact JSON, form-encoded token refresh,
`Content-Type: application/json` even on GETs) and the iOS SDK (legacy relying-party names, JSON with
escaped slashes, JSON token refresh, body-less GETs) send them in emulator mode, checking the
response fields each client reads, and the browser's CORS preflight."""

import json
import urllib.parse

from auth_client import (
    IDENTITY_TOOLKIT, SECURE_TOKEN, api, decode_jwt, latest_oob_code, legacy, ok, oob_codes, request, token_request,
    unique_email, unique_uid,
)

JS_HEADERS = {
    "Content-Type": "application/json",
    "X-Client-Version": "Chrome/JsCore/11.0.1/FirebaseCore-web",
    "X-Firebase-gmpid": "1:1234567890:web:0a1b2c3d4e5f6a7b",
}
IOS_HEADERS = {
    "Content-Type": "application/json",
    "X-Client-Version": "iOS/FirebaseSDK/11.5.0/FirebaseCore-iOS",
    "X-Ios-Bundle-Identifier": "com.example.app",
    "X-Firebase-GMPID": "1:1234567890:ios:0a1b2c3d4e5f6a7b",
    "X-Firebase-Locale": "en",
}
CLIENT_HEADERS = ["Content-Type", "X-Client-Version", "X-Firebase-gmpid", "X-Firebase-Client", "X-Firebase-AppCheck",
                  "X-Firebase-Locale", "Authorization", "X-Goog-Api-Key"]


def js(hearth, op, body):
    """A JS SDK call: `JSON.stringify` of the request to the v1 `accounts:` endpoint."""
    return api(hearth, op, data=json.dumps(body, separators=(",", ":")), headers=JS_HEADERS)


def ios(hearth, name, body):
    """An iOS SDK call: `JSONSerialization` output (compact, `/` escaped as `\\/`) to a legacy name."""
    return legacy(hearth, name, data=json.dumps(body, separators=(",", ":")).replace("/", "\\/"), headers=IOS_HEADERS)


def js_refresh(hearth, refresh_token):
    encoded = urllib.parse.quote(refresh_token, safe="-_.!~*'()")
    return token_request(hearth, data=f"grant_type=refresh_token&refresh_token={encoded}", headers={
        "Content-Type": "application/x-www-form-urlencoded", "X-Client-Version": JS_HEADERS["X-Client-Version"]})


def ios_refresh(hearth, refresh_token):
    return token_request(hearth, data=json.dumps({"grantType": "refresh_token", "refreshToken": refresh_token},
                                                 separators=(",", ":")), headers=IOS_HEADERS)


def assert_js_sign_in_response(body):
    """What `StsTokenManager.updateFromServerResponse` and `_performFetchWithErrorHandling` need."""
    assert body["idToken"] and body["refreshToken"] and body["expiresIn"] == "3600"
    assert "needConfirmation" not in body and "errorMessage" not in body


def assert_ios_token_response(body):
    """iOS reads `expiresIn` only as a string."""
    assert body["idToken"] and body["refreshToken"]
    assert isinstance(body["expiresIn"], str) and body["expiresIn"].isdigit()


def assert_ios_account_info(body):
    """`GetAccountInfoResponse`: exactly one user, dates as strings, provider entries with
    `providerId` and `federatedId` (iOS takes the provider uid from `federatedId`)."""
    assert len(body["users"]) == 1
    user = body["users"][0]
    assert user["localId"]
    assert isinstance(user["createdAt"], str) and user["createdAt"].isdigit()
    assert isinstance(user["lastLoginAt"], str) and user["lastLoginAt"].isdigit()
    for entry in user.get("providerUserInfo", []):
        assert entry["providerId"] and entry["federatedId"]
    return user


# JS SDK

def test_js_sign_in_anonymously(hearth):
    body = ok(js(hearth, "signUp", {"returnSecureToken": True}))
    assert body["kind"] == "identitytoolkit#SignupNewUserResponse"
    assert_js_sign_in_response(body)
    user = ok(js(hearth, "lookup", {"idToken": body["idToken"]}))["users"][0]
    assert user["localId"] == body["localId"]
    assert "passwordHash" not in user and not user.get("providerUserInfo")


def test_js_create_user_and_reload(hearth):
    email = unique_email()
    body = ok(js(hearth, "signUp", {"returnSecureToken": True, "email": email, "password": "secret1",
                                    "clientType": "CLIENT_TYPE_WEB"}))
    assert body["kind"] == "identitytoolkit#SignupNewUserResponse"
    assert body["localId"] and body["email"] == email
    assert_js_sign_in_response(body)
    user = ok(js(hearth, "lookup", {"idToken": body["idToken"]}))["users"][0]
    assert user["email"] == email and user["passwordHash"]
    assert [entry["rawId"] for entry in user["providerUserInfo"]] == [email]
    assert user["createdAt"].isdigit() and user["lastLoginAt"].isdigit()


def test_js_sign_in_with_email_and_password(hearth):
    email = unique_email()
    ok(js(hearth, "signUp", {"returnSecureToken": True, "email": email, "password": "secret1",
                             "clientType": "CLIENT_TYPE_WEB"}))
    body = ok(js(hearth, "signInWithPassword", {"returnSecureToken": True, "email": email, "password": "secret1",
                                                "clientType": "CLIENT_TYPE_WEB"}))
    assert body["localId"] and body["email"] == email
    assert_js_sign_in_response(body)


def test_js_token_refresh_is_form_encoded(hearth):
    user = ok(js(hearth, "signUp", {"returnSecureToken": True}))
    response = js_refresh(hearth, user["refreshToken"])
    body = ok(response)
    assert body["access_token"] and body["access_token"] == body["id_token"]
    assert body["expires_in"] == "3600" and body["refresh_token"]
    assert decode_jwt(body["access_token"])[1]["user_id"] == user["localId"]
    assert ok(js(hearth, "lookup", {"idToken": body["access_token"]}))["users"][0]["localId"] == user["localId"]


def test_js_get_project_config_is_a_get_with_a_json_content_type(hearth):
    response = request(hearth, "GET", f"{IDENTITY_TOOLKIT}/v1/projects", headers=JS_HEADERS)
    body = ok(response)
    assert body["projectId"] == "12345"
    assert "localhost" in body["authorizedDomains"]


def test_js_update_profile_and_null_display_name(hearth):
    user = ok(js(hearth, "signUp", {"returnSecureToken": True, "email": unique_email(), "password": "secret1"}))
    body = ok(js(hearth, "update", {"idToken": user["idToken"], "displayName": "Ada", "photoUrl": "https://x/p.png",
                                    "returnSecureToken": True}))
    assert body["displayName"] == "Ada" and body["photoUrl"] == "https://x/p.png"
    assert "needConfirmation" not in body and "errorMessage" not in body
    ok(js(hearth, "update", {"idToken": user["idToken"], "displayName": None, "returnSecureToken": True}))
    assert ok(js(hearth, "lookup", {"idToken": user["idToken"]}))["users"][0]["displayName"] == "Ada"


def test_js_update_password_returns_tokens_the_client_adopts(hearth):
    user = ok(js(hearth, "signUp", {"returnSecureToken": True, "email": unique_email(), "password": "secret1"}))
    body = ok(js(hearth, "update", {"idToken": user["idToken"], "password": "newpass1", "returnSecureToken": True}))
    assert_js_sign_in_response(body)
    assert ok(js(hearth, "lookup", {"idToken": body["idToken"]}))["users"][0]["localId"] == user["localId"]
    assert ok(js_refresh(hearth, body["refreshToken"]))["user_id"] == user["localId"]


def test_js_link_email_credential_to_anonymous_user(hearth):
    anonymous = ok(js(hearth, "signUp", {"returnSecureToken": True}))
    email = unique_email()
    body = ok(js(hearth, "signUp", {"idToken": anonymous["idToken"], "returnSecureToken": True, "email": email,
                                    "password": "secret1", "clientType": "CLIENT_TYPE_WEB"}))
    assert body["localId"] == anonymous["localId"]
    assert_js_sign_in_response(body)
    user = ok(js(hearth, "lookup", {"idToken": body["idToken"]}))["users"][0]
    # The JS SDK keeps `isAnonymous` unless email && passwordHash, or providerUserInfo, are present.
    assert user["email"] == email and user["passwordHash"] and user["providerUserInfo"]


def test_js_password_reset_flow(hearth):
    email = unique_email()
    ok(js(hearth, "signUp", {"returnSecureToken": True, "email": email, "password": "secret1"}))
    sent = ok(js(hearth, "sendOobCode", {"requestType": "PASSWORD_RESET", "email": email, "clientType": "CLIENT_TYPE_WEB"}))
    assert sent["email"] == email
    code = latest_oob_code(hearth, email, "PASSWORD_RESET")
    checked = ok(js(hearth, "resetPassword", {"oobCode": code}))
    assert checked["requestType"] == "PASSWORD_RESET" and checked["email"] == email
    ok(js(hearth, "resetPassword", {"oobCode": code, "newPassword": "newpass1"}))
    assert_js_sign_in_response(ok(js(hearth, "signInWithPassword", {
        "returnSecureToken": True, "email": email, "password": "newpass1", "clientType": "CLIENT_TYPE_WEB"})))


def test_js_email_verification(hearth):
    email = unique_email()
    user = ok(js(hearth, "signUp", {"returnSecureToken": True, "email": email, "password": "secret1"}))
    sent = ok(js(hearth, "sendOobCode", {"requestType": "VERIFY_EMAIL", "idToken": user["idToken"]}))
    assert sent["email"] == email
    code = latest_oob_code(hearth, email, "VERIFY_EMAIL")
    ok(js(hearth, "update", {"oobCode": code}))
    assert ok(js(hearth, "lookup", {"idToken": user["idToken"]}))["users"][0]["emailVerified"] is True


def test_js_email_link_sign_in(hearth):
    email = unique_email()
    ok(js(hearth, "sendOobCode", {"requestType": "EMAIL_SIGNIN", "email": email, "clientType": "CLIENT_TYPE_WEB",
                                  "continueUrl": "http://localhost:5173/finish", "canHandleCodeInApp": True}))
    code = latest_oob_code(hearth, email, "EMAIL_SIGNIN")
    [entry] = [entry for entry in oob_codes(hearth, email) if entry["oobCode"] == code]
    # `isSignInWithEmailLink` needs apiKey, oobCode and mode=signIn in the link.
    query = urllib.parse.parse_qs(urllib.parse.urlsplit(entry["oobLink"]).query)
    assert query["mode"] == ["signIn"] and query["oobCode"] == [code] and query["apiKey"][0]
    body = ok(js(hearth, "signInWithEmailLink", {"email": email, "oobCode": code}))
    assert body["localId"] and body["email"] == email
    assert_js_sign_in_response(body)


def test_js_fetch_sign_in_methods(hearth):
    email = unique_email()
    ok(js(hearth, "signUp", {"returnSecureToken": True, "email": email, "password": "secret1"}))
    body = ok(js(hearth, "createAuthUri", {"identifier": email, "continueUri": "http://localhost:5173/"}))
    assert body["signinMethods"] == ["password"]


def test_js_sign_in_with_custom_token_then_reload(hearth):
    uid = unique_uid("js")
    body = ok(js(hearth, "signInWithCustomToken", {"token": json.dumps({"uid": uid}), "returnSecureToken": True}))
    assert_js_sign_in_response(body)
    assert ok(js(hearth, "lookup", {"idToken": body["idToken"]}))["users"][0]["localId"] == uid


def test_js_delete_user(hearth):
    user = ok(js(hearth, "signUp", {"returnSecureToken": True}))
    assert ok(js(hearth, "delete", {"idToken": user["idToken"]}))["kind"] == "identitytoolkit#DeleteAccountResponse"


def test_js_error_message_splits_on_space_colon_space(hearth):
    response = js(hearth, "signUp", {"returnSecureToken": True, "email": unique_email(), "password": "123"})
    assert response.status_code == 400
    code, detail = response.json()["error"]["message"].split(" : ", 1)
    assert code == "WEAK_PASSWORD" and detail == "Password should be at least 6 characters"


# iOS SDK

def test_ios_sign_in_anonymously(hearth):
    body = ok(ios(hearth, "signupNewUser", {"returnSecureToken": True}))
    assert_ios_token_response(body)
    assert body["localId"]
    assert_ios_account_info(ok(ios(hearth, "getAccountInfo", {"idToken": body["idToken"]})))


def test_ios_create_user_sign_in_and_get_account_info(hearth):
    email = unique_email()
    created = ok(ios(hearth, "signupNewUser", {"email": email, "password": "secret1", "returnSecureToken": True,
                                               "clientType": "CLIENT_TYPE_IOS"}))
    assert_ios_token_response(created)
    body = ok(ios(hearth, "verifyPassword", {"email": email, "password": "secret1", "returnSecureToken": True}))
    assert_ios_token_response(body)
    assert body["localId"] == created["localId"] and body["email"] == email
    user = assert_ios_account_info(ok(ios(hearth, "getAccountInfo", {"idToken": body["idToken"]})))
    assert user["email"] == email and user["emailVerified"] is False
    [entry] = user["providerUserInfo"]
    assert entry["providerId"] == "password" and entry["federatedId"] == email


def test_ios_set_account_info(hearth):
    email = unique_email()
    user = ok(ios(hearth, "signupNewUser", {"email": email, "password": "secret1", "returnSecureToken": True}))
    profile = ok(ios(hearth, "setAccountInfo", {"idToken": user["idToken"], "displayName": "Ada",
                                                "photoUrl": "https://x/p.png", "returnSecureToken": True}))
    assert profile["displayName"] == "Ada" and profile["photoUrl"] == "https://x/p.png"
    assert profile["email"] == email
    cleared = ok(ios(hearth, "setAccountInfo", {"idToken": user["idToken"], "deleteAttribute": ["DISPLAY_NAME"],
                                                "returnSecureToken": True}))
    assert "displayName" not in cleared
    password = ok(ios(hearth, "setAccountInfo", {"idToken": user["idToken"], "password": "newpass1",
                                                 "returnSecureToken": True}))
    assert_ios_token_response(password)
    assert_ios_account_info(ok(ios(hearth, "getAccountInfo", {"idToken": password["idToken"]})))


def test_ios_password_reset_with_out_of_band_code(hearth):
    email = unique_email()
    ok(ios(hearth, "signupNewUser", {"email": email, "password": "secret1", "returnSecureToken": True}))
    ok(ios(hearth, "getOobConfirmationCode", {"requestType": "PASSWORD_RESET", "email": email,
                                              "clientType": "CLIENT_TYPE_IOS"}))
    code = latest_oob_code(hearth, email, "PASSWORD_RESET")
    checked = ok(ios(hearth, "resetPassword", {"oobCode": code}))
    assert checked["requestType"] == "PASSWORD_RESET" and checked["email"] == email
    reset = ok(ios(hearth, "resetPassword", {"oobCode": code, "newPassword": "newpass1"}))
    assert reset["email"] == email
    assert_ios_token_response(ok(ios(hearth, "verifyPassword", {"email": email, "password": "newpass1",
                                                                "returnSecureToken": True})))


def test_ios_email_verification(hearth):
    email = unique_email()
    user = ok(ios(hearth, "signupNewUser", {"email": email, "password": "secret1", "returnSecureToken": True}))
    ok(ios(hearth, "getOobConfirmationCode", {"requestType": "VERIFY_EMAIL", "idToken": user["idToken"]}))
    code = latest_oob_code(hearth, email, "VERIFY_EMAIL")
    applied = ok(ios(hearth, "setAccountInfo", {"oobCode": code}))
    assert applied["email"] == email
    account = assert_ios_account_info(ok(ios(hearth, "getAccountInfo", {"idToken": user["idToken"]})))
    assert account["emailVerified"] is True


def test_ios_email_link_sign_in(hearth):
    email = unique_email()
    ok(ios(hearth, "getOobConfirmationCode", {"requestType": "EMAIL_SIGNIN", "email": email,
                                              "continueUrl": "https://app.example/finish", "iOSBundleId": "com.example.app",
                                              "canHandleCodeInApp": True, "clientType": "CLIENT_TYPE_IOS"}))
    code = latest_oob_code(hearth, email, "EMAIL_SIGNIN")
    body = ok(ios(hearth, "emailLinkSignin", {"email": email, "oobCode": code}))
    assert_ios_token_response(body)
    assert body["email"] == email and body["isNewUser"] is True
    assert_ios_account_info(ok(ios(hearth, "getAccountInfo", {"idToken": body["idToken"]})))


def test_ios_fetch_sign_in_methods(hearth):
    email = unique_email()
    ok(ios(hearth, "signupNewUser", {"email": email, "password": "secret1", "returnSecureToken": True}))
    body = ok(ios(hearth, "createAuthUri", {"identifier": email, "continueUri": "http://www.google.com/"}))
    assert body["registered"] is True and body["signinMethods"] == ["password"]


def test_ios_sign_in_with_custom_token(hearth):
    uid = unique_uid("ios")
    body = ok(ios(hearth, "verifyCustomToken", {"token": json.dumps({"uid": uid}), "returnSecureToken": True}))
    assert_ios_token_response(body)
    assert body["isNewUser"] is True
    assert assert_ios_account_info(ok(ios(hearth, "getAccountInfo", {"idToken": body["idToken"]})))["localId"] == uid


def test_ios_get_project_config_is_a_get_without_body(hearth):
    body = ok(legacy(hearth, "getProjectConfig", method="GET", headers=IOS_HEADERS))
    assert body["projectId"] == "12345"
    assert "localhost" in body["authorizedDomains"]


def test_ios_token_refresh_is_json(hearth):
    user = ok(ios(hearth, "signupNewUser", {"returnSecureToken": True}))
    body = ok(ios_refresh(hearth, user["refreshToken"]))
    assert body["access_token"] and body["access_token"] == body["id_token"]
    assert isinstance(body["expires_in"], str) and body["expires_in"].isdigit()
    assert body["refresh_token"]
    # The refreshed token must carry what `getIDTokenResult` requires.
    _, claims = decode_jwt(body["access_token"])
    assert all(isinstance(claims[name], int) for name in ("exp", "iat", "auth_time"))
    assert isinstance(claims["firebase"]["sign_in_provider"], str)


def test_ios_delete_account_sends_the_local_id_too(hearth):
    user = ok(ios(hearth, "signupNewUser", {"returnSecureToken": True}))
    ok(ios(hearth, "deleteAccount", {"idToken": user["idToken"], "localId": user["localId"]}))
    response = ios(hearth, "getAccountInfo", {"idToken": user["idToken"]})
    assert response.status_code == 400 and response.json()["error"]["message"] == "USER_NOT_FOUND"


# Browsers

def test_cors_preflight_of_a_browser_sign_up(hearth):
    for path in (f"{IDENTITY_TOOLKIT}/v1/accounts:signUp", SECURE_TOKEN):
        response = request(hearth, "OPTIONS", path, headers={
            "Origin": "http://localhost:5173", "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": ",".join(name.lower() for name in CLIENT_HEADERS),
            "Access-Control-Request-Private-Network": "true"})
        assert response.status_code == 204, path
        assert response.headers["Access-Control-Allow-Origin"] == "http://localhost:5173"
        allowed = response.headers["Access-Control-Allow-Headers"].lower()
        for name in CLIENT_HEADERS:
            assert name.lower() in allowed, name
        assert response.headers["Access-Control-Allow-Private-Network"] == "true"


def test_cors_headers_on_browser_requests(hearth):
    origin = {"Origin": "http://localhost:5173"}
    response = api(hearth, "signUp", data='{"returnSecureToken":true}', headers={**JS_HEADERS, **origin})
    body = ok(response)
    assert response.headers["Access-Control-Allow-Origin"] == "http://localhost:5173"
    refreshed = token_request(hearth, data={"grant_type": "refresh_token", "refresh_token": body["refreshToken"]},
                              headers=origin)
    assert refreshed.status_code == 200
    assert refreshed.headers["Access-Control-Allow-Origin"] == "http://localhost:5173"
