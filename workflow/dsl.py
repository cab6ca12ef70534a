"""The workflow definition DSL (YAML or JSON), read into typed, immutable data.

This is the one reader of the DSL: the renderer turns a :class:`Definition` into a
layout graph, and the engine validates and runs it. Reading only checks shape (types
of fields, required keys); semantic validation lives in :mod:`workflow.validation`.

>>> d = load_definition_text('''
... workflow: demo
... version: 1.0.0
... steps:
...   - { id: a, kind: Tool, tool: t }
...   - { id: b, kind: Condition, expression: "true" }
... edges:
...   - { from: a, to: b }
... ''')
>>> [s.id for s in d.steps], d.edges[0].source
(['a', 'b'], 'a')
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from workflow.documents import (
    DOCUMENT_LIMITS,
    DocumentError,
    check_document,
    decode_document,
    parse_document,
)


class DslError(ValueError):
    """The text is not a readable workflow definition; the message names the problem."""


STEP_FIELDS: Mapping[str, str] = {
    # DSL key -> Step attribute
    "id": "id",
    "kind": "kind",
    "agent": "agent",
    "tool": "tool",
    "actionClass": "action_class",
    "failurePolicy": "failure_policy",
    "maxAttempts": "max_attempts",
    "timeoutMinutes": "timeout_minutes",
    "compensation": "compensation",
    "expression": "expression",
    "quorum": "quorum",
    "delayMinutes": "delay_minutes",
    "workflow": "workflow",
    "version": "version",
    "label": "label",
    "assignee": "assignee",
    "reads": "reads",
}

EDGE_FIELDS: Mapping[str, str] = {
    "from": "source",
    "to": "target",
    "guard": "guard",
    "isLoopBack": "is_loop_back",
    "id": "id",
}


@dataclass(frozen=True, slots=True)
class Step:
    """One step as written; ``None`` means the DSL left the field out (defaults are
    applied by the engine's configuration table, not here)."""

    id: str
    kind: str
    agent: str | None = None
    tool: str | None = None
    action_class: str | None = None
    failure_policy: str | None = None
    max_attempts: int | None = None
    timeout_minutes: float | None = None
    compensation: str | None = None
    expression: str | None = None
    quorum: int | None = None
    delay_minutes: float | None = None
    workflow: str | None = None
    version: str | None = None
    label: str | None = None
    assignee: str | None = None  # who a Human step's task is for (a user or group name)
    reads: tuple[str, ...] | None = None  # upstream steps whose outputs its executor receives


def field_value(step: Step, key: str) -> object:
    """The value of a step's DSL field ``key`` (``None`` when the DSL left it out).

    >>> field_value(Step("t", "Timer", delay_minutes=5.0), "delayMinutes")
    5.0
    """
    return getattr(step, STEP_FIELDS[key])


@dataclass(frozen=True, slots=True)
class Transition:
    """One edge as written. ``id`` defaults to ``"<from>-><to>"`` (``#n`` appended for
    parallel edges)."""

    id: str
    source: str
    target: str
    guard: str | None = None
    is_loop_back: bool = False


@dataclass(frozen=True, slots=True)
class Definition:
    """A whole workflow definition, in model order."""

    workflow: str
    version: str
    steps: tuple[Step, ...]
    edges: tuple[Transition, ...]
    input: str | None = None
    output: str | None = None
    max_loop_iterations: int | None = None


def looks_like_definition(data: object) -> bool:
    """Whether parsed data has the DSL's shape (``workflow`` and ``steps`` keys)."""
    return isinstance(data, Mapping) and "steps" in data and "workflow" in data


def load_definition_text(text: str) -> Definition:
    """Parse YAML or JSON text (JSON is YAML) into a :class:`Definition`, under the
    size, depth and alias limits of :mod:`workflow.documents`.

    >>> load_definition_text("steps: " + "[" * 1000)
    Traceback (most recent call last):
    ...
    workflow.dsl.DslError: input is nested too deeply to read (more than 400 open brackets)
    """
    try:
        data = parse_document(text)
    except DocumentError as exc:
        raise DslError(str(exc)) from None
    return definition_from_data(data)


def load_definition(path: str | Path) -> Definition:
    """Read a definition file (``.yaml``, ``.yml`` or ``.json``) under the same limits;
    a file over the size limit is refused before it is read."""
    file = Path(path)
    try:
        size = file.stat().st_size
        if size > DOCUMENT_LIMITS.max_bytes:
            raise DslError(f"{file} has {size} bytes; the limit is {DOCUMENT_LIMITS.max_bytes}")
        text = decode_document(file.read_bytes())
    except OSError as exc:
        raise DslError(f"cannot read {file}: {exc.strerror or exc}") from None
    except DocumentError as exc:
        raise DslError(f"cannot read {file}: {exc}") from None
    if file.suffix == ".json":
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise DslError(f"{file} is not valid JSON: {exc}") from None
        except RecursionError:
            raise DslError(f"{file} is nested too deeply to read") from None
        except ValueError as exc:  # a 5000-digit integer
            raise DslError(f"{file} has a value that cannot be read: {exc}") from None
        try:
            check_document(data)
        except DocumentError as exc:
            raise DslError(str(exc)) from None
        return definition_from_data(data)
    return load_definition_text(text)


def definition_from_data(data: object) -> Definition:
    """Build a :class:`Definition` from parsed YAML/JSON data."""
    if not isinstance(data, Mapping):
        raise DslError("a workflow definition must be a mapping with 'workflow' and 'steps'")
    for key in ("workflow", "steps"):
        if key not in data:
            raise DslError(f"workflow definition is missing '{key}'")
    steps_data, edges_data = data["steps"], data.get("edges") or []
    if not isinstance(steps_data, list):
        raise DslError("'steps' must be a list")
    if not isinstance(edges_data, list):
        raise DslError("'edges' must be a list")
    steps = tuple(_step(item, i) for i, item in enumerate(steps_data))
    edges = _edges(edges_data)
    max_loops = data.get("maxLoopIterations")
    return Definition(
        workflow=_text(data["workflow"], "workflow"),
        version=_text(data.get("version", "0"), "version"),
        steps=steps,
        edges=edges,
        input=None if data.get("input") is None else _text(data["input"], "input"),
        output=None if data.get("output") is None else _text(data["output"], "output"),
        max_loop_iterations=None if max_loops is None else _int(max_loops, "maxLoopIterations"),
    )


def _text(value: object, where: str) -> str:
    if isinstance(value, bool) or value is None or isinstance(value, list | dict):
        raise DslError(f"{where} must be a string, not {value!r}")
    return str(value)


def _json_text(value: object, where: str) -> str:
    """A JSONLogic value written as JSON text; YAML-only values (dates, sets, binary) and
    keys that cannot be sorted together (``{1: x, a: y}``) are a :class:`DslError`."""
    try:
        return json.dumps(value, sort_keys=True)
    except (TypeError, ValueError) as error:
        raise DslError(f"{where} is not JSON: {error}") from None


def _int(value: object, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise DslError(f"{where} must be an integer, not {value!r}")
    return value


def _number(value: object, where: str) -> float:
    """A number as a float; an integer too large for one is infinity (refused by
    validation, naming the field, like any other non-finite number).

    >>> _number(10 ** 400, "delayMinutes")
    inf
    """
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise DslError(f"{where} must be a number, not {value!r}")
    try:
        return float(value)
    except OverflowError:
        return math.inf


def _step_ids(value: object, where: str) -> tuple[str, ...]:
    """A list of step ids (``reads: [a, b]``), as a tuple in the order written.

    >>> _step_ids(["a", "b"], "step 'c' field 'reads'")
    ('a', 'b')
    >>> _step_ids("a", "step 'c' field 'reads'")
    Traceback (most recent call last):
    ...
    workflow.dsl.DslError: step 'c' field 'reads' must be a list of step ids, not 'a'
    """
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise DslError(f"{where} must be a list of step ids, not {value!r}")
    return tuple(value)


_INT_FIELDS = {"max_attempts", "quorum"}
_NUMBER_FIELDS = {"timeout_minutes", "delay_minutes"}


def _step(item: object, index: int) -> Step:
    if not isinstance(item, Mapping):
        raise DslError(f"steps[{index}] must be a mapping")
    if "id" not in item or "kind" not in item:
        raise DslError(f"steps[{index}] needs 'id' and 'kind'")
    step_id = _text(item["id"], f"steps[{index}].id")
    values: dict[str, Any] = {}
    for key, value in item.items():
        attribute = STEP_FIELDS.get(str(key))
        if attribute is None:
            raise DslError(f"step '{step_id}' has unknown field '{key}'")
        where = f"step '{step_id}' field '{key}'"
        if attribute in _INT_FIELDS:
            values[attribute] = _int(value, where)
        elif attribute in _NUMBER_FIELDS:
            values[attribute] = _number(value, where)
        elif attribute == "expression" and not isinstance(value, str):
            values[attribute] = _json_text(value, where)
        elif attribute == "reads":
            values[attribute] = _step_ids(value, where)
        else:
            values[attribute] = _text(value, where)
    return Step(**values)


def _edges(items: list[object]) -> tuple[Transition, ...]:
    """The transitions; an ``id`` given twice is a :class:`DslError`, and generated ids
    (``"<from>-><to>"``, then ``#2``, ``#3``...) skip the ids given explicitly."""
    given = _given_edge_ids(items)
    seen: dict[str, int] = {}
    edges = []
    for index, item in enumerate(items):
        if not isinstance(item, Mapping):
            raise DslError(f"edges[{index}] must be a mapping")
        for key in item:
            if str(key) not in EDGE_FIELDS:
                raise DslError(f"edges[{index}] has unknown field '{key}'")
        if "from" not in item or "to" not in item:
            raise DslError(f"edges[{index}] needs 'from' and 'to'")
        source = _text(item["from"], f"edges[{index}].from")
        target = _text(item["to"], f"edges[{index}].to")
        guard = item.get("guard")
        if guard is not None and not isinstance(guard, str):
            guard = _json_text(guard, f"edges[{index}].guard") if not isinstance(guard, bool) else (
                "true" if guard else "false")
        loop_back = item.get("isLoopBack", False)
        if not isinstance(loop_back, bool):
            raise DslError(f"edges[{index}].isLoopBack must be true or false")
        if "id" in item:
            edge_id = _text(item["id"], f"edges[{index}].id")
        else:
            edge_id = generated_edge_id(f"{source}->{target}", seen, given)
        edges.append(Transition(edge_id, source, target, guard, loop_back))
    return tuple(edges)


def _given_edge_ids(items: list[object]) -> set[str]:
    """The ids written in ``edges``; :class:`DslError` for one written twice (an edge id
    names one transition in runs and drawings, so a repeat is never renamed)."""
    given: set[str] = set()
    for index, item in enumerate(items):
        if isinstance(item, Mapping) and "id" in item:
            edge_id = _text(item["id"], f"edges[{index}].id")
            if edge_id in given:
                raise DslError(f"edges[{index}] repeats the edge id '{edge_id}'; edge ids "
                               "must be unique")
            given.add(edge_id)
    return given


def generated_edge_id(base: str, seen: dict[str, int], given: set[str]) -> str:
    """``base``, then ``base#2``, ``base#3``... for parallel edges without an id, skipping
    the ids given explicitly (``seen`` counts each base; the DSL and DOT readers share it).

    >>> seen: dict[str, int] = {}
    >>> [generated_edge_id("a->b", seen, {"a->b#2"}) for _ in range(2)]
    ['a->b', 'a->b#3']
    """
    while True:
        count = seen.get(base, 0) + 1
        seen[base] = count
        edge_id = base if count == 1 else f"{base}#{count}"
        if edge_id not in given:
            return edge_id
