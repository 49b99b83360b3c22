"""Sign-in with stored OpenID Connect provider configurations (`oidc.*`), Sign in with Apple and SAML in
production (auth spec §2.4, §7.3).

A stand-in OIDC provider runs here on 127.0.0.1: it serves discovery documents
(`<issuer>/.well-known/openid-configuration`), a JWKS whose RSA keys sign its ID tokens, and a token
endpoint that redeems authorization codes. A second JWKS stands in for Apple's. The provider
configurations are created through the v2 REST API with an access token of a service account, as an
Admin SDK would in production. Refusals use Firebase's messages: an unknown or disabled configuration
is `OPERATION_NOT_ALLOWED`, a token that fails verification `INVALID_IDP_RESPONSE`, a nonce that is
missing or does not hash to the token's `MISSING_OR_INVALID_NONCE`."""

import base64
import hashlib
import json
import subprocess
import threading
import time
import urllib.parse
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import google.auth.transport.requests
import pytest
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import padding, rsa
from google.oauth2 import service_account

from auth_client import (
    IDENTITY_TOOLKIT, api, b64url, b64url_decode, decode_jwt, encode_jwt, error_message, lookup_by_token, ok,
    request, unique_email,
)
from conftest import HEARTH_BIN, PROJECT, HearthProcess, per_node_state, store_args

KEY = "oidc-key"
REQUEST_URI = "http://localhost"
CLIENT_ID = "hearth-client"
CLIENT_SECRET = "code-secret"
APPLE_IDS = ("com.example.app", "com.example.web")
NOT_FOUND = "OPERATION_NOT_ALLOWED : The identity provider configuration is not found."
DISABLED = "OPERATION_NOT_ALLOWED : The identity provider configuration is disabled."
NONCE_MISSING = "MISSING_OR_INVALID_NONCE : Nonce is missing in the request."
NONCE_WRONG = "MISSING_OR_INVALID_NONCE : Duplicate credential received. Please try again with a new credential."


def unique(prefix):
    return f"{prefix}-{uuid.uuid4().hex[:12]}"


def public_jwk(private_key, kid):
    numbers = private_key.public_key().public_numbers()
    return {"kty": "RSA", "alg": "RS256", "use": "sig", "kid": kid,
            "n": b64url(numbers.n.to_bytes((numbers.n.bit_length() + 7) // 8, "big")),
            "e": b64url(numbers.e.to_bytes((numbers.e.bit_length() + 7) // 8, "big"))}


def sign_rs256(private_key, payload, kid):
    header = {"alg": "RS256", "kid": kid, "typ": "JWT"}
    unsigned = f"{b64url(json.dumps(header))}.{b64url(json.dumps(payload))}"
    signature = private_key.sign(unsigned.encode(), padding.PKCS1v15(), hashes.SHA256())
    return f"{unsigned}.{b64url(signature)}"


def sha256_hex(text):
    return hashlib.sha256(text.encode()).hexdigest()


class Provider:
    """The stand-in OIDC provider (two issuers, `/oidc` and `/code`) and Apple's key endpoint."""

    def __init__(self):
        self.key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        self.apple_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        self.keys = {"kid-1": self.key}
        self.jwks_fetches = {"/oidc": [], "/code": [], "/rotate": []}
        self.discovery_fetches = []
        self.codes = {}
        self.token_requests = []
        self.problems = []
        handler = self.handler()
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.base = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.issuer = f"{self.base}/oidc"
        self.code_issuer = f"{self.base}/code"
        self.rotate_issuer = f"{self.base}/rotate"

    def claims(self, sub, issuer=None, **overrides):
        now = int(time.time())
        claims = {"iss": issuer or self.issuer, "aud": CLIENT_ID, "sub": sub, "email": f"{sub}@oidc.example",
                  "email_verified": True, "name": "Oi Dee", "picture": "http://photos.example/oidc.png",
                  "iat": now, "exp": now + 3600}
        claims.update(overrides)
        return claims

    def token(self, sub, kid="kid-1", key=None, **overrides):
        return sign_rs256(key or self.keys[kid], self.claims(sub, **overrides), kid)

    def handler(self):
        provider = self

        class Handler(BaseHTTPRequestHandler):
            def answer(self, status, body, headers=None):
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for name, value in (headers or {}).items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self):
                path = urllib.parse.urlsplit(self.path).path
                for prefix in provider.jwks_fetches:
                    if path == f"{prefix}/.well-known/openid-configuration":
                        provider.discovery_fetches.append(prefix)
                        return self.answer(200, {
                            "issuer": f"{provider.base}{prefix}",
                            "authorization_endpoint": f"{provider.base}{prefix}/authorize",
                            "token_endpoint": f"{provider.base}{prefix}/token",
                            "jwks_uri": f"{provider.base}{prefix}/jwks",
                            "response_types_supported": ["code", "id_token"],
                            "subject_types_supported": ["public"],
                            "id_token_signing_alg_values_supported": ["RS256"]})
                    if path == f"{prefix}/jwks":
                        provider.jwks_fetches[prefix].append(time.time())
                        return self.answer(200, {"keys": [public_jwk(key, kid) for kid, key in provider.keys.items()]},
                                           {"Cache-Control": "public, max-age=3600"})
                if path == "/apple/auth/keys":
                    return self.answer(200, {"keys": [public_jwk(provider.apple_key, "apple-kid")]})
                provider.problems.append(f"GET {path}")
                self.answer(404, {})

            def do_POST(self):
                path = urllib.parse.urlsplit(self.path).path
                length = int(self.headers.get("Content-Length", "0"))
                form = {name: values[-1] for name, values in
                        urllib.parse.parse_qs(self.rfile.read(length).decode(), keep_blank_values=True).items()}
                if path != "/code/token":
                    provider.problems.append(f"POST {path}")
                    return self.answer(404, {})
                provider.token_requests.append(form)
                client_id, secret = form.get("client_id"), form.get("client_secret")
                authorization = self.headers.get("Authorization", "")
                if authorization.startswith("Basic "):
                    client_id, _, secret = base64.b64decode(authorization[6:]).decode().partition(":")
                    client_id, secret = urllib.parse.unquote(client_id), urllib.parse.unquote(secret)
                if (client_id, secret) != (CLIENT_ID, CLIENT_SECRET):
                    return self.answer(401, {"error": "invalid_client"})
                if form.get("grant_type") != "authorization_code":
                    return self.answer(400, {"error": "unsupported_grant_type"})
                issued = provider.codes.pop(form.get("code"), None)
                if issued is None or form.get("redirect_uri") != issued[0]:
                    return self.answer(400, {"error": "invalid_grant"})
                self.answer(200, {"access_token": "at-" + form["code"], "token_type": "Bearer", "expires_in": 3600,
                                  "id_token": issued[1]})

            def log_message(self, *args):
                pass

        return Handler

    def close(self):
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    provider = Provider()
    apple_args = [arg for client in APPLE_IDS for arg in ("--apple-client-id", client)]
    hearth = HearthProcess(extra_args=[
        "--production", "--api-key", KEY, *apple_args, "--apple-keys-url", f"{provider.base}/apple/auth/keys"])
    key_file = str(tmp_path_factory.mktemp("sa") / "service-account.json")
    issued = subprocess.run(
        [HEARTH_BIN, "auth:service-account", *store_args(hearth.data_dir), "--project", PROJECT,
         "--server", f"http://127.0.0.1:{hearth.port}", "--output", key_file],
        capture_output=True, text=True, timeout=60)
    assert issued.returncode == 0, issued.stderr
    hearth.start()
    creds = service_account.Credentials.from_service_account_file(
        key_file, scopes=["https://www.googleapis.com/auth/cloud-platform"])
    creds.refresh(google.auth.transport.requests.Request())
    world = {"hearth": hearth, "provider": provider, "headers": {"Authorization": f"Bearer {creds.token}"}}
    create_config(world, "oidc.good", {"clientId": CLIENT_ID, "issuer": provider.issuer, "enabled": True,
                                       "displayName": "Good"})
    create_config(world, "oidc.rotate", {"clientId": CLIENT_ID, "issuer": provider.rotate_issuer, "enabled": True})
    create_config(world, "oidc.off", {"clientId": CLIENT_ID, "issuer": provider.issuer, "enabled": False})
    create_config(world, "oidc.code", {"clientId": CLIENT_ID, "issuer": provider.code_issuer, "enabled": True,
                                       "clientSecret": CLIENT_SECRET,
                                       "responseType": {"code": True, "idToken": False}})
    made = request(hearth, "POST", f"{IDENTITY_TOOLKIT}/v2/projects/{PROJECT}/inboundSamlConfigs", key=None,
                   params={"inboundSamlConfigId": "saml.corp"}, headers=world["headers"], body={
                       "idpConfig": {"idpEntityId": "urn:idp", "ssoUrl": "https://idp.example.com/sso",
                                     "idpCertificates": [{"x509Certificate": "-----BEGIN CERTIFICATE-----\nMIIC\n"
                                                                             "-----END CERTIFICATE-----"}]},
                       "spConfig": {"spEntityId": "urn:sp", "callbackUri": "https://app.example.com/__/auth/handler"},
                       "enabled": True})
    assert made.status_code == 200, made.text
    yield world
    hearth.stop()
    hearth.remove_data()
    provider.close()


def create_config(world, provider_id, body):
    made = request(world["hearth"], "POST", f"{IDENTITY_TOOLKIT}/v2/projects/{PROJECT}/oauthIdpConfigs", key=None,
                   params={"oauthIdpConfigId": provider_id}, headers=world["headers"], body=body)
    assert made.status_code == 200, made.text


def idp(world, post_body, request_uri=REQUEST_URI, **fields):
    body = {"requestUri": request_uri, "returnSecureToken": True, **fields}
    if post_body is not None:
        body["postBody"] = post_body
    return api(world["hearth"], "signInWithIdp", body, key=KEY)


def form(provider_id, **credential):
    return urllib.parse.urlencode({**credential, "providerId": provider_id})


def users_with_email(world, email):
    found = request(world["hearth"], "POST", f"{IDENTITY_TOOLKIT}/v1/projects/{PROJECT}/accounts:lookup", key=None,
                    body={"email": [email]}, headers=world["headers"])
    assert found.status_code == 200, found.text
    return found.json().get("users", [])


def assert_refused(world, response, message, sub):
    assert response.status_code == 400, response.text
    assert error_message(response) == message or error_message(response).startswith(message + " :"), response.text
    assert users_with_email(world, f"{sub}@oidc.example") == []


# OIDC: the ID-token flow

def test_a_good_oidc_id_token_signs_in_and_creates_the_user_once(world):
    provider = world["provider"]
    sub = unique("sub")
    token = provider.token(sub)
    body = ok(idp(world, form("oidc.good", id_token=token)))
    assert body["providerId"] == "oidc.good" and body["isNewUser"] is True
    assert body["federatedId"] == sub
    assert body["email"] == f"{sub}@oidc.example" and body["emailVerified"] is True
    assert body["displayName"] == "Oi Dee" and body["photoUrl"] == "http://photos.example/oidc.png"
    assert body["oauthIdToken"] == token
    assert json.loads(body["rawUserInfo"])["sub"] == sub
    header, claims = decode_jwt(body["idToken"])
    assert header["alg"] == "RS256"
    assert claims["firebase"]["sign_in_provider"] == "oidc.good"
    assert claims["firebase"]["identities"]["oidc.good"] == [sub]
    user = lookup_by_token(world["hearth"], body["idToken"], key=KEY)
    entries = [entry for entry in user["providerUserInfo"] if entry["providerId"] == "oidc.good"]
    assert len(entries) == 1 and entries[0]["rawId"] == sub
    assert entries[0]["email"] == f"{sub}@oidc.example" and entries[0]["displayName"] == "Oi Dee"

    # Again, with the credential in the request URI's query (the redirect form): the same account.
    again = ok(idp(world, None, request_uri=f"http://localhost/cb?{form('oidc.good', id_token=provider.token(sub))}"))
    assert again["localId"] == body["localId"] and "isNewUser" not in again
    assert len(users_with_email(world, f"{sub}@oidc.example")) == 1
    assert not provider.problems, provider.problems


def test_the_audience_may_be_a_list_holding_the_client_id(world):
    sub = unique("list")
    body = ok(idp(world, form("oidc.good", id_token=world["provider"].token(sub, aud=["other", CLIENT_ID]))))
    assert body["federatedId"] == sub


def _tampered(provider, sub):
    header, payload, signature = provider.token(unique("orig")).split(".")
    claims = json.loads(b64url_decode(payload))
    claims["sub"] = sub
    claims["email"] = f"{sub}@oidc.example"
    return f"{header}.{b64url(json.dumps(claims))}.{signature}"


REFUSED = {
    "wrong audience": lambda p, sub: p.token(sub, aud="someone-else"),
    "wrong issuer": lambda p, sub: p.token(sub, iss="https://evil.example"),
    "expired": lambda p, sub: p.token(sub, iat=int(time.time()) - 7200, exp=int(time.time()) - 3600),
    "issued in the future": lambda p, sub: p.token(sub, iat=int(time.time()) + 3600, exp=int(time.time()) + 7200),
    "bad signature": lambda p, sub: p.token(sub, key=rsa.generate_private_key(public_exponent=65537, key_size=2048)),
    "tampered payload": _tampered,
    "unknown kid": lambda p, sub: p.token(sub, kid="kid-never", key=rsa.generate_private_key(
        public_exponent=65537, key_size=2048)),
    "alg none": lambda p, sub: encode_jwt({"alg": "none", "kid": "kid-1", "typ": "JWT"}, p.claims(sub)),
    "not a JWT": lambda p, sub: json.dumps({"sub": sub, "email": f"{sub}@oidc.example"}),
}


@pytest.mark.parametrize("case", sorted(REFUSED))
def test_bad_oidc_id_tokens_are_refused_and_create_no_user(world, case):
    sub = unique("bad")
    response = idp(world, form("oidc.good", id_token=REFUSED[case](world["provider"], sub)))
    assert_refused(world, response, "INVALID_IDP_RESPONSE", sub)


def test_the_nonce_must_hash_to_the_tokens_nonce(world):
    provider = world["provider"]
    raw = unique("nonce")
    sub = unique("n")
    token = provider.token(sub, nonce=sha256_hex(raw))
    assert_refused(world, idp(world, form("oidc.good", id_token=token, nonce="not-it")), NONCE_WRONG, sub)
    assert_refused(world, idp(world, form("oidc.good", id_token=token, nonce=sha256_hex(raw))), NONCE_WRONG, sub)
    assert_refused(world, idp(world, form("oidc.good", id_token=token)), NONCE_MISSING, sub)
    body = ok(idp(world, form("oidc.good", id_token=token, nonce=raw)))
    assert body["federatedId"] == sub
    # A nonce sent for a token that carries none is a mismatch too.
    other = unique("n")
    assert_refused(world, idp(world, form("oidc.good", id_token=provider.token(other), nonce=raw)), NONCE_WRONG, other)


def test_a_disabled_or_unknown_configuration_is_not_allowed(world):
    sub = unique("off")
    token = world["provider"].token(sub)
    assert_refused(world, idp(world, form("oidc.off", id_token=token)), DISABLED, sub)
    assert_refused(world, idp(world, form("oidc.nobody", id_token=token)), NOT_FOUND, sub)


@per_node_state
def test_an_unknown_kid_refetches_the_keys_at_most_once_a_minute(world):
    provider = world["provider"]
    fetches = provider.jwks_fetches["/rotate"]
    issuer = provider.rotate_issuer
    ok(idp(world, form("oidc.rotate", id_token=provider.token(unique("warm"), iss=issuer))))
    assert len(fetches) == 1
    # The provider rotates in a new key: the first token signed with it makes Hearth fetch the keys again.
    provider.keys["kid-2"] = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    sub = unique("rot")
    body = ok(idp(world, form("oidc.rotate", id_token=provider.token(sub, kid="kid-2", iss=issuer))))
    assert body["federatedId"] == sub
    assert len(fetches) == 2
    # Another unknown kid within the minute: refused without fetching again.
    stranger = unique("kid")
    for _ in range(3):
        response = idp(world, form("oidc.rotate", id_token=provider.token(
            stranger, kid="kid-3", iss=issuer, key=rsa.generate_private_key(public_exponent=65537, key_size=2048))))
        assert_refused(world, response, "INVALID_IDP_RESPONSE", stranger)
    assert len(fetches) == 2
    # Known kids keep working from the cache.
    ok(idp(world, form("oidc.rotate", id_token=provider.token(unique("cached"), iss=issuer))))
    assert len(fetches) == 2


# OIDC: the code flow

def test_the_code_flow_redeems_the_code_at_the_token_endpoint(world):
    provider = world["provider"]
    sub = unique("code")
    redirect = "https://app.example.com/__/auth/handler"
    provider.codes["code-1"] = (redirect, provider.token(sub, issuer=provider.code_issuer))
    body = ok(idp(world, form("oidc.code", code="code-1"), request_uri=redirect))
    assert body["providerId"] == "oidc.code" and body["federatedId"] == sub and body["isNewUser"] is True
    assert body["oauthAccessToken"] == "at-code-1"
    sent = provider.token_requests[-1]
    assert sent["grant_type"] == "authorization_code" and sent["code"] == "code-1"
    assert sent["redirect_uri"] == redirect
    # A code the provider does not know (or already redeemed) is refused.
    assert_refused(world, idp(world, form("oidc.code", code="code-1"), request_uri=redirect), "INVALID_IDP_RESPONSE",
                   unique("none"))
    # The ID token the endpoint gives is verified as any other: one for another client is refused.
    stray = unique("stray")
    provider.codes["code-2"] = (redirect, provider.token(stray, issuer=provider.code_issuer, aud="other"))
    assert_refused(world, idp(world, form("oidc.code", code="code-2"), request_uri=redirect), "INVALID_IDP_RESPONSE",
                   stray)
    assert not provider.problems, provider.problems


# Sign in with Apple

def apple_token(world, sub, aud=APPLE_IDS[0], **overrides):
    now = int(time.time())
    claims = {"iss": "https://appleid.apple.com", "aud": aud, "sub": sub, "email": f"{sub}@oidc.example",
              "email_verified": "true", "is_private_email": "false", "iat": now, "exp": now + 600, **overrides}
    return sign_rs256(world["provider"].apple_key, claims, "apple-kid")


def test_apple_sign_in_checks_the_token_and_its_nonce(world):
    raw = unique("raw")
    sub = unique("apple")
    token = apple_token(world, sub, nonce=sha256_hex(raw))
    assert_refused(world, idp(world, form("apple.com", id_token=token, nonce="other")), NONCE_WRONG, sub)
    assert_refused(world, idp(world, form("apple.com", id_token=token)), NONCE_MISSING, sub)
    body = ok(idp(world, form("apple.com", id_token=token, nonce=raw)))
    assert body["providerId"] == "apple.com" and body["federatedId"] == sub and body["isNewUser"] is True
    assert body["email"] == f"{sub}@oidc.example" and body["emailVerified"] is True
    # The second configured id (a web service id) is an accepted audience too.
    again = ok(idp(world, form("apple.com", id_token=apple_token(world, sub, aud=APPLE_IDS[1]))))
    assert again["localId"] == body["localId"]


@pytest.mark.parametrize("case", ["wrong audience", "wrong issuer", "expired", "bad signature"])
def test_bad_apple_tokens_are_refused(world, case):
    sub = unique("apple-bad")
    now = int(time.time())
    token = {
        "wrong audience": lambda: apple_token(world, sub, aud="com.evil.app"),
        "wrong issuer": lambda: apple_token(world, sub, iss="https://appleid.apple.com.evil"),
        "expired": lambda: apple_token(world, sub, iat=now - 7200, exp=now - 3600),
        "bad signature": lambda: sign_rs256(rsa.generate_private_key(public_exponent=65537, key_size=2048), {
            "iss": "https://appleid.apple.com", "aud": APPLE_IDS[0], "sub": sub, "email": f"{sub}@oidc.example",
            "iat": now, "exp": now + 600}, "apple-kid"),
    }[case]()
    assert_refused(world, idp(world, form("apple.com", id_token=token)), "INVALID_IDP_RESPONSE", sub)


# SAML

def test_saml_sign_in_is_refused_in_production(world):
    assertion = json.dumps({"assertion": {"subject": {"nameId": "someone@corp.example"}}})
    response = idp(world, form("saml.corp", SAMLResponse=assertion))
    assert response.status_code == 400, response.text
    assert error_message(response).startswith("OPERATION_NOT_ALLOWED : "), response.text
    assert users_with_email(world, "someone@corp.example") == []


# Development keeps believing the token, as the emulator does

def test_development_believes_oidc_tokens_without_a_configuration(hearth):
    sub = unique("dev")
    body = ok(api(hearth, "signInWithIdp", {
        "requestUri": REQUEST_URI, "returnSecureToken": True,
        "postBody": form("oidc.anything", id_token=json.dumps({"sub": sub, "email": unique_email("dev")}))}))
    assert body["providerId"] == "oidc.anything" and body["federatedId"] == sub
