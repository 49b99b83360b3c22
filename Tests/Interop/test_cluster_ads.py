"""The ads server on Hearth nodes sharing one PostgreSQL database: one node at a time serves it
(the first asked), every other node passes `/ads/v1/` requests on to it, and when it is killed
another node takes over at once with everything it acknowledged: the catalog, each event counted
once, and what each viewer saw for the frequency caps."""

import concurrent.futures
import datetime
import signal
import threading
import time

import pytest
import requests

from conftest import OWNER, HearthProcess

UNIT = "ca-app-pub-3940256099942544/2934735716"
# How many viewers the failover test serves, one impression each.
VIEWERS = 300


@pytest.fixture
def nodes(postgres):
    """Three nodes on one fresh database; killed once the test is done with them."""
    url = postgres.create_database()
    started = [HearthProcess(extra_args=["--postgres", url]).start() for _ in range(3)]
    yield started
    for node in started:
        node.stop(signal.SIGKILL)
        node.remove_data()


def admin(node, method, path, body=None):
    answer = requests.request(method, f"{node.url}/ads/v1/admin/{path}", json=body, headers=OWNER, timeout=10)
    assert answer.status_code in (200, 204), answer.text
    return answer.json() if answer.status_code == 200 else None


def decide(node, **extra):
    return requests.post(f"{node.url}/ads/v1/decide", json={"adUnitID": UNIT, "size": {"w": 320, "h": 50}, **extra}, timeout=10)


def event(node, token, kind="impression", timeout=10):
    return requests.post(f"{node.url}/ads/v1/events", json={"token": token, "type": kind}, timeout=timeout)


def catalog(node, **campaign):
    """An ad unit, a banner and a house campaign of it, made through `node`."""
    admin(node, "POST", "adUnits", {"adUnitID": UNIT, "name": "Home banner", "refreshSeconds": 60})
    banner = admin(node, "POST", "creatives", {"w": 320, "h": 50, "kind": "image", "imageURL": "https://ads.example.com/b.png",
                                               "clickURL": "https://example.com/"})["creativeID"]
    return admin(node, "POST", "campaigns", {"name": "House", "priority": "house", "adUnitIDs": [UNIT],
                                              "creativeIDs": [banner], **campaign})["campaignID"]


def totals(node):
    rows = admin(node, "GET", "reports?period=day")["rows"]
    return {name: sum(row[name] for row in rows) for name in ("requests", "fills", "impressions", "clicks", "invalid")}


def holder(postgres, node):
    database = node.extra_args[1].rsplit("/", 1)[1].split("?")[0]
    return postgres.sql("SELECT owner_address FROM hearth_namespaces WHERE ns = 'hearth:ads'", database=database)


def when_served(send, seconds=10):
    """`send()`'s answer once it is not a 503: right after the serving node died, a request
    passed on to it may fail once more while another node takes over."""
    deadline = time.monotonic() + seconds
    while True:
        answer = send()
        if answer.status_code != 503 or time.monotonic() > deadline:
            return answer
        time.sleep(0.05)


def test_every_node_answers_and_the_first_asked_serves_them_all(nodes, postgres):
    first, second, third = nodes
    catalog(first)
    assert holder(postgres, first) == first.host

    # A decision through one node, its events through the others: each counted once.
    token = decide(second).json()["ad"]["token"]
    assert event(third, token).json() == {"counted": True}
    assert event(first, token).json() == {"counted": False}
    assert event(second, token, "click").json() == {"counted": True}
    forged = event(third, token[:-2] + "xx")
    assert forged.status_code == 400 and forged.json()["error"]["field"] == "token"

    # The admin API and the images too, whichever node is asked.
    assert [unit["adUnitID"] for unit in admin(third, "GET", "adUnits")["adUnits"]] == [UNIT]
    png = b"\x89PNG\r\n\x1a\n" + b"\x00" * 64
    uploaded = requests.post(f"{second.url}/ads/v1/admin/images", data=png, headers=OWNER, timeout=10)
    assert uploaded.status_code == 200, uploaded.text
    # Named where the client reached the cluster, not where the serving node is.
    assert uploaded.json()["imageURL"].startswith(second.url + "/ads/v1/images/")
    path = uploaded.json()["imageURL"].split("/ads/v1/", 1)[1]
    image = requests.get(f"{third.url}/ads/v1/{path}", timeout=10)
    assert image.status_code == 200 and image.content == png and image.headers["ETag"]

    # Requests and fills are added to the counts within a second of the decision.
    time.sleep(1.5)
    assert totals(third) == {"requests": 1, "fills": 1, "impressions": 1, "clicks": 1, "invalid": 1}
    assert holder(postgres, first) == first.host

    # Bad input is refused as the serving node refuses it.
    oversized = requests.post(f"{third.url}/ads/v1/decide", data=b"{" + b" " * (1 << 20) + b"}", timeout=10)
    assert oversized.status_code == 413


def test_a_killed_serving_node_is_replaced_at_once_and_loses_no_acknowledged_event(nodes, postgres):
    first, second, third = nodes
    # One impression per viewer per hour, and a lifetime goal the test reaches: the window ends
    # in an hour after a thousand, so the pace allows all of it now.
    now = datetime.datetime.now(datetime.timezone.utc)
    campaign_id = catalog(
        first, frequencyCap={"impressions": 1, "windowSeconds": 3600}, goal={"metric": "impressions", "lifetime": VIEWERS + 30},
        start=(now - datetime.timedelta(hours=1000)).strftime("%Y-%m-%dT%H:%M:%SZ"),
        end=(now + datetime.timedelta(hours=1)).strftime("%Y-%m-%dT%H:%M:%SZ"))
    tokens = [decide(second, viewerKey=f"viewer-{index}").json()["ad"]["token"] for index in range(VIEWERS)]
    answers = {}
    lock = threading.Lock()

    def report(index):
        # Through the nodes that live on, while the serving node is killed under them.
        node = (second, third)[index % 2]
        try:
            answer = event(node, tokens[index])
        except requests.RequestException:
            return
        with lock:
            answers[index] = answer

    with concurrent.futures.ThreadPoolExecutor(max_workers=8) as pool:
        futures = [pool.submit(report, index) for index in range(len(tokens))]
        while len(answers) < 30:
            time.sleep(0.005)
        first.stop(signal.SIGKILL)
        killed = time.monotonic()
        answered_before_the_kill = len(answers)
        for future in futures:
            future.result()
    assert answered_before_the_kill < len(tokens) / 2
    acknowledged = {index for index, answer in answers.items() if answer.status_code == 200 and answer.json()["counted"]}
    assert all(answer.status_code in (200, 503) for answer in answers.values()), [a.text for a in answers.values()]

    # Another node serves at once, with every acknowledged impression counted once: a retry of
    # each is a duplicate, and the rest count now.
    again = {index: when_served(lambda: event(second, tokens[index])) for index in range(len(tokens))}
    assert time.monotonic() - killed < 15
    assert holder(postgres, second) in (second.host, third.host)
    for index, answer in again.items():
        assert answer.status_code == 200, answer.text
        if index in acknowledged:
            assert answer.json() == {"counted": False}
    assert totals(third)["impressions"] == len(tokens)

    # The caps were read back: no viewer who saw the ad gets it again within the hour.
    assert decide(third, viewerKey="viewer-7").status_code == 204
    newcomer = decide(third, viewerKey="someone-new")
    assert newcomer.status_code == 200
    # And so was the goal: 30 more impressions reach it, and none goes past it.
    more = [newcomer.json()["ad"]["token"]]
    more += [decide(second, viewerKey=f"late-{index}").json()["ad"]["token"] for index in range(29)]
    assert [event(third, token).json()["counted"] for token in more] == [True] * 30
    assert decide(second, viewerKey="after-the-goal").status_code == 204
    campaigns = {row["key"]: row for row in admin(third, "GET", "reports?period=day&group=campaign")["rows"]}
    assert campaigns[campaign_id]["impressions"] == VIEWERS + 30


def test_events_fail_cleanly_while_postgres_is_down_and_count_once_after(nodes, postgres):
    first, second, third = nodes
    catalog(first)
    tokens = [decide(second).json()["ad"]["token"] for _ in range(40)]
    assert [event(second, token).json()["counted"] for token in tokens[:20]] == [True] * 20
    postgres.pg_ctl("stop", "-m", "immediate")
    try:
        # Refused once the store gives up waiting for a connection (10 s).
        refused = event(second, tokens[20], timeout=60)
        assert refused.status_code == 503 and refused.json()["error"]["status"] == "UNAVAILABLE"
    finally:
        postgres.pg_ctl("start")

    # Once PostgreSQL is back, the ads are served again from what it holds: the events
    # acknowledged before are duplicates, the others count now, once.
    answers = [when_served(lambda token=token: event(second, token), seconds=30) for token in tokens]
    assert [answer.status_code for answer in answers] == [200] * 40
    assert [answer.json()["counted"] for answer in answers] == [False] * 20 + [True] * 20
    assert totals(third)["impressions"] == 40


def test_a_stopped_serving_node_is_replaced_once_its_lease_runs_out(nodes):
    first, second, third = nodes
    catalog(first)
    tokens = [decide(second).json()["ad"]["token"] for _ in range(300)]
    acknowledged = []
    sending = threading.Event()
    sending.set()

    def report_while_running():
        # Events passed on to the serving node without a pause, so that it is stopped in the
        # middle of its work: between two statements of a transaction, often.
        for token in tokens[:200]:
            if not sending.is_set():
                return
            try:
                if event(second, token, timeout=60).json().get("counted"):
                    acknowledged.append(token)
            except (requests.RequestException, ValueError):
                pass

    sender = threading.Thread(target=report_while_running)
    sender.start()
    while len(acknowledged) < 20:
        time.sleep(0.005)
    first.process.send_signal(signal.SIGSTOP)
    stopped = time.monotonic()
    try:
        # Another node serves once the lease ran out (3 s) and PostgreSQL ended the stopped
        # node's open transaction (5 s without a statement); requests passed on to the stopped
        # node before that wait, and are not counted on.
        served = None
        refusals = set()
        while served is None and time.monotonic() - stopped < 30:
            try:
                answer = event(third, tokens[200], timeout=5)
            except requests.RequestException as error:
                refusals.add(type(error).__name__)
                continue
            if answer.status_code == 200:
                served = time.monotonic() - stopped
            else:
                refusals.add(answer.text)
                time.sleep(0.1)
        assert served is not None and served < 20, refusals
    finally:
        sending.clear()
        first.process.send_signal(signal.SIGCONT)
        sender.join(timeout=120)

    # Once every report is answered, each token reported counts once: the acknowledged ones are
    # duplicates, the others count now.
    answers = {token: when_served(lambda token=token: event(third, token, timeout=60), seconds=60) for token in tokens}
    assert all(answer.status_code == 200 for answer in answers.values())
    assert all(answers[token].json() == {"counted": False} for token in acknowledged)
    assert totals(second)["impressions"] == len(tokens)
