"""Flow rules: starting attempts by step kind, routing along edges, joins, skips and loops.

Routing follows dead-path elimination (van der Aalst et al., "Workflow Patterns", 2003;
BPEL's dead-path elimination): every forward edge ends ``taken`` or ``dead``; a step runs
once none of its incoming edges is undecided and at least one is taken, and is skipped
(propagating ``dead``) when all are dead. A Join runs as soon as its quorum of incoming
branches is taken and cancels the rest. Loop-back edges reset their body and count the
iteration against ``maxLoopIterations``.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from types import MappingProxyType
from typing import Final

from workflow import policies
from workflow.dsl import Transition
from workflow.jsonlogic import JsonLogicError, evaluate, truthy
from workflow.kinds import StepKind
from workflow.model import (
    DispatchStep,
    Effect,
    Json,
    RequestDecision,
    RunState,
    StartChildRun,
    StartTimer,
    StepRun,
    StepState,
    TimerPurpose,
    WaitingFor,
)
from workflow.plan import StepSpec
from workflow.scratch import RunContext, Scratch


def activate(w: Scratch, step_id: str) -> None:
    """Start the first attempt of a step."""
    start_attempt(w, step_id, 1)


def start_attempt(w: Scratch, step_id: str, attempt: int) -> None:
    """Start attempt number ``attempt`` of a step, by its kind (see :data:`STARTERS`)."""
    spec, previous = w.plan.steps[step_id], w.step(step_id)
    attempt_id = f"{step_id}@{previous.iteration}.{attempt}"
    started = w.now if attempt == 1 else previous.started_at
    w.update(step_id, state=StepState.RUNNING, attempt=attempt, attempt_id=attempt_id,
             started_at=started, finished_at=None, waiting_for=None)
    w.emit("step.started", step_id, attempt_id)
    STARTERS[spec.kind](w, spec, attempt_id, attempt)
    if spec.timeout_minutes is not None and spec.kind_rule.timeout_timer:
        w.effects.append(StartTimer(step_id, attempt_id, TimerPurpose.TIMEOUT,
                                    w.now + 60.0 * spec.timeout_minutes))


def dispatch_payload(w: Scratch, step_id: str, attempt: int) -> dict[str, Json]:
    """What an executor receives: the run, the step, the attempt number, the run input and
    ``outputs``, the recorded outputs of the steps it reads (:attr:`StepSpec.reads`: its
    direct predecessors and the steps its ``reads`` names) that succeeded, by step id.

    Like Argo's declared inputs, a step gets what its definition says it reads, not the
    whole run: the payload's size is bounded by the definition, so building it costs the
    same in the first and the 5,000th step of a run.
    """
    return {"run": w.run.run_id, "step": step_id, "attempt": attempt,
            "input": w.run.input, "outputs": w.outputs(w.plan.steps[step_id].reads)}


def _wait(w: Scratch, step_id: str, waiting_for: WaitingFor, effect: Effect) -> None:
    w.update(step_id, state=StepState.WAITING, waiting_for=waiting_for)
    w.effects.append(effect)


def _dispatch(w: Scratch, spec: StepSpec, attempt_id: str, attempt: int) -> None:
    """Call the step's executor (Agent, Tool, Compensation)."""
    w.effects.append(DispatchStep(spec.id, attempt_id, spec.executor or "",
                                  dispatch_payload(w, spec.id, attempt)))


def _ask_human(w: Scratch, spec: StepSpec, attempt_id: str, attempt: int) -> None:
    """Open a human task and wait for its decision."""
    _wait(w, spec.id, WaitingFor.DECISION,
          RequestDecision(spec.id, attempt_id, f"{spec.kind} task"))


def _delay(w: Scratch, spec: StepSpec, attempt_id: str, attempt: int) -> None:
    """Wait ``delayMinutes`` on a durable timer."""
    due = w.now + 60.0 * (spec.step.delay_minutes or 0.0)
    _wait(w, spec.id, WaitingFor.TIMER, StartTimer(spec.id, attempt_id, TimerPurpose.DELAY, due))


def _start_child(w: Scratch, spec: StepSpec, attempt_id: str, attempt: int) -> None:
    """Start a child run of the step's workflow and wait for it to finish."""
    _wait(w, spec.id, WaitingFor.CHILD, StartChildRun(
        spec.id, attempt_id, spec.step.workflow or "", spec.step.version, w.run.input))


def _fan_out(w: Scratch, spec: StepSpec, attempt_id: str, attempt: int) -> None:
    """Succeed at once; routing starts the branches."""
    succeed(w, spec.id, {})


def _join(w: Scratch, spec: StepSpec, attempt_id: str, attempt: int) -> None:
    """Succeed at once with the merged outputs of the taken branches."""
    succeed(w, spec.id, _join_output(w, spec.id))


def _join_output(w: Scratch, step_id: str) -> dict[str, Json]:
    merged: dict[str, Json] = {}
    for edge in w.plan.incoming[step_id]:
        source = w.step(edge.source)
        if w.edges.get(edge.id) == "taken" and isinstance(source.output, dict):
            merged.update(source.output)
    return merged


def _evaluate_condition(w: Scratch, spec: StepSpec, attempt_id: str, attempt: int) -> None:
    """Succeed with the value of the step's expression (or fail the attempt)."""
    try:
        value = evaluate(spec.rule, w.context())
    except JsonLogicError as exc:
        policies.fail_attempt(w, spec.id, f"expression failed: {exc}")
        return
    succeed(w, spec.id, {"result": _plain(value)})


def _plain(value: object) -> Json:
    """A rule's value as JSON data: the whole context (``{"var": ""}``), alone or inside a
    list, becomes a plain dict."""
    if isinstance(value, RunContext):
        return value.as_json()
    if isinstance(value, list):
        return [_plain(item) for item in value]
    return value


Starter = Callable[[Scratch, StepSpec, str, int], None]

STARTERS: Final[Mapping[StepKind, Starter]] = MappingProxyType({
    StepKind.AGENT: _dispatch,
    StepKind.TOOL: _dispatch,
    StepKind.HUMAN: _ask_human,
    StepKind.CONDITION: _evaluate_condition,
    StepKind.TIMER: _delay,
    StepKind.SUB_WORKFLOW: _start_child,
    StepKind.FANOUT: _fan_out,
    StepKind.JOIN: _join,
    StepKind.COMPENSATION: _dispatch,
})
"""How an attempt of each kind starts: ``starter(scratch, spec, attempt_id, attempt)``."""


def succeed(w: Scratch, step_id: str, output: Json) -> None:
    """Record a step's success and route along its outgoing edges."""
    w.update(step_id, state=StepState.SUCCEEDED, output=output, error=None,
             finished_at=w.now, waiting_for=None)
    w.completion_order.append(step_id)
    w.emit("step.succeeded", step_id)
    route(w, step_id)


def route(w: Scratch, source: str) -> None:
    """Decide every outgoing edge of a finished step, then consider their targets."""
    edges = w.plan.outgoing[source]
    try:
        plain = {e.id: _guard_taken(w, source, e) for e in edges if _guard(w, e) != "else"}
        loops = [e for e in w.plan.loop_backs[source] if _guard_taken(w, source, e)]
    except JsonLogicError as exc:
        w.finish(RunState.FAILED, f"guard on an edge of '{source}' failed: {exc}")
        return
    any_taken = any(taken for e_id, taken in plain.items() if w.plan.guards.get(e_id))
    for edge in edges:
        taken = plain.get(edge.id, not any_taken)
        w.edges[edge.id] = "taken" if taken else "dead"
    for edge in edges:
        consider(w, edge.target)
    for edge in loops:
        loop_back(w, edge)


def _guard(w: Scratch, edge: Transition) -> object:
    return w.plan.guards.get(edge.id)


def _guard_taken(w: Scratch, source: str, edge: Transition) -> bool:
    guard = _guard(w, edge)
    if guard is None:
        return True
    if guard == "compensate":
        return False
    if guard in ("true", "false"):
        output = w.step(source).output
        if w.plan.steps[source].kind is StepKind.CONDITION and isinstance(output, dict):
            return truthy(output.get("result")) == (guard == "true")
        return guard == "true"
    return truthy(evaluate(guard, w.context()))


def consider(w: Scratch, step_id: str) -> None:
    """Run, skip or keep waiting a Pending step, from the states of its incoming edges."""
    if w.step(step_id).state is not StepState.PENDING or w.state.is_finished:
        return
    states = [w.edges.get(e.id) for e in w.plan.incoming[step_id]]
    taken, undecided = states.count("taken"), states.count(None)
    spec = w.plan.steps[step_id]
    if spec.kind is StepKind.JOIN:
        quorum = spec.step.quorum or len(states)
        if taken >= quorum:
            w.update(step_id, state=StepState.READY)
            _cancel_rest(w, step_id)
            activate(w, step_id)
        elif taken + undecided < quorum and taken == 0:
            skip(w, step_id)
        elif taken + undecided < quorum:
            w.finish(RunState.FAILED, f"join '{step_id}' can get only {taken} of its quorum "
                     f"{quorum} branches")
    elif undecided == 0:
        activate(w, step_id) if taken else skip(w, step_id)


def skip(w: Scratch, step_id: str) -> None:
    """Skip a step whose incoming edges are all dead; its outgoing edges die too."""
    w.update(step_id, state=StepState.SKIPPED, finished_at=w.now)
    for edge in w.plan.outgoing[step_id]:
        w.edges[edge.id] = "dead"
    for edge in w.plan.outgoing[step_id]:
        consider(w, edge.target)


def _cancel_rest(w: Scratch, join_id: str) -> None:
    for edge in w.plan.incoming[join_id]:
        if w.edges.get(edge.id) is None:
            w.edges[edge.id] = "dead"
            _cancel_branch(w, edge.source)


def _cancel_branch(w: Scratch, step_id: str) -> None:
    state = w.step(step_id).state
    if not (state.is_active or state is StepState.PENDING):
        return
    w.update(step_id, state=StepState.CANCELLED, finished_at=w.now, waiting_for=None)
    w.emit("step.cancelled", step_id)
    for edge in w.plan.incoming[step_id]:
        if w.edges.get(edge.id) is None:
            w.edges[edge.id] = "dead"
            _cancel_branch(w, edge.source)


def loop_back(w: Scratch, edge: Transition) -> None:
    """Take a loop-back edge: count the iteration, reset the loop body, restart its target."""
    count = w.loops.get(edge.id, 0) + 1
    if count > w.plan.max_loop_iterations:
        w.finish(RunState.FAILED, f"loop-back edge '{edge.id}' exceeded maxLoopIterations "
                 f"{w.plan.max_loop_iterations}")
        return
    w.loops[edge.id] = count
    w.emit("loop.iteration", edge.target, str(count))
    reset(w, w.plan.loop_bodies[edge.id])
    activate(w, edge.target)


def reset(w: Scratch, body: Collection[str]) -> None:
    """Make the steps of ``body`` Pending in their next iteration (so no event for an attempt
    of theirs so far can touch them) and forget the decisions of their outgoing edges."""
    for step_id in body:
        previous = w.step(step_id)
        w.step_transitions += previous.state is not StepState.PENDING
        w.steps[step_id] = StepRun(step_id, iteration=previous.iteration + 1)
    for step_id in body:
        for out in w.plan.outgoing[step_id]:
            w.edges.pop(out.id, None)
