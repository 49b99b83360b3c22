"""The console's user import and export: files in Firebase's `auth:export` formats, read and written
by the same code as `hearth auth:import` and `auth:export` (an export from the console is the CLI's,
byte for byte); password hashes with the CLI's parameters; a file with one invalid user, bad hash
parameters, an oversized or forged request import nothing; and the users view's import form."""

import json
import subprocess

import pytest
import requests

from browser import browser  # noqa: F401 (fixture)
from conftest import HEARTH_BIN, OWNER, PROJECT
from console_page import console  # noqa: F401 (fixture)

TIMEOUT = 30
ADMIN = f"/identitytoolkit.googleapis.com/v1/projects/{PROJECT}"
NACL = "TmFDbA=="
# Auth spec §9.3's worked value: HMAC_SHA256 of `password` with salt `NaCl` and key `secret`.
HMAC_HASH = "C5WKh+Qa5RkMlq+h5DX5XKsBOsQt/DEKEaUBAMQqrlI="


@pytest.fixture(autouse=True)
def no_accounts(console_hearth):
    response = requests.delete(f"{console_hearth.url}/emulator/v1/projects/{PROJECT}/accounts", timeout=TIMEOUT)
    assert response.status_code == 200, response.text


def csrf(hearth):
    return requests.get(f"{hearth.console_url}/console/session", timeout=TIMEOUT).json()["csrfToken"]


def import_file(hearth, data, fmt="json", token=None, **hash_parameters):
    headers = {"X-Hearth-CSRF": token if token is not None else csrf(hearth)}
    return requests.post(f"{hearth.console_url}/console/auth/users/import", params={"format": fmt, **hash_parameters},
                         data=data, headers=headers, timeout=TIMEOUT)


def export_file(hearth, fmt):
    return requests.get(f"{hearth.console_url}/console/auth/users/export", params={"format": fmt},
                        headers={"X-Hearth-CSRF": csrf(hearth)}, timeout=TIMEOUT)


def user_count(hearth):
    answer = requests.post(f"{hearth.url}{ADMIN}/accounts:query", json={"returnUserInfo": False}, headers=OWNER,
                           timeout=TIMEOUT)
    return int(answer.json()["recordsCount"])


def sign_in(hearth, email, password):
    return requests.post(
        f"{hearth.url}/identitytoolkit.googleapis.com/v1/accounts:signInWithPassword", params={"key": "k"},
        json={"email": email, "password": password, "returnSecureToken": True}, timeout=TIMEOUT)


def users_file(users):
    return json.dumps({"users": users}).encode()


def test_hashed_users_import_and_sign_in(console_hearth):
    answer = import_file(console_hearth, users_file([
        {"localId": "hmac", "email": "hmac@example.com", "passwordHash": HMAC_HASH, "salt": NACL},
        {"localId": "phone", "phoneNumber": "+15555550101", "customAttributes": '{"admin": true}'},
    ]), hashAlgo="HMAC_SHA256", hashKey="c2VjcmV0")
    assert answer.status_code == 200, answer.text
    assert answer.json() == {"total": 2, "imported": 2, "refusals": []}
    assert sign_in(console_hearth, "hmac@example.com", "password").status_code == 200
    assert sign_in(console_hearth, "hmac@example.com", "wrong").status_code == 400


def test_csv_imports_with_quoted_fields(console_hearth):
    line = ['csv-1', 'csv@example.com', 'true', '', '', '"Lovelace, Ada"'] + [''] * 46
    line[27] = '"{""level"": 3}"'
    answer = import_file(console_hearth, (",".join(line) + "\r\n").encode(), fmt="csv")
    assert answer.status_code == 200, answer.text
    user = requests.post(f"{console_hearth.url}{ADMIN}/accounts:lookup", json={"localId": ["csv-1"]}, headers=OWNER,
                         timeout=TIMEOUT).json()["users"][0]
    assert user["displayName"] == "Lovelace, Ada" and json.loads(user["customAttributes"]) == {"level": 3}
    assert user["emailVerified"] is True


@pytest.mark.parametrize("fmt", ["json", "csv"])
def test_the_export_is_the_cli_export_byte_for_byte(console_hearth, tmp_path, fmt):
    users = [{"localId": f"user-{index:04}", "email": f"user{index}@example.com", "displayName": f"User, {index}"}
             for index in range(2500)]
    assert import_file(console_hearth, users_file(users)).json()["imported"] == 2500
    answer = export_file(console_hearth, fmt)
    assert answer.status_code == 200, answer.text
    assert answer.headers["Content-Disposition"] == f'attachment; filename="users.{fmt}"'
    target = tmp_path / f"cli.{fmt}"
    cli = subprocess.run([HEARTH_BIN, "auth:export", str(target), "--server", console_hearth.url, "--project", PROJECT],
                         capture_output=True, text=True, timeout=120)
    assert cli.returncode == 0, cli.stderr
    assert answer.content == target.read_bytes()
    if fmt == "json":
        assert [user["localId"] for user in answer.json()["users"]] == [user["localId"] for user in users]


def test_an_exported_file_imports_back_unchanged(console_hearth):
    import_file(console_hearth, users_file([
        {"localId": "round", "email": "round@example.com", "displayName": "Round Trip", "disabled": True,
         "providerUserInfo": [{"providerId": "google.com", "rawId": "g-1", "email": "round@gmail.com"}]}]))
    exported = export_file(console_hearth, "json").content
    before = requests.get(f"{console_hearth.url}{ADMIN}/accounts:batchGet", headers=OWNER, timeout=TIMEOUT).json()
    requests.delete(f"{console_hearth.url}/emulator/v1/projects/{PROJECT}/accounts", timeout=TIMEOUT)
    assert import_file(console_hearth, exported).json()["imported"] == 1
    after = requests.get(f"{console_hearth.url}{ADMIN}/accounts:batchGet", headers=OWNER, timeout=TIMEOUT).json()
    keys = ["localId", "email", "displayName", "disabled", "createdAt"]
    assert [{key: user.get(key) for key in keys} for user in after["users"]] == \
        [{key: user.get(key) for key in keys} for user in before["users"]]
    assert [entry["providerId"] for entry in after["users"][0]["providerUserInfo"]] == ["google.com"]


def test_users_the_server_refuses_are_listed_by_index(console_hearth):
    import_file(console_hearth, users_file([{"localId": "taken"}]))
    answer = import_file(console_hearth, users_file([{"localId": "fresh"}, {"localId": "taken"}]))
    assert answer.status_code == 200
    body = answer.json()
    assert body["total"] == 2 and body["imported"] == 1
    assert body["refusals"] == [{"index": 1, "uid": "taken",
                                 "message": "localId belongs to an existing account - can not overwrite."}]


@pytest.mark.parametrize("data, fmt, parameters, message", [
    (users_file([{"localId": "ok"}, {"localId": "bad", "nickname": "x"}]), "json", {},
     'user at index 1: unsupported key "nickname"'),
    (b'{"accounts": []}', "json", {}, 'is not a user file: expected {"users": [...]}'),
    (b"not json", "json", {}, "is not a user file"),
    (users_file([]), "json", {}, "holds no users"),
    (b'ok,"unclosed\n', "csv", {}, "a quoted field is not closed"),
    (users_file([{"localId": "ok"}]), "json", {"hashAlgo": "HMAC_SHA256"}, "Must provide hash key"),
    (users_file([{"localId": "ok"}]), "json", {"hashAlgo": "ROT13"}, "Unsupported hash algorithm ROT13"),
    (users_file([{"localId": "ok"}]), "xml", {}, "INVALID_FORMAT"),
], ids=["invalid-user", "not-users", "not-json", "empty", "bad-csv", "no-key", "unknown-algorithm", "unknown-format"])
def test_a_refused_import_imports_nothing(console_hearth, data, fmt, parameters, message):
    answer = import_file(console_hearth, data, fmt=fmt, **parameters)
    assert answer.status_code == 400
    assert message in answer.json()["error"]
    assert user_count(console_hearth) == 0


def test_oversized_and_forged_imports_are_refused(console_hearth):
    oversized = b'{"users": [' + b" " * (64 << 20) + b"]}"
    answer = import_file(console_hearth, oversized)
    assert answer.status_code == 413 and answer.json() == {"error": "FILE_TOO_LARGE"}
    assert import_file(console_hearth, users_file([{"localId": "x"}]), token="forged").status_code == 403
    assert requests.get(f"{console_hearth.console_url}/console/auth/users/export", params={"format": "json"},
                        timeout=TIMEOUT).status_code == 403
    assert requests.get(f"{console_hearth.console_url}/console/auth/users/import", params={"format": "json"},
                        headers={"X-Hearth-CSRF": csrf(console_hearth)}, timeout=TIMEOUT).status_code == 405
    assert user_count(console_hearth) == 0


def test_the_users_view_imports_a_file(console, console_hearth, tmp_path):
    file = tmp_path / "people.json"
    file.write_text(json.dumps({"users": [
        {"localId": "from-file", "email": "file@example.com", "displayName": "From File"},
        {"localId": "bad", "nickname": "x"}]}))
    console.open("/auth/users", "#users-import")
    console.click("#users-import")
    console.wait_for_element("#import-file").send_keys(str(file))
    console.click("#import-send")
    console.wait_for_text("#import-error", 'user at index 1: unsupported key "nickname"')
    assert user_count(console_hearth) == 0

    file.write_text(json.dumps({"users": [
        {"localId": "from-file", "email": "file@example.com", "displayName": "From File"}]}))
    console.wait_for_element("#import-file").send_keys(str(file))
    console.click("#import-send")
    console.wait_for_text("#import-summary", "Imported 1 of 1 users.")
    assert console.wait_for_element("#import-result").text == "Imported 1 of 1 users."
    console.wait_for_text("table[aria-label='Users']", "file@example.com")
    console.click("#users-export-csv")
    console.wait_for_text(".toast", "Exported users as CSV")
