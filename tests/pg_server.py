"""A real PostgreSQL server for the sync tests: a fresh database and fresh roles per test.

The server is the one at STUDYAPP_TEST_POSTGRES (default postgresql://127.0.0.1:5432/test, as on CI,
where trust authentication lets the test act as owner and as each learner). Where none answers
and PostgreSQL's initdb and pg_ctl are installed, a throwaway cluster is started for the test
session (trust authentication, a free port, a temporary folder) and stopped at the end. Otherwise
the tests are skipped with the reason, unless STUDYAPP_REQUIRE_POSTGRES=1 (CI sets it), which
turns the skip into a failure: CI must run them.
"""

from __future__ import annotations

import atexit
import glob
import os
import shutil
import socket
import subprocess
import tempfile
import uuid

import pytest

DEFAULT_URL = "postgresql://127.0.0.1:5432/test"
_throwaway: str | None = None


def _reachable(url: str) -> bool:
    import psycopg

    try:
        psycopg.connect(url, connect_timeout=3).close()
        return True
    except psycopg.Error:
        return False


def _start_throwaway() -> str | None:
    """A cluster of our own, when the machine has PostgreSQL's programs but no server running."""
    binaries = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb")) or ([shutil.which("initdb")]
                                                                         if shutil.which("initdb") else [])
    if not binaries:
        return None
    bin_dir = os.path.dirname(binaries[-1])
    folder = tempfile.mkdtemp(prefix="studyapp-pg-")
    # initdb refuses to run as root: the cluster belongs to the postgres user where there is one.
    run_as: list[str] = []
    if os.geteuid() == 0:
        if shutil.which("runuser") is None:
            return None
        run_as = ["runuser", "-u", "postgres", "--"]
        shutil.chown(folder, "postgres")
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    data = os.path.join(folder, "data")
    done = subprocess.run([*run_as, f"{bin_dir}/initdb", "-D", data, "-A", "trust", "-U", "postgres"],
                          capture_output=True, text=True)
    if done.returncode != 0:
        return None
    started = subprocess.run([*run_as, f"{bin_dir}/pg_ctl", "-D", data, "-w", "-l", os.path.join(folder, "log"),
                              "-o", f"-p {port} -k {folder} -c listen_addresses=127.0.0.1", "start"],
                             capture_output=True, text=True)
    if started.returncode != 0:
        return None
    atexit.register(lambda: (subprocess.run([*run_as, f"{bin_dir}/pg_ctl", "-D", data, "-m", "immediate", "stop"],
                                            capture_output=True), shutil.rmtree(folder, ignore_errors=True)))
    return f"postgresql://postgres@127.0.0.1:{port}/postgres"


def admin_url() -> str:
    global _throwaway
    configured = os.environ.get("STUDYAPP_TEST_POSTGRES", DEFAULT_URL)
    if _throwaway is not None:
        return _throwaway
    if _reachable(configured):
        return configured
    _throwaway = _start_throwaway() or configured
    return _throwaway


def _unavailable(reason: str):
    if os.environ.get("STUDYAPP_REQUIRE_POSTGRES") == "1":
        pytest.fail(f"PostgreSQL is required here (STUDYAPP_REQUIRE_POSTGRES=1) but {reason}")
    pytest.skip(f"no PostgreSQL server to test against: {reason}")


class Server:
    """One throwaway database on the server, its learner and lead roles, dropped afterwards."""

    def __init__(self) -> None:
        import psycopg
        from psycopg.conninfo import conninfo_to_dict, make_conninfo

        try:
            self.admin = psycopg.connect(admin_url(), autocommit=True, connect_timeout=5)
        except psycopg.Error as error:
            _unavailable(f"{admin_url()} did not answer ({str(error).strip().splitlines()[0]})")
        self.tag = uuid.uuid4().hex[:10]
        self.database = f"studyapp_test_{self.tag}"
        self.admin.execute(f'CREATE DATABASE "{self.database}"')
        self._parts = {k: v for k, v in conninfo_to_dict(admin_url()).items() if v is not None}
        self._make = make_conninfo
        self.roles: list[str] = []

    def role(self, name: str) -> str:
        """A role name unique to this test (roles are shared by every database of the server)."""
        role = f"{name}_{self.tag}"
        self.roles.append(role)
        return role

    def url(self, user: str | None = None) -> str:
        parts = dict(self._parts, dbname=self.database)
        if user is not None:
            parts["user"] = user
        return self._make(**parts)

    def owner_url(self) -> str:
        return self.url()

    def close(self) -> None:
        self.admin.execute(f'DROP DATABASE IF EXISTS "{self.database}" WITH (FORCE)')
        for role in self.roles:
            self.admin.execute(f'DROP ROLE IF EXISTS "{role}"')
        self.admin.close()


@pytest.fixture
def pg():
    pytest.importorskip("psycopg", reason="the sync tests need psycopg (the team extra)")
    server = Server()
    try:
        yield server
    finally:
        server.close()
