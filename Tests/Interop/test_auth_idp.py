"""Federated sign-in (`accounts:signInWithIdp`, legacy `verifyAssertion`), auth spec §2.4, §6.2–6.3, §7.

Development (the session `hearth` fixture) behaves as the Auth emulator (§7.4): the `id_token` (or
`access_token`) is a JSON object string or any JWT whose claims are believed. Production is checked
against local stand-ins started here: a Google JWKS endpoint whose RSA key signs Google-style ID
tokens, and a Facebook Graph API answering `debug_token` and `me`."""

import hashlib
import hmac
import json
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import padding, rsa

from auth_client import (
    API_KEY, admin, api, b64url, b64url_decode, decode_jwt, emulator, encode_jwt, error_message, legacy,
    lookup_by_token, lookup_by_uid, ok, refresh, sign_in, sign_up, unique_email, unique_uid,
)
from conftest import HearthProcess, per_node_state

REQUEST_URI = "http://localhost"
GOOGLE_SCOPES = "openid https://www.googleapis.com/auth/userinfo.profile https://www.googleapis.com/auth/userinfo.email"
MISSING_SUB = ('INVALID_IDP_RESPONSE : Invalid Idp Response: id_token missing required fields. ((Missing "sub" field. '
               'This field is required and must be a unique identifier.))')
SUB_NOT_STRING = 'INVALID_IDP_RESPONSE : ((The "sub" field must be a string.))'


# Helpers

def post_body(provider_id, **credential):
    """`postBody` as the SDKs build it, e.g. `id_token=…&providerId=google.com`."""
    return urllib.parse.urlencode({**credential, "providerId": provider_id})


def fake_token(**claims):
    """The emulator's fake credential: a JSON object string of claims."""
    return json.dumps(claims)


def idp(server, body_or_post, key=API_KEY, request_uri=REQUEST_URI, **fields):
    """`accounts:signInWithIdp` with `returnSecureToken`; `body_or_post` is the `postBody` string."""
    body = {"requestUri": request_uri, "returnSecureToken": True, **fields}
    if body_or_post is not None:
        body["postBody"] = body_or_post
    return api(server, "signInWithIdp", body, key=key)


def google(server, key=API_KEY, **fields_and_claims):
    """Development Google sign-in with a fake JSON id_token of the given claims; keyword arguments
    that are request fields (`idToken`, `returnIdpCredential`, …) go to the body."""
    request_fields = {name: fields_and_claims.pop(name)
                      for name in ("idToken", "returnIdpCredential", "autoCreate") if name in fields_and_claims}
    return idp(server, post_body("google.com", id_token=fake_token(**fields_and_claims)), key=key, **request_fields)


def facebook_fake(server, **fields_and_claims):
    request_fields = {name: fields_and_claims.pop(name)
                      for name in ("idToken", "returnIdpCredential") if name in fields_and_claims}
    return idp(server, post_body("facebook.com", access_token=fake_token(**fields_and_claims)), **request_fields)


def assert_error(response, message, status=400):
    assert response.status_code == status, f"{response.status_code} {response.text}"
    assert error_message(response) == message, response.text


def assert_error_starting(response, prefix, status=400):
    assert response.status_code == status, f"{response.status_code} {response.text}"
    assert error_message(response).startswith(prefix), response.text


def assert_signed_in(body, provider_id):
    """A successful sign-in or link (§2.4, §12 items 74 and 76): a non-empty `providerId`, the
    token triple, and neither `needConfirmation` nor `errorMessage`."""
    assert body["kind"] == "identitytoolkit#VerifyAssertionResponse"
    assert body["providerId"] == provider_id
    assert body["localId"]
    assert body["idToken"] and body["refreshToken"] and body["expiresIn"] == "3600"
    assert "needConfirmation" not in body, body
    assert "errorMessage" not in body, body


def provider_entry(user, provider_id):
    entries = [entry for entry in user.get("providerUserInfo", []) if entry["providerId"] == provider_id]
    assert len(entries) == 1, user
    return entries[0]


def provider_ids(user):
    return sorted(entry["providerId"] for entry in user.get("providerUserInfo", []))


def new_email(prefix="idp"):
    return unique_email(prefix)


# Development: Google sign-in, the response and the tokens

def test_google_sign_in_creates_an_account_and_answers_as_the_emulator(hearth):
    sub, email = unique_uid("g"), new_email("g")
    id_token = fake_token(sub=sub, email=email, email_verified=True, name="Gina Gee", given_name="Gina",
                          family_name="Gee", picture="http://photos.example/g.png")
    response = idp(hearth, post_body("google.com", id_token=id_token))
    body = ok(response)
    assert_signed_in(body, "google.com")
    assert body["isNewUser"] is True
    assert body["federatedId"] == f"https://accounts.google.com/{sub}"
    assert body["email"] == email and body["emailVerified"] is True
    assert body["displayName"] == "Gina Gee" and body["fullName"] == "Gina Gee"
    assert body["firstName"] == "Gina" and body["lastName"] == "Gee"
    assert body["photoUrl"] == "http://photos.example/g.png"
    assert body["oauthIdToken"] == id_token
    assert body["oauthAccessToken"] == "FirebaseAuthEmulatorFakeAccessToken_google.com"
    assert isinstance(body["rawUserInfo"], str)
    raw = json.loads(body["rawUserInfo"])
    assert raw["id"] == sub and raw["verified_email"] is True and raw["locale"] == "en"
    assert raw["email"] == email and raw["name"] == "Gina Gee" and raw["picture"] == "http://photos.example/g.png"
    assert raw["given_name"] == "Gina" and raw["family_name"] == "Gee"
    assert raw["granted_scopes"] == GOOGLE_SCOPES

    header, claims = decode_jwt(body["idToken"])
    assert header["alg"] == "none"
    assert claims["sub"] == claims["user_id"] == body["localId"]
    assert claims["email"] == email and claims["email_verified"] is True
    assert claims["name"] == "Gina Gee" and claims["picture"] == "http://photos.example/g.png"
    assert claims["firebase"]["sign_in_provider"] == "google.com"
    assert claims["firebase"]["identities"] == {"google.com": [sub], "email": [email]}
    assert "provider_id" not in claims


def test_second_sign_in_returns_the_same_account_without_is_new_user(hearth):
    sub, email = unique_uid("g"), new_email("g")
    first = ok(google(hearth, sub=sub, email=email, email_verified=True, name="Gus", picture="http://p/gus.png"))
    second = ok(google(hearth, sub=sub, email=email, email_verified=True, name="Gus", picture="http://p/gus.png"))
    assert_signed_in(second, "google.com")
    assert second["localId"] == first["localId"]
    assert "isNewUser" not in second, second  # the emulator omits it rather than sending false
    user = lookup_by_token(hearth, second["idToken"])
    assert user["localId"] == first["localId"]
    assert user["email"] == email and user["emailVerified"] is True
    entry = provider_entry(user, "google.com")
    assert entry["rawId"] == sub and entry["federatedId"] == sub  # iOS reads the uid from federatedId
    assert entry["email"] == email and entry["displayName"] == "Gus" and entry["photoUrl"] == "http://p/gus.png"
    assert provider_ids(user) == ["google.com"]
    assert "passwordHash" not in user


def test_the_email_is_lower_cased(hearth):
    sub, email = unique_uid("g"), new_email("mixed")
    body = ok(google(hearth, sub=sub, email=email.upper(), email_verified=True))
    assert body["email"] == email
    assert lookup_by_token(hearth, body["idToken"])["email"] == email


def test_credential_may_come_from_the_request_uri_query_or_fragment(hearth):
    sub, email = unique_uid("g"), new_email("q")
    in_post = ok(google(hearth, sub=sub, email=email, email_verified=True))
    query = post_body("google.com", id_token=fake_token(sub=sub, email=email, email_verified=True))
    in_query = ok(idp(hearth, None, request_uri=f"http://localhost/callback?{query}"))
    assert_signed_in(in_query, "google.com")
    assert in_query["localId"] == in_post["localId"]
    assert in_query["federatedId"] == f"https://accounts.google.com/{sub}"

    # postBody overrides the query; the fragment overrides both.
    other_sub = unique_uid("g")
    decoy = post_body("google.com", id_token=fake_token(sub=unique_uid("decoy")))
    fragment = urllib.parse.urlencode({"id_token": fake_token(sub=other_sub)})
    layered = ok(idp(hearth, post_body("google.com", id_token=fake_token(sub=unique_uid("decoy"))),
                     request_uri=f"http://localhost/cb?{decoy}#{fragment}"))
    assert layered["federatedId"] == f"https://accounts.google.com/{other_sub}"
    overridden = ok(idp(hearth, post_body("google.com", id_token=fake_token(sub=sub)),
                        request_uri=f"http://localhost/cb?{decoy}"))
    assert overridden["localId"] == in_post["localId"]
    # The provider id is read case-insensitively.
    upper = ok(idp(hearth, post_body("GOOGLE.COM", id_token=fake_token(sub=sub))))
    assert upper["providerId"] == "google.com" and upper["localId"] == in_post["localId"]


def test_legacy_verify_assertion_as_ios_sends_it(hearth):
    sub, email = unique_uid("g"), new_email("ios")
    body = ok(legacy(hearth, "verifyAssertion", {
        "requestUri": REQUEST_URI, "returnSecureToken": True, "returnIdpCredential": True, "autoCreate": True,
        "postBody": post_body("google.com", id_token=fake_token(sub=sub, email=email, email_verified=True))}))
    assert_signed_in(body, "google.com")
    assert body["isNewUser"] is True
    assert body["federatedId"] == f"https://accounts.google.com/{sub}"
    assert body["email"] == email
    # Same identity through the v1 route: the same account.
    again = ok(google(hearth, sub=sub, email=email, email_verified=True))
    assert again["localId"] == body["localId"]


def test_refresh_keeps_the_federated_sign_in_provider(hearth):
    sub, email = unique_uid("g"), new_email("r")
    body = ok(google(hearth, sub=sub, email=email, email_verified=True))
    refreshed = ok(refresh(hearth, body["refreshToken"]))
    _, claims = decode_jwt(refreshed["id_token"])
    assert claims["user_id"] == body["localId"]
    assert claims["firebase"]["sign_in_provider"] == "google.com"
    assert claims["firebase"]["identities"] == {"google.com": [sub], "email": [email]}


def test_create_auth_uri_lists_the_provider(hearth):
    email = new_email("cau")
    ok(google(hearth, sub=unique_uid("g"), email=email, email_verified=True))
    body = ok(api(hearth, "createAuthUri", {"identifier": email, "continueUri": REQUEST_URI}))
    assert body["registered"] is True
    assert body["signinMethods"] == ["google.com"]
    assert body["allProviders"] == ["google.com"]


# Development: other providers and credential forms (§7.4)

def test_any_jwt_is_believed_for_any_provider(hearth):
    sub, email = unique_uid("apple"), new_email("apple")
    # A JWT with a meaningless signature, a foreign issuer/audience and a past expiry: believed.
    jwt = encode_jwt({"alg": "RS256", "kid": "whatever", "typ": "JWT"},
                     {"iss": "https://appleid.apple.com", "aud": "some.bundle", "sub": sub, "email": email,
                      "email_verified": "true", "exp": 1000, "iat": 900}, b"not a signature")
    body = ok(idp(hearth, post_body("apple.com", id_token=jwt, nonce="raw-nonce")))
    assert_signed_in(body, "apple.com")
    assert body["federatedId"] == sub and body["isNewUser"] is True
    assert body["email"] == email and body["emailVerified"] is True
    assert body["oauthIdToken"] == jwt
    assert body["oauthAccessToken"] == "FirebaseAuthEmulatorFakeAccessToken_apple.com"
    assert isinstance(json.loads(body["rawUserInfo"]), dict)
    _, claims = decode_jwt(body["idToken"])
    assert claims["firebase"]["sign_in_provider"] == "apple.com"
    assert claims["firebase"]["identities"] == {"apple.com": [sub], "email": [email]}
    entry = provider_entry(lookup_by_token(hearth, body["idToken"]), "apple.com")
    assert entry["rawId"] == entry["federatedId"] == sub


def test_access_token_stands_in_when_there_is_no_id_token(hearth):
    sub = unique_uid("fb")
    access_token = fake_token(sub=sub, name="Fay Book", email=new_email("fb"))
    body = ok(idp(hearth, post_body("facebook.com", access_token=access_token)))
    assert_signed_in(body, "facebook.com")
    assert body["federatedId"] == sub
    assert body["oauthAccessToken"] == access_token
    assert "oauthIdToken" not in body
    assert body["emailVerified"] is False
    assert body["displayName"] == "Fay Book"
    _, claims = decode_jwt(body["idToken"])
    assert claims["firebase"]["sign_in_provider"] == "facebook.com"
    assert claims["firebase"]["identities"]["facebook.com"] == [sub]

    # Twitter: access token and secret, with a screen name.
    twitter_sub = unique_uid("tw")
    twitter_token = fake_token(sub=twitter_sub, screen_name="tweeter")
    body = ok(idp(hearth, post_body("twitter.com", access_token=twitter_token, oauth_token_secret="sekrit")))
    assert_signed_in(body, "twitter.com")
    assert body["federatedId"] == twitter_sub
    assert body["screenName"] == "tweeter"
    assert body["oauthAccessToken"] == twitter_token
    assert body["oauthTokenSecret"] == "sekrit"
    assert "email" not in lookup_by_token(hearth, body["idToken"])

    # GitHub with a JWT access token.
    github_sub = unique_uid("gh")
    body = ok(idp(hearth, post_body("github.com", access_token=encode_jwt({"alg": "none"}, {"sub": github_sub}))))
    assert_signed_in(body, "github.com")
    assert body["federatedId"] == github_sub


def test_request_errors(hearth):
    good = post_body("google.com", id_token=fake_token(sub=unique_uid("g")))
    assert_error(api(hearth, "signInWithIdp", {"postBody": good, "returnSecureToken": True}), "MISSING_REQUEST_URI")
    assert_error(idp(hearth, good, request_uri="not a uri"), "INVALID_REQUEST_URI")
    assert_error(idp(hearth, urllib.parse.urlencode({"id_token": fake_token(sub="x")})),
                 f"INVALID_CREDENTIAL_OR_PROVIDER_ID : Invalid IdP response/credential: {REQUEST_URI}")
    pending_only = api(hearth, "signInWithIdp", {"requestUri": REQUEST_URI, "pendingToken": "abc",
                                                 "returnSecureToken": True})
    assert_error_starting(pending_only, "INVALID_CREDENTIAL_OR_PROVIDER_ID")
    assert_error(google(hearth, email=new_email()), MISSING_SUB)
    assert_error(google(hearth, sub=12345), SUB_NOT_STRING)
    unparsable = "{not json"
    assert_error(idp(hearth, post_body("google.com", id_token=unparsable)),
                 f"INVALID_IDP_RESPONSE : Unable to parse id_token: {unparsable} "
                 "((Auth Emulator failed to parse fake id_token as strict JSON.))")

    opaque = idp(hearth, post_body("facebook.com", access_token="EAAopaqueFacebookToken"))
    assert_error(opaque, "The Auth Emulator does not support facebook.com sign-in with credentials.", status=501)
    assert opaque.json()["error"]["status"] == "NOT_IMPLEMENTED"
    no_token = idp(hearth, post_body("google.com"))
    assert no_token.status_code == 501, no_token.text
    for field, value in (("pendingIdToken", "x"), ("returnRefreshToken", True)):
        response = idp(hearth, good, **{field: value})
        assert response.status_code == 501, f"{field}: {response.status_code} {response.text}"


def test_disabled_account_cannot_sign_in(hearth):
    sub = unique_uid("g")
    body = ok(google(hearth, sub=sub, email=new_email("dis"), email_verified=True))
    ok(admin(hearth, "/accounts:update", {"localId": body["localId"], "disableUser": True}))
    assert_error(google(hearth, sub=sub), "USER_DISABLED")


# Development: the email rules (one account per email)

def test_unverified_idp_email_of_another_account_needs_confirmation(hearth):
    email = new_email("pw")
    owner = sign_up(hearth, email, "secret1")
    sub = unique_uid("fb")
    for extra in ({"returnIdpCredential": True}, {}):
        response = facebook_fake(hearth, sub=sub, email=email, email_verified=False, **extra)
        body = ok(response)
        assert body["needConfirmation"] is True, body
        assert body["localId"] == owner["localId"]
        assert body.get("verifiedProvider", []) == []  # password is not listed
        assert body["providerId"] == "facebook.com" and body["federatedId"] == sub
        assert body["email"] == email
        for absent in ("idToken", "refreshToken", "isNewUser", "errorMessage"):
            assert absent not in body, body
    # Nothing changed: the password still works, the provider was not linked.
    assert sign_in(hearth, email, "secret1")["localId"] == owner["localId"]
    user = lookup_by_uid(hearth, owner["localId"])
    assert provider_ids(user) == ["password"]
    assert user.get("emailVerified") is False


def test_need_confirmation_lists_the_verified_providers_of_the_owner(hearth):
    email = new_email("both")
    owner = ok(google(hearth, sub=unique_uid("g"), email=email, email_verified=True))
    body = ok(facebook_fake(hearth, sub=unique_uid("fb"), email=email, returnIdpCredential=True))
    assert body["needConfirmation"] is True
    assert body["localId"] == owner["localId"]
    assert body["verifiedProvider"] == ["google.com"]
    assert "idToken" not in body


def test_verified_idp_email_takes_over_an_unverified_password_account(hearth):
    email = new_email("takeover")
    owner = sign_up(hearth, email, "secret1", displayName="Old Name")
    time.sleep(1.1)  # tokens minted in the same second as validSince stay valid (§4.8)
    sub = unique_uid("g")
    body = ok(google(hearth, sub=sub, email=email, email_verified=True, name="New Name"))
    assert_signed_in(body, "google.com")
    assert body["localId"] == owner["localId"]
    assert "isNewUser" not in body
    assert body["emailVerified"] is True
    assert_error(api(hearth, "signInWithPassword", {"email": email, "password": "secret1"}), "INVALID_PASSWORD")
    user = lookup_by_token(hearth, body["idToken"])
    assert user["emailVerified"] is True
    assert provider_ids(user) == ["google.com"]
    assert "passwordHash" not in user
    assert user["displayName"] == "New Name"
    # validSince moved: the password session's old ID token is revoked.
    assert_error(api(hearth, "lookup", {"idToken": owner["idToken"]}), "TOKEN_EXPIRED")


def test_verified_idp_email_of_a_verified_account_links_and_keeps_the_password(hearth):
    email = new_email("keep")
    owner = sign_up(hearth, email, "secret1")
    ok(admin(hearth, "/accounts:update", {"localId": owner["localId"], "emailVerified": True}))
    sub = unique_uid("g")
    body = ok(google(hearth, sub=sub, email=email, email_verified=True))
    assert_signed_in(body, "google.com")
    assert body["localId"] == owner["localId"]
    assert "isNewUser" not in body
    assert sign_in(hearth, email, "secret1")["localId"] == owner["localId"]
    user = lookup_by_uid(hearth, owner["localId"])
    assert provider_ids(user) == ["google.com", "password"]
    _, claims = decode_jwt(body["idToken"])
    assert claims["firebase"]["identities"] == {"google.com": [sub], "email": [email]}


def test_verified_email_recycles_an_account_of_the_same_provider(hearth):
    email = new_email("recycle")
    first_sub, second_sub = unique_uid("g"), unique_uid("g")
    first = ok(google(hearth, sub=first_sub, email=email, email_verified=False))
    assert first["emailVerified"] is False
    second = ok(google(hearth, sub=second_sub, email=email, email_verified=True))
    assert_signed_in(second, "google.com")
    assert second["localId"] == first["localId"]
    assert second["emailRecycled"] is True
    user = lookup_by_uid(hearth, first["localId"])
    assert provider_entry(user, "google.com")["rawId"] == second_sub
    assert user["emailVerified"] is True


def test_duplicate_emails_allowed_gives_a_second_account_without_top_level_email(hearth):
    email = new_email("dup")
    owner = sign_up(hearth, email, "secret1")
    ok(emulator(hearth, "PATCH", "/config", {"signIn": {"allowDuplicateEmails": True}}))
    try:
        sub = unique_uid("g")
        body = ok(google(hearth, sub=sub, email=email, email_verified=True))
        assert_signed_in(body, "google.com")
        assert body["isNewUser"] is True
        assert body["localId"] != owner["localId"]
        user = lookup_by_uid(hearth, body["localId"])
        assert "email" not in user, user
        assert provider_entry(user, "google.com")["email"] == email
        again = ok(google(hearth, sub=sub, email=email, email_verified=True))
        assert again["localId"] == body["localId"]
        # The password account is untouched.
        assert sign_in(hearth, email, "secret1")["localId"] == owner["localId"]
    finally:
        ok(emulator(hearth, "PATCH", "/config", {"signIn": {"allowDuplicateEmails": False}}))
    assert ok(emulator(hearth, "GET", "/config"))["signIn"]["allowDuplicateEmails"] is False


# Development: linking (§6.2)

def test_link_to_an_anonymous_account_keeps_the_uid(hearth):
    anonymous = sign_up(hearth)
    sub, email = unique_uid("g"), new_email("link")
    body = ok(google(hearth, sub=sub, email=email, email_verified=True, name="Linked",
                     idToken=anonymous["idToken"]))
    assert_signed_in(body, "google.com")
    assert body["localId"] == anonymous["localId"]
    assert "isNewUser" not in body
    _, claims = decode_jwt(body["idToken"])
    assert claims["user_id"] == anonymous["localId"]
    assert claims["firebase"]["sign_in_provider"] == "google.com"
    assert claims["firebase"]["identities"] == {"google.com": [sub], "email": [email]}
    assert "provider_id" not in claims
    user = lookup_by_token(hearth, body["idToken"])
    assert user["email"] == email and user["emailVerified"] is True
    entry = provider_entry(user, "google.com")
    assert entry["rawId"] == entry["federatedId"] == sub and entry["email"] == email
    # The identity now signs into that account.
    assert ok(google(hearth, sub=sub))["localId"] == anonymous["localId"]


def test_link_through_legacy_verify_assertion_carries_what_ios_needs(hearth):
    anonymous = sign_up(hearth)
    sub = unique_uid("fb")
    body = ok(legacy(hearth, "verifyAssertion", {
        "requestUri": REQUEST_URI, "returnSecureToken": True, "returnIdpCredential": True,
        "idToken": anonymous["idToken"],
        "postBody": post_body("facebook.com", access_token=fake_token(sub=sub, email=new_email("iosl")))}))
    assert_signed_in(body, "facebook.com")
    assert body["localId"] == anonymous["localId"]
    assert body["federatedId"] == sub


def test_link_with_the_verified_same_email_marks_it_verified(hearth):
    email = new_email("same")
    owner = sign_up(hearth, email, "secret1")
    body = ok(google(hearth, sub=unique_uid("g"), email=email, email_verified=True, idToken=owner["idToken"]))
    assert_signed_in(body, "google.com")
    assert body["localId"] == owner["localId"]
    user = lookup_by_uid(hearth, owner["localId"])
    assert user["emailVerified"] is True
    assert provider_ids(user) == ["google.com", "password"]
    assert sign_in(hearth, email, "secret1")["localId"] == owner["localId"]


def test_link_conflicts(hearth):
    sub, email = unique_uid("g"), new_email("taken")
    holder = ok(google(hearth, sub=sub, email=email, email_verified=True))
    anonymous = sign_up(hearth)

    # The identity is already linked to another account.
    assert_error(google(hearth, sub=sub, idToken=anonymous["idToken"]), "FEDERATED_USER_ID_ALREADY_LINKED")
    body = ok(google(hearth, sub=sub, email=email, email_verified=True, idToken=anonymous["idToken"],
                     returnIdpCredential=True))
    assert body["errorMessage"] == "FEDERATED_USER_ID_ALREADY_LINKED"
    assert body["providerId"] == "google.com"
    assert body["federatedId"] == f"https://accounts.google.com/{sub}"
    assert body["oauthIdToken"]
    for absent in ("localId", "idToken", "refreshToken", "needConfirmation"):
        assert absent not in body, body
    # … or to the same account.
    assert_error(google(hearth, sub=sub, idToken=holder["idToken"]), "FEDERATED_USER_ID_ALREADY_LINKED")

    # Another account owns the identity's email.
    other = unique_uid("g")
    assert_error(google(hearth, sub=other, email=email, email_verified=True, idToken=anonymous["idToken"]),
                 "EMAIL_EXISTS")
    body = ok(google(hearth, sub=other, email=email, email_verified=True, idToken=anonymous["idToken"],
                     returnIdpCredential=True))
    assert body["errorMessage"] == "EMAIL_EXISTS"
    assert body["providerId"] == "google.com" and body["email"] == email
    for absent in ("localId", "idToken", "refreshToken"):
        assert absent not in body, body

    # The anonymous account is unchanged, and the refused identity was not linked anywhere.
    user = lookup_by_uid(hearth, anonymous["localId"])
    assert "email" not in user and provider_ids(user) == []
    assert ok(google(hearth, sub=sub))["localId"] == holder["localId"]


def test_link_with_a_bad_id_token(hearth):
    response = google(hearth, sub=unique_uid("g"), idToken="not-a-token")
    assert_error(response, "INVALID_ID_TOKEN")


# Production: stand-ins for Google's keys and Facebook's Graph API

GOOGLE_CLIENT_ID = "test-client.apps.googleusercontent.com"
GOOGLE_KID = "stand-in-kid-1"
PROD_KEY = "k"
FACEBOOK_APP_ID = "123"
FACEBOOK_SECRET = "s3cret"


def start_http(handle):
    """A local HTTP server in a thread; `handle(path, query_dict, raw_query)` returns (status, headers, JSON)."""

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self):
            url = urllib.parse.urlsplit(self.path)
            query = {name: values[-1] for name, values in urllib.parse.parse_qs(url.query, keep_blank_values=True).items()}
            status, headers, body = handle(url.path, query, url.query)
            data = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            for name, value in headers.items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def public_jwk(private_key, kid):
    numbers = private_key.public_key().public_numbers()
    return {"kty": "RSA", "alg": "RS256", "use": "sig", "kid": kid,
            "n": b64url(numbers.n.to_bytes((numbers.n.bit_length() + 7) // 8, "big")),
            "e": b64url(numbers.e.to_bytes((numbers.e.bit_length() + 7) // 8, "big"))}


def sign_rs256(private_key, payload, kid=GOOGLE_KID):
    header = {"alg": "RS256", "kid": kid, "typ": "JWT"}
    unsigned = f"{b64url(json.dumps(header))}.{b64url(json.dumps(payload))}"
    signature = private_key.sign(unsigned.encode(), padding.PKCS1v15(), hashes.SHA256())
    return f"{unsigned}.{b64url(signature)}"


def google_claims(sub, **overrides):
    now = int(time.time())
    claims = {"iss": "https://accounts.google.com", "aud": GOOGLE_CLIENT_ID, "sub": sub,
              "email": f"{sub}@gmail.example", "email_verified": True, "name": "Goo Gle",
              "picture": "http://photos.example/goo.png", "iat": now, "exp": now + 3600}
    claims.update(overrides)
    return claims


class Facebook:
    """The Graph API stand-in's state: known user tokens, and every problem seen in a request."""

    def __init__(self):
        now = int(time.time())
        self.shared_email = unique_email("fbshared")
        self.tokens = {
            "fb-token-1": ({"app_id": FACEBOOK_APP_ID, "user_id": "fb1", "expires_at": now + 3600},
                           {"id": "fb1", "name": "F B", "email": "fb@x.io", "first_name": "F", "last_name": "B",
                            "picture": {"data": {"url": "http://p/x.png"}}}),
            "fb-token-shared": ({"app_id": FACEBOOK_APP_ID, "user_id": "fb2", "expires_at": now + 3600},
                                {"id": "fb2", "name": "Sha Red", "email": self.shared_email}),
            "fb-token-other-app": ({"app_id": "999", "user_id": "fb3", "expires_at": now + 3600},
                                   {"id": "fb3", "name": "Other App"}),
            "fb-token-expired": ({"app_id": FACEBOOK_APP_ID, "user_id": "fb4", "expires_at": now - 60},
                                 {"id": "fb4", "name": "Expired"}),
        }
        self.problems = []
        self.requests = []

    def handle(self, path, query, raw_query):
        self.requests.append((path, raw_query))
        if path == "/debug_token":
            if query.get("access_token") != f"{FACEBOOK_APP_ID}|{FACEBOOK_SECRET}":
                self.problems.append(f"debug_token with app token {query.get('access_token')!r}")
                return 400, {}, {"error": {"message": "bad app access token"}}
            known = self.tokens.get(query.get("input_token"))
            if known is None:
                return 200, {}, {"data": {"is_valid": False, "error": {"code": 190, "message": "Invalid token"}}}
            data, _ = known
            return 200, {}, {"data": {"app_id": data["app_id"], "type": "USER", "application": "Stand-in",
                                      "is_valid": True, "expires_at": data["expires_at"],
                                      "user_id": data["user_id"], "scopes": ["email", "public_profile"]}}
        if path == "/me":
            token = query.get("access_token")
            known = self.tokens.get(token)
            if known is None:
                self.problems.append(f"me with unknown token {token!r}")
                return 400, {}, {"error": {"message": "Invalid OAuth access token."}}
            proof = hmac.new(FACEBOOK_SECRET.encode(), token.encode(), hashlib.sha256).hexdigest()
            if query.get("appsecret_proof") != proof:
                self.problems.append(f"me with appsecret_proof {query.get('appsecret_proof')!r}, expected {proof}")
                return 400, {}, {"error": {"message": "Invalid appsecret_proof provided in the API argument"}}
            fields = set(query.get("fields", "").split(","))
            return 200, {}, {name: value for name, value in known[1].items() if name in fields or name == "id"}
        self.problems.append(f"unexpected path {path}")
        return 404, {}, {"error": {"message": "unknown path"}}


@pytest.fixture(scope="module")
def world():
    """The stand-ins and a production Hearth configured against them."""
    google_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    jwks_fetches = []

    def google_handle(path, query, raw_query):
        if path != "/oauth2/v3/certs":
            return 404, {}, {}
        jwks_fetches.append(time.time())
        return 200, {"Cache-Control": "public, max-age=3600"}, {"keys": [public_jwk(google_key, GOOGLE_KID)]}

    facebook = Facebook()
    google_server = start_http(google_handle)
    graph_server = start_http(facebook.handle)
    hearth = HearthProcess(extra_args=[
        "--production", "--api-key", PROD_KEY,
        "--google-client-id", GOOGLE_CLIENT_ID,
        "--google-keys-url", f"http://127.0.0.1:{google_server.server_address[1]}/oauth2/v3/certs",
        "--facebook-app-id", FACEBOOK_APP_ID, "--facebook-app-secret", FACEBOOK_SECRET,
        "--facebook-graph-url", f"http://127.0.0.1:{graph_server.server_address[1]}"]).start()
    world = {"hearth": hearth, "google_key": google_key, "jwks_fetches": jwks_fetches, "facebook": facebook}
    yield world
    hearth.stop()
    hearth.remove_data()
    for server in (google_server, graph_server):
        server.shutdown()
        server.server_close()


def prod_google(world, token, **fields):
    return idp(world["hearth"], post_body("google.com", id_token=token), key=PROD_KEY, **fields)


def prod_facebook(world, token, **fields):
    return idp(world["hearth"], post_body("facebook.com", access_token=token), key=PROD_KEY, **fields)


# Production: Google

def test_production_google_sign_in_with_a_signed_id_token(world):
    sub = unique_uid("pg")
    token = sign_rs256(world["google_key"], google_claims(sub))
    body = ok(prod_google(world, token))
    assert_signed_in(body, "google.com")
    assert body["isNewUser"] is True
    assert body["federatedId"] == f"https://accounts.google.com/{sub}"
    assert body["email"] == f"{sub}@gmail.example" and body["emailVerified"] is True
    assert body["displayName"] == "Goo Gle" and body["photoUrl"] == "http://photos.example/goo.png"
    assert body["oauthIdToken"] == token
    assert json.loads(body["rawUserInfo"])["id"] == sub
    header, claims = decode_jwt(body["idToken"])
    assert header["alg"] == "RS256" and header.get("kid")
    assert claims["firebase"]["sign_in_provider"] == "google.com"
    assert claims["firebase"]["identities"] == {"google.com": [sub], "email": [f"{sub}@gmail.example"]}
    user = lookup_by_token(world["hearth"], body["idToken"], key=PROD_KEY)
    assert user["emailVerified"] is True
    entry = provider_entry(user, "google.com")
    assert entry["rawId"] == entry["federatedId"] == sub

    # The bare issuer form is accepted too, and signs into the same account.
    again = ok(prod_google(world, sign_rs256(world["google_key"], google_claims(sub, iss="accounts.google.com"))))
    assert again["localId"] == body["localId"]
    assert "isNewUser" not in again


def test_production_google_link_to_an_anonymous_account(world):
    anonymous = sign_up(world["hearth"], key=PROD_KEY)
    sub = unique_uid("pgl")
    body = ok(prod_google(world, sign_rs256(world["google_key"], google_claims(sub)), idToken=anonymous["idToken"]))
    assert_signed_in(body, "google.com")
    assert body["localId"] == anonymous["localId"]
    header, claims = decode_jwt(body["idToken"])
    assert header["alg"] == "RS256"
    assert claims["firebase"]["sign_in_provider"] == "google.com"


def _expired(sub):
    now = int(time.time())
    return google_claims(sub, iat=now - 7200, exp=now - 3600)


def _tampered(world, sub):
    token = sign_rs256(world["google_key"], google_claims(unique_uid("original")))
    header, payload, signature = token.split(".")
    claims = json.loads(b64url_decode(payload))
    claims["sub"] = sub
    return f"{header}.{b64url(json.dumps(claims))}.{signature}"


REFUSED_GOOGLE_TOKENS = {
    "wrong audience": lambda world, sub: sign_rs256(world["google_key"], google_claims(sub, aud="other.apps.googleusercontent.com")),
    "wrong issuer": lambda world, sub: sign_rs256(world["google_key"], google_claims(sub, iss="https://evil.example")),
    "expired": lambda world, sub: sign_rs256(world["google_key"], _expired(sub)),
    "another key with the same kid": lambda world, sub: sign_rs256(
        rsa.generate_private_key(public_exponent=65537, key_size=2048), google_claims(sub)),
    "tampered payload": _tampered,
    "alg none": lambda world, sub: encode_jwt({"alg": "none", "kid": GOOGLE_KID, "typ": "JWT"}, google_claims(sub)),
    "emulator JSON credential": lambda world, sub: fake_token(sub=sub, email=f"{sub}@gmail.example",
                                                              email_verified=True),
}


@pytest.mark.parametrize("case", sorted(REFUSED_GOOGLE_TOKENS))
def test_production_refuses_bad_google_id_tokens(world, case):
    sub = unique_uid("bad")
    response = prod_google(world, REFUSED_GOOGLE_TOKENS[case](world, sub))
    assert_error_starting(response, "INVALID_IDP_RESPONSE")


@per_node_state
def test_production_fetches_google_keys_once(world):
    for _ in range(3):
        ok(prod_google(world, sign_rs256(world["google_key"], google_claims(unique_uid("cache")))))
    assert len(world["jwks_fetches"]) == 1, world["jwks_fetches"]


# Production: Facebook

def test_production_facebook_sign_in_with_a_checked_access_token(world):
    facebook = world["facebook"]
    body = ok(idp(world["hearth"], "access_token=fb-token-1&providerId=facebook.com", key=PROD_KEY))
    assert not facebook.problems, facebook.problems
    assert_signed_in(body, "facebook.com")
    assert body["federatedId"] == "fb1"
    assert body["email"] == "fb@x.io" and body["emailVerified"] is False
    assert body["displayName"] == "F B"
    assert body["firstName"] == "F" and body["lastName"] == "B"
    assert body["photoUrl"] == "http://p/x.png"
    assert body["oauthAccessToken"] == "fb-token-1"
    assert json.loads(body["rawUserInfo"])["id"] == "fb1"
    header, claims = decode_jwt(body["idToken"])
    assert header["alg"] == "RS256"
    assert claims["firebase"]["sign_in_provider"] == "facebook.com"
    assert claims["firebase"]["identities"] == {"facebook.com": ["fb1"], "email": ["fb@x.io"]}
    user = lookup_by_token(world["hearth"], body["idToken"], key=PROD_KEY)
    assert user["emailVerified"] is False
    entry = provider_entry(user, "facebook.com")
    assert entry["rawId"] == entry["federatedId"] == "fb1"
    again = ok(prod_facebook(world, "fb-token-1"))
    assert again["localId"] == body["localId"] and "isNewUser" not in again
    # The app access token went out URL-encoded (`123%7Cs3cret`).
    debug_queries = [raw for path, raw in facebook.requests if path == "/debug_token"]
    assert debug_queries and all("access_token=123%7Cs3cret" in raw for raw in debug_queries), debug_queries
    assert not facebook.problems, facebook.problems


@pytest.mark.parametrize("token", ["fb-token-unknown", "fb-token-other-app", "fb-token-expired"])
def test_production_refuses_bad_facebook_tokens(world, token):
    assert_error_starting(prod_facebook(world, token), "INVALID_IDP_RESPONSE")
    assert not world["facebook"].problems, world["facebook"].problems


def test_production_facebook_email_of_a_password_account_needs_confirmation(world):
    facebook = world["facebook"]
    owner = sign_up(world["hearth"], facebook.shared_email, "secret1", key=PROD_KEY)
    body = ok(prod_facebook(world, "fb-token-shared", returnIdpCredential=True))
    assert body["needConfirmation"] is True, body
    assert body["localId"] == owner["localId"]
    assert body["providerId"] == "facebook.com" and body["federatedId"] == "fb2"
    for absent in ("idToken", "refreshToken", "errorMessage"):
        assert absent not in body, body
    assert sign_in(world["hearth"], facebook.shared_email, "secret1", key=PROD_KEY)["localId"] == owner["localId"]


# Production: unconfigured providers

@pytest.mark.parametrize("provider_id,credential", [
    ("github.com", {"access_token": "gho_opaque"}),
    ("apple.com", {"id_token": encode_jwt({"alg": "none"}, {"sub": "a1"})}),
    ("twitter.com", {"access_token": fake_token(sub="t1"), "oauth_token_secret": "s"}),
])
def test_production_unconfigured_provider_is_not_allowed(world, provider_id, credential):
    response = idp(world["hearth"], post_body(provider_id, **credential), key=PROD_KEY)
    assert_error_starting(response, "OPERATION_NOT_ALLOWED")
