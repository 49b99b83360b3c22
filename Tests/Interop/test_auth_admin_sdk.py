"""The Python Admin SDK's `firebase_admin.auth`, used unchanged through FIREBASE_AUTH_EMULATOR_HOST:
user management, custom claims, revocation, listing, bulk deletion, imports with every supported
password hash (verified afterwards by a REST sign-in), action links, custom tokens and session
cookies."""

import base64
import datetime
import time
import urllib.parse
import uuid

import pytest
from firebase_admin import auth

from auth_client import (
    HASH_VECTORS, SCRYPT_KEY_A, admin_auth_app, api, decode_jwt, error_message, legacy, ok, refresh, sign_in, sign_up, unique_email,
    unique_uid,
)
from conftest import PROJECT

@pytest.fixture(scope="module")
def app(hearth):
    with admin_auth_app(hearth, "auth-interop") as auth_app:
        yield auth_app


def unique_phone():
    return f"+1555{uuid.uuid4().int % 10_000_000:07d}"


def link_query(link):
    return {name: values[0] for name, values in urllib.parse.parse_qs(urllib.parse.urlsplit(link).query).items()}


def test_create_user_with_every_field_and_get_it_back(hearth, app):
    uid, email, phone = unique_uid("admin"), unique_email(), unique_phone()
    created = auth.create_user(uid=uid, email=email, email_verified=True, phone_number=phone, password="secret1",
                               display_name="Ada", photo_url="https://example.com/ada.png", disabled=False, app=app)
    for user in (created, auth.get_user(uid, app=app), auth.get_user_by_email(email, app=app),
                 auth.get_user_by_phone_number(phone, app=app)):
        assert user.uid == uid
        assert user.email == email and user.email_verified is True
        assert user.phone_number == phone
        assert user.display_name == "Ada" and user.photo_url == "https://example.com/ada.png"
        assert user.disabled is False
        assert user.user_metadata.creation_timestamp > 0
        assert user.user_metadata.last_sign_in_timestamp is None
        assert user.custom_claims is None
        assert {(info.provider_id, info.uid) for info in user.provider_data} == {("password", email), ("phone", phone)}
    sign_in(hearth, email)
    assert auth.get_user(uid, app=app).user_metadata.last_sign_in_timestamp > 0
    with pytest.raises(auth.EmailAlreadyExistsError):
        auth.create_user(email=email, app=app)
    with pytest.raises(auth.UidAlreadyExistsError):
        auth.create_user(uid=uid, app=app)


def test_lookups_of_unknown_users(app):
    with pytest.raises(auth.UserNotFoundError):
        auth.get_user_by_email(unique_email("nobody"), app=app)
    with pytest.raises(auth.UserNotFoundError):
        auth.get_user(unique_uid("nobody"), app=app)
    with pytest.raises(auth.UserNotFoundError):
        auth.get_user_by_phone_number(unique_phone(), app=app)


def test_get_users_by_several_identifiers(app):
    uid, email, phone = unique_uid("many"), unique_email(), unique_phone()
    auth.create_user(uid=uid, email=email, phone_number=phone, app=app)
    other = auth.create_user(email=unique_email(), app=app)
    missing = auth.UidIdentifier(unique_uid("nobody"))
    result = auth.get_users([auth.UidIdentifier(uid), auth.EmailIdentifier(email), auth.PhoneIdentifier(phone),
                             auth.UidIdentifier(other.uid), missing], app=app)
    assert sorted(user.uid for user in result.users) == sorted([uid, other.uid])
    assert [identifier.uid for identifier in result.not_found] == [missing.uid]


def test_update_user_deletes_attributes_and_disables(hearth, app):
    uid = unique_uid("upd")
    auth.create_user(uid=uid, email=unique_email(), display_name="Ada", photo_url="https://example.com/p.png",
                     phone_number=unique_phone(), app=app)
    user = auth.update_user(uid, display_name=auth.DELETE_ATTRIBUTE, photo_url=auth.DELETE_ATTRIBUTE,
                            phone_number=auth.DELETE_ATTRIBUTE, disabled=True, app=app)
    assert user.display_name is None and user.photo_url is None and user.phone_number is None
    assert user.disabled is True
    assert user.provider_data == []
    new_email = unique_email("changed")
    user = auth.update_user(uid, email=new_email, email_verified=True, disabled=False, password="newpass1", app=app)
    assert user.email == new_email and user.email_verified is True and user.disabled is False
    assert sign_in(hearth, new_email, "newpass1")["localId"] == uid
    with pytest.raises(auth.UserNotFoundError):
        auth.update_user(unique_uid("nobody"), display_name="x", app=app)


def test_custom_claims_appear_in_a_fresh_id_token(hearth, app):
    email = unique_email()
    uid = sign_up(hearth, email)["localId"]
    auth.set_custom_user_claims(uid, {"admin": True, "level": 5}, app=app)
    assert auth.get_user(uid, app=app).custom_claims == {"admin": True, "level": 5}
    token = sign_in(hearth, email)["idToken"]
    claims = auth.verify_id_token(token, app=app)
    assert claims["admin"] is True and claims["level"] == 5 and claims["uid"] == uid
    auth.set_custom_user_claims(uid, None, app=app)
    assert auth.get_user(uid, app=app).custom_claims is None
    assert "admin" not in decode_jwt(sign_in(hearth, email)["idToken"])[1]


def test_revoked_tokens_and_session_cookies_fail_the_revocation_check(hearth, app):
    email = unique_email()
    signed_in = sign_up(hearth, email)
    uid, token = signed_in["localId"], signed_in["idToken"]
    cookie = auth.create_session_cookie(token, expires_in=datetime.timedelta(days=5), app=app)
    assert auth.verify_id_token(token, check_revoked=True, app=app)["uid"] == uid
    time.sleep(1.1)
    auth.revoke_refresh_tokens(uid, app=app)
    user = auth.get_user(uid, app=app)
    assert user.tokens_valid_after_timestamp >= (int(time.time()) - 5) * 1000
    with pytest.raises(auth.RevokedIdTokenError):
        auth.verify_id_token(token, check_revoked=True, app=app)
    with pytest.raises(auth.RevokedSessionCookieError):
        auth.verify_session_cookie(cookie, check_revoked=True, app=app)
    assert auth.verify_id_token(token, app=app)["uid"] == uid
    fresh = sign_in(hearth, email)["idToken"]
    assert auth.verify_id_token(fresh, check_revoked=True, app=app)["uid"] == uid


def test_revoked_refresh_tokens_mint_no_more_id_tokens(hearth, app):
    # Development data lasts, unlike the emulator's: a revoked session stays revoked in both modes.
    email = unique_email()
    signed_in = sign_up(hearth, email)
    old_session = signed_in["refreshToken"]
    assert ok(refresh(hearth, old_session))["user_id"] == signed_in["localId"]
    time.sleep(1.1)
    auth.revoke_refresh_tokens(signed_in["localId"], app=app)
    refused = refresh(hearth, old_session)
    assert refused.status_code == 400 and error_message(refused) == "TOKEN_EXPIRED"
    # A session begun after the revocation works.
    assert ok(refresh(hearth, sign_in(hearth, email)["refreshToken"]))["user_id"] == signed_in["localId"]


def test_disabled_user_fails_the_revocation_check(hearth, app):
    signed_in = sign_up(hearth, unique_email())
    auth.update_user(signed_in["localId"], disabled=True, app=app)
    with pytest.raises(auth.UserDisabledError):
        auth.verify_id_token(signed_in["idToken"], check_revoked=True, app=app)


def test_list_users_pages_and_iterates_everything(app):
    uids = [auth.create_user(uid=unique_uid("list"), app=app).uid for _ in range(3)]
    page = auth.list_users(max_results=2, app=app)
    assert len(page.users) == 2
    assert page.has_next_page and page.next_page_token
    second = page.get_next_page()
    assert second is not None and second.users
    assert [user.uid for user in second.users][0] > page.users[-1].uid
    everyone = [user.uid for user in auth.list_users(max_results=2, app=app).iterate_all()]
    assert everyone == sorted(everyone)
    assert set(uids) <= set(everyone)


def test_delete_user_and_delete_users(app):
    uid = auth.create_user(app=app).uid
    auth.delete_user(uid, app=app)
    with pytest.raises(auth.UserNotFoundError):
        auth.get_user(uid, app=app)
    with pytest.raises(auth.UserNotFoundError):
        auth.delete_user(uid, app=app)
    uids = [auth.create_user(app=app).uid, auth.create_user(app=app).uid, unique_uid("nobody")]
    result = auth.delete_users(uids, app=app)
    assert result.success_count == 3 and result.failure_count == 0 and result.errors == []
    assert auth.get_users([auth.UidIdentifier(uid) for uid in uids], app=app).users == []


SDK_HASHES = {
    "scrypt-A3": lambda: auth.UserImportHash.scrypt(key=base64.b64decode(SCRYPT_KEY_A), rounds=8, memory_cost=14,
                                                    salt_separator=b"\x07"),
    "hmac-sha256": lambda: auth.UserImportHash.hmac_sha256(key=b"secret"),
    "sha256": lambda: auth.UserImportHash.sha256(rounds=1),
    "md5": lambda: auth.UserImportHash.md5(rounds=0),
    "standard-scrypt": lambda: auth.UserImportHash.standard_scrypt(memory_cost=1024, parallelization=16, block_size=8,
                                                                   derived_key_length=64),
    "pbkdf2-sha256": lambda: auth.UserImportHash.pbkdf2_sha256(rounds=100000),
    "bcrypt": auth.UserImportHash.bcrypt,
}


@pytest.mark.parametrize("name", list(SDK_HASHES))
def test_import_users_with_a_password_hash_then_sign_in(hearth, app, name):
    _, password, salt, password_hash = HASH_VECTORS[name]
    uid, email = unique_uid(name), unique_email(name)
    record = auth.ImportUserRecord(uid=uid, email=email, password_hash=base64.b64decode(password_hash),
                                   password_salt=base64.b64decode(salt) if salt else None)
    result = auth.import_users([record], hash_alg=SDK_HASHES[name](), app=app)
    assert result.success_count == 1 and result.failure_count == 0, [error.reason for error in result.errors]
    assert sign_in(hearth, email, password)["localId"] == uid
    wrong = api(hearth, "signInWithPassword", {"email": email, "password": password + "x"})
    assert wrong.status_code == 400 and wrong.json()["error"]["message"] == "INVALID_PASSWORD"


def test_import_users_with_providers_claims_and_metadata(app):
    uid, email, raw_id = unique_uid("imp"), unique_email(), unique_uid("google")
    record = auth.ImportUserRecord(
        uid=uid, email=email, email_verified=True, display_name="Imported", phone_number=unique_phone(),
        photo_url="https://example.com/i.png", disabled=False,
        user_metadata=auth.UserMetadata(creation_timestamp=1_600_000_000_000, last_sign_in_timestamp=1_600_000_100_000),
        provider_data=[auth.UserProvider(uid=raw_id, provider_id="google.com", email=email, display_name="G")],
        custom_claims={"plan": "gold"})
    result = auth.import_users([record], app=app)
    assert result.success_count == 1, [error.reason for error in result.errors]
    user = auth.get_user(uid, app=app)
    assert user.email == email and user.email_verified is True and user.display_name == "Imported"
    assert user.custom_claims == {"plan": "gold"}
    assert user.user_metadata.creation_timestamp == 1_600_000_000_000
    assert user.user_metadata.last_sign_in_timestamp == 1_600_000_100_000
    [google] = [info for info in user.provider_data if info.provider_id == "google.com"]
    assert google.uid == raw_id and google.email == email


def test_import_reports_per_user_failures(app):
    existing = auth.create_user(app=app).uid
    result = auth.import_users([auth.ImportUserRecord(uid=unique_uid(), email=unique_email()),
                                auth.ImportUserRecord(uid=existing, email=unique_email())], app=app)
    assert result.success_count == 1 and result.failure_count == 1
    assert result.errors[0].index == 1
    assert result.errors[0].reason == "localId belongs to an existing account - can not overwrite."


def test_password_reset_link_code_resets_the_password(hearth, app):
    email = unique_email()
    sign_up(hearth, email)
    link = auth.generate_password_reset_link(email, app=app)
    query = link_query(link)
    assert query["mode"] == "resetPassword" and query["apiKey"]
    reset = ok(legacy(hearth, "resetPassword", {"oobCode": query["oobCode"], "newPassword": "newpass1"}))
    assert reset["email"] == email
    sign_in(hearth, email, "newpass1")


def test_email_verification_link_code_verifies_the_email(hearth, app):
    email = unique_email()
    uid = sign_up(hearth, email)["localId"]
    query = link_query(auth.generate_email_verification_link(email, app=app))
    assert query["mode"] == "verifyEmail"
    applied = ok(legacy(hearth, "setAccountInfo", {"oobCode": query["oobCode"]}))
    assert applied["email"] == email
    assert auth.get_user(uid, app=app).email_verified is True
    with pytest.raises(auth.UserNotFoundError):
        auth.generate_email_verification_link(unique_email("nobody"), app=app)


def test_sign_in_link_keeps_the_continue_url_and_signs_in(hearth, app):
    email = unique_email()
    continue_url = "http://localhost?a=1&b=5#f=1"
    settings = auth.ActionCodeSettings(url=continue_url, handle_code_in_app=True)
    query = link_query(auth.generate_sign_in_with_email_link(email, settings, app=app))
    assert query["mode"] == "signIn" and query["apiKey"]
    assert query["continueUrl"] == continue_url
    body = ok(legacy(hearth, "emailLinkSignin", {"email": email, "oobCode": query["oobCode"]}))
    assert body["email"] == email and body["idToken"]
    assert auth.get_user_by_email(email, app=app).uid == body["localId"]


def test_custom_token_signs_in_over_rest(hearth, app):
    uid = unique_uid("custom")
    token = auth.create_custom_token(uid, {"premium": True}, app=app).decode()
    header, payload = decode_jwt(token)
    assert header["alg"] == "none" and payload["uid"] == uid
    body = ok(api(hearth, "signInWithCustomToken", {"token": token, "returnSecureToken": True}))
    claims = auth.verify_id_token(body["idToken"], app=app)
    assert claims["uid"] == uid and claims["premium"] is True
    assert claims["firebase"]["sign_in_provider"] == "custom"
    assert auth.get_user(uid, app=app).uid == uid


def test_session_cookie_is_created_and_verified(hearth, app):
    signed_in = sign_up(hearth, unique_email())
    cookie = auth.create_session_cookie(signed_in["idToken"], expires_in=datetime.timedelta(hours=2), app=app)
    claims = auth.verify_session_cookie(cookie, app=app)
    assert claims["uid"] == signed_in["localId"]
    assert claims["iss"] == f"https://session.firebase.google.com/{PROJECT}"
    assert claims["exp"] - claims["iat"] == 7200
    assert auth.verify_session_cookie(cookie, check_revoked=True, app=app)["uid"] == signed_in["localId"]
    with pytest.raises(auth.InvalidSessionCookieError):
        auth.verify_session_cookie(signed_in["idToken"], app=app)
