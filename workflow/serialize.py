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

from workflow.model import Run, RunState, StepRun, StepState, WaitingFor

_RUN_FIELDS = tuple(f.name for f in fields(Run))


def run_to_json(run: Run) -> str:
    """Compact JSON of a run (steps in definition order, processed keys sorted)."""
    data: dict[str, Any] = {name: getattr(run, name) for name in _RUN_FIELDS}
    data["state"] = run.state.value
    data["steps"] = [_step_data(step_run) for step_run in run.steps.values()]
    data["edges"] = dict(run.edges)
    data["loops"] = dict(run.loops)
    data["completion_order"] = list(run.completion_order)
    data["processed"] = sorted(run.processed)
    data["compensation"] = list(run.compensation)
    data["compensated"] = list(run.compensated)
    return json.dumps(data, separators=(",", ":"), sort_keys=True, check_circular=False)


_STEP_FIELDS = tuple(f.name for f in fields(StepRun))


def _step_data(step_run: StepRun) -> dict[str, Any]:
    data = {name: getattr(step_run, name) for name in _STEP_FIELDS}
    data["state"] = step_run.state.value
    return data


def run_from_json(text: str) -> Run:
    """Rebuild a run from :func:`run_to_json` text."""
    data = json.loads(text)
    steps = {}
    for item in data["steps"]:
        item["state"] = StepState(item["state"])
        if item.get("waiting_for") is not None:
            item["waiting_for"] = WaitingFor(item["waiting_for"])
        steps[item["step_id"]] = StepRun(**item)
    data.update(
        state=RunState(data["state"]),
        steps=steps,
        completion_order=tuple(data["completion_order"]),
        processed=frozenset(data["processed"]),
        compensation=tuple(data["compensation"]),
        compensated=tuple(data["compensated"]),
    )
    return Run(**data)
