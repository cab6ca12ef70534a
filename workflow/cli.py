"""The engine's ``wfr`` sub-commands: validate, run, runs, show, decide, dead-letters, replay.

The ``wfr`` console script (``renderer/cli.py``) calls :func:`register_commands` with its
sub-parser collection; every command sets ``func`` to a callable returning an exit code
(0 success, 2 bad input with one line on stderr).
"""

from __future__ import annotations

import argparse
import sys


def register_commands(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the workflow engine's sub-commands to ``wfr``.

    >>> parser = argparse.ArgumentParser(prog="wfr")
    >>> register_commands(parser.add_subparsers(dest="command"))
    >>> parser.parse_args(["validate", "x.yaml"]).command
    'validate'
    """
    validate = subparsers.add_parser("validate", help="validate a workflow definition")
    validate.add_argument("file", help="workflow definition (YAML or JSON)")
    validate.add_argument("--strict", action="store_true", help="warnings count as errors")
    validate.set_defaults(func=_validate_command)


def _validate_command(args: argparse.Namespace) -> int:
    from workflow.dsl import DslError, load_definition
    from workflow.validation import validate_definition

    try:
        definition = load_definition(args.file)
    except DslError as exc:
        print(f"wfr validate: {exc}", file=sys.stderr)
        return 2
    problems = validate_definition(definition, strict=args.strict)
    for problem in problems:
        print(problem.describe())
    return 2 if any(problem.is_error for problem in problems) else 0
