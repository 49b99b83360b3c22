"""`hearth migrate --to-postgres`: a single node's data directory moved into PostgreSQL, served
afterwards by a node on PostgreSQL with nothing lost: database namespaces with their priorities
and stored rules, accounts whose passwords, refresh tokens and ID tokens stay valid, database
secrets, and Storage objects byte for byte. A migration cut short resumes; one into a database
that holds data, or from a data directory a server is using, is refused."""

import os
import signal
import subprocess

import requests

from auth_client import admin, lookup_by_token, lookup_by_uid, ok, refresh, sign_in, sign_up, unique_email
from conftest import HEARTH_BIN, OWNER, PROJECT, HearthProcess, database_secret, embedded_only
from storage_support import js_multipart_upload, object_url, signed_in

KEY = "migration-key"
DEFAULT = f"{PROJECT}-default-rtdb"
STORAGE_RULES = """rules_version = '2';
service firebase.storage {
  match /b/{bucket}/o {
    match /{all=**} { allow read, write: if request.auth != null; }
  }
}
"""

pytestmark = embedded_only


def migrate(data_dir, url, *args):
    return subprocess.run([HEARTH_BIN, "migrate", "--to-postgres", url, "--data-dir", data_dir, *args],
                          capture_output=True, text=True, timeout=600)


def put(server, path, value, secret=None, namespace=DEFAULT):
    """A write as the admin: with a database secret in production, as the owner in development."""
    credentials = {"params": {"ns": namespace, "auth": secret}} if secret else {"params": {"ns": namespace},
                                                                                "headers": OWNER}
    response = requests.put(f"{server.url}/{path}.json", json=value, timeout=60, **credentials)
    assert response.status_code == 200, response.text


def export(server, secret, namespace=DEFAULT):
    response = requests.get(f"{server.url}/.json", params={"ns": namespace, "auth": secret, "format": "export"},
                            timeout=60)
    assert response.status_code == 200, response.text
    return response.json()


def cut_short(data_dir, url):
    """Starts a migration and kills it once it wrote its first namespace."""
    cut = subprocess.Popen([HEARTH_BIN, "migrate", "--to-postgres", url, "--data-dir", data_dir],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    line = cut.stdout.readline()
    assert line.startswith("database namespace"), line
    cut.send_signal(signal.SIGKILL)
    cut.wait(timeout=30)
    assert cut.returncode == -signal.SIGKILL


def production(tmp_path, *args):
    rules = tmp_path / "storage.rules"
    rules.write_text(STORAGE_RULES)
    return HearthProcess(extra_args=["--production", "--api-key", KEY, "--storage-rules", str(rules), *args])


def test_a_data_directory_moves_into_postgres_whole(postgres, tmp_path):
    source = production(tmp_path)
    secret = database_secret(source.data_dir)
    source.start()
    try:
        # More leaves than one write of the migration carries, under an object with a priority.
        big = {".priority": "first", **{f"k{i:05d}": {"a": i, "b": "x"} for i in range(30_000)}}
        put(source, "big", big, secret)
        put(source, "small", {"n": {".value": 1, ".priority": 3}, "text": "h\u00e9llo"}, secret)
        put(source, "data", {"kept": True}, secret, namespace="other")
        other_rules = '{"rules": {".read": true, ".write": false}}'
        stored = requests.put(f"{source.url}/.settings/rules.json", params={"ns": "other", "auth": secret},
                              data=other_rules, timeout=10)
        assert stored.status_code == 200, stored.text
        expected = {DEFAULT: export(source, secret), "other": export(source, secret, "other")}

        email = unique_email()
        user = sign_up(source, email, "secret-pw", key=KEY)
        objects = {"small.txt": b"hello migration", "pages.bin": os.urandom(700_000)}
        metadata = {}
        for name, data in objects.items():
            uploaded = js_multipart_upload(source, f"moved/{name}", data, headers=signed_in(user["idToken"]))
            assert uploaded.status_code == 200, uploaded.text
            metadata[name] = uploaded.json()
    finally:
        source.stop()

    url = postgres.create_database()
    moved = migrate(source.data_dir, url)
    assert moved.returncode == 0, moved.stderr
    assert "2 namespaces copied" in moved.stdout and "2 objects" in moved.stdout, moved.stdout

    target = production(tmp_path, "--postgres", url).start()
    try:
        # The database, with priorities; the secret made on the data directory still works.
        assert export(target, secret) == expected[DEFAULT]
        assert export(target, secret, "other") == expected["other"]
        rules = requests.get(f"{target.url}/.settings/rules.json", params={"ns": "other", "auth": secret}, timeout=10)
        assert rules.status_code == 200 and rules.json() == {"rules": {".read": True, ".write": False}}

        # The ID token signed before the move verifies; the refresh token and the password work.
        assert lookup_by_token(target, user["idToken"], key=KEY)["localId"] == user["localId"]
        refreshed = refresh(target, user["refreshToken"], key=KEY)
        assert refreshed.status_code == 200 and refreshed.json()["user_id"] == user["localId"], refreshed.text
        assert sign_in(target, email, "secret-pw", key=KEY)["localId"] == user["localId"]

        for name, data in objects.items():
            url_of = object_url(target, f"moved/{name}")
            downloaded = requests.get(url_of, params={"alt": "media"}, headers=signed_in(user["idToken"]), timeout=30)
            assert downloaded.status_code == 200 and downloaded.content == data
            described = requests.get(url_of, headers=signed_in(user["idToken"]), timeout=10).json()
            for field in ["md5Hash", "generation", "metageneration", "size", "timeCreated", "downloadTokens"]:
                assert described[field] == metadata[name][field], field

        # The cluster goes on: what it writes after the move is its own.
        put(target, "small/text", "changed after the move", secret)
        later = sign_up(target, unique_email(), "secret-pw", key=KEY)
    finally:
        target.stop()

    # Run again on a finished migration, it writes nothing.
    again = migrate(source.data_dir, url)
    assert again.returncode == 0 and "nothing to do" in again.stdout, again.stdout + again.stderr
    target.start()
    try:
        assert requests.get(f"{target.url}/small/text.json", params={"auth": secret}, timeout=10).json() == \
            "changed after the move"
        assert lookup_by_token(target, later["idToken"], key=KEY)["localId"] == later["localId"]
    finally:
        target.stop()
        target.remove_data()
        source.remove_data()


def test_a_migration_cut_short_resumes_and_a_used_database_is_refused(postgres, tmp_path):
    source = HearthProcess().start()
    names = [f"ns{index:02d}" for index in range(20)]
    # Uids that read as numbers keep their text.
    uids = ["007", "+15551234567", "12"]
    try:
        for name in names:
            put(source, "items", {f"i{i}": {"name": name, "i": i} for i in range(500)}, namespace=name)
        for uid in uids:
            ok(admin(source, "/accounts", {"localId": uid, "email": f"u{uid.strip('+')}@example.com"}))
        # A server using the data directory: the migration is refused before writing anything.
        url = postgres.create_database()
        refused = migrate(source.data_dir, url)
        assert refused.returncode != 0 and "using the data directory" in refused.stderr, refused.stdout + refused.stderr
    finally:
        source.stop()

    cut_short(source.data_dir, url)
    resumed = migrate(source.data_dir, url)
    assert resumed.returncode == 0, resumed.stderr
    assert "resuming" in resumed.stdout and "20 namespaces copied" in resumed.stdout, resumed.stdout

    # Another data directory is not moved into the database that now holds the first.
    other = HearthProcess().start()
    put(other, "x", 1)
    other.stop()
    overwrite = migrate(other.data_dir, url)
    assert overwrite.returncode != 0 and "already holds database data" in overwrite.stderr, overwrite.stderr
    other.remove_data()

    target = HearthProcess(extra_args=["--postgres", url]).start()
    try:
        for name in names:
            items = requests.get(f"{target.url}/items.json", params={"ns": name}, headers=OWNER, timeout=10).json()
            assert items == {f"i{i}": {"name": name, "i": i} for i in range(500)}
        assert requests.get(f"{target.url}/x.json", headers=OWNER, timeout=10).json() is None
        for uid in uids:
            assert lookup_by_uid(target, uid)["localId"] == uid
    finally:
        target.stop()
        target.remove_data()
        source.remove_data()


def test_a_migration_is_not_resumed_once_a_node_served_the_database(postgres):
    source = HearthProcess().start()
    try:
        for index in range(20):
            put(source, "items", {f"i{i}": i for i in range(500)}, namespace=f"ns{index:02d}")
    finally:
        source.stop()
    url = postgres.create_database()
    cut_short(source.data_dir, url)

    node = HearthProcess(extra_args=["--postgres", url]).start()
    try:
        assert requests.get(f"{node.url}/items/i1.json", params={"ns": "ns00"}, headers=OWNER, timeout=10).json() == 1
        # While the node runs, and after it stopped: what it served may have changed.
        serving = migrate(source.data_dir, url)
        assert serving.returncode != 0 and "stop them first" in serving.stderr, serving.stderr
    finally:
        node.stop()
        node.remove_data()
    served = migrate(source.data_dir, url)
    assert served.returncode != 0 and "served this database since the migration began" in served.stderr, served.stderr
    source.remove_data()


def test_the_ads_move_with_their_counts_events_caps_and_token_key(postgres):
    unit = "ca-app-pub-3940256099942544/2934735716"

    def ads(server, method, path, body=None, **extra):
        response = requests.request(method, f"{server.url}/ads/v1/{path}", json=body, headers=OWNER, timeout=10, **extra)
        assert response.status_code in (200, 204), response.text
        return response

    def decide(server, viewer):
        return requests.post(f"{server.url}/ads/v1/decide", json={"adUnitID": unit, "size": {"w": 320, "h": 50},
                                                                  "viewerKey": viewer}, timeout=10)

    def event(server, token, kind="impression"):
        return requests.post(f"{server.url}/ads/v1/events", json={"token": token, "type": kind}, timeout=10).json()

    png = b"\x89PNG\r\n\x1a\n" + os.urandom(200)
    source = HearthProcess().start()
    try:
        ads(source, "POST", "admin/adUnits", {"adUnitID": unit, "name": "Home banner", "refreshSeconds": 60})
        image = ads(source, "POST", "admin/images", data=png).json()["imageURL"]
        banner = ads(source, "POST", "admin/creatives", {"w": 320, "h": 50, "kind": "image", "imageURL": image,
                                                         "clickURL": "https://example.com/"}).json()["creativeID"]
        ads(source, "POST", "admin/campaigns", {"name": "Capped", "priority": "house", "adUnitIDs": [unit],
                                                "creativeIDs": [banner],
                                                "frequencyCap": {"impressions": 1, "windowSeconds": 3600}})
        tokens = [decide(source, f"viewer-{index}").json()["ad"]["token"] for index in range(3)]
        assert event(source, tokens[0]) == {"counted": True}
        assert event(source, tokens[1]) == {"counted": True}
        assert event(source, tokens[0], "click") == {"counted": True}
        catalog = {kind: ads(source, "GET", f"admin/{kind}").json() for kind in ("adUnits", "creatives", "campaigns")}
    finally:
        source.stop()

    url = postgres.create_database()
    moved = migrate(source.data_dir, url)
    assert moved.returncode == 0, moved.stderr
    assert "ads: 3 units, creatives and campaigns" in moved.stdout, moved.stdout

    target = HearthProcess(extra_args=["--postgres", url]).start()
    try:
        assert {kind: ads(target, "GET", f"admin/{kind}").json() for kind in catalog} == catalog
        rows = ads(target, "GET", "admin/reports?period=day").json()["rows"]
        assert {name: sum(row[name] for row in rows) for name in ("requests", "fills", "impressions", "clicks")} == \
            {"requests": 3, "fills": 3, "impressions": 2, "clicks": 1}
        # The events: a replay is a duplicate. The key: a token served before the move counts.
        assert event(target, tokens[0]) == {"counted": False}
        assert event(target, tokens[2]) == {"counted": True}
        # The viewers' impressions: the cap holds for those who saw the ad before the move.
        assert decide(target, "viewer-1").status_code == 204
        assert decide(target, "viewer-9").status_code == 200
        assert requests.get(image.replace(source.url, target.url), timeout=10).content == png
    finally:
        target.stop()
        target.remove_data()

    # A data directory with ads is not moved into a database that holds others.
    other = HearthProcess().start()
    ads(other, "POST", "admin/adUnits", {"adUnitID": unit, "name": "Other", "refreshSeconds": 60})
    other.stop()
    overwrite = migrate(other.data_dir, url)
    assert overwrite.returncode != 0 and "already holds" in overwrite.stderr and "ads" in overwrite.stderr, overwrite.stderr
    other.remove_data()
    source.remove_data()
