"""The bodies of the engine's ``wfr`` sub-commands (see :mod:`workflow.cli`, which wires
them into argparse and imports this module only when one of them runs).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sqlite3
import sys
import time
from collections.abc import Callable

from workflow.definitions import UnknownWorkflowError, VersionConflictError
from workflow.demo import demo_definitions, demo_executors
from workflow.dsl import DslError, load_definition
from workflow.engine import Engine, EngineError, RunConflictError
from workflow.model import Cancel, Effect, EmitEvent, Event, Json, Run, RunState
from workflow.pump import pump
from workflow.store import ConcurrentTransitionError
from workflow.stores import (
    is_postgres,
    listen_for_signals,
    open_store,
    sqlite_path,
    store_target,
)
from workflow.validation import InvalidDefinitionError, validate_definition

Command = Callable[[argparse.Namespace], int]
RETENTION_EVERY_SECONDS = 3600.0
BAD_INPUT = (DslError, EngineError, UnknownWorkflowError, VersionConflictError,
             InvalidDefinitionError, LookupError, OSError, ValueError)
CLI_ACTOR = "cli"
"""The audit trail's actor of a state change made with ``wfr`` (the API's is the token's
``sub``)."""
CONFLICT_EXIT = 3
"""Exit code of a verb another writer won the race for (HTTP's 409)."""
STORE_BUSY_EXIT = 4
"""Exit code when the store stayed locked past the busy timeout: retry later."""
BROKEN_PIPE_EXIT = 141
"""128 + SIGPIPE: what a shell reports for a process whose reader went away."""
BUSY_TIMEOUT_VARIABLE = "WFR_BUSY_TIMEOUT"
"""Seconds a command waits for another process's write lock on the store (default 30)."""


class _Stdout:
    """Where the commands print; a reader that went away (``| head``) silences it instead
    of breaking the command in the middle of its work."""

    broken = False

    @classmethod
    def say(cls, line: str) -> None:
        if cls.broken:
            return
        try:
            print(line, flush=True)
        except BrokenPipeError:
            cls.broken = True
            with contextlib.suppress(OSError, ValueError):  # stdout may not be a real file
                os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


def guarded(name: str, function: Command) -> Command:
    """``function`` with its expected failures turned into one stderr line: bad input (a
    typed engine, DSL or validation error, a missing run, an unreadable file) is exit
    code 2, a lost race (:class:`RunConflictError`) 3, a store locked past the busy
    timeout 4; a closed stdout makes the command finish its work quietly (exit 141)."""

    def command(args: argparse.Namespace) -> int:
        _Stdout.broken = False
        try:
            code = function(args)
        except (RunConflictError, ConcurrentTransitionError) as exc:
            return _fail(name, str(exc), CONFLICT_EXIT)
        except sqlite3.OperationalError as exc:
            message, code = store_problem(exc, getattr(args, "db", None))
            return _fail(name, message, code)
        except BAD_INPUT as exc:
            return _fail(name, str(exc) or type(exc).__name__, 2)
        return BROKEN_PIPE_EXIT if _Stdout.broken else code

    return command


def _fail(name: str, message: str, code: int) -> int:
    print(f"wfr {name}: {message.splitlines()[0] if message else 'failed'}", file=sys.stderr)
    return code


def store_problem(error: sqlite3.OperationalError, path: str | None) -> tuple[str, int]:
    """The one-line message and exit code of a SQLite failure of the store at ``path``.

    >>> store_problem(sqlite3.OperationalError("database is locked"), "w.db")[1]
    4
    """
    where = f"the workflow store {path}" if path else "the workflow store"
    text = str(error)
    if "locked" in text or "busy" in text:
        return (f"{where} is locked by another process (a worker or command holding a "
                f"write); try again when it is done, or raise {BUSY_TIMEOUT_VARIABLE} "
                f"(seconds to wait)", STORE_BUSY_EXIT)
    return f"{where} failed: {text}", 1


def busy_timeout() -> float:
    """Seconds to wait for the store's write lock (:data:`BUSY_TIMEOUT_VARIABLE`)."""
    text = os.environ.get(BUSY_TIMEOUT_VARIABLE, "30")
    try:
        seconds = float(text)
    except ValueError:
        seconds = -1.0
    if not 0.0 <= seconds <= 3600.0:
        raise ValueError(f"{BUSY_TIMEOUT_VARIABLE} must be seconds from 0 to 3600, not {text!r}")
    return seconds


def validate_command(args: argparse.Namespace) -> int:
    definition = load_definition(args.file)
    known = [*args.known_executor, *(demo_executors() if args.demo else ())]
    problems = validate_definition(definition, strict=args.strict, known_executors=known)
    for problem in problems:
        _Stdout.say(problem.describe())
    return 2 if any(problem.is_error for problem in problems) else 0


def _json_argument(text: str, name: str) -> Json:
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"{name} is not valid JSON: {exc.msg} at column {exc.colno}") from None


def _engine(args: argparse.Namespace) -> Engine:
    store = open_store(store_target(args.db), busy_timeout=busy_timeout())
    return Engine(store, demo_executors(), clock=time.time, observer=_print_transition)


def _print_transition(run: Run, event: Event, effects: tuple[Effect, ...]) -> None:
    happened = [e.kind + (f" {e.step_id}" if e.step_id else "") for e in effects
                if isinstance(e, EmitEvent)]
    label = type(event).__name__ + (f" {getattr(event, 'step_id', '')}".rstrip())
    _Stdout.say(f"{run.run_id}: {label} -> {run.state.value}"
          + (f" [{', '.join(happened)}]" if happened else ""))


def _drive(engine: Engine, run_id: str, *, simulate_time: bool) -> int:
    def may_jump() -> bool:
        state = engine.run(run_id).state
        return not (state.is_finished or state is RunState.WAITING_FOR_HUMAN)

    pump(engine, simulate_time=simulate_time, may_jump=may_jump)
    run = engine.run(run_id)
    _Stdout.say(f"run {run.run_id} is {run.state.value}"
                + (f": {run.reason}" if run.reason else ""))
    return 1 if run.state in (RunState.FAILED, RunState.CANCELLED) else 0


def run_command(args: argparse.Namespace) -> int:
    run_input = _json_argument(args.input, "--input")
    definition = load_definition(args.file)
    engine = _engine(args)
    for extra in demo_definitions():
        engine.register(extra)
    engine.register(definition)
    run = engine.start(definition.workflow, definition.version, run_input)
    _Stdout.say(f"started run {run.run_id} of {definition.workflow} {definition.version}")
    return _drive(engine, run.run_id, simulate_time=not args.real_time)


def runs_command(args: argparse.Namespace) -> int:
    for run in _engine(args).store.list_runs():
        _Stdout.say(f"{run.run_id}\t{run.workflow}\t{run.version}\t{run.state.value}\t"
                    f"{timestamp(run.updated_at)}")
    return 0


def timestamp(seconds: float) -> str:
    """UTC ISO time of ``seconds`` since the epoch; a value no clock can show (a row stored
    before numbers were checked: NaN, infinity, past the year 9999) prints as itself.

    >>> timestamp(0.0), timestamp(float("inf")), timestamp(1e300)
    ('1970-01-01T00:00:00', 'inf', '1e+300')
    """
    try:
        return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(seconds))
    except (OverflowError, ValueError, OSError):
        return f"{seconds:g}"


def show_command(args: argparse.Namespace) -> int:
    run = _engine(args).run(args.run_id)
    _Stdout.say(f"run {run.run_id}: {run.workflow} {run.version} {run.state.value}"
                + (f" ({run.reason})" if run.reason else ""))
    for step_run in run.steps.values():
        waiting = f" waiting for {step_run.waiting_for}" if step_run.waiting_for else ""
        error = f" error: {step_run.error}" if step_run.error else ""
        _Stdout.say(f"  {step_run.step_id}: {step_run.state.value} attempt {step_run.attempt} "
                    f"iteration {step_run.iteration}{waiting}{error}")
    if run.output is not None:
        _Stdout.say(f"output: {json.dumps(run.output, sort_keys=True)}")
    return 0


def decide_command(args: argparse.Namespace) -> int:
    data = _json_argument(args.data, "--data")
    engine = _engine(args)
    engine.decide(args.run_id, args.step_id, args.decision, data)
    return _drive(engine, args.run_id, simulate_time=not args.real_time)


def cancel_command(args: argparse.Namespace) -> int:
    """Cancel the run now, in one commit with its audit row (as the API's verb does): a run
    that is already finished, or that another writer changed meanwhile, is exit code 3."""
    engine = _engine(args)
    run = engine.run(args.run_id)
    engine.operate(args.run_id, lambda _, now: Cancel(now, "cancelled by an operator"),
                   tenant=run.tenant, actor=CLI_ACTOR)
    return 0 if _drive(engine, args.run_id, simulate_time=False) == 1 else 1


def dead_letters_command(args: argparse.Namespace) -> int:
    for letter in _engine(args).store.dead_letters():
        _Stdout.say(f"{letter.signal_id}\t{letter.run_id}\t{letter.kind}\t"
                    f"attempts {letter.attempts}\t{letter.error}")
    return 0


def replay_command(args: argparse.Namespace) -> int:
    engine = _engine(args)
    engine.store.replay(args.signal_id, now=engine.now())
    _Stdout.say(f"replayed {args.signal_id}; handled {pump(engine)} queued signals")
    return 0


def purge_command(args: argparse.Namespace) -> int:
    before = time.time() if args.before is None else args.before
    _Stdout.say(f"purged {_engine(args).store.purge(before=before)} finished runs")
    return 0


def db_command(args: argparse.Namespace) -> int:
    """``wfr db migrate``: apply the migrations the store lacks and list them."""
    target = store_target(args.db)
    if is_postgres(target):
        from workflow.postgres_store import PostgresStore

        store = PostgresStore(target, migrate=False, max_connections=1)
        where, applied = store.path, store.migrate()
        store.close()
    else:
        import sqlite3

        from workflow.schema import apply_migrations

        where = sqlite_path(target)
        connection = sqlite3.connect(where, isolation_level=None)
        try:
            applied = apply_migrations(connection)
        finally:
            connection.close()
    print(f"{where}: applied {len(applied)} migration(s)"
          + (f": {', '.join(applied)}" if applied else "; it is up to date"))
    return 0


def worker_command(args: argparse.Namespace) -> int:
    """Pump until SIGINT or SIGTERM with ``--concurrency`` threads over one store."""
    import signal
    import threading

    from workflow.background import PumpThread
    from workflow.executors import EXECUTORS_VARIABLE, ExecutorRegistry, executors_from_file

    if not 1 <= args.concurrency <= 64:
        raise ValueError(f"--concurrency must be from 1 to 64, not {args.concurrency}")
    if not 1 <= args.batch <= 1000:
        raise ValueError(f"--batch must be from 1 to 1000, not {args.batch}")
    if not 0.1 <= args.lease_seconds <= 86_400:
        raise ValueError(f"--lease-seconds must be from 0.1 to 86400, not {args.lease_seconds}")
    file = args.executors or os.environ.get(EXECUTORS_VARIABLE)
    executors = (demo_executors() if args.demo else
                 executors_from_file(file) if file else ExecutorRegistry())
    store = open_store(store_target(args.db), max_connections=args.concurrency + 2,
                       busy_timeout=busy_timeout())
    engine = Engine(store, executors, clock=time.time)
    stop = threading.Event()
    for number in (signal.SIGINT, signal.SIGTERM):
        signal.signal(number, lambda *_: stop.set())
    pumps = [PumpThread(engine, owner=f"worker-{os.getpid()}-{i}",
                        lease_seconds=args.lease_seconds, batch=args.batch)
             for i in range(args.concurrency)]
    for thread in pumps:
        thread.start()
    def wake_all() -> None:
        for thread in pumps:
            thread.wake()

    listen_for_signals(store, wake_all, stop)
    if args.reconcile_every > 0:
        from workflow.reconciler import reconcile_periodically

        reconcile_periodically(engine, stop, every=args.reconcile_every)
    if args.retention_days > 0:
        from workflow import jobs

        def retention() -> None:
            store.purge(before=time.time() - 86400.0 * args.retention_days)

        jobs.every(store, "retention", RETENTION_EVERY_SECONDS, retention, stop)
    _Stdout.say(f"worker {os.getpid()} pumping {store.path} with {args.concurrency} "
                f"thread(s); executors: {', '.join(executors) or 'none'}"
                + (" (demo, fixed outputs)" if args.demo else ""))
    stop.wait()
    for thread in pumps:
        thread.stop()
    store.close()
    _Stdout.say(f"worker stopped after {sum(p.handled for p in pumps)} queue rows")
    return 0
