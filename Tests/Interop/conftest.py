"""Starts a real Hearth server for the interop suite and points firebase-admin at it."""

import atexit
import hashlib
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import uuid

import firebase_admin
import pytest
import requests
from firebase_admin import db

HEARTH_BIN = os.path.abspath(os.environ.get("HEARTH_BIN", ".build/debug/hearth"))
PROJECT = "interop-project"
OWNER = {"Authorization": "Bearer owner"}
# Set to a number of nodes, every server is that many Hearth nodes on one PostgreSQL database
# behind a round-robin load balancer at the server's port, so that each test's clients are spread
# across the nodes.
CLUSTER_NODES = int(os.environ.get("HEARTH_INTEROP_CLUSTER", "1"))
# Set (or with a cluster), every server keeps its state in PostgreSQL: one database per data
# directory, on a PostgreSQL server started once for the whole run.
ON_POSTGRES = os.environ.get("HEARTH_INTEROP_POSTGRES") == "1" or CLUSTER_NODES > 1
# For tests of what only the data directory's database has: its files and the commands on them.
embedded_only = pytest.mark.skipif(ON_POSTGRES, reason="the data directory's database files and commands")
# For tests of one process: its log, its memory, its open files.
one_process_only = pytest.mark.skipif(CLUSTER_NODES > 1, reason="one process's log, memory or files")
# For what each node of a cluster keeps for itself (docs/scale-out.md): phone codes, caches of
# identity providers' keys, Storage rules set at run time.
per_node_state = pytest.mark.skipif(CLUSTER_NODES > 1, reason="state each node of a cluster keeps for itself")
_postgres = None


def postgres_server():
    """The PostgreSQL cluster of this run, started on first use and stopped at exit."""
    global _postgres
    if _postgres is None:
        from postgres_support import PostgresServer

        _postgres = PostgresServer().start()
        atexit.register(_postgres.stop)
    return _postgres


def database_of(data_dir):
    """The name of the database of data directory `data_dir` in this run's PostgreSQL cluster."""
    return "hearth_" + hashlib.sha1(os.path.realpath(data_dir).encode()).hexdigest()[:16]


def postgres_url_of(data_dir):
    """The database of data directory `data_dir`, in this run's PostgreSQL cluster."""
    return postgres_server().create_database(database_of(data_dir))


# One node on PostgreSQL keeps Storage's bytes there too; a cluster's nodes keep them in a
# directory they share (--blob-dir), so that both are tested.
BLOBS_IN_POSTGRES = ON_POSTGRES and CLUSTER_NODES == 1


def storage_directory(data_dir):
    """Where the server of `data_dir` keeps Storage's files: in its data directory, or in the
    directory it shares with other nodes (`None` when PostgreSQL keeps the bytes)."""
    if BLOBS_IN_POSTGRES:
        return None
    return os.path.join(data_dir, "shared-blobs" if ON_POSTGRES else "storage")


def store_args(data_dir):
    """The arguments that point a `hearth` command at the store of the server of `data_dir`: its
    data directory, and its PostgreSQL database when the servers keep their state there."""
    return ["--data-dir", data_dir, *(["--postgres", postgres_url_of(data_dir)] if ON_POSTGRES else [])]


@pytest.fixture(scope="module")
def postgres():
    """A PostgreSQL server of the test module's own, which its tests may stop and start."""
    from postgres_support import PostgresServer

    server = PostgresServer().start()
    yield server
    server.stop()


def free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class NodeGroup:
    """The processes of a server that is several nodes, seen as one: signals go to every node,
    and it has exited once any node has."""

    def __init__(self, processes):
        self.processes = processes

    @property
    def pid(self):
        return self.processes[0].pid

    @property
    def stdout(self):
        return self.processes[0].stdout

    @property
    def returncode(self):
        return next((p.returncode for p in self.processes if p.returncode is not None), None)

    def poll(self):
        codes = [p.poll() for p in self.processes]
        return next((code for code in codes if code is not None), None)

    def send_signal(self, sig):
        for process in self.processes:
            if process.poll() is None:
                process.send_signal(sig)

    def kill(self):
        self.send_signal(signal.SIGKILL)

    def wait(self, timeout=None):
        for process in self.processes:
            process.wait(timeout=timeout)
        return self.returncode


class HearthProcess:
    """One `hearth serve` process with its own data directory; with `HEARTH_INTEROP_CLUSTER`,
    that many nodes behind a round-robin proxy at the port."""

    def __init__(self, data_dir=None, port=None, extra_args=(), cwd=None, console=False):
        self.data_dir = data_dir or tempfile.mkdtemp(prefix="hearth-interop-")
        self.port = port or free_port()
        self.extra_args = list(extra_args)
        # Servers run without a console unless a test asks for one, on a free port.
        self.console_port = free_port() if console else None
        self.cwd = cwd
        self.process = None
        self.proxy = None
        self.output = []

    @property
    def url(self):
        return f"http://127.0.0.1:{self.port}"

    @property
    def console_url(self):
        return f"http://127.0.0.1:{self.console_port}"

    @property
    def host(self):
        return f"127.0.0.1:{self.port}"

    def postgres_url(self):
        return postgres_url_of(self.data_dir)

    def start(self):
        if CLUSTER_NODES > 1 and "--postgres" not in self.extra_args:
            return self._start_cluster()
        postgres = (["--postgres", self.postgres_url()] if ON_POSTGRES and "--postgres" not in self.extra_args else [])
        self.process = self._spawn(self.port, self.data_dir, [*postgres, *self.extra_args], subprocess.PIPE)
        self._await_start(self.process)
        return self

    def _start_cluster(self):
        """Starts the nodes, each with a data directory and port of its own (the first with the
        server's data directory and console, its log read as a single server's), then the proxy."""
        from round_robin_proxy import RoundRobinProxy

        ports = [free_port() for _ in range(CLUSTER_NODES)]
        # Each node relays the realtime clients of namespaces another node owns.
        shared = ["--postgres", self.postgres_url(), "--blob-dir", storage_directory(self.data_dir), "--relay"]
        # Links in emails and key files name where clients reach the server: the load balancer.
        if "--public-url" not in self.extra_args:
            shared += ["--public-url", self.url]
        processes = []
        self.process = NodeGroup(processes)
        try:
            for index, port in enumerate(ports):
                data_dir = self.data_dir if index == 0 else f"{self.data_dir}-node{index}"
                os.makedirs(data_dir, exist_ok=True)
                log = subprocess.PIPE if index == 0 else open(os.path.join(data_dir, "node.log"), "a")
                process = self._spawn(port, data_dir, [*shared, "--advertise", f"127.0.0.1:{port}", *self.extra_args],
                                      log, console=index == 0)
                processes.append(process)
                if index == 0:
                    self._await_start(process)
                else:
                    self._await_port(process, port)
            self.proxy = RoundRobinProxy(self.port, [("127.0.0.1", port) for port in ports]).start()
        except BaseException:
            for process in processes:
                process.kill()
                process.wait(timeout=30)
            raise
        return self

    def _spawn(self, port, data_dir, args, output, console=True):
        return subprocess.Popen(
            [HEARTH_BIN, "serve", "--port", str(port), "--data-dir", data_dir, "--project", PROJECT,
             # The Admin SDK's listener close() waits for the next event; keep it short.
             "--stream-keep-alive", "0.5",
             # A small bound, so that the slow-client test overflows it quickly.
             "--stream-buffer-limit", str(4 * 1024 * 1024),
             # Short, so that the silent-client test sees a dead connection end.
             "--realtime-silence-limit", "2",
             *(["--console-port", str(self.console_port)] if self.console_port and console else ["--no-console"]),
             *args],
            cwd=self.cwd,
            stdout=output,
            stderr=subprocess.STDOUT,
            text=True,
        )

    @staticmethod
    def _await_port(process, port):
        """Waits until a node whose output goes to a file accepts connections."""
        deadline = time.time() + 60
        while time.time() < deadline:
            if process.poll() is not None:
                raise RuntimeError(f"hearth exited with {process.returncode}")
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                return
            except OSError:
                time.sleep(0.05)
        raise RuntimeError("hearth did not start within 60 s")

    def _await_start(self, process):
        deadline = time.time() + 60
        awaited = {"Hearth listening on"} | ({"Console listening on"} if self.console_port else set())
        if "--storage-port" in self.extra_args:
            awaited.add("Storage listening on")
        while time.time() < deadline:
            line = process.stdout.readline()
            self.output.append(line)
            awaited = {start for start in awaited if start not in line}
            if not awaited:
                return
            if not line and process.poll() is not None:
                raise RuntimeError(f"hearth exited with {process.returncode}")
        raise RuntimeError("hearth did not start within 60 s")

    def startup_failure(self):
        """Runs a server expected to refuse to start; returns its exit status and output."""
        try:
            self.start()
        except RuntimeError:
            return self.process.returncode, "".join(self.output) + self.process.stdout.read()
        self.stop()
        raise AssertionError("hearth started")

    def stop(self, sig=signal.SIGTERM):
        try:
            if self.process:
                self.process.send_signal(sig)
                self.process.wait(timeout=30)
        finally:
            # After the nodes: what they answered as they stopped reaches the clients.
            if self.proxy:
                self.proxy.stop()
                self.proxy = None
        return self.process.returncode

    def remove_data(self):
        shutil.rmtree(self.data_dir, ignore_errors=True)
        for index in range(1, CLUSTER_NODES):
            shutil.rmtree(f"{self.data_dir}-node{index}", ignore_errors=True)


@pytest.fixture(scope="session")
def hearth():
    server = HearthProcess().start()
    yield server
    server.stop()
    server.remove_data()


@pytest.fixture(scope="module")
def console_hearth():
    """A development server with its console, for one test module."""
    server = HearthProcess(console=True).start()
    yield server
    server.stop()
    server.remove_data()


@pytest.fixture(scope="session")
def admin_app(hearth):
    os.environ["FIREBASE_DATABASE_EMULATOR_HOST"] = hearth.host
    app = firebase_admin.initialize_app(
        options={"projectId": PROJECT, "databaseURL": f"https://{PROJECT}-default-rtdb.firebaseio.com"},
        name="interop",
    )
    yield app
    firebase_admin.delete_app(app)


@pytest.fixture
def root(admin_app):
    """A fresh location under the default database for one test."""
    ref = db.reference(f"/tests/{uuid.uuid4().hex}", app=admin_app)
    yield ref
    ref.delete()


def database_secret(data_dir):
    """A new database secret in `data_dir` (production's admin credential), made with the CLI."""
    made = subprocess.run(
        [HEARTH_BIN, "database:secret", "create", *store_args(data_dir)], capture_output=True, text=True, timeout=60)
    assert made.returncode == 0, made.stderr
    return made.stdout.strip()


def sign_up(hearth, key="interop-key"):
    """A new anonymous user of `hearth`'s Authentication: its uid and ID token (signed in production)."""
    response = requests.post(
        f"{hearth.url}/identitytoolkit.googleapis.com/v1/accounts:signUp", params={"key": key},
        json={"returnSecureToken": True}, timeout=10)
    assert response.status_code == 200, response.text
    return response.json()["localId"], response.json()["idToken"]


def set_rules(hearth, rules, namespace=f"{PROJECT}-default-rtdb"):
    response = requests.put(f"{hearth.url}/.settings/rules.json", params={"ns": namespace}, data=rules, headers=OWNER)
    assert response.status_code == 200, response.text


def stalled_socket(hearth):
    """A connection whose receive buffer is tiny (set before connecting, so that the advertised
    window matches): a client that will not read."""
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.connect(("127.0.0.1", hearth.port))
    return sock


def read_until_closed(sock, seconds=30):
    """Reads what the server had already sent; returns whether the connection then ended, and
    how many bytes arrived."""
    sock.settimeout(10)
    received = 0
    deadline = time.time() + seconds
    while time.time() < deadline:
        try:
            chunk = sock.recv(1024 * 1024)
        except ConnectionResetError:
            return True, received
        if not chunk:
            return True, received
        received += len(chunk)
    return False, received
