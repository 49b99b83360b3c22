"""Requests to Hearth's Auth endpoints in the URL forms Firebase's SDKs build for the Auth emulator:
`/identitytoolkit.googleapis.com/v1/…`, `/securetoken.googleapis.com/v1/token`, the legacy
`/www.googleapis.com/identitytoolkit/v3/relyingparty/<name>` and `/emulator/v1/projects/{p}/…`."""

import base64
import contextlib
import json
import os
import uuid

import firebase_admin
import requests

from conftest import OWNER, PROJECT

API_KEY = "test-key"
IDENTITY_TOOLKIT = "/identitytoolkit.googleapis.com"
SECURE_TOKEN = "/securetoken.googleapis.com/v1/token"
LEGACY = "/www.googleapis.com/identitytoolkit/v3/relyingparty"
EMULATOR = f"/emulator/v1/projects/{PROJECT}"
CUSTOM_TOKEN_AUDIENCE = "https://identitytoolkit.googleapis.com/google.identity.identitytoolkit.v1.IdentityToolkit"
EMULATOR_SERVICE_ACCOUNT = "firebase-auth-emulator@example.com"
MISSING_API_KEY = "The request is missing a valid API key."
TIMEOUT = 60


def request(hearth, method, path, *, key=API_KEY, body=None, data=None, headers=None, params=None):
    """Any Auth request: `key` goes to the query (None: no key), `body` is sent as JSON, `data` as
    is (a string or a form dict)."""
    query = dict(params or {})
    if key is not None:
        query["key"] = key
    return requests.request(method, f"{hearth.url}{path}", params=query, json=body, data=data,
                            headers=headers, allow_redirects=False, timeout=TIMEOUT)


def api(hearth, op, body=None, key=API_KEY, headers=None, data=None):
    """`POST /identitytoolkit.googleapis.com/v1/accounts:{op}?key=…`, the client (API key) form."""
    if body is None and data is None:
        body = {}
    return request(hearth, "POST", f"{IDENTITY_TOOLKIT}/v1/accounts:{op}", key=key, body=body, data=data,
                   headers=headers)


def admin(hearth, path, body=None, method="POST", params=None, headers=OWNER):
    """A privileged request on `/identitytoolkit.googleapis.com/v1/projects/{PROJECT}{path}` with
    `Authorization: Bearer owner`; `path` is e.g. "/accounts:lookup" or ":createSessionCookie"."""
    if method == "POST" and body is None:
        body = {}
    return request(hearth, method, f"{IDENTITY_TOOLKIT}/v1/projects/{PROJECT}{path}", key=None, body=body,
                   params=params, headers=headers)


def legacy(hearth, name, body=None, key=API_KEY, method="POST", headers=None, data=None):
    """The iOS SDK's form: `/www.googleapis.com/identitytoolkit/v3/relyingparty/<name>?key=…`."""
    if method == "POST" and body is None and data is None:
        body = {}
    return request(hearth, method, f"{LEGACY}/{name}", key=key, body=body, data=data, headers=headers)


def refresh(hearth, refresh_token, key=API_KEY, as_json=False):
    """Exchanges a refresh token: form-encoded as the JS SDK sends it, or JSON as the iOS SDK does."""
    if as_json:
        return token_request(hearth, body={"grantType": "refresh_token", "refreshToken": refresh_token}, key=key)
    return token_request(hearth, data={"grant_type": "refresh_token", "refresh_token": refresh_token}, key=key)


def token_request(hearth, data=None, body=None, key=API_KEY, headers=None):
    """`POST /securetoken.googleapis.com/v1/token` with `data` (a form dict, form-encoded, or a raw
    string sent as is) or a JSON `body`."""
    return request(hearth, "POST", SECURE_TOKEN, key=key, body=body, data=data, headers=headers)


def emulator(hearth, method, path, body=None):
    """`/emulator/v1/projects/{PROJECT}{path}`, the emulator's management endpoints."""
    return request(hearth, method, f"{EMULATOR}{path}", key=None, body=body)


def emulator_action(hearth, **params):
    """`GET /emulator/action?…`, the out-of-band link handler."""
    return request(hearth, "GET", "/emulator/action", key=None, params=params)


def ok(response):
    """The JSON body of a response that must have succeeded."""
    assert response.status_code == 200, f"{response.status_code} {response.text}"
    return response.json()


def error_message(response):
    """`error.message` of an error response."""
    return response.json()["error"]["message"]


def b64url(data):
    if isinstance(data, str):
        data = data.encode()
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def b64url_decode(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def decode_jwt(token):
    """(header, payload) of a compact JWT, without verifying anything."""
    header, payload, _ = token.split(".")
    return json.loads(b64url_decode(header)), json.loads(b64url_decode(payload))


def encode_jwt(header, payload, signature=b""):
    """A compact JWT from the given parts (signature bytes as given; empty for `alg: none`)."""
    return f"{b64url(json.dumps(header))}.{b64url(json.dumps(payload))}.{b64url(signature)}"


def unique_email(prefix="user"):
    return f"{prefix}-{uuid.uuid4().hex[:12]}@example.com"


def unique_uid(prefix="uid"):
    return f"{prefix}-{uuid.uuid4().hex[:16]}"


def sign_up(hearth, email=None, password="secret1", key=API_KEY, **fields):
    """Signs up a new user (anonymous when `email` is None) and returns the response body."""
    body = {"returnSecureToken": True, **fields}
    if email is not None:
        body.update(email=email, password=password)
    return ok(api(hearth, "signUp", body, key=key))


def sign_in(hearth, email, password="secret1", key=API_KEY):
    return ok(api(hearth, "signInWithPassword", {"email": email, "password": password, "returnSecureToken": True},
                  key=key))


def lookup_by_token(hearth, id_token, key=API_KEY):
    """The single user an end-user lookup returns."""
    users = ok(api(hearth, "lookup", {"idToken": id_token}, key=key))["users"]
    assert len(users) == 1
    return users[0]


def lookup_by_uid(hearth, uid):
    """The user record an admin lookup returns, or None."""
    users = ok(admin(hearth, "/accounts:lookup", {"localId": [uid]})).get("users", [])
    return users[0] if users else None


def oob_codes(hearth, email=None, request_type=None):
    """Unconsumed action codes listed by the emulator endpoint, optionally only those of one email
    and request type (oldest first)."""
    codes = ok(emulator(hearth, "GET", "/oobCodes"))["oobCodes"]
    return [code for code in codes
            if (email is None or code.get("email") == email)
            and (request_type is None or code.get("requestType") == request_type)]


def latest_oob_code(hearth, email, request_type):
    codes = oob_codes(hearth, email, request_type)
    assert codes, f"no {request_type} code for {email}"
    return codes[-1]["oobCode"]


def import_users(hearth, users, **hash_config):
    """`accounts:batchCreate` with one hash configuration for the batch."""
    return admin(hearth, "/accounts:batchCreate", {"users": users, **hash_config})


def is_digit_string(value):
    return isinstance(value, str) and value.isdigit()


# Password-hash vectors (spec §9.2 worked values, §9.3 Firebase scrypt vectors), as
# (batchCreate hash configuration, password, base64 salt or None, base64 passwordHash).
SCRYPT_KEY_A = "jxspr8Ki0RYycVU8zykbdLGjFQ3McFUH0uiiTvC8pVMXAn210wjLNmdZJzxUECKbm0QsEmYUSDzZvpjeJ9WmXA=="
SCRYPT_KEY_B = "NkZlKPkYEFfnbh1nYTfLsbqQnQ6jyRV4itK7iUD+hjO96tsAYhBG40BVS3AuJyiwHinqc5RR3oA+lppOXPNRmw=="
SCRYPT_A = {"hashAlgorithm": "SCRYPT", "signerKey": SCRYPT_KEY_A, "saltSeparator": "Bw==", "rounds": 8, "memoryCost": 14}
SCRYPT_B = {"hashAlgorithm": "SCRYPT", "signerKey": SCRYPT_KEY_B, "saltSeparator": "Bw==", "rounds": 8, "memoryCost": 14}
NACL = "TmFDbA=="
# OpenBSD/Openwall crypt_blowfish test vector for the password "U*U".
BCRYPT_U_STAR_U = "$2a$05$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW"
HASH_VECTORS = {
    "scrypt-A1": (SCRYPT_A, "user1password", "42xEC+ixf3L2lw==",
                  "lSrfV15cpx95/sZS2W9c9Kp6i/LVgQNDNC/qzrCnh1SAyZvqmZqAjTdn3aoItz+VHjoZilo78198JAdRuid5lQ=="),
    "scrypt-A2": (SCRYPT_A, "hunter2", "42xEC+ixf3L2lw==",
                  "70k8Vg5B3/OrvJOiqusnasv0dLcBHoDAqJrJr7TRLBfMw4MitWx51YXJYFdGiyMbMeKtWtLf5HiBDcN0SUOm4A=="),
    "scrypt-A3": (SCRYPT_A, "password", NACL,
                  "V358E8LdWJXAO7muq0CufVpEOXaj8aFiC7T/rcaGieN04q/ZPJ08WhJEHGjj9lz/2TT+/86N5VjVoc5DdBhBiw=="),
    "scrypt-B1": (SCRYPT_B, "two space password", "GGc/eCzFj6DM0g==",
                  "5RZZm9Jz7p/u+FGXMInlJtAYFmMBj6ioL1UOdWfsUknAFCnsPpnnKRLyXSUFwwKbM4lx7TdFclBsT16Z8uuumg=="),
    "hmac-sha256": ({"hashAlgorithm": "HMAC_SHA256", "signerKey": base64.b64encode(b"secret").decode()}, "password", NACL,
                    "C5WKh+Qa5RkMlq+h5DX5XKsBOsQt/DEKEaUBAMQqrlI="),
    "sha256": ({"hashAlgorithm": "SHA256", "rounds": 1}, "password", NACL,
               "sgq3SqJUn34ToOiGy0RxzC5w/NLOgHXA7mSDq7phMvM="),
    "md5": ({"hashAlgorithm": "MD5", "rounds": 0}, "password", NACL,
            "NjJkMTlmN2U3ZGRjYjU5NDY3Mjg3NzZkMjVlNDEwZWQ="),
    "standard-scrypt": ({"hashAlgorithm": "STANDARD_SCRYPT", "cpuMemCost": 1024, "blockSize": 8, "parallelization": 16,
                         "dkLen": 64}, "password", NACL,
                        "/bq+HJ00cgB4VucZDQHp/nxq18vII3gw53N2Y0s3MWIurzDZLiKjiG/xCSedmDDaxyevuUqD7m2DYMvfoswGQA=="),
    "pbkdf2-sha256": ({"hashAlgorithm": "PBKDF2_SHA256", "rounds": 100000}, "password", NACL,
                      "5VnqZoKMOie1mhCQGRw7u1FV5Kv8Yb8uxEArtVAl0vSlwAQqXe8VxejCRe5enxUyNN4OWQ60PGRIVPZzEvcQtw=="),
    "bcrypt": ({"hashAlgorithm": "BCRYPT"}, "U*U", None, base64.b64encode(BCRYPT_U_STAR_U.encode()).decode()),
}


@contextlib.contextmanager
def admin_auth_app(hearth, name):
    """A `firebase_admin` app whose Auth calls go to `hearth` (through `FIREBASE_AUTH_EMULATOR_HOST`,
    restored afterwards)."""
    previous = os.environ.get("FIREBASE_AUTH_EMULATOR_HOST")
    os.environ["FIREBASE_AUTH_EMULATOR_HOST"] = hearth.host
    app = firebase_admin.initialize_app(options={"projectId": PROJECT}, name=name)
    try:
        yield app
    finally:
        firebase_admin.delete_app(app)
        if previous is None:
            del os.environ["FIREBASE_AUTH_EMULATOR_HOST"]
        else:
            os.environ["FIREBASE_AUTH_EMULATOR_HOST"] = previous
