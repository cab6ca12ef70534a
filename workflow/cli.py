"""The engine's ``wfr`` sub-commands: validate, run, runs, show, decide, cancel,
dead-letters, replay and purge.

The ``wfr`` console script (``renderer/cli.py``) calls :func:`register_commands` with its
sub-parser collection; every command sets ``func`` to a callable returning an exit code:
0 success, 1 a run ended Failed or Cancelled, 2 bad input (one line on stderr), 3 a
decision or verb that lost a race to another writer, 4 the store stayed locked past
``WFR_BUSY_TIMEOUT`` seconds, 141 the reader of stdout went away (the command still
finished its work). Run
commands work against a SQLite file (``--db``, default ``./workflow.db``) with the built-in
demo executors.
"""

from __future__ import annotations

import argparse
import importlib
from collections.abc import Callable

COMMANDS_MODULE = "workflow.cli_commands"
Command = Callable[[argparse.Namespace], int]


def register_commands(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the workflow engine's sub-commands to ``wfr``.

    >>> parser = argparse.ArgumentParser(prog="wfr")
    >>> register_commands(parser.add_subparsers(dest="command"))
    >>> parser.parse_args(["decide", "r1", "review", "approve"]).decision
    'approve'
    """
    validate = _command(subparsers, "validate", "validate a workflow definition")
    validate.add_argument("file", help="workflow definition (YAML or JSON)")
    validate.add_argument("--strict", action="store_true", help="warnings count as errors")
    validate.add_argument("--known-executor", action="append", default=[], metavar="NAME",
                          help="an executor a compensation may name (repeatable)")
    validate.add_argument("--demo", action="store_true",
                          help="the built-in demo executors count as known")
    run = _command(subparsers, "run", "run a workflow with the demo executors", db=True)
    run.add_argument("file", help="workflow definition (YAML or JSON)")
    run.add_argument("--input", default="{}", help="run input as JSON (default {})")
    run.add_argument("--real-time", action="store_true",
                     help="stop at the first timer instead of simulating its wait")
    _command(subparsers, "runs", "list stored runs", db=True)
    show = _command(subparsers, "show", "show one run and its steps", db=True)
    show.add_argument("run_id", metavar="RUN")
    decide = _command(subparsers, "decide", "decide a waiting human task", db=True)
    decide.add_argument("run_id", metavar="RUN")
    decide.add_argument("step_id", metavar="STEP")
    decide.add_argument("decision", choices=["approve", "reject", "input"])
    decide.add_argument("--data", default="{}", help="decision input as JSON")
    decide.add_argument("--real-time", action="store_true",
                        help="stop at the next timer instead of simulating its wait")
    cancel = _command(subparsers, "cancel", "cancel a run and its child runs", db=True)
    cancel.add_argument("run_id", metavar="RUN")
    _command(subparsers, "dead-letters", "list dead-lettered signals", db=True)
    replay = _command(subparsers, "replay", "re-queue a dead letter and pump", db=True)
    replay.add_argument("signal_id", metavar="SIGNAL")
    worker = _command(subparsers, "worker", "pump the store's queue until stopped (SIGINT or "
                      "SIGTERM); several workers may share one store", db=True)
    worker.add_argument("--concurrency", type=int, default=1, metavar="N",
                        help="pump threads in this process (default 1)")
    worker.add_argument("--demo", action="store_true",
                        help="use the built-in demo executors (fixed outputs)")
    worker.add_argument("--lease-seconds", type=float, default=30.0, metavar="SECONDS",
                        help="how long a claimed queue row stays this worker's (real time; "
                             "a crashed worker's rows are taken over after it; default 30)")
    worker.add_argument("--batch", type=int, default=128, metavar="N",
                        help="on PostgreSQL, queue rows one claim takes and one transaction "
                             "commits (default 128; 1: a transaction per row)")
    worker.add_argument("--executors", metavar="FILE", default=None,
                        help="JSON file of executor name -> URL (default: $WFR_EXECUTORS_FILE)")
    worker.add_argument("--reconcile-every", type=float, default=30.0, metavar="SECONDS",
                        help="how often the reconciler looks for stranded runs (one worker "
                             "of a shared store at a time; default 30; 0: never)")
    worker.add_argument("--retention-days", type=float, default=0.0, metavar="DAYS",
                        help="every hour, purge runs finished more than DAYS ago (one worker "
                             "of a shared store at a time; default 0: never)")
    database = _command(subparsers, "db", "the store's schema: `wfr db migrate` applies the "
                        "migrations it lacks (stores also apply them when they open)", db=True)
    database.add_argument("action", choices=["migrate"])
    purge = _command(subparsers, "purge", "delete finished runs older than a time",
                     db=True)
    purge.add_argument("--before", type=float, default=None,
                       help="reference time, seconds since the epoch (default: now)")


def _command(subparsers: argparse._SubParsersAction[argparse.ArgumentParser], name: str,
             help_text: str, *, db: bool = False) -> argparse.ArgumentParser:
    """A sub-command whose body is ``<name>_command`` in :data:`COMMANDS_MODULE`."""
    parser = subparsers.add_parser(name, help=help_text, description=help_text)
    if db:
        parser.add_argument("--db", default=None, metavar="FILE|URL",
                            help="SQLite file, sqlite:///FILE or postgresql://USER@HOST/DB"
                                 "[?schema=NAME] (default: $WFR_DATABASE_URL, else "
                                 "./workflow.db)")
    parser.set_defaults(func=_lazy(name, name.replace("-", "_") + "_command"))
    return parser


def _lazy(name: str, function_name: str) -> Command:
    """The command, imported only when it runs, so ``wfr render`` does not pay for
    loading the engine, its store and its executors."""

    def command(args: argparse.Namespace) -> int:
        module = importlib.import_module(COMMANDS_MODULE)
        result: int = module.guarded(name, getattr(module, function_name))(args)
        return result

    return command
