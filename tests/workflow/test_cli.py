import argparse
import dataclasses
from pathlib import Path

from workflow.cli import register_commands

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"


def run_cli(argv):
    parser = argparse.ArgumentParser(prog="wfr")
    register_commands(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(argv)
    return args.func(args)


def test_validate_passes_a_valid_fixture(capsys):
    assert run_cli(["validate", str(FIXTURES / "document-processing.yaml")]) == 0
    assert "warning: step 'archive'" in capsys.readouterr().out


def test_validate_strict_turns_warnings_into_errors(capsys):
    assert run_cli(["validate", "--strict", str(FIXTURES / "document-processing.yaml")]) == 2


def test_validate_reports_errors_and_exits_2(tmp_path, capsys):
    bad = tmp_path / "bad.yaml"
    bad.write_text("workflow: w\nsteps: [{id: a, kind: Robot}]\nedges: [{from: a, to: z}]\n")
    assert run_cli(["validate", str(bad)]) == 2
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("error: step 'a': unknown kind 'Robot'")
    assert out[1] == "error: edge 'a->z': target 'z' is not a step"


def test_validate_unreadable_file_is_one_line_on_stderr(tmp_path, capsys):
    assert run_cli(["validate", str(tmp_path / "none.yaml")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "cannot read" in err


HUMAN = """
workflow: approval
version: 1.0.0
steps:
  - {id: ask, kind: Human, failurePolicy: Fail}
  - {id: tell, kind: Tool, tool: notifier, failurePolicy: Fail}
edges: [{from: ask, to: tell}]
"""


def test_run_fixture_prints_each_transition_and_completes(tmp_path, capsys):
    db = str(tmp_path / "w.db")
    code = run_cli(["run", str(FIXTURES / "repository-assessment.yaml"), "--input",
                    '{"repository": "x"}', "--db", db])
    out = capsys.readouterr().out.splitlines()
    assert code == 0
    assert out[0].startswith("started run ") and out[-1].endswith(" is Completed")
    # classify, retrieve, analyse (+confident), propose: a start and four outcomes
    assert sum(": Start -> " in line for line in out) == 1
    assert sum(": StepOutcome " in line for line in out) == 4


def test_human_task_waits_then_decide_finishes_it(tmp_path, capsys):
    db = str(tmp_path / "w.db")
    definition = tmp_path / "approval.yaml"
    definition.write_text(HUMAN)
    assert run_cli(["run", str(definition), "--db", db]) == 0
    run_id = capsys.readouterr().out.splitlines()[0].split()[2]
    assert run_cli(["runs", "--db", db]) == 0
    assert f"{run_id}\tapproval\t1.0.0\tWaitingForHuman" in capsys.readouterr().out
    assert run_cli(["show", run_id, "--db", db]) == 0
    assert "  ask: Waiting attempt 1 iteration 0 waiting for decision" in capsys.readouterr().out
    assert run_cli(["decide", run_id, "ask", "approve", "--db", db]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == f"run {run_id} is Completed"
    assert run_cli(["decide", run_id, "ask", "approve", "--db", db]) == 3  # a conflict
    assert "was already decided" in capsys.readouterr().err
    assert run_cli(["decide", run_id, "tell", "approve", "--db", db]) == 2  # never waited
    assert "is not waiting for a decision" in capsys.readouterr().err


def test_cancel_a_waiting_run(tmp_path, capsys):
    db = str(tmp_path / "w.db")
    definition = tmp_path / "approval.yaml"
    definition.write_text(HUMAN)
    run_cli(["run", str(definition), "--db", db])
    run_id = capsys.readouterr().out.splitlines()[0].split()[2]
    assert run_cli(["cancel", run_id, "--db", db]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == (
        f"run {run_id} is Cancelled: cancelled by an operator")
    assert run_cli(["cancel", "nope", "--db", db]) == 2
    assert run_cli(["cancel", run_id, "--db", db]) == 3  # already finished: a conflict
    assert "Cancelled" in capsys.readouterr().err


def test_decide_and_cancel_write_audit_rows(tmp_path, capsys):
    from workflow.sqlite_store import SqliteStore

    db = str(tmp_path / "w.db")
    definition = tmp_path / "approval.yaml"
    definition.write_text(HUMAN)
    run_ids = []
    for _ in range(2):
        run_cli(["run", str(definition), "--db", db])
        run_ids.append(capsys.readouterr().out.splitlines()[0].split()[2])
    assert run_cli(["decide", run_ids[0], "ask", "approve", "--db", db]) == 0
    assert run_cli(["cancel", run_ids[1], "--db", db]) == 0
    store = SqliteStore(db)
    trail = [(a.actor, a.action, a.target) for a in store.audit_entries("default", 0, 10)]
    store.close()
    assert trail == [("cli", "task.complete", run_ids[0]), ("cli", "run.cancel", run_ids[1])]


def test_dead_letters_are_listed_and_replayed(tmp_path, capsys):
    from workflow.sqlite_store import SqliteStore
    from workflow.store import Commit, QueuedSignal

    db = tmp_path / "w.db"
    store = SqliteStore(db)
    store.commit(Commit(None, enqueue=(QueuedSignal("lost:start", "lost", "event",
                                                    {"type": "Start", "at": 0.0}, 0.0),)), at=0.0)
    store.close()
    assert run_cli(["replay", "lost:start", "--db", str(db)]) == 2  # not dead yet
    assert "no dead letter 'lost:start'" in capsys.readouterr().err
    store = SqliteStore(db)
    (row,) = store.pending()
    store.dead_letter(dataclasses.replace(row, attempts=5), "NotFoundError: no run 'lost'",
                      now=0.0)  # what five failed deliveries leave (test_engine_queue.py)
    store.close()
    assert run_cli(["dead-letters", "--db", str(db)]) == 0
    assert capsys.readouterr().out == ("lost:start\tlost\tevent\tattempts 5\t"
                                       "NotFoundError: no run 'lost'\n")
    assert run_cli(["replay", "lost:start", "--db", str(db)]) == 0
    assert capsys.readouterr().out.startswith("replayed lost:start")


def test_bad_input_json_is_one_line_and_exit_2(tmp_path, capsys):
    code = run_cli(["run", str(FIXTURES / "repository-assessment.yaml"), "--input", "{oops",
                    "--db", str(tmp_path / "w.db")])
    assert code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--input is not valid JSON" in err


def test_purge_removes_finished_runs(tmp_path, capsys):
    db = str(tmp_path / "w.db")
    run_cli(["run", str(FIXTURES / "repository-assessment.yaml"), "--db", db])
    capsys.readouterr()
    assert run_cli(["purge", "--before", "0", "--db", db]) == 0
    assert capsys.readouterr().out == "purged 0 finished runs\n"
    assert run_cli(["purge", "--db", db]) == 0
    assert capsys.readouterr().out == "purged 1 finished runs\n"


def test_repository_assessment_validates_once_its_compensation_executor_is_known(capsys):
    path = str(FIXTURES / "repository-assessment.yaml")
    assert run_cli(["validate", path]) == 2
    assert run_cli(["validate", path, "--demo"]) == 0


def test_the_wfr_console_script_runs_a_fixture(tmp_path):
    import shutil
    import subprocess
    import sys
    from pathlib import Path

    wfr = Path(sys.executable).with_name("wfr")
    if not wfr.exists() and shutil.which("wfr") is None:
        raise AssertionError("the wfr console script is not installed in this environment")
    result = subprocess.run([str(wfr), "run", str(FIXTURES / "document-processing.yaml"),
                             "--input", '{"document": "a.pdf"}', "--db",
                             str(tmp_path / "w.db")], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[-1].endswith(" is Completed")
    assert "TimerFired settle-window" in result.stdout


def test_every_registered_command_has_its_body() -> None:
    import argparse

    from workflow import cli, cli_commands

    parser = argparse.ArgumentParser(prog="wfr")
    subparsers = parser.add_subparsers(dest="command")
    cli.register_commands(subparsers)
    for name in subparsers.choices:
        assert callable(getattr(cli_commands, name.replace("-", "_") + "_command")), name


def test_rendering_does_not_load_the_engine() -> None:
    import subprocess
    import sys

    code = ("import sys, renderer.cli; "
            "print('workflow.engine' in sys.modules, 'workflow.cli_commands' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert out.strip() == "False False"


def test_wfr_worker_pumps_a_shared_store_until_terminated(tmp_path):
    import os
    import signal
    import subprocess
    import sys
    import time

    from workflow.demo import demo_executors
    from workflow.dsl import load_definition_text
    from workflow.engine import Engine
    from workflow.sqlite_store import SqliteStore

    db = tmp_path / "shared.db"
    store = SqliteStore(db)
    engine = Engine(store, demo_executors())  # another process: starts, never pumps
    engine.register(load_definition_text(
        "workflow: w\nsteps: [{id: a, kind: Tool, tool: notifier, failurePolicy: Fail}]"))
    run_id = engine.start("w").run_id
    environment = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    worker = subprocess.Popen([sys.executable, "-m", "renderer.cli", "worker", "--db", str(db),
                               "--demo", "--concurrency", "2"], stdout=subprocess.PIPE,
                              text=True, env=environment)
    try:
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
    first, last = output.strip().splitlines()[0], output.strip().splitlines()[-1]
    assert "with 2 thread(s)" in first and "demo" in first
    assert last.startswith("worker stopped after ") and last.endswith(" queue rows")
