"""JSON views of the engine's records for the workflow API (camelCase, ISO 8601 UTC times).

>>> iso_time(0.25)
'1970-01-01T00:00:00.250Z'
>>> iso_time(-60e9)  # years before 1000 keep four digits
'0068-09-03T13:20:00.000Z'
>>> iso_time(None) is None
True
"""

from __future__ import annotations

import datetime
import functools
import math
from collections.abc import Iterable
from typing import Any

from workflow.model import Run, RunState, StepRun, StepState
from workflow.plan import Plan
from workflow.store import (
    AuditEntry,
    DeadLetter,
    DefinitionRow,
    HumanTask,
    OutboxEntry,
    QueuedSignal,
)

JsonObject = dict[str, Any]


def iso_time(seconds: float | None) -> str | None:
    """Seconds since the epoch as ISO 8601 UTC with milliseconds (``None`` stays).

    The time as :meth:`datetime.datetime.fromtimestamp` reads it (rounded half to even to
    the microsecond, then cut to the millisecond). A run's record writes a dozen times from
    the same few seconds, so the text of each whole second is kept (:func:`_second_text`).

    >>> iso_time(0.0), iso_time(1_700_000_000.9996), iso_time(-0.5)
    ('1970-01-01T00:00:00.000Z', '2023-11-14T22:13:20.999Z', '1969-12-31T23:59:59.500Z')
    >>> iso_time(-62_135_596_800.0)
    '0001-01-01T00:00:00.000Z'
    """
    if seconds is None:
        return None
    fraction, whole = math.modf(seconds)
    micros, second = round(fraction * 1e6), int(whole)
    if micros >= 1_000_000:
        second, micros = second + 1, micros - 1_000_000
    elif micros < 0:
        second, micros = second - 1, micros + 1_000_000
    return f"{_second_text(second)}.{micros // 1000:03d}Z"


@functools.lru_cache(maxsize=4096)
def _second_text(second: int) -> str:
    moment = datetime.datetime.fromtimestamp(second, tz=datetime.UTC)
    return f"{moment.year:04d}-" + moment.strftime("%m-%dT%H:%M:%S")


def parse_iso_time(text: str) -> float:
    """Seconds since the epoch of an ISO 8601 time (naive times are UTC).

    >>> parse_iso_time("1970-01-02T00:00:00Z")
    86400.0
    """
    moment = datetime.datetime.fromisoformat(text.replace("Z", "+00:00").replace("z", "+00:00"))
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=datetime.UTC)
    return moment.timestamp()


def summary(run: Run) -> JsonObject:
    """A run as listed."""
    return {"workflowInstanceId": run.run_id, "workflowName": run.workflow,
            "workflowVersion": run.version, "state": run.state.value,
            "businessReference": run.business_reference, "revision": run.revision,
            "reason": run.reason, "parentWorkflowInstanceId": run.parent_run_id,
            "createdAt": iso_time(run.created_at), "updatedAt": iso_time(run.updated_at)}


def next_steps(plan: Plan, run: Run) -> list[JsonObject]:
    """What the run works on next: its active steps, or the entry steps of a new run."""
    if run.state is RunState.PENDING:
        return [{"stepId": s, "kind": str(plan.steps[s].kind), "state": StepState.PENDING.value}
                for s in plan.entries]
    return [{"stepId": s.step_id, "kind": str(plan.steps[s.step_id].kind),
             "state": s.state.value, "waitingFor": s.waiting_for}
            for s in run.steps.values() if s.state.is_active]


def instance(plan: Plan, run: Run, *, events: Iterable[OutboxEntry],
             queued: Iterable[QueuedSignal], children: Iterable[Run],
             tasks: Iterable[HumanTask]) -> JsonObject:
    """The whole record of a run: every step of its plan with attempts and timings,
    edges, loops, timers, compensation, child runs and human tasks."""
    attempts = attempts_by_step(events)
    steps = [_step(plan, run.steps.get(step_id) or StepRun(step_id), attempts.get(step_id, []))
             for step_id in plan.order]
    return {**summary(run), "definitionHash": run.definition_hash, "input": run.input,
            "variables": run.variables, "output": run.output, "steps": steps,
            "edges": dict(run.edges), "loops": dict(run.loops),
            "timers": [timer(s) for s in queued if s.payload.get("type") == "TimerFired"],
            "compensation": {"pending": list(run.compensation),
                             "compensated": list(run.compensated)},
            "children": [summary(child) for child in children],
            "tasks": [task(t) for t in tasks], "nextTasks": next_steps(plan, run)}


def _step(plan: Plan, step: StepRun, attempts: list[JsonObject]) -> JsonObject:
    return {"stepId": step.step_id, "kind": str(plan.steps[step.step_id].kind),
            "state": step.state.value, "iteration": step.iteration, "attempt": step.attempt,
            "attemptId": step.attempt_id, "waitingFor": step.waiting_for, "output": step.output,
            "error": step.error, "startedAt": iso_time(step.started_at),
            "finishedAt": iso_time(step.finished_at), "attempts": attempts}


def attempts_by_step(events: Iterable[OutboxEntry]) -> dict[str, list[JsonObject]]:
    """Every attempt of every step, from the run's outbox: ``step.started`` opens one
    (its detail is the attempt id), ``step.attempt_failed`` and ``step.succeeded`` end it.

    >>> entries = [OutboxEntry(1, "r", "step.started", "a", "a@0.1", 1.0),
    ...            OutboxEntry(2, "r", "step.attempt_failed", "a", "boom", 2.0),
    ...            OutboxEntry(3, "r", "step.started", "a", "a@0.2", 3.0),
    ...            OutboxEntry(4, "r", "step.succeeded", "a", None, 4.0)]
    >>> [(a["attemptId"], a["outcome"], a["error"]) for a in attempts_by_step(entries)["a"]]
    [('a@0.1', 'failed', 'boom'), ('a@0.2', 'succeeded', None)]
    """
    found: dict[str, list[JsonObject]] = {}
    for entry in events:
        if entry.step_id is None:
            continue
        attempts = found.setdefault(entry.step_id, [])
        if entry.kind == "step.started":
            attempts.append({"attemptId": entry.detail, "startedAt": iso_time(entry.created_at),
                             "endedAt": None, "outcome": None, "error": None})
        elif attempts and attempts[-1]["outcome"] is None:
            ending = _ENDINGS.get(entry.kind)
            if ending is not None:
                attempts[-1].update(outcome=ending, endedAt=iso_time(entry.created_at),
                                    error=entry.detail if ending == "failed" else None)
    return found


_ENDINGS = {"step.succeeded": "succeeded", "step.attempt_failed": "failed",
            "step.cancelled": "cancelled"}


def timer(signal: QueuedSignal) -> JsonObject:
    """A queued TimerFired row: whose timer it is, why, and when it is due."""
    payload = signal.payload
    return {"stepId": payload.get("step_id"), "attemptId": payload.get("attempt_id"),
            "purpose": payload.get("purpose"), "dueAt": iso_time(signal.due_at)}


def task(t: HumanTask) -> JsonObject:
    """A human task."""
    return {"taskId": t.task_id, "workflowInstanceId": t.run_id, "stepId": t.step_id,
            "attemptId": t.attempt_id, "reason": t.reason, "assignee": t.assignee,
            "status": t.status.value, "createdAt": iso_time(t.created_at),
            "closedAt": iso_time(t.closed_at), "decision": t.decision, "closedBy": t.closed_by}


def definition_version(row: DefinitionRow) -> JsonObject:
    """One stored version of a definition."""
    return {"workflowName": row.workflow, "version": row.version, "graphHash": row.hash,
            "steps": row.steps, "loadedAt": iso_time(row.loaded_at)}


def dead_letter(letter: DeadLetter) -> JsonObject:
    """A dead-lettered queue row."""
    return {"signalId": letter.signal_id, "workflowInstanceId": letter.run_id,
            "kind": str(letter.kind), "attempts": letter.attempts, "error": letter.error,
            "failedAt": iso_time(letter.failed_at), "payload": letter.payload}


def event(entry: OutboxEntry) -> JsonObject:
    """An outbox row, as the feed gives it."""
    return {"seq": entry.seq, "workflowInstanceId": entry.run_id, "kind": entry.kind,
            "stepId": entry.step_id, "detail": entry.detail, "at": iso_time(entry.created_at)}


def audit(entry: AuditEntry) -> JsonObject:
    """An audit row."""
    return {"seq": entry.seq, "actor": entry.actor, "action": entry.action,
            "target": entry.target, "revisionBefore": entry.revision_before,
            "revisionAfter": entry.revision_after, "at": iso_time(entry.at),
            "detail": entry.detail}
