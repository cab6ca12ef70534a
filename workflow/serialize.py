"""Runs and effects to and from JSON text, for the stores.

>>> from workflow.model import new_run
>>> run = new_run("r", "w", "1", "h", {"a": 1}, at=5.0)
>>> run_from_json(run_to_json(run)) == run
True
"""

from __future__ import annotations

import json
from dataclasses import fields
from typing import Any

from workflow.model import Run, RunDelta, RunState, StepRun, StepState, WaitingFor
from workflow.persistent import AppendOnly, KeySet

_RUN_FIELDS = tuple(f.name for f in fields(Run) if f.init)


def run_to_json(run: Run) -> str:
    """Compact JSON of a run (steps in definition order, processed keys sorted)."""
    data: dict[str, Any] = {name: getattr(run, name) for name in _RUN_FIELDS}
    data["state"] = run.state.value
    data["steps"] = [step_data(step_run) for step_run in run.steps.values()]
    data["edges"] = dict(run.edges)
    data["loops"] = dict(run.loops)
    data["completion_order"] = list(run.completion_order)
    data["processed"] = sorted(run.processed)
    data["compensation"] = list(run.compensation)
    data["compensated"] = list(run.compensated)
    return json.dumps(data, separators=(",", ":"), sort_keys=True, check_circular=False)


_STEP_FIELDS = tuple(f.name for f in fields(StepRun))


def step_data(step_run: StepRun) -> dict[str, Any]:
    data = {name: getattr(step_run, name) for name in _STEP_FIELDS}
    data["state"] = step_run.state.value
    return data


def run_from_json(text: str) -> Run:
    """Rebuild a run from :func:`run_to_json` text."""
    return run_from_json_data(json.loads(text))


def run_from_json_data(data: dict[str, Any]) -> Run:
    """Rebuild a run from the parsed data of :func:`run_to_json` (consumed)."""
    steps = {}
    for item in data["steps"]:
        item["state"] = StepState(item["state"])
        if item.get("waiting_for") is not None:
            item["waiting_for"] = WaitingFor(item["waiting_for"])
        steps[item["step_id"]] = StepRun(**item)
    data.update(
        state=RunState(data["state"]),
        steps=steps,
        completion_order=AppendOnly(data["completion_order"]),
        processed=KeySet(data["processed"]),
        compensation=tuple(data["compensation"]),
        compensated=tuple(data["compensated"]),
    )
    return Run(**data)


PART_FIELDS = ("steps", "edges", "processed", "completion_order")
"""The fields of a run that grow with it; the SQLite store keeps them as one row per item
(:func:`run_parts`) and the rest as the run's head (:func:`run_head_json`)."""
_HEAD_FIELDS = tuple(name for name in _RUN_FIELDS if name not in PART_FIELDS)
Part = tuple[str, str, int, str]  # (part, key, seq, value as JSON)


def run_head_json(run: Run) -> str:
    """:func:`run_to_json` of the run with its growing parts left empty: a size that does
    not depend on how many steps, edges or events the run has."""
    data: dict[str, Any] = {name: getattr(run, name) for name in _HEAD_FIELDS}
    data["state"] = run.state.value
    data["loops"] = dict(run.loops)
    data["compensation"] = list(run.compensation)
    data["compensated"] = list(run.compensated)
    data.update(steps=[], edges={}, processed=[], completion_order=[])
    return json.dumps(data, separators=(",", ":"), sort_keys=True, check_circular=False)


def step_json(step_run: StepRun) -> str:
    """One step run as the JSON of a ``step`` part."""
    return json.dumps(step_data(step_run), separators=(",", ":"), sort_keys=True)


def run_parts(run: Run, previous: Run | None, delta: RunDelta | None = None
              ) -> tuple[list[Part], list[tuple[str, str]]]:
    """The part rows a transition from ``previous`` (``None``: a new run) to ``run`` writes,
    and the (part, key) rows it deletes (:func:`changed_items` with each item's value).

    >>> import dataclasses
    >>> from workflow.model import new_run
    >>> run = new_run("r", "w", "1", "h", {}, at=0.0)
    >>> later = dataclasses.replace(run, edges={"a->b": "taken"}, processed=frozenset({"start"}))
    >>> run_parts(later, run)
    ([('edge', 'a->b', 0, '"taken"'), ('processed', 'start', 0, '1')], [])
    """
    written, deleted = changed_items(run, previous, delta)
    return [(part, key, seq, _part_value(run, part, key, seq))
            for part, key, seq in written], deleted


def _part_value(run: Run, part: str, key: str, seq: int) -> str:
    if part == "step":
        return step_json(run.steps[key])
    if part == "edge":
        return json.dumps(run.edges[key])
    if part == "done":
        return json.dumps(run.completion_order[seq])
    return "1"


ItemRow = tuple[str, str, int]  # (part, key, seq)


def changed_items(run: Run, previous: Run | None, delta: RunDelta | None = None
                  ) -> tuple[list[ItemRow], list[tuple[str, str]]]:
    """The (part, key, seq) items a transition from ``previous`` (``None``: a new run) to
    ``run`` writes, and the (part, key) items it deletes. With ``delta`` (what the
    transition changed, when it says) only those items are looked at, so the cost follows
    the change, not the run; without, every step, edge and key is compared (unchanged step
    runs are the same objects in both runs: an identity check each). A new step's seq is
    its place after every older one; an existing step's is 0 (its row keeps its own).

    >>> import dataclasses
    >>> from workflow.model import StepRun, new_run
    >>> run = new_run("r", "w", "1", "h", {}, at=0.0)
    >>> later = dataclasses.replace(run, steps={"a": StepRun("a")}, completion_order=("a",))
    >>> changed_items(later, run)
    ([('step', 'a', 0), ('done', '000000000', 0)], [])
    """
    if previous is None:
        return _all_items(run), []
    old_steps, old_edges, old_done = previous.steps, previous.edges, previous.completion_order
    steps, edges, done = run.steps, run.edges, run.completion_order
    if delta is not None:
        touched = [s for s in sorted(delta.steps) if s in old_steps]
        added_ids = [s for s in delta.steps if s not in old_steps and s in steps]
        touched += sorted(added_ids, key=steps.place)  # new steps come last, in their order
        changed_edges = sorted(delta.edges)
        new_keys = sorted(delta.processed)
    else:
        touched = [step_id for step_id, step_run in steps.items()
                   if old_steps.get(step_id) is not step_run]
        changed_edges = sorted(set(edges) ^ set(old_edges)
                               | {e for e, state in edges.items() if old_edges.get(e) != state})
        new_keys = sorted(run.processed - previous.processed)
    written: list[ItemRow] = []
    added = len(old_steps)  # a new step goes after every older one: its seq is its place
    for step_id in touched:
        before = old_steps.get(step_id)
        if before is None:
            written.append(("step", step_id, added))
            added += 1
        elif before != steps[step_id]:  # an existing row keeps its seq (see the upsert)
            written.append(("step", step_id, 0))
    written += [("edge", e, 0) for e in changed_edges if e in edges]
    written += [("processed", key, 0) for key in new_keys]
    deleted = [("edge", e) for e in changed_edges if e not in edges and e in old_edges]
    if len(done) >= len(old_done) and done[len(old_done) - 1:len(old_done)] == old_done[-1:]:
        start = len(old_done)  # appended to (the only way a transition changes it)
    else:
        start = 0
        deleted += [("done", f"{i:09d}") for i in range(len(old_done))]
    written += [("done", f"{i:09d}", i) for i in range(start, len(done))]
    return written, deleted


def _all_items(run: Run) -> list[ItemRow]:
    """Every item of a new run."""
    return ([("step", s, seq) for seq, s in enumerate(run.steps)]
            + [("edge", e, 0) for e in sorted(run.edges)]
            + [("processed", key, 0) for key in sorted(run.processed)]
            + [("done", f"{i:09d}", i) for i in range(len(run.completion_order))])


def run_from_head(head: str, items: str) -> Run:
    """Rebuild a run from :func:`run_head_json` text and a JSON object of its growing
    fields (``steps``, ``edges``, ``processed``, ``completion_order``), as the PostgreSQL
    store reads them.

    >>> from workflow.model import new_run
    >>> run = new_run("r", "w", "1", "h", {}, at=5.0)
    >>> items = '{"steps":[],"edges":{"a->b":"taken"},"processed":["x"],"completion_order":[]}'
    >>> later = run_from_head(run_head_json(run), items)
    >>> dict(later.edges), later.revision
    ({'a->b': 'taken'}, 1)
    """
    data = json.loads(head)
    data.update(json.loads(items))
    return run_from_json_data(data)


def run_from_parts(head: str, parts: list[tuple[str, str, str]]) -> Run:
    """Rebuild a run from :func:`run_head_json` text and its (part, key, value) rows in
    order (a head written before the parts existed keeps its own items)."""
    data = json.loads(head)
    steps, edges, processed, done = data["steps"], data["edges"], data["processed"], \
        data["completion_order"]
    for part, key, value in parts:
        if part == "step":
            steps.append(json.loads(value))
        elif part == "edge":
            edges[key] = json.loads(value)
        elif part == "processed":
            processed.append(key)
        elif part == "done":
            done.append(json.loads(value))
    return run_from_json_data(data)
