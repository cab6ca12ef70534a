"""Scratch state of one transition: a private, mutable copy of a run plus the effects so far.

:func:`workflow.transition.advance` copies the run in, lets the flow rules
(:mod:`workflow.flow`, :mod:`workflow.policies`) change the copy, then freezes it back
into a new :class:`~workflow.model.Run`. The caller's run is never touched.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

from workflow.model import Effect, EmitEvent, Json, Run, RunState, StepRun, StepState
from workflow.plan import Plan


@dataclass(slots=True)
class Scratch:
    """Working copy of a run during one transition."""

    plan: Plan
    run: Run
    now: float
    steps: dict[str, StepRun] = field(default_factory=dict)
    edges: dict[str, str] = field(default_factory=dict)
    loops: dict[str, int] = field(default_factory=dict)
    completion_order: list[str] = field(default_factory=list)
    effects: list[Effect] = field(default_factory=list)
    state: RunState = RunState.RUNNING
    reason: str | None = None
    compensation: list[str] = field(default_factory=list)
    compensated: list[str] = field(default_factory=list)
    step_transitions: int = 0

    @classmethod
    def of(cls, plan: Plan, run: Run, now: float) -> Scratch:
        """Copy ``run`` into fresh scratch state."""
        return cls(plan, run, now, dict(run.steps), dict(run.edges), dict(run.loops),
                   list(run.completion_order), [], run.state, run.reason,
                   list(run.compensation), list(run.compensated))

    def step(self, step_id: str) -> StepRun:
        """The current step run (a Pending one if the step never ran)."""
        return self.steps.get(step_id) or StepRun(step_id)

    def update(self, step_id: str, **changes: Any) -> StepRun:
        """Replace fields of a step run."""
        current = self.step(step_id)
        updated = dataclasses.replace(current, **changes)
        self.step_transitions += updated.state is not current.state
        self.steps[step_id] = updated
        return updated

    def emit(self, kind: str, step_id: str | None = None, detail: str | None = None) -> None:
        """Add an outbox lifecycle event."""
        self.effects.append(EmitEvent(kind, step_id, detail))

    def finish(self, state: RunState, reason: str | None = None) -> None:
        """End the run (first finish wins) and cancel what is still active."""
        if self.state.is_finished:
            return
        self.state, self.reason = state, reason
        for step_id, step_run in list(self.steps.items()):
            if step_run.state.is_active or step_run.state is StepState.COMPENSATING:
                self.update(step_id, state=StepState.CANCELLED, finished_at=self.now,
                            waiting_for=None)
        self.emit(f"run.{state.value.lower()}", detail=reason)

    def outputs(self) -> dict[str, Json]:
        """Recorded outputs of succeeded steps, by step id."""
        return {s: r.output for s, r in self.steps.items() if r.state is StepState.SUCCEEDED}

    def context(self) -> dict[str, Json]:
        """What JSONLogic may see: recorded outputs, the run input and run variables."""
        return {**self.outputs(), "input": self.run.input, "variables": self.run.variables}

    def freeze(self, key: str) -> Run:
        """The new run: scratch state frozen, ``key`` recorded as processed."""
        return dataclasses.replace(
            self.run, state=self.state, reason=self.reason, updated_at=self.now,
            steps={s: self.steps[s] for s in self.plan.order if s in self.steps},
            edges=dict(self.edges), loops=dict(self.loops),
            completion_order=tuple(self.completion_order),
            processed=self.run.processed | {key},
            compensation=tuple(self.compensation), compensated=tuple(self.compensated),
            transitions=self.run.transitions + 1,
            step_transitions=self.run.step_transitions + self.step_transitions,
        )
