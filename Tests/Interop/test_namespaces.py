"""Database namespaces: a read creates nothing, idle namespaces are closed so that open files and
memory stay bounded however many namespaces clients touch, production serves only namespaces that
exist, and the `hearth database:*` commands manage them."""

import os
import subprocess
import uuid

import pytest
import requests

from conftest import HEARTH_BIN, ON_POSTGRES, OWNER, PROJECT, HearthProcess, database_secret, embedded_only
from realtime_client import RealtimeClient


def open_descriptors(server):
    return len(os.listdir(f"/proc/{server.process.pid}/fd"))


def resident_mib(server):
    with open(f"/proc/{server.process.pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    raise AssertionError("no VmRSS")


def namespace_files(server):
    """The namespaces' files (the folder of the node's durable log, `log`, is not one); none when
    the namespaces are kept in PostgreSQL."""
    directory = os.path.join(server.data_dir, "database")
    return sorted(name for name in os.listdir(directory) if name != "log") if os.path.isdir(directory) else []


@pytest.fixture(scope="module")
def quick_idle():
    """A server that closes a namespace one second after its last use."""
    server = HearthProcess(extra_args=["--namespace-idle-timeout", "1"]).start()
    yield server
    server.stop()
    server.remove_data()


def test_reading_a_namespace_that_does_not_exist_answers_empty_and_creates_nothing(quick_idle):
    name = f"ghost-{uuid.uuid4().hex[:8]}"
    before = namespace_files(quick_idle)
    response = requests.get(f"{quick_idle.url}/a/b.json", params={"ns": name}, timeout=10)
    assert response.status_code == 200
    assert response.json() is None
    listed = requests.get(f"{quick_idle.url}/.inspect/databases.json", headers=OWNER, timeout=10).json()
    assert {"name": name} not in listed
    assert namespace_files(quick_idle) == before


def test_the_first_write_creates_the_namespace(quick_idle):
    name = f"made-{uuid.uuid4().hex[:8]}"
    assert requests.put(f"{quick_idle.url}/x.json", params={"ns": name}, json=1, timeout=10).status_code == 200
    assert ON_POSTGRES or f"{name}.sqlite" in namespace_files(quick_idle)
    listed = requests.get(f"{quick_idle.url}/.inspect/databases.json", headers=OWNER, timeout=10).json()
    assert {"name": name} in listed


def test_ten_thousand_namespaces_keep_descriptors_and_memory_bounded(quick_idle):
    session = requests.Session()
    run = uuid.uuid4().hex[:6]
    written = {f"t{run}-{index}" for index in range(0, 10_000, 50)}
    # Warm up, so that the baseline includes what the first requests allocate for good.
    for index in range(200):
        session.get(f"{quick_idle.url}/.json", params={"ns": f"w{run}-{index}"}, timeout=10)
    descriptors_before, memory_before = open_descriptors(quick_idle), resident_mib(quick_idle)
    peak_descriptors = 0
    for index in range(10_000):
        name = f"t{run}-{index}"
        if name in written:
            response = session.put(f"{quick_idle.url}/v.json", params={"ns": name}, json=index, timeout=10)
        else:
            response = session.get(f"{quick_idle.url}/v.json", params={"ns": name}, timeout=10)
        assert response.status_code == 200, response.text
        if index % 500 == 0:
            peak_descriptors = max(peak_descriptors, open_descriptors(quick_idle))
    files = [f for f in namespace_files(quick_idle) if f.startswith(f"t{run}-") and f.endswith(".sqlite")]
    assert len(files) == (0 if ON_POSTGRES else 200)
    # Only the namespaces used within the last second or so are open at any time.
    assert peak_descriptors < descriptors_before + 400, (descriptors_before, peak_descriptors)
    assert resident_mib(quick_idle) < memory_before + 100, (memory_before, resident_mib(quick_idle))
    # Every namespace still answers, from its file or as an empty database.
    for index in range(10_000):
        name = f"t{run}-{index}"
        value = session.get(f"{quick_idle.url}/v.json", params={"ns": name}, timeout=10).json()
        assert value == (index if name in written else None), name
    assert open_descriptors(quick_idle) < descriptors_before + 400


def test_a_namespace_with_a_listener_stays_open_and_current(quick_idle):
    name = f"listened-{uuid.uuid4().hex[:8]}"
    client = RealtimeClient(quick_idle, name)
    try:
        pushes, response = client.call("q", {"p": "/n", "h": ""})
        assert response["s"] == "ok"
        # Well past the idle timeout; stats requests keep the connection itself alive.
        for _ in range(3):
            client.expect_silence(1)
            assert client.call("s", {"c": {}})[1]["s"] == "ok"
        assert requests.put(f"{quick_idle.url}/n.json", params={"ns": name}, json=7, timeout=10).status_code == 200
        assert client.push()["b"] == {"p": "n", "d": 7}
    finally:
        client.close()


@pytest.fixture(scope="module")
def production():
    server = HearthProcess(extra_args=["--production"])
    server.secret = database_secret(server.data_dir)
    server.start()
    yield server
    server.stop()
    server.remove_data()


def test_production_answers_404_for_a_namespace_that_does_not_exist(production):
    name = f"ghost-{uuid.uuid4().hex[:8]}"
    for method, body in (("GET", None), ("PUT", "1"), ("PATCH", '{"a":1}'), ("POST", "1"), ("DELETE", None)):
        response = requests.request(method, f"{production.url}/x.json", params={"ns": name}, data=body, timeout=10)
        assert response.status_code == 404, (method, response.text)
        assert response.json() == {"error": "404 Not Found"}
    assert f"{name}.sqlite" not in namespace_files(production)


def test_production_shuts_a_realtime_connection_to_a_namespace_that_does_not_exist(production):
    client = RealtimeClient(production, f"ghost-{uuid.uuid4().hex[:8]}")
    try:
        assert client.handshake["t"] == "c" and client.handshake["d"]["t"] == "h"
        assert client.receive() == {"t": "c", "d": {"t": "s", "d": "404 Not Found"}}
    finally:
        client.close()


def test_production_serves_its_default_namespace_and_those_an_admin_creates(production):
    # The default database exists from the start; its rules require sign-in.
    assert requests.get(f"{production.url}/x.json", timeout=10).status_code == 401
    name = f"admin-{uuid.uuid4().hex[:8]}"
    # `owner` is not an admin credential in production; a database secret is.
    assert requests.put(f"{production.url}/x.json", params={"ns": name}, json=1, headers=OWNER, timeout=10).status_code == 401
    admin = {"ns": name, "auth": production.secret}
    assert requests.put(f"{production.url}/x.json", params=admin, json=1, timeout=10).status_code == 200
    assert requests.get(f"{production.url}/x.json", params=admin, timeout=10).json() == 1


@embedded_only
def test_the_database_commands_create_list_and_delete_namespaces(tmp_path):
    def hearth(*arguments):
        return subprocess.run(
            [HEARTH_BIN, *arguments, "--data-dir", str(tmp_path)], capture_output=True, text=True, timeout=60)

    assert hearth("database:create", "alpha").returncode == 0
    assert hearth("database:create", "beta").returncode == 0
    assert "already exists" in hearth("database:create", "alpha").stdout
    assert hearth("database:list").stdout.split() == ["alpha", "beta"]
    refused = hearth("database:create", "not.valid")
    assert refused.returncode != 0 and "Invalid namespace" in refused.stderr

    secret = database_secret(str(tmp_path))
    server = HearthProcess(data_dir=str(tmp_path), extra_args=["--production"]).start()
    try:
        assert requests.get(f"{server.url}/x.json", params={"ns": "alpha", "auth": secret}, timeout=10).json() is None
        assert requests.get(f"{server.url}/x.json", params={"ns": "gamma", "auth": secret}, timeout=10).status_code == 404
    finally:
        server.stop()

    assert hearth("database:delete", "alpha").returncode == 0
    # The production server created the project's default database.
    assert hearth("database:list").stdout.split() == ["beta", f"{PROJECT}-default-rtdb"]
    assert hearth("database:delete", "alpha").returncode != 0
