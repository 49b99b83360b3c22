"""The ads server (`/ads/v1/`): the admin API builds a catalog of ad units, creatives and
campaigns and refuses what contradicts itself; `decide` fills a slot by priority, weight,
targeting and size, or answers 204; `events` counts each (token, type) once, refuses forged
tokens and counts them as invalid, and keeps what it acknowledged across a `kill -9`."""

import concurrent.futures
import hashlib
import json
import os
import signal
import subprocess
import threading
import time

import pytest
import requests

from conftest import CLUSTER_NODES, HEARTH_BIN, OWNER, HearthProcess, embedded_only, one_process_only

UNIT = "ca-app-pub-3940256099942544/2934735716"
OTHER_UNIT = "ca-app-pub-3940256099942544/6300978111"


def admin(server, method, path, body=None, headers=OWNER):
    return requests.request(method, f"{server.url}/ads/v1/admin/{path}", json=body, headers=headers, timeout=10)


def created(server, path, body):
    response = admin(server, "POST", path, body)
    assert response.status_code == 200, response.text
    return response.json()


def decide(server, body):
    return requests.post(f"{server.url}/ads/v1/decide", json=body, timeout=10)


def event(server, token, kind):
    return requests.post(f"{server.url}/ads/v1/events", json={"token": token, "type": kind}, timeout=10)


def error_field(response):
    return response.json()["error"].get("field")


def creative(server, w, h, **extra):
    body = {"w": w, "h": h, "kind": "image", "imageURL": f"https://ads.example.com/{w}x{h}.png",
            "clickURL": "https://example.com/landing", **extra}
    return created(server, "creatives", body)["creativeID"]


def campaign(server, name, creatives, priority="house", units=(UNIT,), **extra):
    body = {"name": name, "priority": priority, "adUnitIDs": list(units), "creativeIDs": list(creatives), **extra}
    return created(server, "campaigns", body)["campaignID"]


@pytest.fixture
def ads():
    """A server of the test's own, with two ad units."""
    server = HearthProcess().start()
    created(server, "adUnits", {"adUnitID": UNIT, "name": "Home banner", "refreshSeconds": 60})
    created(server, "adUnits", {"adUnitID": OTHER_UNIT, "name": "Settings banner", "refreshSeconds": None})
    yield server
    server.stop()
    server.remove_data()


def test_a_campaign_fills_its_unit_with_a_creative_of_the_size_asked(ads):
    banner = creative(ads, 320, 50)
    chosen = campaign(ads, "Spring sale", [banner, creative(ads, 728, 90)])
    answer = decide(ads, {"adUnitID": UNIT, "size": {"w": 320, "h": 50}, "platform": "ios"})
    assert answer.status_code == 200, answer.text
    ad = answer.json()["ad"]
    assert ad["campaignID"] == chosen and ad["creativeID"] == banner
    assert (ad["w"], ad["h"], ad["kind"], ad["refreshSeconds"]) == (320, 50, "image", 60)
    assert ad["imageURL"] == "https://ads.example.com/320x50.png" and ad["clickURL"] == "https://example.com/landing"
    assert ad["token"] and ad["expiresAt"] > 0
    # No creative of that size, and a unit no campaign names: nothing fills.
    assert decide(ads, {"adUnitID": UNIT, "size": {"w": 300, "h": 250}}).status_code == 204
    assert decide(ads, {"adUnitID": OTHER_UNIT, "size": {"w": 320, "h": 50}}).status_code == 204


def test_an_adaptive_slot_gets_the_largest_creative_that_fits(ads):
    small, tall, wide = creative(ads, 320, 50), creative(ads, 360, 90), creative(ads, 468, 80)
    campaign(ads, "Sizes", [small, tall, wide])
    assert decide(ads, {"adUnitID": UNIT, "adaptive": {"width": 400}}).json()["ad"]["creativeID"] == tall
    assert decide(ads, {"adUnitID": UNIT, "adaptive": {"width": 340}}).json()["ad"]["creativeID"] == small
    assert decide(ads, {"adUnitID": UNIT, "adaptive": {"width": 500}}).json()["ad"]["creativeID"] == wide
    assert decide(ads, {"adUnitID": UNIT, "adaptive": {"width": 300}}).status_code == 204
    # A slot no taller than the SDK says the screen allows.
    assert decide(ads, {"adUnitID": UNIT, "adaptive": {"width": 500, "maxHeight": 60}}).json()["ad"]["creativeID"] == small


def test_a_higher_priority_fills_first_and_a_paused_campaign_never(ads):
    banner = creative(ads, 320, 50)
    house = campaign(ads, "House", [banner], priority="house")
    sponsor = campaign(ads, "Sponsor", [banner], priority="sponsorship")
    contract = campaign(ads, "Contract", [banner], priority="contract")
    slot = {"adUnitID": UNIT, "size": {"w": 320, "h": 50}}
    assert {decide(ads, slot).json()["ad"]["campaignID"] for _ in range(20)} == {sponsor}
    assert admin(ads, "PATCH", f"campaigns/{sponsor}", {"status": "paused"}).status_code == 200
    assert {decide(ads, slot).json()["ad"]["campaignID"] for _ in range(20)} == {contract}
    assert admin(ads, "DELETE", f"campaigns/{contract}").status_code == 204
    assert {decide(ads, slot).json()["ad"]["campaignID"] for _ in range(20)} == {house}
    # A window that has not begun, or has ended, keeps a campaign out.
    assert admin(ads, "PATCH", f"campaigns/{house}", {"start": "2999-01-01T00:00:00Z"}).status_code == 200
    assert decide(ads, slot).status_code == 204
    assert admin(ads, "PATCH", f"campaigns/{house}",
                 {"start": "2000-01-01T00:00:00Z", "end": "2001-01-01T00:00:00Z"}).status_code == 200
    assert decide(ads, slot).status_code == 204


def test_campaigns_of_one_priority_fill_in_proportion_to_their_weights(ads):
    banner = creative(ads, 320, 50)
    heavy = campaign(ads, "Heavy", [banner], weight=3)
    light = campaign(ads, "Light", [banner], weight=1)
    chosen = [decide(ads, {"adUnitID": UNIT, "size": {"w": 320, "h": 50}}).json()["ad"]["campaignID"]
              for _ in range(400)]
    # 300 expected; the bounds are over ten standard deviations wide.
    assert 210 <= chosen.count(heavy) <= 390 and chosen.count(heavy) + chosen.count(light) == 400


@pytest.mark.parametrize("targeting, matching, other", [
    ({"platforms": ["ios"]}, {"platform": "iOS"}, {"platform": "android"}),
    ({"osVersions": {"min": "15", "max": "17.2"}}, {"osVersion": "16.4.1"}, {"osVersion": "17.3"}),
    ({"appVersions": {"min": "2.1"}}, {"appVersion": "2.10"}, {"appVersion": "2.0.9"}),
    ({"locales": ["pt", "en-GB"]}, {"locale": "pt_BR"}, {"locale": "en-US"}),
    ({"keywords": ["Cooking", "travel"]}, {"keywords": ["news", "cooking"]}, {"keywords": ["news"]}),
])
def test_each_targeting_rule_decides_who_sees_a_campaign(ads, targeting, matching, other):
    campaign(ads, "Targeted", [creative(ads, 320, 50)], targeting=targeting)
    slot = {"adUnitID": UNIT, "size": {"w": 320, "h": 50}}
    assert decide(ads, {**slot, **matching}).status_code == 200
    assert decide(ads, {**slot, **other}).status_code == 204
    # A request that says nothing of what the rule looks at is not targeted.
    assert decide(ads, slot).status_code == 204


def test_bad_decide_requests_get_errors_naming_the_field(ads):
    url = f"{ads.url}/ads/v1/decide"
    malformed = requests.post(url, data=b"{not json", timeout=10)
    assert malformed.status_code == 400 and malformed.json()["error"]["status"] == "INVALID_ARGUMENT"
    wrong_type = decide(ads, {"adUnitID": UNIT, "size": {"w": "320", "h": 50}})
    assert wrong_type.status_code == 400 and error_field(wrong_type) == "size.w"
    missing = decide(ads, {"size": {"w": 320, "h": 50}})
    assert missing.status_code == 400 and error_field(missing) == "adUnitID"
    neither = decide(ads, {"adUnitID": UNIT})
    assert neither.status_code == 400 and error_field(neither) == "size"
    unknown_field = decide(ads, {"adUnitID": UNIT, "size": {"w": 320, "h": 50}, "colour": "red"})
    assert unknown_field.status_code == 400 and error_field(unknown_field) == "colour"
    nested = decide(ads, {"adUnitID": UNIT, "size": {"w": 320, "h": 50, "d": 1}})
    assert nested.status_code == 400 and error_field(nested) == "size.d"
    unknown_unit = decide(ads, {"adUnitID": "ca-app-pub-1/2", "size": {"w": 320, "h": 50}})
    assert unknown_unit.status_code == 404
    oversized = requests.post(url, data=json.dumps({"adUnitID": UNIT, "contentURL": "x" * (1 << 20)}), timeout=10)
    assert oversized.status_code == 413
    assert requests.get(url, timeout=10).status_code == 405


def test_the_admin_api_refuses_contradictions_naming_the_field_and_changes_nothing(ads):
    banner = creative(ads, 320, 50)
    bad_units = [
        ({"adUnitID": "my-unit", "name": "x"}, "adUnitID"),
        ({"adUnitID": "ca-app-pub-1/3", "name": "x", "refreshSeconds": 10}, "refreshSeconds"),
        ({"adUnitID": "ca-app-pub-1/3", "name": "x", "refreshSeconds": 151}, "refreshSeconds"),
        ({"adUnitID": "ca-app-pub-1/3", "name": ""}, "name"),
    ]
    for body, field in bad_units:
        refused = admin(ads, "POST", "adUnits", body)
        assert refused.status_code == 400 and error_field(refused) == field, (body, refused.text)
    assert admin(ads, "POST", "adUnits", {"adUnitID": UNIT, "name": "again"}).status_code == 409
    bad_creative = admin(ads, "POST", "creatives", {"w": 320, "h": 50, "kind": "image", "clickURL": "https://e.com"})
    assert bad_creative.status_code == 400 and error_field(bad_creative) == "imageURL"
    base = {"name": "c", "priority": "house", "adUnitIDs": [UNIT], "creativeIDs": [banner]}
    bad_campaigns = [
        ({**base, "start": "2027-01-02T00:00:00Z", "end": "2027-01-01T00:00:00Z"}, "end"),
        ({**base, "weight": 0}, "weight"),
        ({**base, "adUnitIDs": [UNIT, "ca-app-pub-9/9"]}, "adUnitIDs[1]"),
        ({**base, "creativeIDs": ["nope"]}, "creativeIDs[0]"),
        ({**base, "priority": "urgent"}, "priority"),
        ({**base, "targeting": {"osVersions": {"min": "17", "max": "15"}}}, "targeting.osVersions.max"),
        ({**base, "start": "tomorrow"}, "start"),
        # A misspelt rule is refused, not taken for no rule at all.
        ({**base, "targeting": {"platform": ["ios"]}}, "targeting.platform"),
        ({**base, "targeting": {"osVersions": {"minimum": "15"}}}, "targeting.osVersions.minimum"),
        ({**base, "targeting": {"appVersions": {"min": "+1"}}}, "targeting.appVersions.min"),
    ]
    for body, field in bad_campaigns:
        refused = admin(ads, "POST", "campaigns", body)
        assert refused.status_code == 400 and error_field(refused) == field, (body, refused.text)
    assert admin(ads, "GET", "campaigns").json() == {"campaigns": []}
    # A change that would contradict leaves the campaign as it was.
    kept = campaign(ads, "Kept", [banner])
    refused = admin(ads, "PATCH", f"campaigns/{kept}", {"weight": -1, "name": "Renamed"})
    assert refused.status_code == 400 and error_field(refused) == "weight"
    assert admin(ads, "GET", f"campaigns/{kept}").json()["name"] == "Kept"
    # What a campaign uses cannot be removed from under it, nor a creative in use changed.
    assert admin(ads, "DELETE", f"creatives/{banner}").status_code == 409
    assert admin(ads, "PATCH", f"creatives/{banner}", {"clickURL": "https://example.com/other"}).status_code == 409
    assert admin(ads, "DELETE", f"adUnits/{UNIT.replace('/', '%2F')}").status_code == 409
    assert admin(ads, "GET", f"adUnits/{UNIT.replace('/', '%2F')}").json()["name"] == "Home banner"
    assert admin(ads, "GET", "campaigns/missing").status_code == 404


def test_a_creative_must_fit_a_slot_of_one_of_its_campaigns_units(ads):
    """Units that name their slots' sizes take only creatives that fit one; units that name none
    take any size."""
    sized = "ca-app-pub-3940256099942544/1111111111"
    created(ads, "adUnits", {"adUnitID": sized, "name": "Bottom banner", "sizes": [{"w": 320, "h": 50}, {"w": 728, "h": 90}]})
    for body, field in [
        ({"adUnitID": "ca-app-pub-1/4", "name": "x", "sizes": []}, "sizes"),
        ({"adUnitID": "ca-app-pub-1/4", "name": "x", "sizes": [{"w": 320, "h": 0}]}, "sizes[0].h"),
        ({"adUnitID": "ca-app-pub-1/4", "name": "x", "sizes": [{"w": 320, "h": 50, "d": 1}]}, "sizes[0].d"),
        ({"adUnitID": "ca-app-pub-1/4", "name": "x", "sizes": [{"w": "320", "h": 50}]}, "sizes[0].w"),
    ]:
        refused = admin(ads, "POST", "adUnits", body)
        assert refused.status_code == 400 and error_field(refused) == field, (body, refused.text)
    banner, small, rectangle = creative(ads, 320, 50), creative(ads, 300, 50), creative(ads, 300, 250)
    refused = admin(ads, "POST", "campaigns", {
        "name": "Too big", "priority": "house", "adUnitIDs": [sized], "creativeIDs": [banner, rectangle]})
    assert refused.status_code == 400 and error_field(refused) == "creativeIDs[1]", refused.text
    assert "300x250" in refused.json()["error"]["message"] and "320x50, 728x90" in refused.json()["error"]["message"]
    assert admin(ads, "GET", "campaigns").json() == {"campaigns": []}
    # A unit of any size (UNIT names none) takes the rectangle; a smaller creative fits a slot.
    fits = campaign(ads, "Fits", [banner, small], units=(sized,))
    campaign(ads, "Any size", [rectangle], units=(sized, UNIT))
    # Narrowing the unit's sizes so that a campaign's creative would fit nowhere is refused.
    path = f"adUnits/{sized.replace('/', '%2F')}"
    refused = admin(ads, "PATCH", path, {"sizes": [{"w": 300, "h": 50}]})
    assert refused.status_code == 400 and error_field(refused) == "sizes", refused.text
    assert fits in refused.json()["error"]["message"]
    assert admin(ads, "GET", path).json()["sizes"] == [{"h": 50, "w": 320}, {"h": 90, "w": 728}]
    assert admin(ads, "PATCH", path, {"sizes": None}).json().get("sizes") is None


def test_uploaded_images_are_served_immutable_with_their_hash_as_etag(ads):
    png = b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 40
    upload = requests.post(f"{ads.url}/ads/v1/admin/images", data=png, headers={**OWNER, "Content-Type": "image/png"}, timeout=10)
    assert upload.status_code == 200, upload.text
    image = upload.json()
    digest = hashlib.sha256(png).hexdigest()
    assert image == {"imageURL": f"{ads.url}/ads/v1/images/{digest}", "contentType": "image/png", "bytes": len(png)}
    # Uploading the same bytes again names the same image.
    again = requests.post(f"{ads.url}/ads/v1/admin/images", data=png, headers=OWNER, timeout=10)
    assert again.json()["imageURL"] == image["imageURL"]

    served = requests.get(image["imageURL"], timeout=10)
    assert served.status_code == 200 and served.content == png
    assert served.headers["ETag"] == f'"{digest}"'
    assert served.headers["Cache-Control"] == "public, max-age=31536000, immutable"
    assert served.headers["Content-Type"] == "image/png"
    assert served.headers["X-Content-Type-Options"] == "nosniff"
    assert "sandbox" in served.headers["Content-Security-Policy"]
    for held in [f'"{digest}"', f'W/"{digest}"', f'"other", "{digest}"', "*"]:
        cached = requests.get(image["imageURL"], headers={"If-None-Match": held}, timeout=10)
        assert cached.status_code == 304 and cached.content == b"" and cached.headers["ETag"] == f'"{digest}"', held
    assert requests.get(image["imageURL"], headers={"If-None-Match": '"other"'}, timeout=10).status_code == 200
    head = requests.head(image["imageURL"], timeout=10)
    assert head.status_code == 200 and head.headers["ETag"] == f'"{digest}"' and head.content == b""
    assert head.headers["Content-Length"] == str(len(png))
    # The type is the bytes', whatever the request says.
    jpeg = b"\xff\xd8\xff\xe0" + bytes(100)
    named = requests.post(f"{ads.url}/ads/v1/admin/images", data=jpeg, headers={**OWNER, "Content-Type": "image/png"}, timeout=10)
    assert named.json()["contentType"] == "image/jpeg"
    assert requests.get(named.json()["imageURL"], timeout=10).headers["Content-Type"] == "image/jpeg"
    assert requests.get(f"{ads.url}/ads/v1/images/{'0' * 64}", timeout=10).status_code == 404

    # A creative shows it; an app fetches it without a credential.
    banner = creative(ads, 320, 50, imageURL=image["imageURL"])
    campaign(ads, "With an uploaded image", [banner])
    ad = decide(ads, {"adUnitID": UNIT, "size": {"w": 320, "h": 50}}).json()["ad"]
    assert ad["imageURL"] == image["imageURL"]

    # Only raster images, only from an admin, at most 1 MiB.
    for body in [b"<svg xmlns='http://www.w3.org/2000/svg'><script>alert(1)</script></svg>", b"", b"<html></html>"]:
        refused = requests.post(f"{ads.url}/ads/v1/admin/images", data=body, headers={**OWNER, "Content-Type": "image/png"}, timeout=10)
        assert refused.status_code == 400 and error_field(refused) == "(body)", refused.text
    assert requests.post(f"{ads.url}/ads/v1/admin/images", data=png, timeout=10).status_code == 403
    too_big = requests.post(f"{ads.url}/ads/v1/admin/images", data=png + bytes(1 << 20), headers=OWNER, timeout=10)
    assert too_big.status_code == 413
    # Removed only by an admin, and only once no creative shows it.
    assert requests.delete(image["imageURL"], timeout=10).status_code == 403
    in_use = requests.delete(image["imageURL"], headers=OWNER, timeout=10)
    assert in_use.status_code == 409 and banner in in_use.json()["error"]["message"], in_use.text
    assert requests.get(image["imageURL"], timeout=10).status_code == 200
    assert requests.delete(named.json()["imageURL"], headers=OWNER, timeout=10).status_code == 204
    assert requests.get(named.json()["imageURL"], timeout=10).status_code == 404
    assert requests.delete(named.json()["imageURL"], headers=OWNER, timeout=10).status_code == 404
    assert requests.post(image["imageURL"], headers=OWNER, timeout=10).status_code == 405


def test_the_admin_api_needs_an_admin_credential(ads):
    for method, path in [("GET", "adUnits"), ("POST", "campaigns"), ("GET", "reports")]:
        refused = admin(ads, method, path, {}, headers={})
        assert refused.status_code == 403, (method, path)
    assert admin(ads, "GET", "adUnits", headers={"Authorization": "Bearer someone"}).status_code == 403


def test_each_event_counts_once_and_forged_tokens_count_as_invalid(ads):
    chosen = campaign(ads, "Counted", [creative(ads, 320, 50)])
    token = decide(ads, {"adUnitID": UNIT, "size": {"w": 320, "h": 50}}).json()["ad"]["token"]
    assert event(ads, token, "impression").json() == {"counted": True}
    assert event(ads, token, "impression").json() == {"counted": False}
    assert event(ads, token, "viewable").json() == {"counted": True}
    assert event(ads, token, "click").json() == {"counted": True}
    assert event(ads, token, "click").json() == {"counted": False}
    payload, signature = token.split(".")
    middle = len(signature) // 2
    flipped = signature[:middle] + ("A" if signature[middle] != "A" else "B") + signature[middle + 1:]
    for forged in ["not-a-token", payload + "." + flipped, payload[:-4] + "AAAA." + signature]:
        refused = event(ads, forged, "impression")
        assert refused.status_code == 400 and error_field(refused) == "token"
    assert event(ads, token, "dismissal").status_code == 400
    # A click on an ad whose impression was never reported is not counted, and is invalid.
    unseen = decide(ads, {"adUnitID": UNIT, "size": {"w": 320, "h": 50}}).json()["ad"]["token"]
    assert event(ads, unseen, "click").json() == {"counted": False}
    rows = admin(ads, "GET", "reports").json()["rows"]
    mine = [row for row in rows if row["key"] == chosen]
    assert len(mine) == 1
    assert {k: mine[0][k] for k in ["requests", "fills", "impressions", "viewable", "clicks"]} == \
        {"requests": 2, "fills": 2, "impressions": 1, "viewable": 1, "clicks": 1}
    assert sum(row["invalid"] for row in rows) == 4


def test_a_thousand_concurrent_clients_retrying_a_fifth_count_each_token_once(ads):
    chosen = campaign(ads, "Busy", [creative(ads, 320, 50)])
    tokens = [served(ads) for _ in range(1000)]
    # Every token's impression from a client of its own, a fifth of them sent twice (a retry),
    # 1,200 reports from 1,000 threads, each on a connection of its own, released at once.
    sends = tokens + tokens[:200]
    start = threading.Event()
    # Through a cluster's load balancer (a proxy in this process, holding three sockets per
    # client) 200 at a time: a thousand connections opened at once overflow its queues.
    clients = 1000 if CLUSTER_NODES == 1 else 200

    def report(token):
        start.wait()
        return requests.post(f"{ads.url}/ads/v1/events", json={"token": token, "type": "impression"},
                             timeout=60).json()["counted"]

    with concurrent.futures.ThreadPoolExecutor(max_workers=clients) as pool:
        futures = [pool.submit(report, token) for token in sends]
        start.set()
        answers = [future.result() for future in futures]
    assert answers.count(True) == 1000
    rows = admin(ads, "GET", "reports").json()["rows"]
    assert sum(row["impressions"] for row in rows if row["key"] == chosen) == 1000


@one_process_only
def test_events_acknowledged_before_a_kill_are_kept(ads):
    chosen = campaign(ads, "Durable", [creative(ads, 320, 50)])
    tokens = [decide(ads, {"adUnitID": UNIT, "size": {"w": 320, "h": 50}}).json()["ad"]["token"] for _ in range(300)]
    acknowledged = []
    killed = threading.Event()

    def report(token):
        if killed.is_set():
            return
        try:
            if event(ads, token, "impression").json() == {"counted": True}:
                acknowledged.append(token)
        except (requests.RequestException, ValueError):
            pass

    # Eight clients at once, killed while they are sending.
    with concurrent.futures.ThreadPoolExecutor(max_workers=8) as pool:
        futures = [pool.submit(report, token) for token in tokens]
        while len(acknowledged) < 50:
            time.sleep(0.01)
        ads.stop(signal.SIGKILL)
        killed.set()
        concurrent.futures.wait(futures)
    ads.start()
    rows = admin(ads, "GET", "reports").json()["rows"]
    counted = sum(row["impressions"] for row in rows if row["key"] == chosen)
    assert len(acknowledged) <= counted <= len(tokens)
    # Every acknowledged event is there: reported again, it is a duplicate. The catalog and the
    # token key survived too, so a token issued before still counts, once.
    for token in acknowledged:
        assert event(ads, token, "impression").json() == {"counted": False}
    assert event(ads, acknowledged[0], "click").json() == {"counted": True}


def test_explain_says_why_each_campaign_was_or_was_not_chosen(ads):
    banner = creative(ads, 320, 50)
    sponsor = campaign(ads, "Sponsor", [banner], priority="sponsorship")
    house = campaign(ads, "House", [banner])
    paused = campaign(ads, "Paused", [banner], status="paused")
    ios = campaign(ads, "iOS only", [banner], priority="sponsorship", targeting={"platforms": ["ios"]})
    big = campaign(ads, "Big", [creative(ads, 728, 90)], priority="sponsorship")
    answer = admin(ads, "POST", "explain", {"adUnitID": UNIT, "size": {"w": 320, "h": 50}, "platform": "android"})
    assert answer.status_code == 200, answer.text
    verdicts = {line["campaignID"]: line for line in answer.json()["campaigns"]}
    assert verdicts[sponsor]["eligible"] and verdicts[sponsor]["creativeID"] == banner
    assert verdicts[house]["reason"] == "a sponsorship campaign fills the slot first"
    assert verdicts[paused]["reason"] == "paused"
    assert verdicts[ios]["reason"] == "the request is not in its targeting"
    assert verdicts[big]["reason"] == "none of its creatives fits the slot"


def set_clock(server, when):
    response = admin(server, "PUT", "clock", {"now": when})
    assert response.status_code == 204, response.text


def served(server, **request):
    """The token of the ad a decide for a 320×50 slot of UNIT gets, or None when nothing fills."""
    answer = decide(server, {"adUnitID": UNIT, "size": {"w": 320, "h": 50}, **request})
    return answer.json()["ad"]["token"] if answer.status_code == 200 else None


def test_a_goal_is_never_exceeded_even_with_ads_already_served(ads):
    banner = creative(ads, 320, 50)
    set_clock(ads, "2030-01-01T00:59:00Z")
    window = {"start": "2030-01-01T00:00:00Z", "end": "2030-01-01T01:00:00Z"}
    impressions = campaign(ads, "Five impressions", [banner], goal={"metric": "impressions", "lifetime": 5}, **window)
    for _ in range(5):
        token = served(ads)
        assert token and event(ads, token, "impression").json() == {"counted": True}
    assert served(ads) is None
    explained = admin(ads, "POST", "explain", {"adUnitID": UNIT, "size": {"w": 320, "h": 50}}).json()["campaigns"]
    assert explained[0]["reason"] == "its goal is delivered"
    admin(ads, "PATCH", f"campaigns/{impressions}", {"status": "paused"})
    # Three ads out at once for a goal of two clicks: the third click is not counted.
    clicks = campaign(ads, "Two clicks", [banner], goal={"metric": "clicks", "lifetime": 2}, **window)
    tokens = [served(ads) for _ in range(3)]
    for token in tokens:
        assert event(ads, token, "impression").json() == {"counted": True}
    assert [event(ads, token, "click").json()["counted"] for token in tokens] == [True, True, False]
    rows = requests.get(f"{ads.url}/ads/v1/admin/reports", headers=OWNER, timeout=10,
                        params={"from": "2030-01-01T00:00:00Z", "to": "2030-01-01T01:00:00Z"}).json()["rows"]
    totals = {row["key"]: row for row in rows}
    assert totals[impressions]["impressions"] == 5 and totals[clicks]["clicks"] == 2


def test_a_daily_goal_is_paced_evenly_over_a_simulated_day(ads):
    campaign(ads, "Paced", [creative(ads, 320, 50)], goal={"metric": "impressions", "daily": 200})
    delivered = {}
    # A decision every two minutes of the day, 720 in all, each impression reported at once.
    for step in range(720):
        minute = step * 2
        set_clock(ads, f"2030-01-01T{minute // 60:02d}:{minute % 60:02d}:00Z")
        token = served(ads)
        if token:
            assert event(ads, token, "impression").json() == {"counted": True}
        delivered[minute] = delivered.get(minute - 2, 0) + (1 if token else 0)
    assert delivered[6 * 60 - 2] in range(48, 53)
    assert delivered[12 * 60 - 2] in range(98, 103)
    assert 190 <= delivered[24 * 60 - 2] <= 200
    # A new day, a new goal.
    set_clock(ads, "2030-01-02T00:10:00Z")
    assert served(ads)


def test_a_frequency_cap_limits_what_one_viewer_sees(ads):
    cap = {"impressions": 2, "windowSeconds": 3600, "minimumSecondsApart": 60}
    campaign(ads, "Capped", [creative(ads, 320, 50)], frequencyCap=cap)
    set_clock(ads, "2030-01-01T10:00:00Z")
    first = served(ads, viewerKey="v1")
    assert event(ads, first, "impression").json() == {"counted": True}
    set_clock(ads, "2030-01-01T10:00:30Z")
    assert served(ads, viewerKey="v1") is None
    assert served(ads, viewerKey="v2")
    assert served(ads) is None
    set_clock(ads, "2030-01-01T10:01:01Z")
    second = served(ads, viewerKey="v1")
    extra = served(ads, viewerKey="v1")
    assert event(ads, second, "impression").json() == {"counted": True}
    # An ad served before the cap was reached is not counted past it.
    assert event(ads, extra, "impression").json() == {"counted": False}
    set_clock(ads, "2030-01-01T10:30:00Z")
    assert served(ads, viewerKey="v1") is None
    set_clock(ads, "2030-01-01T11:00:01Z")
    assert served(ads, viewerKey="v1")


@one_process_only
def test_what_was_delivered_is_known_again_after_a_restart(ads):
    banner = creative(ads, 320, 50)
    set_clock(ads, "2030-01-01T20:00:00Z")
    daily = campaign(ads, "Three a day", [banner], priority="contract", goal={"metric": "impressions", "daily": 3})
    capped = campaign(ads, "Once a day", [banner], frequencyCap={"impressions": 1, "windowSeconds": 86400})
    for viewer in ["x", "y", "z"]:
        set_clock(ads, f"2030-01-01T23:5{['x', 'y', 'z'].index(viewer)}:00Z")
        token = served(ads, viewerKey=viewer)
        assert event(ads, token, "impression").json() == {"counted": True}
    assert event(ads, served(ads, viewerKey="a"), "impression").json() == {"counted": True}
    ads.stop(signal.SIGKILL)
    ads.start()
    # The clock starts again from the system's time; set forward to the same day, the day's
    # deliveries and the viewer's impressions are read back.
    set_clock(ads, "2030-01-01T23:59:00Z")

    def reasons(viewer):
        answer = admin(ads, "POST", "explain", {"adUnitID": UNIT, "size": {"w": 320, "h": 50}, "viewerKey": viewer})
        return {line["campaignID"]: line.get("reason") for line in answer.json()["campaigns"]}

    assert reasons("a") == {daily: "its goal is delivered", capped: "the viewer reached its frequency cap"}
    assert reasons("d") == {daily: "its goal is delivered", capped: None}
    # The clock never moves back.
    assert admin(ads, "PUT", "clock", {"now": "2030-01-01T00:00:00Z"}).status_code == 400
    # A new day, a new daily goal.
    set_clock(ads, "2030-01-02T00:30:00Z")
    assert reasons("d")[daily] is None


def test_an_event_past_a_limit_stays_uncounted_and_so_do_its_retries(ads):
    campaign(ads, "Once", [creative(ads, 320, 50)], goal={"metric": "impressions", "daily": 1})
    set_clock(ads, "2030-01-01T23:58:00Z")
    first = served(ads)
    # The first ad's slot is reserved while its impression is awaited, for 30 s.
    assert served(ads) is None
    set_clock(ads, "2030-01-01T23:58:31Z")
    second = served(ads)
    assert first and second
    assert event(ads, first, "impression").json() == {"counted": True}
    assert event(ads, second, "impression").json() == {"counted": False}
    set_clock(ads, "2030-01-02T00:10:00Z")
    assert event(ads, second, "impression").json() == {"counted": False}
    # A click on that ad was a real click on a shown ad: counted, not invalid.
    invalid_before = sum(row["invalid"] for row in admin(ads, "GET", "reports").json()["rows"])
    assert event(ads, second, "click").json() == {"counted": True}
    assert sum(row["invalid"] for row in admin(ads, "GET", "reports").json()["rows"]) == invalid_before


def test_a_frequency_caps_spacing_holds_for_ads_served_at_once(ads):
    campaign(ads, "Spaced", [creative(ads, 320, 50)],
             frequencyCap={"impressions": 3, "windowSeconds": 3600, "minimumSecondsApart": 60})
    set_clock(ads, "2030-01-01T10:00:00Z")
    one, two = served(ads, viewerKey="v"), served(ads, viewerKey="v")
    assert event(ads, one, "impression").json() == {"counted": True}
    set_clock(ads, "2030-01-01T10:00:01Z")
    assert event(ads, two, "impression").json() == {"counted": False}


def test_goals_and_caps_that_contradict_are_refused(ads):
    banner = creative(ads, 320, 50)
    base = {"name": "c", "priority": "house", "adUnitIDs": [UNIT], "creativeIDs": [banner]}
    for body, field in [
        ({**base, "goal": {"metric": "impressions", "lifetime": 10}}, "goal.lifetime"),
        ({**base, "goal": {"metric": "impressions"}}, "goal"),
        ({**base, "goal": {"metric": "views", "daily": 1}}, "goal.metric"),
        ({**base, "goal": {"metric": "clicks", "daily": 0}}, "goal.daily"),
        ({**base, "start": "2030-01-01T00:00:00Z", "end": "2030-02-01T00:00:00Z",
          "goal": {"metric": "clicks", "lifetime": 5, "daily": 6}}, "goal.daily"),
        ({**base, "frequencyCap": {"impressions": 0, "windowSeconds": 60}}, "frequencyCap.impressions"),
        ({**base, "frequencyCap": {"impressions": 1, "windowSeconds": 60, "minimumSecondsApart": 61}},
         "frequencyCap.minimumSecondsApart"),
    ]:
        refused = admin(ads, "POST", "campaigns", body)
        assert refused.status_code == 400 and error_field(refused) == field, (body, refused.text)


def cli(server, *args):
    done = subprocess.run([HEARTH_BIN, *args, "--server", server.url], capture_output=True, text=True, timeout=60)
    return done.returncode, done.stdout, done.stderr


def test_the_command_line_builds_a_campaign_and_explains_a_decision(ads):
    code, out, err = cli(ads, "ads:create", "creatives",
                         '{"w": 320, "h": 50, "kind": "image", "imageURL": "https://a.example/b.png", '
                         '"clickURL": "https://a.example"}')
    assert code == 0, err
    banner = json.loads(out)["creativeID"]
    body = {"name": "From the CLI", "priority": "contract", "adUnitIDs": [UNIT], "creativeIDs": [banner],
            "targeting": {"platforms": ["android"]}}
    code, out, err = cli(ads, "ads:create", "campaigns", json.dumps(body))
    assert code == 0, err
    chosen = json.loads(out)["campaignID"]
    code, out, err = cli(ads, "ads:decide", "--unit", UNIT, "--size", "320x50", "--platform", "ios", "--explain")
    assert code == 0, err
    assert f"{chosen}\tFrom the CLI\tcontract\tout: the request is not in its targeting" in out
    code, out, err = cli(ads, "ads:decide", "--unit", UNIT, "--size", "320x50", "--platform", "android")
    assert code == 0 and json.loads(out)["ad"]["campaignID"] == chosen, err
    code, out, err = cli(ads, "ads:update", "campaigns", chosen, '{"weight": 0}')
    assert code != 0 and "Invalid value at 'weight'" in err
    code, out, err = cli(ads, "ads:delete", "adUnits", OTHER_UNIT)
    assert code == 0, err
    code, out, err = cli(ads, "ads:list", "adUnits")
    assert code == 0 and [unit["adUnitID"] for unit in json.loads(out)["adUnits"]] == [UNIT]
    code, out, err = cli(ads, "ads:report")
    assert code == 0 and out.splitlines()[0].split("\t") == [
        "hour", "campaign", "requests", "fills", "impressions", "viewable", "clicks", "invalid"]
    assert any(line.split("\t")[1] == chosen and line.split("\t")[3] == "1" for line in out.splitlines()[1:]), out


@embedded_only
def test_backups_and_restores_to_a_point_in_time_keep_the_ads_store(tmp_path):
    """The ads store is in backups and in the log archive: restored to a moment, the catalog, the
    token key and exactly the events counted by then are there, and a token served before still
    counts what was not counted yet, once."""
    archive, backup = str(tmp_path / "archive"), str(tmp_path / "backup")
    os.makedirs(archive)
    server = HearthProcess(extra_args=["--log-archive", archive]).start()
    try:
        created(server, "adUnits", {"adUnitID": UNIT, "name": "Home banner"})
        # Capped at three a viewer: what the viewer saw is restored too, neither lost nor doubled.
        campaign(server, "Spring", [creative(server, 320, 50)], frequencyCap={"impressions": 3, "windowSeconds": 3600})

        def served():
            answer = decide(server, {"adUnitID": UNIT, "size": {"w": 320, "h": 50}, "viewerKey": "viewer-1"})
            assert answer.status_code == 200, answer.text
            return answer.json()["ad"]["token"]

        first, second, third = served(), served(), served()
        assert event(server, first, "impression").json() == {"counted": True}
        done = subprocess.run([HEARTH_BIN, "backup", backup, "--data-dir", server.data_dir],
                              capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        assert event(server, second, "impression").json() == {"counted": True}
        time.sleep(0.05)
        moment = int(time.time() * 1000)
        time.sleep(0.05)
        assert event(server, third, "impression").json() == {"counted": True}
        # Stopped, the server archives what committed before it ends.
        server.stop(signal.SIGTERM)
    finally:
        server.stop()
        server.remove_data()

    def restored(*until):
        target = str(tmp_path / f"restored-{len(until)}")
        made = subprocess.run([HEARTH_BIN, "restore", backup, "--data-dir", target, *until],
                              capture_output=True, text=True, timeout=120)
        assert made.returncode == 0, made.stderr
        return HearthProcess(data_dir=target).start()

    def impressions(node):
        return sum(row["impressions"] for row in admin(node, "GET", "reports?group=campaign").json()["rows"])

    at_moment = restored("--until", str(moment), "--log-archive", archive)
    try:
        assert impressions(at_moment) == 2
        assert admin(at_moment, "GET", "campaigns").json()["campaigns"][0]["name"] == "Spring"
        assert event(at_moment, second, "impression").json() == {"counted": False}
        assert event(at_moment, third, "impression").json() == {"counted": True}
        assert impressions(at_moment) == 3
        # The viewer's third impression was their last under the cap.
        fourth = decide(at_moment, {"adUnitID": UNIT, "size": {"w": 320, "h": 50}, "viewerKey": "viewer-1"})
        assert fourth.status_code == 204, fourth.text
    finally:
        at_moment.stop()
        at_moment.remove_data()
    at_backup = restored()
    try:
        assert impressions(at_backup) == 1
        assert event(at_backup, first, "impression").json() == {"counted": False}
    finally:
        at_backup.stop()
        at_backup.remove_data()


def test_an_expired_token_is_refused_and_counted_as_invalid(ads):
    """A token is good for an hour after its decision: past it, its events are refused, counted
    as invalid, never as events, whether reported for the first time or again."""
    campaign(ads, "Expiring", [creative(ads, 320, 50)])
    set_clock(ads, "2030-03-01T10:00:00Z")
    seen = decide(ads, {"adUnitID": UNIT, "size": {"w": 320, "h": 50}}).json()["ad"]
    unseen = decide(ads, {"adUnitID": UNIT, "size": {"w": 320, "h": 50}}).json()["ad"]
    # 11:00, the moment the test clock was set to an hour on (it runs on from there).
    assert 1_898_593_200_000 <= seen["expiresAt"] <= unseen["expiresAt"] < 1_898_593_205_000
    set_clock(ads, "2030-03-01T10:59:59Z")
    assert event(ads, seen["token"], "impression").json() == {"counted": True}
    set_clock(ads, "2030-03-01T11:00:01Z")
    for token, kind in [(unseen["token"], "impression"), (seen["token"], "click"), (seen["token"], "impression")]:
        refused = event(ads, token, kind)
        assert refused.status_code == 400 and error_field(refused) == "token", refused.text
    rows = admin(ads, "GET", "reports", None).json()["rows"]
    assert sum(row["impressions"] for row in rows) == 1 and sum(row["clicks"] for row in rows) == 0
    assert sum(row["invalid"] for row in rows) == 3
