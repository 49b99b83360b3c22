"""Hearth's Auth server in production mode (`--production --api-key test-api-key`): only the
configured API key is accepted, ID tokens are RS256-signed with a key published both as JWKS and as
an X.509 map, forged, tampered and unsigned tokens are refused, the emulator's `Bearer owner`
credential is not honoured, and refresh tokens are opaque and stop working once the account is
deleted or its password changes."""

import base64
import hashlib
import hmac
import json
import time

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import padding, rsa

from auth_client import (
    MISSING_API_KEY, admin, api, b64url, b64url_decode, decode_jwt, encode_jwt, error_message, ok, refresh, request,
    sign_up, unique_email,
)
from conftest import OWNER, PROJECT, HearthProcess

KEY = "test-api-key"
JWKS_PATH = "/www.googleapis.com/service_accounts/v1/jwk/securetoken@system.gserviceaccount.com"
X509_PATH = "/www.googleapis.com/robot/v1/metadata/x509/securetoken@system.gserviceaccount.com"


@pytest.fixture(scope="module")
def server():
    hearth = HearthProcess(extra_args=["--production", "--api-key", KEY]).start()
    yield hearth
    hearth.stop()
    hearth.remove_data()


def jwks_keys(server):
    """kid → RSA public key, from the published JWKS."""
    body = ok(request(server, "GET", JWKS_PATH, key=None))
    keys = {}
    for jwk in body["keys"]:
        assert jwk["kty"] == "RSA" and jwk["alg"] == "RS256" and jwk["use"] == "sig"
        numbers = rsa.RSAPublicNumbers(int.from_bytes(b64url_decode(jwk["e"]), "big"),
                                       int.from_bytes(b64url_decode(jwk["n"]), "big"))
        keys[jwk["kid"]] = numbers.public_key()
    return keys


def x509_keys(server):
    """kid → RSA public key, from the published X.509 certificate map."""
    body = ok(request(server, "GET", X509_PATH, key=None))
    return {kid: x509.load_pem_x509_certificate(pem.encode()).public_key() for kid, pem in body.items()}


def verify_rs256(token, public_key):
    """Raises cryptography's InvalidSignature unless the token's signature verifies."""
    header, payload, signature = token.split(".")
    public_key.verify(b64url_decode(signature), f"{header}.{payload}".encode(), padding.PKCS1v15(), hashes.SHA256())


def resign(token, header=None, payload=None, signature=None):
    """The token with header/payload replaced (re-encoded) and the given signature, or the old one."""
    old_header, old_payload = decode_jwt(token)
    old_signature = b64url_decode(token.split(".")[2])
    return encode_jwt(header or old_header, payload or old_payload, old_signature if signature is None else signature)


def sign_with(private_key, header, payload):
    unsigned = f"{b64url(json.dumps(header))}.{b64url(json.dumps(payload))}"
    signature = private_key.sign(unsigned.encode(), padding.PKCS1v15(), hashes.SHA256())
    return f"{unsigned}.{b64url(signature)}"


def assert_invalid_id_token(server, token):
    response = api(server, "lookup", {"idToken": token}, key=KEY)
    assert response.status_code == 400, response.text
    assert error_message(response) == "INVALID_ID_TOKEN"


def test_sign_up_with_the_configured_api_key(server):
    anonymous = sign_up(server, key=KEY)
    assert anonymous["idToken"] and anonymous["refreshToken"] and anonymous["expiresIn"] == "3600"
    email = unique_email()
    user = sign_up(server, email, key=KEY)
    assert user["email"] == email


def test_other_api_keys_are_refused_and_create_nothing(server):
    email = unique_email()
    missing = api(server, "signUp", {"email": email, "password": "secret1"}, key=None)
    assert missing.status_code == 403
    assert missing.json()["error"]["status"] == "PERMISSION_DENIED"
    assert error_message(missing) == MISSING_API_KEY
    wrong = api(server, "signUp", {"email": email, "password": "secret1"}, key="some-other-key")
    assert wrong.status_code in (400, 403), wrong.text
    if wrong.status_code == 403:
        assert error_message(wrong) == MISSING_API_KEY
    else:
        assert wrong.json()["error"]["errors"][0]["reason"].startswith("keyInvalid")
    assert sign_up(server, email, key=KEY)["email"] == email


def test_id_token_is_rs256_signed_with_a_published_key(server):
    token = sign_up(server, unique_email(), key=KEY)["idToken"]
    header, _ = decode_jwt(token)
    assert header["alg"] == "RS256"
    kid = header["kid"]
    jwks, certificates = jwks_keys(server), x509_keys(server)
    assert kid in jwks and kid in certificates
    verify_rs256(token, jwks[kid])
    verify_rs256(token, certificates[kid])
    assert jwks[kid].public_numbers() == certificates[kid].public_numbers()


def test_id_token_claims(server):
    before = int(time.time())
    email = unique_email()
    user = sign_up(server, email, key=KEY)
    _, claims = decode_jwt(user["idToken"])
    assert claims["iss"] == f"https://securetoken.google.com/{PROJECT}"
    assert claims["aud"] == PROJECT
    assert claims["sub"] == claims["user_id"] == user["localId"]
    assert before - 1 <= claims["iat"] <= int(time.time()) + 1
    assert claims["exp"] == claims["iat"] + 3600
    assert claims["auth_time"] <= claims["iat"]
    assert claims["email"] == email and claims["email_verified"] is False
    assert claims["firebase"]["sign_in_provider"] == "password"
    assert claims["firebase"]["identities"] == {"email": [email]}
    _, anonymous = decode_jwt(sign_up(server, key=KEY)["idToken"])
    assert anonymous["provider_id"] == "anonymous"
    assert anonymous["firebase"]["sign_in_provider"] == "anonymous"


def test_refreshed_id_token_is_signed_too(server):
    user = sign_up(server, unique_email(), key=KEY)
    body = ok(refresh(server, user["refreshToken"], key=KEY))
    assert body["access_token"] == body["id_token"] and body["user_id"] == user["localId"]
    header, claims = decode_jwt(body["id_token"])
    assert header["alg"] == "RS256"
    verify_rs256(body["id_token"], jwks_keys(server)[header["kid"]])
    assert claims["exp"] == claims["iat"] + 3600
    assert ok(api(server, "lookup", {"idToken": body["id_token"]}, key=KEY))["users"][0]["localId"] == user["localId"]


def forged_tokens(server):
    """name → a token that must not be accepted, each derived from a genuine one."""
    victim = sign_up(server, unique_email(), key=KEY)
    attacker = sign_up(server, unique_email(), key=KEY)
    token = attacker["idToken"]
    header, claims = decode_jwt(token)
    now = int(time.time())
    stranger = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    public_pem = jwks_keys(server)[header["kid"]].public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
    hs256_header = {**header, "alg": "HS256"}
    hs256_unsigned = f"{b64url(json.dumps(hs256_header))}.{b64url(json.dumps(claims))}"
    return token, {
        "expired": resign(token, payload={**claims, "iat": now - 7200, "exp": now - 3600, "auth_time": now - 7200}),
        "other-subject": resign(token, payload={**claims, "sub": victim["localId"], "user_id": victim["localId"]}),
        "wrong-audience": resign(token, payload={**claims, "aud": "another-project"}),
        "wrong-issuer": resign(token, payload={**claims, "iss": "https://securetoken.google.com/another-project"}),
        "signature-stripped": token.rsplit(".", 1)[0] + ".",
        "alg-none": encode_jwt({"alg": "none", "typ": "JWT"}, claims),
        "unknown-key-same-kid": sign_with(stranger, header, claims),
        "unknown-key-other-kid": sign_with(stranger, {**header, "kid": "not-a-published-kid"}, claims),
        "hs256-with-the-public-key": hs256_unsigned + "." + b64url(
            hmac.new(public_pem, hs256_unsigned.encode(), hashlib.sha256).digest()),
        "garbage": "not.a.jwt",
    }


def test_forged_and_tampered_tokens_are_invalid(server):
    genuine, forged = forged_tokens(server)
    ok(api(server, "lookup", {"idToken": genuine}, key=KEY))
    failures = {}
    for name, token in forged.items():
        response = api(server, "lookup", {"idToken": token}, key=KEY)
        if response.status_code != 400 or error_message(response) != "INVALID_ID_TOKEN":
            failures[name] = f"{response.status_code} {response.text}"
    assert failures == {}


def test_unsigned_token_is_refused_by_update_and_delete_too(server):
    user = sign_up(server, unique_email(), key=KEY)
    _, claims = decode_jwt(user["idToken"])
    unsigned = encode_jwt({"alg": "none", "typ": "JWT"}, claims)
    for op, body in (("update", {"idToken": unsigned, "displayName": "x"}), ("delete", {"idToken": unsigned})):
        response = api(server, op, body, key=KEY)
        assert response.status_code == 400 and error_message(response) == "INVALID_ID_TOKEN", op
    ok(api(server, "lookup", {"idToken": user["idToken"]}, key=KEY))


def test_bearer_owner_is_not_a_credential(server):
    response = admin(server, "/accounts:lookup", {"localId": ["x"]}, headers=OWNER)
    assert response.status_code == 401
    assert response.json()["error"]["status"] == "UNAUTHENTICATED"


def test_refresh_token_is_opaque(server):
    token = sign_up(server, key=KEY)["refreshToken"]
    assert "_AuthEmulatorRefreshToken" not in token
    for alphabet in (base64.b64decode, base64.urlsafe_b64decode):
        try:
            decoded = alphabet(token + "=" * (-len(token) % 4))
        except ValueError:
            continue
        assert b"_AuthEmulatorRefreshToken" not in decoded and b"localId" not in decoded
    assert ok(refresh(server, token, key=KEY))["id_token"]


def test_refresh_of_a_deleted_account_is_user_not_found(server):
    user = sign_up(server, unique_email(), key=KEY)
    ok(api(server, "delete", {"idToken": user["idToken"]}, key=KEY))
    response = refresh(server, user["refreshToken"], key=KEY)
    assert response.status_code == 400 and error_message(response) == "USER_NOT_FOUND", response.text


def test_password_change_expires_older_refresh_tokens(server):
    user = sign_up(server, unique_email(), key=KEY)
    time.sleep(1.1)
    changed = ok(api(server, "update", {"idToken": user["idToken"], "password": "newpass1", "returnSecureToken": True},
                     key=KEY))
    assert changed["idToken"] and changed["refreshToken"]
    old = refresh(server, user["refreshToken"], key=KEY)
    assert old.status_code == 400 and error_message(old) == "TOKEN_EXPIRED", old.text
    stale = api(server, "lookup", {"idToken": user["idToken"]}, key=KEY)
    assert stale.status_code == 400 and error_message(stale) == "TOKEN_EXPIRED", stale.text
    assert ok(refresh(server, changed["refreshToken"], key=KEY))["user_id"] == user["localId"]
