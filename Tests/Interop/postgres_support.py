"""A throwaway PostgreSQL server for the tests: Debian's `postgresql` binaries, a cluster made with
`initdb` in a temporary directory and started with `pg_ctl` on a free loopback port (as the
`postgres` user when the tests run as root, since PostgreSQL refuses to run as root)."""

import glob
import os
import shutil
import socket
import subprocess
import tempfile
import uuid


def _binary(name):
    found = shutil.which(name)
    if found:
        return found
    candidates = sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"))
    if not candidates:
        raise RuntimeError(f"{name} not found: install Debian's postgresql package")
    return candidates[-1]


def _free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class PostgresServer:
    """One PostgreSQL cluster, trusting connections from loopback, removed when stopped."""

    def __init__(self):
        self.directory = tempfile.mkdtemp(prefix="hearth-postgres-")
        self.data = os.path.join(self.directory, "data")
        self.port = _free_port()
        self.as_root = os.geteuid() == 0

    def _run(self, args, **kwargs):
        if self.as_root:
            args = ["runuser", "-u", "postgres", "--", *args]
        return subprocess.run(args, check=True, capture_output=True, text=True, **kwargs)

    def start(self):
        if self.as_root:
            shutil.chown(self.directory, user="postgres")
        self._run([_binary("initdb"), "-D", self.data, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--locale=C.UTF-8"])
        self._run([
            _binary("pg_ctl"), "-D", self.data, "-l", os.path.join(self.directory, "log"), "-w", "start",
            "-o", f"-p {self.port} -k {self.directory} -c listen_addresses=127.0.0.1 -c max_connections=400",
        ])
        return self

    def pg_ctl(self, *args):
        """Runs `pg_ctl` on the cluster (`stop -m immediate`, `start`...)."""
        command = [_binary("pg_ctl"), "-D", self.data, "-l", os.path.join(self.directory, "log"), "-w", *args]
        if args and args[0] == "start":
            command += ["-o", f"-p {self.port} -k {self.directory} -c listen_addresses=127.0.0.1 -c max_connections=400"]
        self._run(command)

    def sql(self, statement, database="postgres"):
        """Runs one statement with psql; returns what it printed, unaligned and without headers."""
        return subprocess.run(
            [_binary("psql"), "-h", "127.0.0.1", "-p", str(self.port), "-U", "postgres", "-d", database,
             "-v", "ON_ERROR_STOP=1", "-At", "-c", statement],
            check=True, capture_output=True, text=True).stdout.strip()

    def create_database(self, name=None):
        """Creates an empty database; returns its URL for `hearth serve --postgres`."""
        name = name or f"hearth_{uuid.uuid4().hex[:12]}"
        if self.sql(f"SELECT 1 FROM pg_database WHERE datname = '{name}'") != "1":
            self.sql(f'CREATE DATABASE "{name}"')
        return self.url(name)

    def url(self, database):
        return f"postgres://postgres@127.0.0.1:{self.port}/{database}?sslmode=disable"

    def stop(self):
        try:
            self.pg_ctl("stop", "-m", "immediate")
        except subprocess.CalledProcessError:
            pass
        shutil.rmtree(self.directory, ignore_errors=True)
