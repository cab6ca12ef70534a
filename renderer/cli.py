"""The ``wfr`` command line: render drawings, list engines, print schemas, run workflows.

``wfr render FILE`` reads a workflow definition, ELK JSON, graph JSON or DOT file (``-`` for
stdin), lays it out in a worker process under a hard time limit and writes SVG, JSON, ELK
JSON or DOT. ``wfr render --run RUN_ID --db FILE`` draws a stored run with every step's and
edge's state (SVG, JSON or ELK JSON; the bytes ``GET /api/workflow/instances/{id}/graph``
gives for the same options, through the store's layout cache). The layout option flags
are generated from :data:`OPTION_TABLE`. ``wfr token`` prints a bearer token for the
workflow API (:mod:`renderer.api.auth`). The workflow engine's commands come from
:func:`workflow.cli.register_commands`.

Exit codes: 0 success; 2 bad input (one line on stderr naming the problem, no traceback);
3 a verb lost a race to another writer (``wfr decide``); 4 the store stayed locked by
another process; 141 the reader of stdout went away; 1 anything else (one line: a failed
run, a crashed provider, or a bug, named as one).

>>> main(["render", "no-such-file.yaml"])  # prints "wfr render: cannot read ..." on stderr
2
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import os
import sqlite3
import sys
from collections.abc import Callable
from pathlib import Path
from typing import NoReturn, cast

from layouts.api import engines
from layouts.errors import InvalidGraphError
from layouts.options import OPTION_TABLE, LayoutOptions, OptionSpec, given_names
from layouts.registry import DEFAULT_ENGINE
from renderer.diagram import Diagram
from renderer.fanout_groups import group_fanouts
from renderer.isolation import WorkerPool
from renderer.readers import ReaderError
from renderer.render import Rendering, classify_error, one_line, render_timed
from renderer.run_views import DrawingView
from renderer.subworkflows import expand_subworkflows, store_lookup
from renderer.writers import OutputFormat, format_for_path
from workflow.cli import register_commands
from workflow.dsl import DslError, load_definition_text

SCHEMA_NAMES = ("graph", "options", "result", "dispatch")
DEFAULT_DB = "./workflow.db"
SEE_HELP = "(see wfr render --help)"
INPUT_ERRORS = (ReaderError, DslError, InvalidGraphError)
"""Errors in the content of the input file; their message gets the file's name."""
STDIO = "-"


class CommandInputError(Exception):
    """A file that cannot be read or written, or an output name with no known format."""


class OneLineParser(argparse.ArgumentParser):
    """argparse, but a usage error is one line on stderr (and exit code 2), like every
    other bad-input error of ``wfr``; ``--help`` still prints the full usage."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: {one_line(message)} (see {self.prog} --help)\n")


def build_parser() -> argparse.ArgumentParser:
    """The ``wfr`` parser with every sub-command; each sets ``func(args) -> exit code``.

    >>> build_parser().parse_args(["render", "x.yaml", "--effort", "best"]).option_effort
    'best'
    """
    parser = OneLineParser(
        prog="wfr", description="Draw workflow graphs and run workflows.")
    subparsers = cast("argparse._SubParsersAction[argparse.ArgumentParser]",
                      parser.add_subparsers(dest="command", required=True, metavar="COMMAND"))
    _add_render_command(subparsers)
    engines_parser = subparsers.add_parser("engines", help="list layout engines and why "
                                           "an engine is unavailable")
    engines_parser.set_defaults(func=_engines_command)
    schema_parser = subparsers.add_parser("schema", help="print a JSON Schema")
    schema_parser.add_argument("name", choices=SCHEMA_NAMES)
    schema_parser.set_defaults(func=_schema_command)
    _add_token_command(subparsers)
    register_commands(subparsers)
    return parser


def _add_render_command(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    render = subparsers.add_parser("render", help="lay out and draw a workflow or graph file")
    render.add_argument("file", nargs="?",
                        help="workflow YAML/JSON, ELK JSON, graph JSON or DOT; - for stdin")
    render.add_argument("--run", metavar="RUN_ID",
                        help="draw this stored run with its states instead of a FILE")
    render.add_argument("--db", metavar="FILE",
                        help=f"the workflow store of --run (default: {DEFAULT_DB})")
    render.add_argument("-o", "--output", default=STDIO,
                        help="output file (its extension picks the format); - for stdout")
    render.add_argument("--format", choices=[f.value for f in OutputFormat],
                        help="output format (default: from the output name, else svg)")
    render.add_argument("--engine", default=DEFAULT_ENGINE,
                        help=f"layout engine (default: {DEFAULT_ENGINE}; see `wfr engines`)")
    for spec in OPTION_TABLE:
        render.add_argument(f"--{spec.name.replace('_', '-')}", dest=f"option_{spec.name}",
                            metavar=spec.json_type.upper(), help=_option_help(spec))
    render.add_argument("--timings", action="store_true",
                        help="print the seconds of each stage and engine phase on stderr")
    render.add_argument("--group-fanouts", action="store_true",
                        help="draw each Fanout..Join block of a workflow as a group box")
    render.add_argument("--expand-subworkflows", action="store_true",
                        help="draw each SubWorkflow step as a box holding its child "
                             "workflow's steps, from the store --db (by name and version; "
                             "with --run: the child run's steps, with their states)")
    render.set_defaults(func=_render_command)


def _option_help(spec: OptionSpec) -> str:
    default = getattr(spec.default, "value", spec.default)
    allowed = f" One of {', '.join(spec.choices)}." if spec.choices else ""
    if spec.minimum is not None and spec.maximum is not None:
        allowed = f" From {spec.minimum:g} to {spec.maximum:g}."
    return f"{spec.description}{allowed} Default: {default}."


def _render_command(args: argparse.Namespace) -> int:
    values = {spec.name: getattr(args, f"option_{spec.name}") for spec in OPTION_TABLE}
    options = LayoutOptions.from_mapping(values)
    fmt = _output_format(args.format, args.output)
    if args.run is not None:
        return _render_run(args, fmt, options)
    if args.file is None:
        raise CommandInputError(f"give a FILE to draw, or --run RUN_ID {SEE_HELP}")
    if args.db is not None and not args.expand_subworkflows:
        raise CommandInputError(f"--db names the store of --run; give --run RUN_ID too {SEE_HELP}")
    data, filename = _read_input(args.file)
    transform = _transform(args, data)
    pool = WorkerPool(size=1)
    pool.start(wait=False)  # the worker starts up while the input is read and measured
    try:
        rendering = render_timed(data, filename=filename, fmt=fmt, engine=args.engine,
                                 options=options, runner=pool.run,
                                 given_options=given_names(values), transform=transform)
    except INPUT_ERRORS as error:  # name the file whose content is at fault
        name = "<stdin>" if args.file == STDIO else args.file
        raise CommandInputError(f"{name}: {one_line(str(error))}") from None
    finally:
        pool.close()
    _write_output(rendering.output, args.output)
    for warning in rendering.result.diagnostics.warnings:
        print(f"wfr: warning: {warning}", file=sys.stderr)
    if args.timings:
        _print_timings(rendering)
    return 0


def _transform(args: argparse.Namespace, data: bytes) -> Callable[[Diagram], Diagram] | None:
    """The diagram transform of ``--expand-subworkflows`` and ``--group-fanouts``."""
    steps: list[Callable[[Diagram], Diagram]] = []
    if args.expand_subworkflows:
        try:
            definition = load_definition_text(data.decode("utf-8"))
        except (DslError, UnicodeDecodeError) as error:
            raise CommandInputError(f"--expand-subworkflows needs a workflow file: "
                                    f"{one_line(str(error))}") from None
        lookup = store_lookup(args.db or DEFAULT_DB)
        steps.append(lambda _: expand_subworkflows(definition, lookup))
    if args.group_fanouts:
        steps.append(group_fanouts)
    if not steps:
        return None

    def transform(diagram: Diagram) -> Diagram:
        for step in steps:
            diagram = step(diagram)
        return diagram

    return transform


def _render_run(args: argparse.Namespace, fmt: OutputFormat, options: LayoutOptions) -> int:
    """``wfr render --run``: the run's drawing, laid out (or taken from the store's cache)
    as the graph endpoint does; ``--expand-subworkflows`` opens each SubWorkflow step with
    its child run's steps and states, ``--group-fanouts`` boxes Fanout..Join blocks."""
    from renderer.drawings import RunDrawingError, draw_stored_run  # only --run needs it

    if args.file is not None:
        raise CommandInputError(f"give a FILE or --run RUN_ID, not both {SEE_HELP}")
    if args.timings:
        raise CommandInputError(f"--timings works with a FILE, not with --run {SEE_HELP}")
    view = DrawingView(expand_subworkflows=args.expand_subworkflows,
                       group_fanouts=args.group_fanouts)
    try:
        output = draw_stored_run(args.db or DEFAULT_DB, args.run, fmt, args.engine, options,
                                 view)
    except (RunDrawingError, DslError) as error:
        raise CommandInputError(one_line(str(error))) from None
    _write_output(output, args.output)
    return 0


def _output_format(name: str | None, output: str) -> OutputFormat:
    if name is not None:
        return OutputFormat(name)
    if output == STDIO:
        return OutputFormat.SVG
    try:
        return format_for_path(output)
    except ValueError as error:
        raise CommandInputError(f"{error}; give --format svg|json|elk|dot|bpmn") from None


def _read_input(file: str) -> tuple[bytes, str | None]:
    if file == STDIO:
        return sys.stdin.buffer.read(), None
    try:
        return Path(file).read_bytes(), file
    except OSError as error:
        raise CommandInputError(f"cannot read {file}: {error.strerror or error}") from None


def _write_output(data: bytes, output: str) -> None:
    if output == STDIO:
        sys.stdout.flush()
        sys.stdout.buffer.write(data)
        sys.stdout.buffer.flush()
        return
    try:
        Path(output).write_bytes(data)
    except OSError as error:
        raise CommandInputError(f"cannot write {output}: {error.strerror or error}") from None


def _print_timings(rendering: Rendering) -> None:
    for name, seconds in rendering.stages:
        print(f"{name:<8} {seconds:.4f} s", file=sys.stderr)
    for name, seconds in rendering.result.diagnostics.phases:
        print(f"  {name:<22} {seconds:.4f} s", file=sys.stderr)


def _engines_command(args: argparse.Namespace) -> int:
    for row in engines():
        status = "available" if row.available else f"unavailable: {row.reason}"
        print(f"{row.name:<10} {status}")
    return 0


def _schema_command(args: argparse.Namespace) -> int:
    from layouts.schemas import all_schemas  # lazily: only this command needs it
    from workflow.executors import dispatch_payload_schema

    schemas = {**all_schemas(), "dispatch": dispatch_payload_schema()}
    print(json.dumps(schemas[args.name], indent=2, sort_keys=True))
    return 0


def _add_token_command(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    token = subparsers.add_parser(
        "token", help="print a bearer token (HS256) for the workflow API",
        description="Print an HS256 bearer token signed with WFR_JWT_SECRET or, failing that, "
                    "the dev-mode secret in .wfr/dev.json (made by `make run`).")
    token.add_argument("--scope", action="append", required=True, metavar="SCOPE",
                       help="workflow:view, workflow:operate or workflow:admin (or view, "
                            "operate, admin); repeatable")
    token.add_argument("--tenant", required=True, help="the tenant claim")
    token.add_argument("--sub", default="dev", help="the subject claim (default: dev)")
    token.add_argument("--ttl", type=float, default=None, metavar="SECONDS",
                       help="lifetime in seconds (default: 8 hours)")
    token.add_argument("--config-dir", default=".wfr", metavar="DIR",
                       help="folder of the dev secret dev.json (default: .wfr)")
    token.set_defaults(func=_token_command)


def _token_command(args: argparse.Namespace) -> int:
    # lazily: only this command needs PyJWT and cryptography
    from renderer.api.auth import DEFAULT_TOKEN_TTL, Scope, issue_token
    from renderer.api.settings import SettingsError, signing_secret

    try:
        scopes = list(dict.fromkeys(Scope.parse(name).claim for name in args.scope))
        secret = signing_secret(os.environ, Path(args.config_dir))
    except (ValueError, SettingsError) as error:  # SettingsError names WFR_JWT_SECRET
        raise CommandInputError(str(error)) from None
    if secret is None:
        raise CommandInputError("no token secret: run `make run` (dev mode) or set "
                                "WFR_JWT_SECRET")
    ttl = DEFAULT_TOKEN_TTL if args.ttl is None else args.ttl
    _check_token_claims(args.sub, args.tenant, ttl)
    print(issue_token(secret, subject=args.sub, tenant=args.tenant, scopes=scopes,
                      ttl_seconds=ttl))
    return 0


def _check_token_claims(subject: str, tenant: str, ttl: float) -> None:
    if not (math.isfinite(ttl) and ttl > 0):
        raise CommandInputError(f"--ttl {ttl:g} is not a positive number of seconds")
    for flag, value in (("--sub", subject), ("--tenant", tenant)):
        if not value.strip():
            raise CommandInputError(f"{flag} must not be empty")


def main(argv: list[str] | None = None) -> int:
    """Run ``wfr`` with ``argv`` (default: ``sys.argv[1:]``) and return the exit code.

    >>> main(["render", "--engine"])  # argparse prints the usage error on stderr
    2
    """
    try:
        args = build_parser().parse_args(argv)
    except SystemExit as stop:  # argparse already printed the usage line
        return stop.code if isinstance(stop.code, int) else 2
    command = f"wfr {args.command}"
    try:
        return int(args.func(args))
    except CommandInputError as error:
        return _report(f"{command}: {error}", 2)
    except KeyboardInterrupt:
        return _report(f"{command}: interrupted", 130)
    except BrokenPipeError:  # the reader of our output went away (e.g. `| head`): stay quiet
        _silence_stdout()
        return 141  # 128 + SIGPIPE, as the shell reports a process killed by it
    except sqlite3.OperationalError as error:  # the store of --run/--db is locked or broken
        from workflow.cli_commands import store_problem

        message, code = store_problem(error, getattr(args, "db", None))
        return _report(f"{command}: {message}", code)
    except Exception as error:
        problem = classify_error(error)
        if problem is not None:
            return _report(f"{command}: {problem.message}", problem.exit_code)
        detail = one_line(f"{type(error).__name__}: {error}")
        return _report(f"{command}: unexpected {detail} (a bug in wfr: please report it "
                       "with the command and its input)", 1)


def _silence_stdout() -> None:
    """Point stdout at /dev/null so the interpreter's final flush cannot fail again."""
    with contextlib.suppress(OSError, ValueError):  # stdout may not be a real file
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


def _report(line: str, exit_code: int) -> int:
    print(line, file=sys.stderr)
    return exit_code


if __name__ == "__main__":
    sys.exit(main())
