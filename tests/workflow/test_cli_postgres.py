"""``wfr`` against the shared PostgreSQL store: ``--db URL``, ``WFR_DATABASE_URL``,
``wfr db migrate`` and ``wfr worker`` (woken by NOTIFY)."""

import os
import signal
import subprocess
import sys
import time
import uuid

import psycopg
import pytest

from workflow.demo import demo_executors
from workflow.dsl import load_definition_text
from workflow.engine import Engine
from workflow.postgres_store import PostgresStore

from .test_cli import run_cli

FLOW = "workflow: w\nsteps: [{id: a, kind: Tool, tool: notifier, failurePolicy: Fail}]\n"


@pytest.fixture
def url(pg_server):
    schema = f"cli_{uuid.uuid4().hex[:8]}"
    yield f"{pg_server.url}?schema={schema}"
    with psycopg.connect(pg_server.url, autocommit=True) as db:
        db.execute(f"DROP SCHEMA IF EXISTS {schema} CASCADE")


def test_db_migrate_applies_the_migrations_once(url, capsys):
    assert run_cli(["db", "migrate", "--db", url]) == 0
    first = capsys.readouterr().out
    assert "applied 3 migration(s): 0001_initial, 0002_run_items, 0003_hot_updates" in first
    assert "@" in first
    assert run_cli(["db", "migrate", "--db", url]) == 0
    assert "applied 0 migration(s); it is up to date" in capsys.readouterr().out


def test_run_and_list_through_the_url_and_the_variable(url, tmp_path, capsys, monkeypatch):
    flow = tmp_path / "w.yaml"
    flow.write_text(FLOW)
    assert run_cli(["run", str(flow), "--db", url]) == 0
    assert "is Completed" in capsys.readouterr().out
    monkeypatch.setenv("WFR_DATABASE_URL", url)
    assert run_cli(["runs"]) == 0
    (line,) = capsys.readouterr().out.splitlines()
    columns = line.split("\t")
    assert (columns[1], columns[3]) == ("w", "Completed")


def test_an_unknown_url_scheme_is_exit_2_with_one_line(capsys):
    assert run_cli(["runs", "--db", "mysql://db/wfr"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "unsupported database URL 'mysql://db/wfr'" in err


def test_an_unreachable_server_is_exit_2_with_one_line(capsys):
    assert run_cli(["runs", "--db", "postgresql://x@127.0.0.1:1/none"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("wfr runs: cannot open workflow store")


def test_wfr_worker_pumps_the_shared_store(url):
    store = PostgresStore(url)
    engine = Engine(store, demo_executors())  # another process: starts, never pumps
    engine.register(load_definition_text(FLOW))
    environment = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    worker = subprocess.Popen([sys.executable, "-m", "renderer.cli", "worker", "--db", url,
                               "--demo", "--concurrency", "2"], stdout=subprocess.PIPE,
                              text=True, env=environment)
    try:
        first = worker.stdout.readline()
        run_id = engine.start("w").run_id  # queued after the worker listens
        deadline = time.monotonic() + 30
        while engine.run(run_id).state.value != "Completed":
            assert time.monotonic() < deadline, "the worker did not finish the run"
            time.sleep(0.05)
        worker.send_signal(signal.SIGTERM)
        output, _ = worker.communicate(timeout=30)
    finally:
        worker.kill()
        store.close()
    assert worker.returncode == 0
    assert "with 2 thread(s)" in first and "(schema cli_" in first
    assert output.strip().splitlines()[-1].startswith("worker stopped after ")
