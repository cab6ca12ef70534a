"""The throwaway PostgreSQL server of the tests: it runs, unprivileged, and its app role is
no superuser (a superuser would pass every row-level security policy)."""

import os

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
