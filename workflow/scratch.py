"""Scratch state of one transition: a private, mutable copy of a run plus the effects so far.

:func:`workflow.transition.advance` copies the run in, lets the flow rules
(:mod:`workflow.flow`, :mod:`workflow.policies`) change the copy, then freezes it back
into a new :class:`~workflow.model.Run`. The caller's run is never touched.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Iterator, Mapping, MutableMapping
from dataclasses import dataclass, field
from typing import Any

from workflow.model import Effect, EmitEvent, Json, Run, RunDelta, RunState, StepRun, StepState
from workflow.persistent import OrderedMap
from workflow.plan import Plan


class Overlay(MutableMapping[str, Any]):
    """A writable view over a persistent map: reads fall through to ``base``, writes and
    removals stay here (``changed`` names the keys touched), and :meth:`result` is the new
    persistent version. Making one, and changing a few keys, costs what was changed, not
    the size of ``base``.

    >>> base = OrderedMap({"a": 1, "b": 2})
    >>> view = Overlay(base); view["c"] = 3; _ = view.pop("a")
    >>> sorted(view.changed), list(view.result().items()), list(base.items())
    (['a', 'c'], [('b', 2), ('c', 3)], [('a', 1), ('b', 2)])
    """

    __slots__ = ("_removed", "_written", "base", "changed")

    def __init__(self, base: OrderedMap[str, Any]) -> None:
        self.base = base
        self.changed: set[str] = set()
        self._written: dict[str, Any] = {}  # in first-write order, as a dict would add them
        self._removed: set[str] = set()

    def __getitem__(self, key: str) -> Any:
        if key in self._written:
            return self._written[key]
        if key in self._removed:
            raise KeyError(key)
        return self.base[key]

    def get(self, key: str, default: Any = None) -> Any:
        if key in self._written:
            return self._written[key]
        if key in self._removed:
            return default
        return self.base.get(key, default)

    def __contains__(self, key: object) -> bool:
        if key in self._written:
            return True
        return key not in self._removed and key in self.base

    def __setitem__(self, key: str, value: Any) -> None:
        self.changed.add(key)
        self._written[key] = value

    def __delitem__(self, key: str) -> None:
        if key not in self:
            raise KeyError(key)
        self.changed.add(key)
        self._written.pop(key, None)
        if key in self.base:
            self._removed.add(key)

    def __iter__(self) -> Iterator[str]:
        """Keys in the order of the new version (a full pass: only for rare, whole-run
        work such as finishing a run)."""
        return iter(self.result())

    def __len__(self) -> int:
        return len(self.result())

    def unchanged(self) -> bool:
        """Whether every write left ``base``'s value in place (and nothing was removed)."""
        return not self._removed and all(
            key in self.base and self.base[key] == value for key, value in self._written.items())

    def result(self) -> OrderedMap[str, Any]:
        """The new persistent version: ``base`` with the removals, then the writes (a key
        removed and written again goes last, as in a dict)."""
        return self.base.apply(self._written, removed=self._removed)


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
    steps: Overlay
    edges: Overlay
    loops: dict[str, int] = field(default_factory=dict)
    completion_order: list[str] = field(default_factory=list)  # steps done in this transition
    effects: list[Effect] = field(default_factory=list)
    state: RunState = RunState.RUNNING
    reason: str | None = None
    compensation: list[str] = field(default_factory=list)
    compensated: list[str] = field(default_factory=list)
    step_transitions: int = 0

    @classmethod
    def of(cls, plan: Plan, run: Run, now: float) -> Scratch:
        """Copy ``run`` into fresh scratch state."""
        return cls(plan, run, now, Overlay(run.steps), Overlay(run.edges),
                   dict(run.loops),
                   [], [], run.state, run.reason,
                   list(run.compensation), list(run.compensated))

    def completed(self) -> Iterator[str]:
        """Every step completion of the run so far, in order (the run's, then this
        transition's)."""
        yield from self.run.completion_order
        yield from self.completion_order

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

    @staticmethod
    def touched(mapping: Overlay) -> set[str]:
        """The keys of ``steps`` or ``edges`` written or removed in this transition."""
        return mapping.changed

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
            steps=self.steps.result(),  # first-touch order: a new step goes last
            edges=self.edges.result(), loops=dict(self.loops),
            completion_order=self.run.completion_order.extend(self.completion_order),
            processed=self.run.processed.add(key),
            compensation=tuple(self.compensation), compensated=tuple(self.compensated),
            transitions=self.run.transitions + 1,
            step_transitions=self.run.step_transitions + self.step_transitions,
        )
        run.remember_transition(frozenset(self.active()), delta)
        return run
