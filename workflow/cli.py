"""The engine's ``wfr`` sub-commands: validate, run, runs, show, decide, cancel,
dead-letters, replay and purge.

The ``wfr`` console script (``renderer/cli.py``) calls :func:`register_commands` with its
sub-parser collection; every command sets ``func`` to a callable returning an exit code:
0 success, 1 a run ended Failed or Cancelled, 2 bad input (one line on stderr). Run
commands work against a SQLite file (``--db``, default ``./workflow.db``) with the built-in
demo executors.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable

from workflow.definitions import UnknownWorkflowError, VersionConflictError
from workflow.demo import demo_definitions, demo_executors
from workflow.dsl import DslError, load_definition
from workflow.engine import Engine, EngineError
from workflow.model import Effect, EmitEvent, Event, Json, Run, RunState
from workflow.pump import pump
from workflow.sqlite_store import SqliteStore
from workflow.validation import InvalidDefinitionError, validate_definition

Command = Callable[[argparse.Namespace], int]
BAD_INPUT = (DslError, EngineError, UnknownWorkflowError, VersionConflictError,
             InvalidDefinitionError, LookupError, OSError, ValueError)


def register_commands(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the workflow engine's sub-commands to ``wfr``.

    >>> parser = argparse.ArgumentParser(prog="wfr")
    >>> register_commands(parser.add_subparsers(dest="command"))
    >>> parser.parse_args(["decide", "r1", "review", "approve"]).decision
    'approve'
    """
    validate = _command(subparsers, "validate", "validate a workflow definition", _validate)
    validate.add_argument("file", help="workflow definition (YAML or JSON)")
    validate.add_argument("--strict", action="store_true", help="warnings count as errors")
    validate.add_argument("--known-executor", action="append", default=[], metavar="NAME",
                          help="an executor a compensation may name (repeatable)")
    validate.add_argument("--demo", action="store_true",
                          help="the built-in demo executors count as known")
    run = _command(subparsers, "run", "run a workflow with the demo executors", _run, db=True)
    run.add_argument("file", help="workflow definition (YAML or JSON)")
    run.add_argument("--input", default="{}", help="run input as JSON (default {})")
    run.add_argument("--real-time", action="store_true",
                     help="stop at the first timer instead of simulating its wait")
    _command(subparsers, "runs", "list stored runs", _runs, db=True)
    show = _command(subparsers, "show", "show one run and its steps", _show, db=True)
    show.add_argument("run_id", metavar="RUN")
    decide = _command(subparsers, "decide", "decide a waiting human task", _decide, db=True)
    decide.add_argument("run_id", metavar="RUN")
    decide.add_argument("step_id", metavar="STEP")
    decide.add_argument("decision", choices=["approve", "reject", "input"])
    decide.add_argument("--data", default="{}", help="decision input as JSON")
    decide.add_argument("--real-time", action="store_true",
                        help="stop at the next timer instead of simulating its wait")
    cancel = _command(subparsers, "cancel", "cancel a run and its child runs", _cancel, db=True)
    cancel.add_argument("run_id", metavar="RUN")
    _command(subparsers, "dead-letters", "list dead-lettered signals", _dead_letters, db=True)
    replay = _command(subparsers, "replay", "re-queue a dead letter and pump", _replay, db=True)
    replay.add_argument("signal_id", metavar="SIGNAL")
    purge = _command(subparsers, "purge", "delete finished runs older than a time", _purge,
                     db=True)
    purge.add_argument("--before", type=float, default=None,
                       help="reference time, seconds since the epoch (default: now)")


def _command(subparsers: argparse._SubParsersAction[argparse.ArgumentParser], name: str,
             help_text: str, function: Command, *, db: bool = False) -> argparse.ArgumentParser:
    parser = subparsers.add_parser(name, help=help_text, description=help_text)
    if db:
        parser.add_argument("--db", default="./workflow.db", help="SQLite file (./workflow.db)")
    parser.set_defaults(func=_guarded(name, function))
    return parser


def _guarded(name: str, function: Command) -> Command:
    def command(args: argparse.Namespace) -> int:
        try:
            return function(args)
        except BAD_INPUT as exc:
            message = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            print(f"wfr {name}: {message}", file=sys.stderr)
            return 2

    return command


def _validate(args: argparse.Namespace) -> int:
    definition = load_definition(args.file)
    known = [*args.known_executor, *(demo_executors() if args.demo else ())]
    problems = validate_definition(definition, strict=args.strict, known_executors=known)
    for problem in problems:
        print(problem.describe())
    return 2 if any(problem.is_error for problem in problems) else 0


def _json_argument(text: str, name: str) -> Json:
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"{name} is not valid JSON: {exc.msg} at column {exc.colno}") from None


def _engine(args: argparse.Namespace) -> Engine:
    store = SqliteStore(args.db)
    return Engine(store, demo_executors(), clock=time.time, observer=_print_transition)


def _print_transition(run: Run, event: Event, effects: tuple[Effect, ...]) -> None:
    happened = [e.kind + (f" {e.step_id}" if e.step_id else "") for e in effects
                if isinstance(e, EmitEvent)]
    label = type(event).__name__ + (f" {getattr(event, 'step_id', '')}".rstrip())
    print(f"{run.run_id}: {label} -> {run.state.value}"
          + (f" [{', '.join(happened)}]" if happened else ""))


def _drive(engine: Engine, run_id: str, *, simulate_time: bool) -> int:
    def may_jump() -> bool:
        state = engine.run(run_id).state
        return not (state.is_finished or state is RunState.WAITING_FOR_HUMAN)

    pump(engine, simulate_time=simulate_time, may_jump=may_jump)
    run = engine.run(run_id)
    print(f"run {run.run_id} is {run.state.value}" + (f": {run.reason}" if run.reason else ""))
    return 1 if run.state in (RunState.FAILED, RunState.CANCELLED) else 0


def _run(args: argparse.Namespace) -> int:
    run_input = _json_argument(args.input, "--input")
    definition = load_definition(args.file)
    engine = _engine(args)
    for extra in demo_definitions():
        engine.register(extra)
    engine.register(definition)
    run = engine.start(definition.workflow, definition.version, run_input)
    print(f"started run {run.run_id} of {definition.workflow} {definition.version}")
    return _drive(engine, run.run_id, simulate_time=not args.real_time)


def _runs(args: argparse.Namespace) -> int:
    for run in _engine(args).store.list_runs():
        print(f"{run.run_id}\t{run.workflow}\t{run.version}\t{run.state.value}\t"
              f"{time.strftime('%Y-%m-%dT%H:%M:%S', time.gmtime(run.updated_at))}")
    return 0


def _show(args: argparse.Namespace) -> int:
    run = _engine(args).run(args.run_id)
    print(f"run {run.run_id}: {run.workflow} {run.version} {run.state.value}"
          + (f" ({run.reason})" if run.reason else ""))
    for step_run in run.steps.values():
        waiting = f" waiting for {step_run.waiting_for}" if step_run.waiting_for else ""
        error = f" error: {step_run.error}" if step_run.error else ""
        print(f"  {step_run.step_id}: {step_run.state.value} attempt {step_run.attempt} "
              f"iteration {step_run.iteration}{waiting}{error}")
    if run.output is not None:
        print(f"output: {json.dumps(run.output, sort_keys=True)}")
    return 0


def _decide(args: argparse.Namespace) -> int:
    data = _json_argument(args.data, "--data")
    engine = _engine(args)
    engine.decide(args.run_id, args.step_id, args.decision, data)
    return _drive(engine, args.run_id, simulate_time=not args.real_time)


def _cancel(args: argparse.Namespace) -> int:
    engine = _engine(args)
    engine.cancel(args.run_id)
    return 0 if _drive(engine, args.run_id, simulate_time=False) == 1 else 1


def _dead_letters(args: argparse.Namespace) -> int:
    for letter in _engine(args).store.dead_letters():
        print(f"{letter.signal_id}\t{letter.run_id}\t{letter.kind}\tattempts {letter.attempts}"
              f"\t{letter.error}")
    return 0


def _replay(args: argparse.Namespace) -> int:
    engine = _engine(args)
    engine.store.replay(args.signal_id, now=engine.now())
    print(f"replayed {args.signal_id}; handled {pump(engine)} queued signals")
    return 0


def _purge(args: argparse.Namespace) -> int:
    before = time.time() if args.before is None else args.before
    print(f"purged {_engine(args).store.purge(before=before)} finished runs")
    return 0
