"""Phone sign-in in development, as the Auth emulator serves it: `sendVerificationCode` makes a
six-digit code that `/emulator/v1/projects/{p}/verificationCodes` lists, and
`signInWithPhoneNumber` signs in, creates or links with it (v1 names and the iOS SDK's legacy ones)."""

import uuid

from auth_client import api, decode_jwt, emulator, error_message, legacy, ok
from conftest import per_node_state

# A phone code is kept by the node that sent it.
pytestmark = per_node_state


def unique_phone():
    return f"+1555{uuid.uuid4().int % 10_000_000:07d}"


def send_code(hearth, phone, send=api):
    name = "sendVerificationCode"
    session = ok(send(hearth, name, {"phoneNumber": phone, "recaptchaToken": "ignored"}))["sessionInfo"]
    listed = ok(emulator(hearth, "GET", "/verificationCodes"))["verificationCodes"]
    [entry] = [code for code in listed if code["sessionInfo"] == session]
    assert entry["phoneNumber"] == phone and len(entry["code"]) == 6 and entry["code"].isdigit()
    return session, entry["code"]


def test_a_code_signs_in_creating_the_account_once(hearth):
    phone = unique_phone()
    session, code = send_code(hearth, phone)
    assert len(session) == 226
    first = ok(api(hearth, "signInWithPhoneNumber", {"sessionInfo": session, "code": code}))
    assert first["isNewUser"] is True and first["phoneNumber"] == phone and first["expiresIn"] == "3600"
    claims = decode_jwt(first["idToken"])[1]
    assert claims["phone_number"] == phone and claims["firebase"]["sign_in_provider"] == "phone"
    assert claims["firebase"]["identities"] == {"phone": [phone]}
    # The code is used up; a new one signs into the same account.
    assert error_message(api(hearth, "signInWithPhoneNumber", {"sessionInfo": session, "code": code})) == \
        "INVALID_SESSION_INFO"
    session, code = send_code(hearth, phone, send=legacy)
    again = ok(legacy(hearth, "verifyPhoneNumber", {"sessionInfo": session, "code": code}))
    assert again["isNewUser"] is False and again["localId"] == first["localId"]


def test_a_code_links_the_number_to_the_signed_in_account(hearth):
    anonymous = ok(api(hearth, "signUp", {"returnSecureToken": True}))
    phone = unique_phone()
    session, code = send_code(hearth, phone)
    linked = ok(api(hearth, "signInWithPhoneNumber",
                    {"sessionInfo": session, "code": code, "idToken": anonymous["idToken"]}))
    assert linked["localId"] == anonymous["localId"] and linked["isNewUser"] is False
    # Another account may not take the number.
    other = ok(api(hearth, "signUp", {"returnSecureToken": True}))
    session, code = send_code(hearth, phone)
    taken = api(hearth, "signInWithPhoneNumber", {"sessionInfo": session, "code": code, "idToken": other["idToken"]})
    assert error_message(taken) == "PHONE_NUMBER_EXISTS"


def test_bad_phone_requests_are_refused(hearth):
    assert error_message(api(hearth, "sendVerificationCode", {"phoneNumber": "5551234"})) == \
        "INVALID_PHONE_NUMBER : Invalid format."
    assert error_message(api(hearth, "sendVerificationCode", {})) == "MISSING_PHONE_NUMBER"
    session, code = send_code(hearth, unique_phone())
    wrong = "000000" if code != "000000" else "111111"
    assert error_message(api(hearth, "signInWithPhoneNumber", {"sessionInfo": session, "code": wrong})) == "INVALID_CODE"
    assert error_message(api(hearth, "signInWithPhoneNumber", {"sessionInfo": "nope", "code": code})) == \
        "INVALID_SESSION_INFO"
    assert error_message(api(hearth, "signInWithPhoneNumber", {"code": code})) == "MISSING_SESSION_INFO"
    assert error_message(api(hearth, "signInWithPhoneNumber", {"sessionInfo": session})) == "MISSING_CODE"
    # A wrong code does not use the code up.
    assert ok(api(hearth, "signInWithPhoneNumber", {"sessionInfo": session, "code": code}))["isNewUser"] is True


def test_reauthentication_needs_an_account_with_the_number(hearth):
    phone = unique_phone()
    session, code = send_code(hearth, phone)
    refused = api(hearth, "signInWithPhoneNumber", {"sessionInfo": session, "code": code, "operation": "REAUTH"})
    assert error_message(refused) == "USER_NOT_FOUND"
    # No account was made: signing in with the number creates it now.
    session, code = send_code(hearth, phone)
    created = ok(api(hearth, "signInWithPhoneNumber", {"sessionInfo": session, "code": code, "operation": "SIGN_UP_OR_IN"}))
    assert created["isNewUser"] is True
    session, code = send_code(hearth, phone)
    again = ok(api(hearth, "signInWithPhoneNumber", {"sessionInfo": session, "code": code, "operation": "REAUTH"}))
    assert again["localId"] == created["localId"] and again["isNewUser"] is False
