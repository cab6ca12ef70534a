"""A run's progress laid over its definition's drawing: a status per step and per edge,
the run's queued timers and its compensation.

Pre-condition: ``run`` is a run of ``definition`` (same steps and edge ids).
Post-condition: every step and every edge of the definition has a status; a step the run
never touched is Pending with no attempts. Nothing here reads or changes a layout: the
drawing of a run is the drawing of its definition with these statuses added
(:mod:`renderer.run_graph`).

Edge states come from ``run.edges``: ``taken`` is taken, ``dead`` is not taken, absent is
pending. The engine never records loop-back edges there (taking one resets the loop's
body instead), so a loop-back is taken once ``run.loops`` counts an iteration of it, not
taken when its source finished this iteration without taking it (Succeeded or Skipped),
and pending otherwise.

>>> from workflow.dsl import load_definition_text
>>> from workflow.model import new_run
>>> d = load_definition_text("workflow: w\\nsteps: [{id: a, kind: Timer, delayMinutes: 1}]")
>>> overlay = run_overlay(d, new_run("r1", "w", "1", "h", {}, at=0.0))
>>> overlay.steps["a"].state, overlay.steps["a"].attempts
(<StepState.PENDING: 'Pending'>, 0)
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from renderer.diagram import EdgeState
from workflow.dsl import Definition, Transition
from workflow.model import Run, RunState, StepRun, StepState
from workflow.store import QueuedSignal

EDGE_STATES: Mapping[str, EdgeState] = {"taken": EdgeState.TAKEN, "dead": EdgeState.NOT_TAKEN}
"""``run.edges`` values -> edge state (an absent edge is pending)."""

LOOP_SOURCE_DONE = (StepState.SUCCEEDED, StepState.SKIPPED)
"""States of a loop-back's source in which the engine has decided the loop-back."""


@dataclass(frozen=True, slots=True)
class StepStatus:
    """One step in the run: state, attempts in its current iteration, the iteration
    (0 until a loop-back re-runs it), when it started and finished, the error of its last
    failed attempt (until one succeeds) and what a Waiting step waits for."""

    state: StepState
    attempts: int
    iteration: int
    started_at: float | None
    finished_at: float | None
    error: str | None
    waiting_for: str | None


@dataclass(frozen=True, slots=True)
class EdgeStatus:
    """One edge in the run; ``iterations`` counts a loop-back's takings (``None`` for
    edges that are not loop-backs)."""

    state: EdgeState
    iterations: int | None = None


@dataclass(frozen=True, slots=True)
class RunOverlay:
    """What a run adds to its definition's drawing; ``child_runs`` names the child run
    (id and state) drawn inside each opened SubWorkflow step (:mod:`renderer.run_views`)."""

    run_id: str
    workflow: str
    version: str
    state: RunState
    revision: int
    steps: Mapping[str, StepStatus]
    edges: Mapping[str, EdgeStatus]
    timers: tuple[QueuedSignal, ...]
    compensation: tuple[str, ...]
    compensated: tuple[str, ...]
    child_runs: Mapping[str, tuple[str, RunState]] = field(default_factory=dict)


def run_overlay(definition: Definition, run: Run, queued: Iterable[QueuedSignal] = ()
                ) -> RunOverlay:
    """The overlay of ``run`` (a run of ``definition``); ``queued`` are the run's queue
    rows (``store.queued_for``), of which the timer firings are kept, in due order."""
    steps = {step.id: step_status(run.steps.get(step.id) or StepRun(step.id))
             for step in definition.steps}
    edges = {edge.id: edge_status(edge, run) for edge in definition.edges}
    timers = tuple(sorted((s for s in queued if _is_timer(s)),
                          key=lambda s: (s.due_at, s.signal_id)))
    return RunOverlay(run.run_id, run.workflow, run.version, run.state, run.revision, steps,
                      edges, timers, run.compensation, run.compensated)


def step_status(step: StepRun) -> StepStatus:
    """The status of one step run.

    >>> step_status(StepRun("a", StepState.WAITING, attempt=2, error="boom")).attempts
    2
    """
    waiting_for = None if step.waiting_for is None else step.waiting_for.value
    return StepStatus(step.state, step.attempt, step.iteration, step.started_at,
                      step.finished_at, step.error, waiting_for)


def edge_status(edge: Transition, run: Run) -> EdgeStatus:
    """The status of one edge of ``run`` (see the module doc for loop-backs).

    >>> from workflow.model import new_run
    >>> run = new_run("r", "w", "1", "h", {}, at=0.0)
    >>> edge_status(Transition("a->b", "a", "b"), run).state
    <EdgeState.PENDING: 'pending'>
    """
    if not edge.is_loop_back:
        return EdgeStatus(EDGE_STATES.get(run.edges.get(edge.id, ""), EdgeState.PENDING))
    iterations = run.loops.get(edge.id, 0)
    source = run.steps.get(edge.source)
    if iterations > 0:
        state = EdgeState.TAKEN
    elif source is not None and source.state in LOOP_SOURCE_DONE:
        state = EdgeState.NOT_TAKEN
    else:
        state = EdgeState.PENDING
    return EdgeStatus(state, iterations)


def _is_timer(signal: QueuedSignal) -> bool:
    payload = signal.payload
    return isinstance(payload, Mapping) and payload.get("type") == "TimerFired"
