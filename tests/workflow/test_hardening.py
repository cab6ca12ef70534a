"""Regression tests of issue 15's engine defects: each failed before its fix.

Guarded DSL loading (alias bombs, deep nesting, size), finite numbers, ``wfr runs`` over
stored bad rows, racing decisions, a closed stdout and a locked store.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from workflow.cli import register_commands
from workflow.dsl import DslError, load_definition, load_definition_text
from workflow.engine import Engine, RunConflictError
from workflow.model import RunState
from workflow.pump import pump
from workflow.sqlite_store import SqliteStore
from workflow.validation import validate_definition

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
ENVIRONMENT = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
HUMAN = """
workflow: approval
version: "1"
steps:
  - {id: ask, kind: Human, failurePolicy: Fail}
  - {id: tell, kind: Tool, tool: notifier, failurePolicy: Fail}
edges: [{from: ask, to: tell}]
"""
BOMB = "".join(f"l{i}: &l{i} [{', '.join([f'*l{i - 1}'] * 9)}]\n" if i else "l0: &l0 [x]\n"
               for i in range(9)) + "workflow: bomb\nsteps: [{id: a, kind: Tool, tool: t}]\n"
"""Nine levels of nine aliases each: 9**8 = 43 million values once expanded, in 400 bytes."""


def run_cli(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="wfr")
    register_commands(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(argv)
    code: int = args.func(args)
    return code


def wfr(*argv: str, **options: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "renderer.cli", *argv], capture_output=True,
                          text=True, timeout=60, env=ENVIRONMENT, **options)  # type: ignore[call-overload]


# --- 9: the DSL loader reads under the renderer's guards -----------------------------------

def _limit_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))  # 1 GiB: a bomb would need 5+


def test_an_alias_bomb_is_one_line_and_exit_2_within_bounded_memory(tmp_path: Path) -> None:
    bomb = tmp_path / "bomb.yaml"
    bomb.write_text(BOMB)
    assert len(BOMB) < 600
    result = wfr("validate", str(bomb), preexec_fn=_limit_memory)
    assert result.returncode == 2, result.stderr
    assert result.stderr.count("\n") == 1
    assert "expands to more than 1000000 values" in result.stderr


@pytest.mark.parametrize("text", ["steps: " + "[" * 5000, "a:\n" + "".join(
    " " * i + "- \n" for i in range(1, 3000))], ids=["flow", "block"])
def test_deep_nesting_is_a_dsl_error_not_a_recursion_error(text: str) -> None:
    with pytest.raises(DslError, match="nested too deeply"):
        load_definition_text(text)


def test_a_deeply_nested_json_file_is_a_dsl_error(tmp_path: Path) -> None:
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100_000 + "]" * 100_000)
    with pytest.raises(DslError, match="nested too deeply"):
        load_definition(deep)


def test_a_file_over_the_size_limit_is_refused_before_it_is_read(tmp_path: Path) -> None:
    big = tmp_path / "big.yaml"
    with big.open("wb") as handle:  # sparse: 21 MB that take no disk
        handle.truncate(21_000_000)
    with pytest.raises(DslError, match="has 21000000 bytes; the limit is 20000000"):
        load_definition(big)


# --- 10: every number finite and in range ----------------------------------------------

@pytest.mark.parametrize(("field", "value", "message"), [
    ("delayMinutes", ".nan", "delayMinutes must be a number of minutes"),
    ("delayMinutes", ".inf", "delayMinutes must be a number of minutes"),
    ("delayMinutes", "-1", "delayMinutes must not be negative"),
    ("delayMinutes", "1.0e+300", "delayMinutes must be a number of minutes"),
    ("delayMinutes", "1" + "0" * 400, "delayMinutes must be a number of minutes"),
    ("maxAttempts", "1000000000000", "maxAttempts must be from 1 to 100"),
    ("maxAttempts", "0", "maxAttempts must be from 1 to 100"),
])
def test_a_step_number_out_of_range_is_refused_naming_the_field(field: str, value: str,
                                                                 message: str) -> None:
    text = (f"workflow: w\nsteps: [{{id: t, kind: Timer, delayMinutes: 1, {field}: {value}}}]"
            if field != "delayMinutes" else
            f"workflow: w\nsteps: [{{id: t, kind: Timer, delayMinutes: {value}}}]")
    errors = [p.describe() for p in validate_definition(load_definition_text(text))
              if p.is_error]
    assert len(errors) == 1 and errors[0].startswith(f"error: step 't': {message}"), errors


def test_a_huge_loop_bound_is_refused() -> None:
    text = ("workflow: w\nmaxLoopIterations: 1000000000000\nsteps:\n"
            "  - {id: a, kind: Tool, tool: t, failurePolicy: Fail}\n"
            "  - {id: b, kind: Condition, expression: 'true'}\n"
            "edges: [{from: a, to: b}, {from: b, to: a, guard: 'false', isLoopBack: true}]\n")
    errors = [p.describe() for p in validate_definition(load_definition_text(text))
              if p.is_error]
    assert errors == ["error: workflow: maxLoopIterations must be from 1 to 10,000, "
                      "not 1000000000000"]


def test_wfr_runs_lists_a_stored_run_whose_time_no_clock_can_show(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "w.db"
    definition = tmp_path / "approval.yaml"
    definition.write_text(HUMAN)
    assert run_cli(["run", str(definition), "--db", str(db)]) == 0
    run_id = capsys.readouterr().out.split()[2]
    with sqlite3.connect(db) as connection:  # a row written before numbers were checked
        document = json.loads(connection.execute("SELECT document FROM runs").fetchone()[0])
        document["updated_at"] = float("inf")
        connection.execute("UPDATE runs SET document = ?", (json.dumps(document),))
    assert run_cli(["runs", "--db", str(db)]) == 0
    assert capsys.readouterr().out == f"{run_id}\tapproval\t1\tWaitingForHuman\tinf\n"


# --- 12: racing decisions: one wins, the other gets a conflict ---------------------------

def test_a_decision_that_loses_the_race_is_a_conflict(tmp_path: Path) -> None:
    from workflow.demo import demo_executors

    db = tmp_path / "w.db"
    mine, theirs = SqliteStore(db), SqliteStore(db)
    engine, other = Engine(mine, demo_executors()), Engine(theirs, demo_executors())
    engine.register(load_definition_text(HUMAN))
    run_id = engine.start("approval").run_id
    pump(engine)
    commit = mine.commit

    def racing_commit(change, *, at):  # type: ignore[no-untyped-def]
        if change.run is not None and not racing_commit.raced:  # type: ignore[attr-defined]
            racing_commit.raced = True  # type: ignore[attr-defined]
            other.decide(run_id, "ask", "reject")  # commits between our read and our commit
        commit(change, at=at)

    racing_commit.raced = False  # type: ignore[attr-defined]
    mine.commit = racing_commit  # type: ignore[method-assign]
    with pytest.raises(RunConflictError, match="changed while deciding step 'ask'"):
        engine.decide(run_id, "ask", "approve")
    assert engine.run(run_id).steps["ask"].output == {"decision": "reject"}
    with pytest.raises(RunConflictError, match="already decided"):
        engine.decide(run_id, "ask", "approve")
    mine.close()
    theirs.close()


def test_racing_wfr_decide_approve_and_reject_one_exits_3(tmp_path: Path,
                                                          capsys: pytest.CaptureFixture[str]
                                                          ) -> None:
    db = tmp_path / "w.db"
    definition = tmp_path / "approval.yaml"
    definition.write_text(HUMAN)
    assert run_cli(["run", str(definition), "--db", str(db), "--real-time"]) == 0
    run_id = capsys.readouterr().out.split()[2]
    racers = [subprocess.Popen([sys.executable, "-m", "renderer.cli", "decide", run_id, "ask",
                                decision, "--db", str(db), "--real-time"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               env=ENVIRONMENT) for decision in ("approve", "reject")]
    results = [(racer.wait(timeout=60), racer.communicate()[1]) for racer in racers]
    codes = sorted(code for code, _ in results)
    assert codes == [0, 3], results
    loser = next(err for code, err in results if code == 3)
    assert loser.count("\n") == 1 and "decide" in loser
    store = SqliteStore(db)
    decision = store.load_run(run_id).steps["ask"].output["decision"]  # type: ignore[union-attr]
    store.close()
    winner = ("approve", "reject")[[code for code, _ in results].index(0)]
    assert decision == winner


# --- 15: a closed stdout and a locked store -----------------------------------------------

def test_a_closed_stdout_neither_aborts_the_run_nor_prints_an_error(tmp_path: Path) -> None:
    db = tmp_path / "w.db"
    process = subprocess.Popen([sys.executable, "-m", "renderer.cli", "run",
                                str(FIXTURES / "document-processing.yaml"), "--db", str(db)],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=ENVIRONMENT)
    assert process.stdout is not None
    process.stdout.close()  # the reader is gone before the first line (as `| head -0`)
    _, err = process.communicate(timeout=60)
    assert (process.returncode, err) == (141, b"")
    store = SqliteStore(db)
    states = {run.workflow: run.state for run in store.list_runs()}
    assert states == {"document-processing": RunState.COMPLETED,
                      "records-archival": RunState.COMPLETED}
    assert store.pending() == () and store.dead_letters() == ()
    assert not [e for e in store.outbox() if e.kind == "step.attempt_failed"]
    store.close()


def test_a_locked_store_is_one_line_naming_the_file(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    from renderer.cli import main

    db = tmp_path / "w.db"
    SqliteStore(db).close()
    monkeypatch.setenv("WFR_BUSY_TIMEOUT", "0.1")
    holder = sqlite3.connect(db, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")  # another process's long write
    try:
        code = main(["run", str(FIXTURES / "repository-assessment.yaml"), "--db", str(db)])
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    err = capsys.readouterr().err
    assert code == 4
    assert err.count("\n") == 1 and "internal error" not in err
    assert err.startswith(f"wfr run: the workflow store {db} is locked by another process")


# --- 8: recursion through SubWorkflow steps ----------------------------------------------

SELF = "workflow: rec\nversion: '1'\nsteps: [{id: again, kind: SubWorkflow, workflow: rec}]\n"


def test_a_workflow_starting_itself_fails_wfr_validate(tmp_path: Path,
                                                       capsys: pytest.CaptureFixture[str]
                                                       ) -> None:
    definition = tmp_path / "rec.yaml"
    definition.write_text(SELF)
    assert run_cli(["validate", str(definition)]) == 2
    assert capsys.readouterr().out == (
        "error: step 'again': SubWorkflow recursion: it starts its own workflow 'rec' any "
        "version (rec -> rec)\nwarning: step 'again': no failurePolicy; default 'Fail' "
        "applies\n")


def test_a_cycle_through_other_definitions_is_refused_naming_it(make_engine) -> None:  # type: ignore[no-untyped-def]
    from workflow.validation import InvalidDefinitionError

    engine = make_engine(
        "workflow: a\nversion: '1'\nsteps: [{id: call-b, kind: SubWorkflow, workflow: b}]",
        "workflow: b\nversion: '1'\nsteps: [{id: call-c, kind: SubWorkflow, workflow: c, "
        "version: 2.x}]")
    engine.register(load_definition_text(  # 1.x is not reached by b's pattern 2.x: no cycle
        "workflow: c\nversion: '1.0'\nsteps: [{id: call-a, kind: SubWorkflow, workflow: a}]"))
    with pytest.raises(InvalidDefinitionError) as refused:
        engine.register(load_definition_text(
            "workflow: c\nversion: '2.0'\nsteps: [{id: call-a, kind: SubWorkflow, workflow: a}]"))
    assert str(refused.value) == (
        "workflow 'c' is invalid: error: step 'call-a': SubWorkflow recursion: c 2.0 (step "
        "'call-a') -> a 1 (step 'call-b') -> b 1 (step 'call-c') -> c 2.0")


def test_nesting_past_the_depth_limit_fails_the_run(make_engine) -> None:  # type: ignore[no-untyped-def]
    levels = 12  # w0 starts w1 ... w10 starts w11: w11 would be the 11th nested run
    texts = [f"workflow: w{i}\nsteps: [{{id: down, kind: SubWorkflow, workflow: w{i + 1}, "
             "failurePolicy: Fail}]" for i in range(levels - 1)]
    texts.append(f"workflow: w{levels - 1}\nsteps: [{{id: leaf, kind: Tool, tool: notifier, "
                 "failurePolicy: Fail}]")
    engine = make_engine(*reversed(texts))
    assert engine.max_subworkflow_depth == 10
    run = engine.start("w0")
    pump(engine)
    runs = engine.store.list_runs()
    assert len(runs) == 11  # w0 and its 10 nested runs
    assert {r.state for r in runs} == {RunState.FAILED}
    deepest = max(runs, key=lambda r: r.run_id.count("/"))
    assert deepest.workflow == "w10"
    assert deepest.reason == ("step 'down' failed: sub-workflow depth limit 10 reached: "
                              + " -> ".join(f"w{i}" for i in range(11)) + " -> w11")
    assert engine.run(run.run_id).state is RunState.FAILED


def test_a_stored_recursive_definition_stops_at_the_depth_limit(make_engine) -> None:  # type: ignore[no-untyped-def]
    from workflow.definitions import RegisteredDefinition, definition_hash

    engine = make_engine()
    engine.max_subworkflow_depth = 3
    recursive = load_definition_text(SELF)  # stored before recursion was refused
    engine.store.save_definition(RegisteredDefinition(recursive, definition_hash(recursive)),
                                 at=0.0)
    engine.refresh_definitions()
    engine.start("rec")
    handled = pump(engine, limit=1000)
    assert handled < 1000
    runs = engine.store.list_runs()
    assert len(runs) == 4 and {r.state for r in runs} == {RunState.FAILED}


# --- 13: backoff, and conflicts do not spend the delivery budget -------------------------

def test_revision_conflicts_do_not_spend_the_delivery_budget(  # type: ignore[no-untyped-def]
        make_engine, clock, tmp_path: Path) -> None:
    from workflow.pump import pump_once
    from workflow.store import ConcurrentTransitionError

    engine = make_engine("workflow: t\nsteps: [{id: s, kind: Tool, tool: notifier, "
                         "failurePolicy: Fail}]", clock=clock, store=SqliteStore(tmp_path / "w.db"))
    run_id = engine.start("t").run_id
    store, commit, conflicts = engine.store, engine.store.commit, [30]

    def busy_commit(change, *, at):  # type: ignore[no-untyped-def]
        if change.run is not None and conflicts[0] > 0:  # another writer keeps winning
            conflicts[0] -= 1
            raise ConcurrentTransitionError(f"run '{run_id}' changed concurrently")
        commit(change, at=at)

    store.commit = busy_commit  # type: ignore[method-assign]
    rounds = 0
    while conflicts[0] > 0:  # 5 re-applications in process per delivery: 6 deliveries
        assert pump_once(engine)
        (row,) = store.pending()
        assert row.attempts == 0 and row.last_error is not None  # its attempt given back
        assert 0.01 <= row.due_at - clock.now < 0.05  # and soon again: the run moved on
        clock.now = row.due_at
        rounds += 1
    assert rounds == 6 > 5  # more deliveries than MaxDeliveryAttempts, none dead-lettered
    pump(engine)
    assert store.dead_letters() == ()
    assert engine.run(run_id).state is RunState.COMPLETED


def test_step_retry_backoff_is_bounded() -> None:
    from workflow.policies import backoff_seconds

    assert 3600.0 <= backoff_seconds("r", "s@0.100", 100) < 3600.0 * 1.25  # RetryMaxSeconds


# --- 11: leases on real time; timers fire in real time -----------------------------------

TIMED = """
workflow: timed
version: "1"
steps:
  - {id: wait, kind: Timer, delayMinutes: 30}
  - {id: tell, kind: Tool, tool: notifier, failurePolicy: Fail}
edges: [{from: wait, to: tell}]
"""


class Crashed(BaseException):
    """The worker died (in process: nothing after the claim runs)."""


def test_a_lease_taken_in_simulated_time_lasts_its_real_seconds(make_engine, clock) -> None:  # type: ignore[no-untyped-def]
    from workflow.pump import CrashHook

    class DiesAtClaim(CrashHook):
        def reached(self, point: str, signal) -> None:  # type: ignore[no-untyped-def]
            if point == "claimed" and signal.payload.get("type") == "TimerFired":
                raise Crashed

    crashed = make_engine(TIMED, clock=clock)
    run_id = crashed.start("timed").run_id
    with pytest.raises(Crashed):  # jumps 30 simulated minutes, claims the timer, dies
        pump(crashed, simulate_time=True, hook=DiesAtClaim(), lease_seconds=5.0)
    restarted = Engine(crashed.store, crashed.executors, clock=clock)  # a new simulating worker
    clock.now += 5.0  # the lease's 5 real seconds are over
    pump(restarted, simulate_time=True, lease_seconds=5.0)  # (a lease on simulated time
    assert restarted.run(run_id).state is RunState.COMPLETED  # lasted 30 minutes more)


def test_a_crashed_simulating_worker_is_taken_over_after_a_short_lease(tmp_path: Path) -> None:
    import time

    from workflow.demo import demo_executors

    db = tmp_path / "w.db"
    store = SqliteStore(db)
    engine = Engine(store, demo_executors())
    engine.register(load_definition_text(TIMED))
    run_id = engine.start("timed").run_id
    worker = [sys.executable, "-m", "workflow.worker", "--db", str(db), "--simulate-time",
              "--lease-seconds", "1"]
    crash = subprocess.run(worker, env={**ENVIRONMENT, "WFR_CRASH_AT": "claimed:2"},
                           capture_output=True, timeout=60)  # dies holding the timer's row
    assert crash.returncode == -9, crash.stderr
    started = time.monotonic()
    while engine.run(run_id).state is not RunState.COMPLETED:
        assert time.monotonic() - started < 20, "the crashed worker's lease still blocks"
        subprocess.run(worker, env=ENVIRONMENT, capture_output=True, timeout=60, check=True)
    store.close()


def test_wfr_worker_fires_a_due_timer_in_real_time(tmp_path: Path) -> None:
    import signal
    import time

    from workflow.demo import demo_executors

    db = tmp_path / "w.db"
    store = SqliteStore(db)
    engine = Engine(store, demo_executors())
    engine.register(load_definition_text(TIMED.replace("delayMinutes: 30",
                                                       "delayMinutes: 0.02")))  # 1.2 s
    worker = subprocess.Popen([sys.executable, "-m", "renderer.cli", "worker", "--db", str(db),
                               "--demo", "--lease-seconds", "2"], env=ENVIRONMENT,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        run = engine.start("timed")
        deadline = time.monotonic() + 20
        while engine.run(run.run_id).state is not RunState.COMPLETED:
            assert time.monotonic() < deadline, "the timer did not fire"
            time.sleep(0.05)
    finally:
        worker.send_signal(signal.SIGTERM)
        worker.communicate(timeout=30)
    fired = engine.run(run.run_id).steps["wait"].output["firedAt"]
    assert fired == pytest.approx(run.created_at + 1.2, abs=0.01)  # the due time, recorded
    assert engine.run(run.run_id).steps["tell"].started_at - fired < 2.0  # fired within 2 s
    store.close()


# --- 14: an event writes what it changed, not the whole run ------------------------------

def _chain(size: int) -> str:
    steps = ", ".join(f"{{id: s{i}, kind: Timer, delayMinutes: 0}}" for i in range(size))
    edges = ", ".join(f"{{from: s{i}, to: s{i + 1}}}" for i in range(size - 1))
    return f"workflow: chain{size}\nsteps: [{steps}]\nedges: [{edges}]\n"


def _sql_bytes_of_one_event(tmp_path: Path, size: int) -> int:
    from workflow.pump import pump_once

    store = SqliteStore(tmp_path / f"chain{size}.db")
    engine = Engine(store)
    engine.register(load_definition_text(_chain(size)))
    engine.start(f"chain{size}")
    for _ in range(size - 2):  # Start, then one timer per step: the run is nearly full
        assert pump_once(engine)
    written: list[str] = []
    store.connection.set_trace_callback(written.append)
    assert pump_once(engine)  # one more event: step s{size-2} done, s{size-1} started
    store.connection.set_trace_callback(None)
    store.close()
    return sum(len(statement) for statement in written)


def test_the_sql_an_event_writes_does_not_grow_with_the_run(tmp_path: Path) -> None:
    small, large = _sql_bytes_of_one_event(tmp_path, 20), _sql_bytes_of_one_event(tmp_path, 400)
    assert large < 1.5 * small, (small, large)  # the whole run document was 20x larger


def test_a_run_stored_as_one_document_reads_the_same_after_migration(tmp_path: Path) -> None:
    from workflow.schema import migration_files
    from workflow.serialize import run_to_json

    engine = Engine(SqliteStore(tmp_path / "new.db"))
    engine.register(load_definition_text(_chain(5)))
    run = engine.start("chain5")
    for _ in range(3):
        pump(engine, limit=1)
    run = engine.run(run.run_id)
    assert len(run.steps) == 3 and run.edges and run.completion_order
    old = sqlite3.connect(tmp_path / "old.db", isolation_level=None)  # a 0005 store
    old.execute("CREATE TABLE schema_migrations (name TEXT PRIMARY KEY, applied_at REAL)")
    for name, sql in migration_files():
        if name < "0006":
            old.executescript(f"BEGIN;\n{sql}\nINSERT INTO schema_migrations VALUES "
                              f"('{name}', 0);\nCOMMIT;")
    old.execute("INSERT INTO runs (run_id, workflow, version, definition_hash, state, "
                "created_at, updated_at, document, revision, tenant) VALUES "
                "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (run.run_id, run.workflow, run.version, run.definition_hash, run.state.value,
                 run.created_at, run.updated_at, run_to_json(run), run.revision, run.tenant))
    old.close()
    migrated = SqliteStore(tmp_path / "old.db").load_run(run.run_id)
    assert migrated == run
    assert migrated is not None and list(migrated.steps) == list(run.steps)
