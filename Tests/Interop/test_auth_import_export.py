"""`hearth auth:import` and `auth:export` against running servers: Firebase CLI user files (JSON
and CSV) go in with their password hashes and come back out in the CLI's export formats; a file
the CLI would refuse imports nothing; an export imports into another server unchanged, passwords
included when the exporting server's hash parameters (`hearth auth:hash-config`) are given."""

import csv
import io
import json
import re
import subprocess

import pytest
import requests

from conftest import HEARTH_BIN, OWNER, PROJECT, HearthProcess, store_args

ADMIN = f"/identitytoolkit.googleapis.com/v1/projects/{PROJECT}"

# Auth spec §9.3, parameter set A, vector A3: password `password`, salt bytes `NaCl`.
SCRYPT_A = ["--hash-algo", "SCRYPT", "--hash-key",
            "jxspr8Ki0RYycVU8zykbdLGjFQ3McFUH0uiiTvC8pVMXAn210wjLNmdZJzxUECKbm0QsEmYUSDzZvpjeJ9WmXA==",
            "--salt-separator", "Bw==", "--rounds", "8", "--mem-cost", "14"]
SCRYPT_A3_HASH = "V358E8LdWJXAO7muq0CufVpEOXaj8aFiC7T/rcaGieN04q/ZPJ08WhJEHGjj9lz/2TT+/86N5VjVoc5DdBhBiw=="
NACL = "TmFDbA=="

# The fields a round trip keeps (the others are set by the server when it imports).
KEPT = ["localId", "email", "emailVerified", "displayName", "photoUrl", "phoneNumber", "disabled", "customAttributes",
        "createdAt", "lastLoginAt"]


@pytest.fixture(scope="module")
def server():
    process = HearthProcess().start()
    yield process
    process.stop()
    process.remove_data()


@pytest.fixture(autouse=True)
def no_accounts(server):
    """Every test starts without accounts."""
    delete_all(server)


def delete_all(server):
    response = requests.delete(f"{server.url}/emulator/v1/projects/{PROJECT}/accounts", timeout=10)
    assert response.status_code == 200, response.text


def hearth(server, *arguments):
    return subprocess.run(
        [HEARTH_BIN, *arguments, "--server", server.url, "--project", PROJECT],
        capture_output=True, text=True, timeout=120)


def all_users(server):
    users, token = [], None
    while True:
        params = {"maxResults": 1000, **({"nextPageToken": token} if token else {})}
        page = requests.get(f"{server.url}{ADMIN}/accounts:batchGet", params=params, headers=OWNER, timeout=30).json()
        users += page.get("users", [])
        token = page.get("nextPageToken")
        if not page.get("users") or not token:
            return users


def sign_in(server, email, password):
    return requests.post(
        f"{server.url}/identitytoolkit.googleapis.com/v1/accounts:signInWithPassword", params={"key": "k"},
        json={"email": email, "password": password, "returnSecureToken": True}, timeout=30)


def write_json(tmp_path, users, name="users.json"):
    path = tmp_path / name
    path.write_text(json.dumps({"users": users}))
    return str(path)


def kept(user):
    """The fields of a server record that an export and import carry, with the identity providers."""
    fields = {key: user[key] for key in KEPT if key in user}
    fields["providers"] = sorted(
        (entry["providerId"], entry["rawId"], entry.get("email"), entry.get("displayName"), entry.get("photoUrl"))
        for entry in user.get("providerUserInfo", []) if entry["providerId"] not in ("password", "phone"))
    return fields


# Import with password hashes

def test_scrypt_users_import_from_json_and_sign_in(server, tmp_path):
    file = write_json(tmp_path, [{"localId": "scrypt-a3", "email": "a3@example.com", "passwordHash": SCRYPT_A3_HASH,
                                  "salt": NACL}])
    imported = hearth(server, "auth:import", file, *SCRYPT_A)
    assert imported.returncode == 0, imported.stderr
    assert "Imported 1 user." in imported.stdout
    assert sign_in(server, "a3@example.com", "password").status_code == 200
    assert sign_in(server, "a3@example.com", "wrong-password").status_code == 400


@pytest.mark.parametrize("flags, password_hash", [
    (["--hash-algo", "HMAC_SHA256", "--hash-key", "c2VjcmV0"], "C5WKh+Qa5RkMlq+h5DX5XKsBOsQt/DEKEaUBAMQqrlI="),
    (["--hash-algo", "SHA256", "--rounds", "1"], "sgq3SqJUn34ToOiGy0RxzC5w/NLOgHXA7mSDq7phMvM="),
    (["--hash-algo", "md5", "--rounds", "0"], "NjJkMTlmN2U3ZGRjYjU5NDY3Mjg3NzZkMjVlNDEwZWQ="),
], ids=["HMAC_SHA256", "SHA256", "MD5"])
def test_hash_algorithms_of_the_worked_values_sign_in(server, tmp_path, flags, password_hash):
    file = write_json(tmp_path, [{"localId": "hashed", "email": "hashed@example.com", "passwordHash": password_hash,
                                  "salt": NACL}])
    imported = hearth(server, "auth:import", file, *flags)
    assert imported.returncode == 0, imported.stderr
    assert sign_in(server, "hashed@example.com", "password").status_code == 200


def test_without_a_hash_algorithm_users_come_without_passwords(server, tmp_path):
    file = write_json(tmp_path, [{"localId": "no-hash", "email": "nohash@example.com", "passwordHash": SCRYPT_A3_HASH,
                                  "salt": NACL}])
    imported = hearth(server, "auth:import", file)
    assert imported.returncode == 0, imported.stderr
    assert "No hash algorithm specified" in imported.stderr
    [user] = all_users(server)
    assert user["localId"] == "no-hash" and "passwordHash" not in user
    assert sign_in(server, "nohash@example.com", "password").status_code == 400


# CSV

def test_csv_import_reads_providers_and_quoted_fields(server, tmp_path):
    row = ["csv-1", "jane@example.com", "true", "", "", '"Doe, Jane ""JD"""', "https://example.com/j.png",
           "g-123", "jane@gmail.com", '"Jane, on Google"', ""] + [""] * 12 + \
          ["1600000000000", "1700000000000", "+15555550100", "true", '"{""role"":""admin""}"'] + [""] * 24
    second = ["csv-2", "two@example.com", "false", "", "", '"Line one\nline two"'] + [""] * 22 + ["apple-9"] + [""] * 23
    file = tmp_path / "users.csv"
    file.write_text(",".join(row) + ",\n" + ",".join(second) + ",\r\n")
    imported = hearth(server, "auth:import", str(file))
    assert imported.returncode == 0, imported.stderr
    users = {user["localId"]: user for user in all_users(server)}
    jane = users["csv-1"]
    assert jane["displayName"] == 'Doe, Jane "JD"'
    assert jane["emailVerified"] is True and jane["disabled"] is True
    assert jane["phoneNumber"] == "+15555550100"
    assert json.loads(jane["customAttributes"]) == {"role": "admin"}
    assert (jane["createdAt"], jane["lastLoginAt"]) == ("1600000000000", "1700000000000")
    google = next(entry for entry in jane["providerUserInfo"] if entry["providerId"] == "google.com")
    assert (google["rawId"], google["email"], google["displayName"]) == ("g-123", "jane@gmail.com", "Jane, on Google")
    assert users["csv-2"]["displayName"] == "Line one\nline two"
    assert [entry["rawId"] for entry in users["csv-2"]["providerUserInfo"] if entry["providerId"] == "apple.com"] == \
        ["apple-9"]


def test_a_large_csv_import_arrives_whole_with_progress(server, tmp_path):
    file = tmp_path / "many.csv"
    file.write_text("".join(f"bulk-{index:05d},bulk{index}@example.com,false\n" for index in range(2500)))
    imported = hearth(server, "auth:import", str(file))
    assert imported.returncode == 0, imported.stderr
    assert "Imported 2500 users." in imported.stdout
    assert "importing" in imported.stderr and "100%" in imported.stderr
    assert len(all_users(server)) == 2500

    exported = hearth(server, "auth:export", str(tmp_path / "many.json"))
    assert exported.returncode == 0, exported.stderr
    assert len(json.loads((tmp_path / "many.json").read_text())["users"]) == 2500


def test_users_the_server_refuses_are_reported_by_their_index_in_the_file(server, tmp_path):
    users = [{"localId": f"batch-{index:04d}", "email": f"batch{index}@example.com"} for index in range(1200)]
    users[1100]["email"] = "not-an-email"
    imported = hearth(server, "auth:import", write_json(tmp_path, users))
    assert imported.returncode != 0
    assert "user at index 1100 (uid batch-1100): email is invalid" in imported.stderr
    assert "1 of 1200 users were not imported" in imported.stderr
    assert len(all_users(server)) == 1199


# Refusals: the whole file is checked first, so nothing is imported.

@pytest.mark.parametrize("flags, users, message", [
    (["--hash-algo", "HMAC_SHA256"], [], "Must provide hash key"),
    (["--hash-algo", "SHA256", "--rounds", "8193"], [], "Must provide valid rounds (1..8192)"),
    (SCRYPT_A[:-4] + ["--rounds", "9", "--mem-cost", "14"], [], "Must provide valid rounds (1..8)"),
    (SCRYPT_A[:-2] + ["--mem-cost", "15"], [], "Must provide valid memory cost (1..14)"),
    (["--hash-algo", "ARGON2"], [], "Unsupported hash algorithm ARGON2"),
    (["--hash-algo", "SHA1", "--rounds", "1", "--hash-input-order", "SIDEWAYS"], [], "Unknown --hash-input-order"),
    (["--hash-algo", "SHA256", "--rounds", "1"], [{"localId": "bad", "passwordHash": "not base64!", "salt": NACL}],
     "user at index 1: Password hash should be base64 encoded."),
    ([], [{"localId": "bad", "nickname": "x"}], 'user at index 1: unsupported key "nickname"'),
    ([], [{"localId": "bad", "providerUserInfo": [{"providerId": "myspace.com", "rawId": "1"}]}],
     "user at index 1: providerUserInfo has an unsupported providerId"),
], ids=["hmac-without-key", "sha-rounds", "scrypt-rounds", "scrypt-mem-cost", "unknown-algorithm", "input-order",
        "invalid-base64", "unknown-key", "unknown-provider"])
def test_refused_imports_change_nothing(server, tmp_path, flags, users, message):
    file = write_json(tmp_path, [{"localId": "fine", "email": "fine@example.com"}] + users)
    refused = hearth(server, "auth:import", file, *flags)
    assert refused.returncode != 0
    assert message in refused.stderr
    assert all_users(server) == []


def test_invalid_csv_is_refused_with_its_line(server, tmp_path):
    file = tmp_path / "users.csv"
    file.write_text('ok-1,ok@example.com\nbad-2,"unclosed@example.com\n')
    refused = hearth(server, "auth:import", str(file))
    assert refused.returncode != 0
    assert "line 2: a quoted field is not closed" in refused.stderr
    assert all_users(server) == []


def test_a_refused_request_prints_firebase_message(server, tmp_path):
    file = write_json(tmp_path, [{"localId": "x"}])
    refused = subprocess.run(
        [HEARTH_BIN, "auth:import", file, "--server", server.url, "--project", PROJECT, "--token", "not-the-owner"],
        capture_output=True, text=True, timeout=60)
    assert refused.returncode != 0
    assert "(401)" in refused.stderr and "invalid authentication credentials" in refused.stderr


# Export

IMPORTED = [
    {"localId": "exp-1", "email": "ada@example.com", "emailVerified": True, "displayName": "Lovelace, Ada",
     "photoUrl": "https://example.com/ada.png", "createdAt": "1500000000000", "lastSignedInAt": "1600000000000",
     "phoneNumber": "+15555550111", "disabled": True, "customAttributes": '{"role":"admin","level":3}',
     "providerUserInfo": [{"providerId": "google.com", "rawId": "g-ada", "email": "ada@gmail.com",
                           "displayName": "Ada \"G\"", "photoUrl": "https://example.com/g.png"},
                          {"providerId": "github.com", "rawId": "gh-ada"}]},
    {"localId": "exp-2", "email": "bob@example.com", "emailVerified": False, "createdAt": "1500000000001"},
]


def test_export_writes_the_cli_json_format(server, tmp_path):
    imported = hearth(server, "auth:import", write_json(tmp_path, IMPORTED))
    assert imported.returncode == 0, imported.stderr
    target = tmp_path / "export.json"
    exported = hearth(server, "auth:export", str(target))
    assert exported.returncode == 0, exported.stderr
    assert "Exported 2 users" in exported.stdout
    assert json.loads(target.read_text()) == {"users": IMPORTED}


def test_export_writes_the_cli_csv_format(server, tmp_path):
    assert hearth(server, "auth:import", write_json(tmp_path, IMPORTED)).returncode == 0
    target = tmp_path / "export.csv"
    exported = hearth(server, "auth:export", str(target))
    assert exported.returncode == 0, exported.stderr
    text = target.read_text()
    assert all(line.endswith(",") for line in text.splitlines())
    assert '"{""role"":""admin"",""level"":3}"' in text
    rows = list(csv.reader(io.StringIO(text)))
    assert [len(row) for row in rows] == [53, 53]
    ada, bob = rows
    assert ada[:7] == ["exp-1", "ada@example.com", "true", "", "", "Lovelace, Ada", "https://example.com/ada.png"]
    assert ada[7:11] == ["g-ada", "ada@gmail.com", 'Ada "G"', "https://example.com/g.png"]
    assert ada[19:23] == ["gh-ada", "", "", ""]
    assert ada[23:28] == ["1500000000000", "1600000000000", "+15555550111", "true", '{"role":"admin","level":3}']
    assert bob[:3] == ["exp-2", "bob@example.com", "false"] and bob[26] == ""


def test_export_keeps_only_hashes_of_the_servers_own_scrypt(server, tmp_path):
    own = requests.post(f"{server.url}/identitytoolkit.googleapis.com/v1/accounts:signUp", params={"key": "k"},
                        json={"email": "own@example.com", "password": "secret-1"}, timeout=30)
    assert own.status_code == 200, own.text
    file = write_json(tmp_path, [{"localId": "foreign", "email": "foreign@example.com", "passwordHash": SCRYPT_A3_HASH,
                                  "salt": NACL}])
    assert hearth(server, "auth:import", file, *SCRYPT_A).returncode == 0
    target = tmp_path / "export.json"
    assert hearth(server, "auth:export", str(target)).returncode == 0
    users = {user["email"]: user for user in json.loads(target.read_text())["users"]}
    assert "passwordHash" not in users["foreign@example.com"]
    assert users["own@example.com"]["passwordHash"] and users["own@example.com"]["salt"]


@pytest.mark.parametrize("name", ["round-trip.json", "round-trip.csv"])
def test_an_export_imports_into_another_server_unchanged(server, tmp_path, name):
    assert hearth(server, "auth:import", write_json(tmp_path, IMPORTED)).returncode == 0
    target = tmp_path / name
    assert hearth(server, "auth:export", str(target)).returncode == 0
    other = HearthProcess().start()
    try:
        imported = hearth(other, "auth:import", str(target))
        assert imported.returncode == 0, imported.stderr
        assert [kept(user) for user in all_users(other)] == [kept(user) for user in all_users(server)]
    finally:
        other.stop()
        other.remove_data()


# Passwords: Hearth's own hashes export at version 0 and import wherever its hash parameters are given.

def hash_flags(server):
    """`auth:import` flags for the password hash parameters of `server`'s data directory."""
    printed = subprocess.run([HEARTH_BIN, "auth:hash-config", *store_args(server.data_dir)],
                             capture_output=True, text=True, timeout=60)
    assert printed.returncode == 0, printed.stderr
    config = dict(re.findall(r"(\w+): ([^,\s]+),", printed.stdout))
    return ["--hash-algo", config["algorithm"], "--hash-key", config["base64_signer_key"],
            "--salt-separator", config["base64_salt_separator"], "--rounds", config["rounds"],
            "--mem-cost", config["mem_cost"]]


def test_passwords_survive_an_export_and_import(server, tmp_path):
    signed_up = requests.post(f"{server.url}/identitytoolkit.googleapis.com/v1/accounts:signUp", params={"key": "k"},
                              json={"email": "kept@example.com", "password": "kept-secret"}, timeout=30)
    assert signed_up.status_code == 200, signed_up.text
    target = tmp_path / "passwords.csv"
    assert hearth(server, "auth:export", str(target)).returncode == 0
    flags = hash_flags(server)

    other = HearthProcess().start()
    try:
        imported = hearth(other, "auth:import", str(target), *flags)
        assert imported.returncode == 0, imported.stderr
        assert sign_in(other, "kept@example.com", "kept-secret").status_code == 200
    finally:
        other.stop()
        other.remove_data()

    delete_all(server)
    imported = hearth(server, "auth:import", str(target), *flags)
    assert imported.returncode == 0, imported.stderr
    assert sign_in(server, "kept@example.com", "kept-secret").status_code == 200
    assert all_users(server)[0]["version"] == 0
