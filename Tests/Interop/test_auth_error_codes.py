"""The error codes of auth spec §3 that the other suites do not reach, each produced by the request
that causes it, with the status and exact text (development mode, as the emulator)."""

import uuid

import requests

from auth_client import admin, api, error_message, ok, sign_up, unique_email, unique_uid


def assert_error(response, message, status=400):
    assert response.status_code == status, response.text
    assert error_message(response) == message


def test_another_project_is_not_found(hearth):
    response = api(hearth, "lookup", {"localId": ["x"], "targetProjectId": "some-other-project"},
                   headers={"Authorization": "Bearer owner"})
    assert_error(response, "CONFIGURATION_NOT_FOUND")


def test_admin_create_refuses_bad_uids_and_phone_numbers(hearth):
    assert_error(admin(hearth, "/accounts", {"localId": "x" * 129}), "INVALID_LOCAL_ID")
    assert_error(admin(hearth, "/accounts", {"phoneNumber": "5551234"}), "INVALID_PHONE_NUMBER : Invalid format.")
    phone = f"+1555{uuid.uuid4().int % 10_000_000:07d}"
    ok(admin(hearth, "/accounts", {"phoneNumber": phone}))
    assert_error(admin(hearth, "/accounts", {"phoneNumber": phone}), "PHONE_NUMBER_EXISTS")
    other = ok(admin(hearth, "/accounts", {}))["localId"]
    assert_error(admin(hearth, "/accounts:update", {"localId": other, "phoneNumber": phone}), "PHONE_NUMBER_EXISTS")
    assert_error(admin(hearth, "/accounts:update", {"localId": other, "phoneNumber": "12"}),
                 "INVALID_PHONE_NUMBER : Invalid format.")


def test_end_users_may_not_link_provider_info_themselves(hearth):
    user = sign_up(hearth, unique_email("self-link"))
    response = api(hearth, "update", {"idToken": user["idToken"],
                                      "linkProviderUserInfo": {"providerId": "google.com", "rawId": "someone-else"}})
    assert_error(response, "INSUFFICIENT_PERMISSION")


def test_linking_provider_info_needs_a_provider_and_a_raw_id(hearth):
    uid = ok(admin(hearth, "/accounts", {}))["localId"]
    assert_error(admin(hearth, "/accounts:update", {"localId": uid, "linkProviderUserInfo": {"rawId": "r"}}),
                 "MISSING_PROVIDER_ID")
    assert_error(admin(hearth, "/accounts:update",
                       {"localId": uid, "linkProviderUserInfo": {"providerId": "google.com"}}), "MISSING_RAW_ID")
    linked = ok(admin(hearth, "/accounts:update",
                      {"localId": uid, "linkProviderUserInfo": {"providerId": "google.com", "rawId": f"g-{uid}"}}))
    assert [p["providerId"] for p in linked["providerUserInfo"]] == ["google.com"]


def test_batch_create_refuses_duplicate_emails_under_sanity_check_and_unknown_algorithms(hearth):
    email = unique_email("dup")
    response = admin(hearth, "/accounts:batchCreate", {
        "sanityCheck": True, "users": [{"localId": unique_uid(), "email": email},
                                       {"localId": unique_uid(), "email": email.upper()}]})
    assert_error(response, f"DUPLICATE_EMAIL : {email}")
    response = admin(hearth, "/accounts:batchCreate", {
        "hashAlgorithm": "ROT13", "users": [{"localId": unique_uid(), "passwordHash": "YWJj"}]})
    assert_error(response, "INVALID_HASH_ALGORITHM")
    response = admin(hearth, "/accounts:batchCreate", {
        "hashAlgorithm": "HMAC_SHA256", "users": [{"localId": unique_uid(), "passwordHash": "YWJj"}]})
    assert response.status_code == 400
    assert error_message(response).startswith("INVALID_HASH_ALGORITHM : ")
    assert "signerKey" in error_message(response) and "invalidParameter" not in error_message(response)


def test_listing_refuses_page_sizes_out_of_range(hearth):
    for size in ("0", "1001"):
        assert_error(admin(hearth, "/accounts:batchGet", method="GET", params={"maxResults": size}), "INVALID_PAGE_SIZE")


def test_action_code_operations_need_a_code(hearth):
    assert_error(api(hearth, "resetPassword", {"newPassword": "secret2"}), "MISSING_OOB_CODE")
    email = unique_email("link")
    assert_error(api(hearth, "signInWithEmailLink", {"email": email}), "MISSING_OOB_CODE")
    sign_up(hearth, email)
    assert_error(api(hearth, "resetPassword", {"oobCode": "no-such-code"}), "INVALID_OOB_CODE")


def test_database_locations_named_like_auth_paths_stay_database_locations(hearth):
    for path in ("emulator/v1/settings", "__/auth/action"):
        written = requests.put(f"{hearth.url}/{path}.json", json={"kept": True}, timeout=10)
        assert written.status_code == 200, (path, written.text)
        assert requests.get(f"{hearth.url}/{path}.json", timeout=10).json() == {"kept": True}
