"""Unindexed tagged queries (protocol §7.6–§7.8) as the official SDKs see them (§17.5).

A listen on a query whose order has no `.indexOn` is answered `ok` with `w: ["no_index"]` and the
whole location. The SDKs still keep only the query's window in their view: a deep update
(`{"p": "X/a/index", "d": 10}`) for a child the window does not hold is dropped. So the server
must keep such a listen current at child granularity: a changed child is pushed whole (`d` at
`X/<child>`, or an `m` at `X` whose keys are children), a write above `X` as the whole location,
and the child that refills a limit window is pushed whole as well.

`WindowView` models the SDK's view of one tagged query; each test drives a real server with a
writer and checks after every step that this view equals the window computed from the true data.
"""

import re
import time

import pytest
import requests

from conftest import OWNER
from realtime_client import RealtimeClient, unique_namespace

TAG = 1
QUIET = 0.4      # a push sequence is over after this long without a frame
SETTLE_LIMIT = 5  # and never waits longer than this in all
KEEPALIVE = 0.5   # the suite's server drops a connection silent for 2 s

INTEGER_KEY = re.compile(r"^-?0*\d{1,10}$")


# Ordering (§7.3, §7.4)

def key_order(key):
    if INTEGER_KEY.match(key):
        number = int(key)
        if -2147483648 <= number <= 2147483647:
            return (0, number, len(key), b"")
    return (1, 0, 0, key.encode("utf-16-be"))


def value_order(value):
    if value is None:
        return (0, 0)
    if value is False:
        return (1, 0)
    if value is True:
        return (2, 0)
    if isinstance(value, (int, float)):
        return (3, value)
    if isinstance(value, str):
        return (4, value.encode("utf-16-be"))
    return (5, 0)  # objects all compare equal


class Query:
    """A query ordered by the child `index`, as on the wire (§7.1): `sp`/`ep` without keys, `l`, `vf`."""

    def __init__(self, wire):
        self.wire = wire
        assert wire["i"] == "index"
        self.start = wire.get("sp")
        self.has_start = "sp" in wire
        self.end = wire.get("ep")
        self.has_end = "ep" in wire
        self.limit = wire.get("l")
        self.from_last = wire.get("vf", "l" if self.has_start else "r") == "r"

    @staticmethod
    def indexed(child):
        return child.get("index") if isinstance(child, dict) else None

    def in_range(self, child):
        order = value_order(self.indexed(child))
        if self.has_start and order < value_order(self.start):
            return False
        if self.has_end and order > value_order(self.end):
            return False
        return True

    def window(self, children):
        """The query's window over `children` (a dict of child key to value)."""
        keys = sorted((key for key, child in children.items() if child is not None and self.in_range(child)),
                      key=lambda key: (value_order(self.indexed(children[key])), key_order(key)))
        if self.limit is not None:
            keys = keys[-self.limit:] if self.from_last else keys[:self.limit]
        return {key: children[key] for key in keys}


# The SDK's view of a tagged query (§17.5)

def set_deep(node, path, value):
    """`node` with `value` at the relative `path` (a list of keys); null removes, empty objects vanish."""
    if not path:
        return value
    node = dict(node) if isinstance(node, dict) else {}
    child = set_deep(node.get(path[0]), path[1:], value)
    if child is None or child == {}:
        node.pop(path[0], None)
    else:
        node[path[0]] = child
    return node or None


class WindowView:
    """Holds the window only. Applies the pushes for its tag (and untagged ones, which an SDK applies
    to every view at the path): data at the location replaces everything; a child arriving whole is
    considered for the window; a deep update is applied only to a child the window holds, and is
    dropped otherwise. After each push the window is recomputed from what the view holds, so a child
    leaving makes room only for children the view already holds: a removed child leaves the window
    short, and a held child sorting past the edge stays, until the server sends the child that
    refills the window (as the SDKs' LimitedFilter does when only the window is known)."""

    def __init__(self, location, query):
        self.location = location.strip("/")
        self.query = query
        self.held = {}
        self.pushes = []   # every push applied, for the granularity check
        self.dropped = []  # deep updates dropped because the child was not held

    def relative(self, path):
        path = path.strip("/")
        if path == self.location:
            return []
        assert path.startswith(self.location + "/"), f"push outside the listened location: {path}"
        return path[len(self.location) + 1:].split("/")

    def apply(self, push):
        body = push["b"]
        if body.get("t", TAG) != TAG:
            return
        self.pushes.append(push)
        relative, data = self.relative(body["p"]), body["d"]
        if push["a"] == "d":
            self.overwrite(relative, data)
        elif push["a"] == "m":
            self.merge(relative, data)
        else:
            raise AssertionError(f"unexpected push {push}")

    def overwrite(self, relative, data):
        if not relative:
            self.held = self.query.window(data if isinstance(data, dict) else {})
        elif len(relative) == 1:
            self.whole(relative[0], data)
        else:
            self.deep(relative, data)

    def merge(self, relative, data):
        updates = [(relative + key.strip("/").split("/"), value) for key, value in data.items()]
        # Keys of held children first, so that removals make room before additions are judged.
        updates.sort(key=lambda update: update[0][0] not in self.held)
        for path, value in updates:
            if len(path) == 1:
                self.whole(path[0], value)
            else:
                self.deep(path, value)

    def whole(self, key, value):
        candidates = dict(self.held)
        if value is None:
            candidates.pop(key, None)
        else:
            candidates[key] = value
        self.held = self.query.window(candidates)

    def deep(self, path, value):
        key = path[0]
        if key not in self.held:
            self.dropped.append(("/".join(path), value))
            return
        self.whole(key, set_deep(self.held[key], path[1:], value))


# Driving a server

class Scenario:
    """One fresh namespace without rules (so the query is unindexed), a listener with one tagged
    listen, and a writer: REST with the owner credential, or a second realtime connection."""

    def __init__(self, hearth, location, data, wire_query, writer="rest"):
        self.hearth = hearth
        self.namespace = unique_namespace()
        self.location = location.strip("/")
        self.query = Query(wire_query)
        self.realtime_writer = RealtimeClient(hearth, self.namespace) if writer == "realtime" else None
        self.put(self.location, data)
        self.listener = RealtimeClient(hearth, self.namespace)
        self.view = WindowView(self.location, self.query)
        pushes, response = self.listener.call("q", {"p": "/" + self.location, "q": wire_query, "t": TAG, "h": ""})
        assert response == {"s": "ok", "d": {"w": ["no_index"]}}, response
        for push in pushes:
            self.view.apply(push["d"])
        self.check("the initial data")

    def close(self):
        self.listener.close()
        if self.realtime_writer:
            self.realtime_writer.close()

    def url(self, path):
        return f"{self.hearth.url}/{path.strip('/')}.json?ns={self.namespace}"

    # Writes

    def put(self, path, value):
        if self.realtime_writer:
            assert self.realtime_writer.call("p", {"p": "/" + path.strip("/"), "d": value})[1] == {"s": "ok", "d": ""}
        elif value is None:
            self.delete(path)
        else:
            response = requests.put(self.url(path), json=value, headers=OWNER, timeout=10)
            assert response.status_code == 200, response.text

    def delete(self, path):
        if self.realtime_writer:
            self.put(path, None)
        else:
            response = requests.delete(self.url(path), headers=OWNER, timeout=10)
            assert response.status_code == 200, response.text

    def update(self, path, values):
        if self.realtime_writer:
            assert self.realtime_writer.call("m", {"p": "/" + path.strip("/"), "d": values})[1] == {"s": "ok", "d": ""}
        else:
            response = requests.patch(self.url(path), json=values, headers=OWNER, timeout=10)
            assert response.status_code == 200, response.text

    # Observing

    def settle(self):
        """Applies the listener's pushes until none has come for QUIET seconds (at most SETTLE_LIMIT)."""
        deadline = time.time() + SETTLE_LIMIT
        last_keepalive = 0
        while time.time() < deadline:
            if time.time() - last_keepalive > KEEPALIVE:
                self.listener.send_text("0")
                if self.realtime_writer:
                    self.realtime_writer.send_text("0")
                last_keepalive = time.time()
            try:
                message = self.listener.receive(timeout=QUIET)
            except TimeoutError:
                return
            assert message["t"] == "d" and "r" not in message["d"], message
            self.view.apply(message["d"])

    def truth(self):
        response = requests.get(self.url(self.location), headers=OWNER, timeout=10)
        assert response.status_code == 200, response.text
        data = response.json()
        return data if isinstance(data, dict) else {}

    def check(self, step):
        expected = self.query.window(self.truth())
        assert self.view.held == expected, (
            f"after {step}: the client's window is {sorted(self.view.held)}, the data's is {sorted(expected)}; "
            f"dropped deep updates: {self.view.dropped}; pushes: {[p['b'] for p in self.view.pushes]}")
        self.check_granularity(step)

    def check_granularity(self, step):
        depth = len(self.location.split("/"))
        for push in self.view.pushes:
            body = push["b"]
            segments = body["p"].strip("/").split("/")
            if push["a"] == "d":
                too_deep = len(segments) > depth + 1
            else:  # a merge at the location whose keys are children, nothing deeper
                too_deep = len(segments) > depth or any("/" in key.strip("/") for key in body["d"])
            assert not too_deep, f"after {step}: a push deeper than {self.location}/<child>: {body}"

    def step(self, description, write):
        write()
        self.settle()
        self.check(description)


@pytest.fixture
def scenarios(hearth):
    opened = []

    def open_scenario(*args, **kwargs):
        scenario = Scenario(hearth, *args, **kwargs)
        opened.append(scenario)
        return scenario

    yield open_scenario
    for scenario in opened:
        scenario.close()


FIVE = {key: {"index": number, "name": key.upper()} for number, key in enumerate("abcde", start=1)}
LAST_TWO = {"i": "index", "l": 2, "vf": "r"}
FIRST_TWO = {"i": "index", "l": 2, "vf": "l"}


# The model itself

def test_the_model_drops_deep_updates_for_children_it_does_not_hold():
    view = WindowView("X", Query(LAST_TWO))
    view.apply({"a": "d", "b": {"p": "X", "d": FIVE, "t": TAG}})
    assert sorted(view.held) == ["d", "e"]
    view.apply({"a": "d", "b": {"p": "X/a/index", "d": 10, "t": TAG}})
    assert sorted(view.held) == ["d", "e"] and view.dropped == [("a/index", 10)]
    view.apply({"a": "d", "b": {"p": "X/a", "d": {"index": 10}, "t": TAG}})
    assert sorted(view.held) == ["a", "e"]
    # A held child sorting below the others stays while nothing else is known to replace it ...
    view.apply({"a": "d", "b": {"p": "X/a/index", "d": 0, "t": TAG}})
    assert view.held == {"a": {"index": 0}, "e": FIVE["e"]}
    # ... and leaves when the server sends the child that refills the window.
    view.apply({"a": "d", "b": {"p": "X/d", "d": {"index": 4}, "t": TAG}})
    assert sorted(view.held) == ["d", "e"]
    # A removal leaves the window short: nothing held refills it.
    view.apply({"a": "m", "b": {"p": "X", "d": {"c": {"index": 3}, "e": None}, "t": TAG}})
    assert sorted(view.held) == ["c", "d"]
    view.apply({"a": "d", "b": {"p": "X/d", "d": None, "t": TAG}})
    assert sorted(view.held) == ["c"]
    view.apply({"a": "d", "b": {"p": "X/c/index", "d": 0}})  # untagged: applies to every view at X
    assert view.held == {"c": {"index": 0}}
    view.apply({"a": "d", "b": {"p": "X/b", "d": {"index": 3}, "t": 2}})  # another tag
    assert view.held == {"c": {"index": 0}}


# Against the server

@pytest.mark.parametrize("writer", ["rest", "realtime"])
def test_a_child_entering_the_window_through_a_deep_write_appears(scenarios, writer):
    scenario = scenarios("X", FIVE, LAST_TWO, writer=writer)
    scenario.step("a deep write moving /X/a into the window", lambda: scenario.put("X/a/index", 10))
    scenario.step("a deep write moving /X/b into the window", lambda: scenario.put("X/b/index", 11))
    scenario.step("a deep write to a child outside the window", lambda: scenario.put("X/c/name", "changed"))


@pytest.mark.parametrize("writer", ["rest", "realtime"])
def test_a_child_entering_the_window_through_a_multi_path_update_appears(scenarios, writer):
    scenario = scenarios("X", FIVE, LAST_TWO, writer=writer)
    scenario.step("an update of /X with a deep key", lambda: scenario.update("X", {"a/index": 10, "b/name": "B2"}))


def test_a_child_leaving_the_window_is_replaced(scenarios):
    scenario = scenarios("X", FIVE, LAST_TWO)
    scenario.step("lowering /X/d/index below the others", lambda: scenario.put("X/d/index", 0))
    scenario.step("removing /X/e/index", lambda: scenario.delete("X/e/index"))


def test_a_removed_window_child_is_refilled(scenarios):
    scenario = scenarios("X", FIVE, LAST_TWO)
    scenario.step("removing /X/e", lambda: scenario.delete("X/e"))
    scenario.step("removing /X/d", lambda: scenario.delete("X/d"))
    scenario.step("an update of /X removing /X/c", lambda: scenario.update("X", {"c": None}))


def test_a_child_refilling_the_window_is_sent_even_when_the_same_write_touched_it_unchanged(scenarios):
    """An update removing a window child and rewriting the refilling child's value unchanged:
    the refilling child still enters whole."""
    scenario = scenarios("X", FIVE, LAST_TWO)
    unchanged = FIVE["c"]["index"]
    scenario.step("an update removing /X/e and rewriting /X/c/index unchanged",
                  lambda: scenario.update("X", {"e": None, "c/index": unchanged}))


def test_a_write_above_the_location_gives_the_right_window(scenarios):
    scenario = scenarios("p/X", FIVE, LAST_TWO)
    replaced = {"a": {"index": 7}, "b": {"index": 1}, "z": {"index": 3}, "y": {"index": 9}}
    scenario.step("a set of the whole parent /p", lambda: scenario.put("p", {"X": replaced, "other": 1}))
    scenario.step("a deep write moving /p/X/b into the window", lambda: scenario.put("p/X/b/index", 8))
    scenario.step("a set of the parent removing /p/X", lambda: scenario.put("p", {"other": 2}))
    scenario.step("a set of the location /p/X itself", lambda: scenario.put("p/X", FIVE))


def test_a_range_query_follows_children_in_and_out_of_its_range(scenarios):
    scenario = scenarios("X", FIVE, {"i": "index", "sp": 2, "ep": 4})
    scenario.step("a deep write moving /X/a into the range", lambda: scenario.put("X/a/index", 3))
    scenario.step("a deep write moving /X/b out of the range", lambda: scenario.put("X/b/index", 9))
    scenario.step("a deep write moving /X/e into the range", lambda: scenario.put("X/e/index", 2))


def test_a_limited_range_query_is_refilled_and_entered(scenarios):
    scenario = scenarios("X", FIVE, {"i": "index", "sp": 2, "ep": 4, "l": 2, "vf": "r"})
    scenario.step("a deep write moving /X/d out of the range", lambda: scenario.put("X/d/index", 5))
    scenario.step("a deep write moving /X/e into the window", lambda: scenario.put("X/e/index", 4))


def test_a_limit_to_first_window_is_entered_left_and_refilled(scenarios):
    scenario = scenarios("X", FIVE, FIRST_TWO)
    scenario.step("a deep write moving /X/e into the window", lambda: scenario.put("X/e/index", 0))
    scenario.step("a deep write moving /X/a out of the window", lambda: scenario.put("X/a/index", 10))
    scenario.step("removing /X/e", lambda: scenario.delete("X/e"))
