"""The throwaway PostgreSQL server of the tests: it runs, unprivileged, and its app role is
no superuser (a superuser would pass every row-level security policy)."""

import os
import signal
import subprocess
import sys
from pathlib import Path

import psycopg
import pytest

from workflow.pg_server import PostgresMissingError, find_bin_dir


def test_the_server_answers_as_an_unprivileged_app_role(pg_server):
    with psycopg.connect(pg_server.url) as db:
        user, superuser, bypass = db.execute(
            "SELECT current_user, rolsuper, rolbypassrls FROM pg_roles "
            "WHERE rolname = current_user").fetchone()
        assert (user, superuser, bypass) == ("wfr_app", False, False)
        assert db.execute("SHOW listen_addresses").fetchone() == ("127.0.0.1",)
    with psycopg.connect(pg_server.admin_url) as admin:
        (pid,) = admin.execute("SELECT pg_backend_pid()").fetchone()
        owner = os.stat(f"/proc/{pid}").st_uid  # the backend serving this connection
    assert owner != 0 and (os.geteuid() != 0 or pg_server.user == "nobody")


def test_a_missing_package_names_what_to_install():
    with pytest.raises(PostgresMissingError, match="apt-get install -y postgresql"):
        find_bin_dir(["/nonexistent/bin"], path="")


def test_under_ci_a_server_that_cannot_start_fails_instead_of_skipping(monkeypatch):
    from pg_testing import skip_or_fail

    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="CI=true, so this cannot be skipped"):
        skip_or_fail("PostgreSQL tests need a server: not installed")
    monkeypatch.delenv("CI")
    with pytest.raises(pytest.skip.Exception, match="not installed"):
        skip_or_fail("PostgreSQL tests need a server: not installed")


@pytest.mark.parametrize("stop_signal", [signal.SIGTERM, signal.SIGINT])
def test_the_server_command_stops_its_server_on_a_stop_signal(pg_server, stop_signal):
    """``python -m workflow.pg_server`` used to ignore SIGTERM (only Ctrl-C stopped it), and
    a killed one left its PostgreSQL running: now either signal stops the server, removes
    its folder and exits 0. (``pg_server``: so the test skips or fails like the others
    where PostgreSQL is missing.)"""
    root = Path(__file__).resolve().parents[2]
    command = subprocess.Popen([sys.executable, "-m", "workflow.pg_server"], cwd=root,
                               env={**os.environ, "PYTHONPATH": str(root)},
                               stdout=subprocess.PIPE, text=True)
    try:
        url = command.stdout.readline().strip()
        port = url.rsplit(":", 1)[1].split("/")[0]
        admin = f"postgresql://postgres@127.0.0.1:{port}/postgres"
        with psycopg.connect(admin) as db:
            (data,) = db.execute("SHOW data_directory").fetchone()
        folder = Path(data).parent
        assert folder.is_dir()
        command.send_signal(stop_signal)
        assert command.wait(timeout=60) == 0
    finally:
        if command.poll() is None:
            command.kill()
            command.wait()
        command.stdout.close()
    with pytest.raises(psycopg.OperationalError):
        psycopg.connect(admin, connect_timeout=5)
    assert not folder.exists()
