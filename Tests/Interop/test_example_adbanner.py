"""Seed 000 §IV (`Examples/AdBanner`): the seed's banner screen, its import changed, loads a
320×50 house ad from a Hearth server, records its impression and viewable impression, and on a
tap its click, each counted once; it finds the server from the app's database URL, or from
`HEARTH_ADS_EMULATOR_HOST`."""

import json
import os
import subprocess
import tempfile
import urllib.request

import pytest

from conftest import HEARTH_BIN, HearthProcess

BANNER_BIN = os.path.join(os.path.dirname(HEARTH_BIN), "ad-banner")
SEED_UNIT = "ca-app-pub-3940256099942544/2934735716"


@pytest.fixture
def server():
    process = HearthProcess().start()
    yield process
    process.stop()
    process.remove_data()


def admin(server, method, path, body=None):
    request = urllib.request.Request(
        f"http://127.0.0.1:{server.port}/ads/v1/admin/{path}", method=method,
        data=None if body is None else json.dumps(body).encode(), headers={"Authorization": "Bearer owner"})
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.loads(response.read() or b"{}")


def run_banner(port, *extra, env=None):
    done = subprocess.run(
        [BANNER_BIN, "--host", "127.0.0.1", "--port", str(port), *extra], capture_output=True, text=True, timeout=120,
        env={**os.environ, "XDG_DATA_HOME": tempfile.mkdtemp(), **(env or {})})
    return done.returncode, done.stdout.strip().splitlines()


def totals(server):
    rows = admin(server, "GET", "reports?group=campaign")["rows"]
    return {name: sum(row[name] for row in rows) for name in ("requests", "fills", "impressions", "viewable", "clicks", "invalid")}


def house_ad(server, w=320, h=50):
    admin(server, "POST", "adUnits", {"adUnitID": SEED_UNIT, "name": "Home screen bottom"})
    creative = admin(server, "POST", "creatives", {
        "w": w, "h": h, "kind": "image", "imageURL": "https://example.com/spring.png", "clickURL": "https://example.com/spring"})
    admin(server, "POST", "campaigns", {
        "name": "Spring sale", "priority": "house", "adUnitIDs": [SEED_UNIT], "creativeIDs": [creative["creativeID"]]})
    return creative["creativeID"]


def test_the_seeds_banner_shows_a_house_ad_and_counts_it_once(server):
    creative = house_ad(server)
    code, lines = run_banner(server.port, "--tap")
    assert code == 0, lines
    assert lines == [
        "Google Mobile Ads SDK version: hearth-ads-1", "adViewDidReceiveAd", "adViewWillPresentScreen",
        "adViewWillDismissScreen", "adViewDidDismissScreen", f"drew image {creative} at 0,0 320x50"]
    assert totals(server) == {"requests": 1, "fills": 1, "impressions": 1, "viewable": 1, "clicks": 1, "invalid": 0}

    code, lines = run_banner(server.port)
    assert code == 0 and "adViewWillPresentScreen" not in lines
    counted = totals(server)
    assert (counted["impressions"], counted["viewable"], counted["clicks"]) == (2, 2, 1)


def test_no_fill_is_the_old_delegates_failure(server):
    admin(server, "POST", "adUnits", {"adUnitID": SEED_UNIT, "name": "Home screen bottom"})
    code, lines = run_banner(server.port)
    assert code == 1
    assert lines[-1] == "adView:didFailToReceiveAdWithError: Request Error: No ad to show."


def test_the_environment_variable_names_the_server(server):
    house_ad(server)
    code, lines = run_banner(1, env={"HEARTH_ADS_EMULATOR_HOST": f"127.0.0.1:{server.port}"})
    assert code == 0, lines
    assert lines[1] == "adViewDidReceiveAd"
