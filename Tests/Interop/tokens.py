"""Unsigned ID tokens, built the way Firebase's client SDKs build mock tokens for emulators."""

import base64
import json
import time


def _encode(obj):
    return base64.urlsafe_b64encode(json.dumps(obj).encode()).rstrip(b"=").decode()


def mock_id_token(uid, project="interop-project", **claims):
    now = int(time.time())
    payload = {
        "iss": f"https://securetoken.google.com/{project}", "aud": project, "iat": now, "exp": now + 3600,
        "auth_time": now, "sub": uid, "user_id": uid,
        "firebase": {"sign_in_provider": "custom", "identities": {}},
        **claims,
    }
    return f"{_encode({'alg': 'none', 'type': 'JWT'})}.{_encode(payload)}."
