"""Scratch state of one transition: a private, mutable copy of a run plus the effects so far.

:func:`workflow.transition.advance` copies the run in, lets the flow rules
(:mod:`workflow.flow`, :mod:`workflow.policies`) change the copy, then freezes it back
into a new :class:`~workflow.model.Run`. The caller's run is never touched.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from workflow.model import Effect, EmitEvent, Json, Run, RunDelta, RunState, StepRun, StepState
from workflow.plan import Plan


class TrackedDict(dict[str, Any]):
    """A dict that remembers the keys written or removed (``changed``), so a transition
    knows what it touched without comparing every entry of a large run.

    >>> d = TrackedDict({"a": 1}); d["b"] = 2; _ = d.pop("a"); sorted(d.changed)
    ['a', 'b']
    """

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.changed: set[str] = set()

    def __setitem__(self, key: str, value: Any) -> None:
        self.changed.add(key)
        super().__setitem__(key, value)

    def __delitem__(self, key: str) -> None:
        self.changed.add(key)
        super().__delitem__(key)

    def pop(self, key: str, *default: Any) -> Any:
        self.changed.add(key)
        return super().pop(key, *default)

    def setdefault(self, key: str, default: Any = None) -> Any:
        self.changed.add(key)
        return super().setdefault(key, default)

    def update(self, *args: Any, **kwargs: Any) -> None:
        changes = dict(*args, **kwargs)
        self.changed.update(changes)
        super().update(changes)

    def popitem(self) -> tuple[str, Any]:
        key, value = super().popitem()
        self.changed.add(key)
        return key, value

    def clear(self) -> None:
        self.changed.update(self)
        super().clear()


class RunContext(Mapping[str, Json]):
    """The data a JSONLogic rule reads: ``input``, ``variables`` and each succeeded step's
    output under its id. A read-only view over the step runs: ``{"var": "a.total"}`` looks
    up step ``a`` alone, so evaluating a guard costs what the rule reads, not the run's size.

    >>> ok = StepRun("a", state=StepState.SUCCEEDED, output={"total": 3})
    >>> context = RunContext({"a": ok, "b": StepRun("b")}, {"n": 1}, None)
    >>> context["a"], "b" in context, sorted(context)
    ({'total': 3}, False, ['a', 'input', 'variables'])
    """

    __slots__ = ("_input", "_steps", "_variables")

    def __init__(self, steps: Mapping[str, StepRun], run_input: Json, variables: Json) -> None:
        self._steps, self._input, self._variables = steps, run_input, variables

    def __getitem__(self, key: str) -> Json:
        if key == "input":
            return self._input
        if key == "variables":
            return self._variables
        found = self._steps.get(key)
        if found is None or found.state is not StepState.SUCCEEDED:
            raise KeyError(key)
        return found.output

    def __iter__(self) -> Iterator[str]:
        succeeded = (s for s, r in self._steps.items() if r.state is StepState.SUCCEEDED)
        return iter(dict.fromkeys((*succeeded, "input", "variables")))

    def __len__(self) -> int:
        return sum(1 for _ in self)

    def as_json(self) -> dict[str, Json]:
        """A plain dict copy (what ``{"var": ""}``, the whole data, evaluates to)."""
        return dict(self.items())


@dataclass(slots=True)
class Scratch:
    """Working copy of a run during one transition."""

    plan: Plan
    run: Run
    now: float
    steps: dict[str, StepRun] = field(default_factory=TrackedDict)
    edges: dict[str, str] = field(default_factory=TrackedDict)
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
        return cls(plan, run, now, TrackedDict(run.steps), TrackedDict(run.edges),
                   dict(run.loops),
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

    def touched(self, mapping: dict[str, Any]) -> set[str]:
        """The keys of ``steps`` or ``edges`` written or removed in this transition."""
        return mapping.changed if isinstance(mapping, TrackedDict) else set(mapping)

    def active(self) -> set[str]:
        """Ids of the active steps now: the run's, updated by this transition's writes."""
        ids = set(self.run.active_steps())
        for step_id in self.touched(self.steps):
            if step_id in self.steps and self.steps[step_id].state.is_active:
                ids.add(step_id)
            else:
                ids.discard(step_id)
        return ids

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

    def outputs(self, step_ids: Iterable[str]) -> dict[str, Json]:
        """Recorded outputs of those of ``step_ids`` that succeeded, by step id (looked up
        one by one: the cost is that of ``step_ids``, not of the run)."""
        found = ((s, self.steps.get(s)) for s in step_ids)
        return {s: r.output for s, r in found if r is not None and r.state is StepState.SUCCEEDED}

    def context(self) -> RunContext:
        """What JSONLogic may see: recorded outputs, the run input and run variables."""
        return RunContext(self.steps, self.run.input, self.run.variables)

    def freeze(self, key: str) -> Run:
        """The new run: scratch state frozen, ``key`` recorded as processed, with the
        transition's active and changed steps remembered (:meth:`Run.active_steps`)."""
        old, old_edges = self.run.steps, self.run.edges
        delta = RunDelta(
            frozenset(s for s in self.touched(self.steps) if old.get(s) is not self.steps.get(s)),
            frozenset(e for e in self.touched(self.edges) if old_edges.get(e) != self.edges.get(e)),
            frozenset(() if key in self.run.processed else (key,)))
        run = dataclasses.replace(
            self.run, state=self.state, reason=self.reason, updated_at=self.now,
            steps=dict(self.steps),  # first-touch order: a new step goes last
            edges=dict(self.edges), loops=dict(self.loops),
            completion_order=tuple(self.completion_order),
            processed=self.run.processed | {key},
            compensation=tuple(self.compensation), compensated=tuple(self.compensated),
            transitions=self.run.transitions + 1,
            step_transitions=self.run.step_transitions + self.step_transitions,
        )
        run.remember_transition(frozenset(self.active()), delta)
        return run
