"""A registered definition compiled for running: defaults applied, guards parsed, adjacency.

Pre-condition: the definition is valid (:func:`workflow.validation.require_valid`).
Post-condition: every step has its effective policy, attempts, timeout and executor, and
every loop-back edge knows the body it re-runs (the steps its target reaches forward).

>>> from workflow.definitions import VersionRegistry
>>> from workflow.dsl import load_definition_text
>>> d = load_definition_text("workflow: w\\nsteps: [{id: a, kind: Tool, tool: t}]")
>>> plan = compile_plan(VersionRegistry().register(d))
>>> plan.steps["a"].kind, plan.steps["a"].executor, plan.steps["a"].timeout_minutes
(<StepKind.TOOL: 'Tool'>, 't', 60.0)
>>> plan.steps["a"].failure_policy, plan.steps["a"].max_attempts, plan.entries
(<FailurePolicy.FAIL: 'Fail'>, 1, ('a',))
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass

import networkx as nx

from workflow.config import DEFAULTS, GUARD_LITERALS
from workflow.definitions import RegisteredDefinition
from workflow.dsl import Step, Transition, field_value
from workflow.kinds import FailurePolicy, KindRule, StepKind, rule_of


@dataclass(frozen=True, slots=True)
class StepSpec:
    """A step with the defaults of :mod:`workflow.config` applied."""

    step: Step
    kind: StepKind
    executor: str | None
    action_class: str
    failure_policy: FailurePolicy
    max_attempts: int
    timeout_minutes: float | None
    rule: object  # parsed Condition expression (None for other kinds)
    reads: tuple[str, ...] = ()  # whose outputs a dispatch carries: see :func:`dispatch_reads`

    @property
    def id(self) -> str:
        return self.step.id

    @property
    def kind_rule(self) -> KindRule:
        """The row of :data:`workflow.kinds.KIND_RULES` for this step's kind."""
        return rule_of(self.kind)


@dataclass(frozen=True, slots=True)
class Plan:
    """What the transition function needs to know about a definition."""

    workflow: str
    version: str
    hash: str
    order: tuple[str, ...]
    steps: Mapping[str, StepSpec]
    incoming: Mapping[str, tuple[Transition, ...]]  # forward edges only
    outgoing: Mapping[str, tuple[Transition, ...]]  # forward edges only
    loop_backs: Mapping[str, tuple[Transition, ...]]  # by source
    loop_bodies: Mapping[str, frozenset[str]]  # loop-back edge id -> steps re-run
    guards: Mapping[str, object]  # edge id -> literal string or parsed rule
    entries: tuple[str, ...]
    sinks: tuple[str, ...]
    max_loop_iterations: int


def compile_plan(registered: RegisteredDefinition) -> Plan:
    """Compile a registered (so valid) definition."""
    definition = registered.definition
    order = tuple(step.id for step in definition.steps)
    forward = tuple(e for e in definition.edges if not e.is_loop_back)
    loops = tuple(e for e in definition.edges if e.is_loop_back)
    graph = nx.DiGraph()
    graph.add_nodes_from(order)
    graph.add_edges_from((e.source, e.target) for e in forward)
    compensations = {s.id for s in definition.steps if s.kind == StepKind.COMPENSATION}
    incoming = _by_end(order, forward, lambda e: e.target)
    return Plan(
        workflow=definition.workflow,
        version=definition.version,
        hash=registered.hash,
        order=order,
        steps={step.id: _spec(step, incoming[step.id]) for step in definition.steps},
        incoming=incoming,
        outgoing=_by_end(order, forward, lambda e: e.source),
        loop_backs=_by_end(order, loops, lambda e: e.source),
        loop_bodies={e.id: frozenset(nx.descendants(graph, e.target)) | {e.target}
                     for e in loops},
        guards={e.id: _guard(e.guard) for e in definition.edges if e.guard is not None},
        entries=tuple(s for s in order if graph.in_degree(s) == 0 and s not in compensations),
        sinks=tuple(s for s in order if graph.out_degree(s) == 0),
        max_loop_iterations=definition.max_loop_iterations
        or DEFAULTS.default_max_loop_iterations,
    )


def _by_end(order: tuple[str, ...], edges: tuple[Transition, ...],
            end: Callable[[Transition], str]) -> dict[str, tuple[Transition, ...]]:
    """Every step's edges by one end, in edge order (one pass over the edges)."""
    grouped: dict[str, list[Transition]] = {step_id: [] for step_id in order}
    for edge in edges:
        grouped.setdefault(end(edge), []).append(edge)
    return {step_id: tuple(found) for step_id, found in grouped.items()}


def dispatch_reads(step: Step, incoming: tuple[Transition, ...]) -> tuple[str, ...]:
    """The steps whose recorded outputs an attempt's dispatch carries: the sources of the
    step's incoming forward edges, then the steps its ``reads`` names, each once (so what
    an executor receives is bounded by the definition, never by the size of the run).

    >>> edges = (Transition("a->c", "a", "c"), Transition("b->c", "b", "c"))
    >>> dispatch_reads(Step("c", "Tool", tool="t", reads=("root", "a")), edges)
    ('a', 'b', 'root')
    """
    return tuple(dict.fromkeys((*(edge.source for edge in incoming), *(step.reads or ()))))


def _spec(step: Step, incoming: tuple[Transition, ...]) -> StepSpec:
    kind = StepKind(step.kind)
    rule = rule_of(kind)
    timeout = step.timeout_minutes
    if timeout is None and rule.default_timeout:
        timeout = DEFAULTS.default_step_timeout_minutes
    return StepSpec(
        step=step,
        kind=kind,
        executor=_executor(step, rule),
        action_class=step.action_class or DEFAULTS.action_class,
        failure_policy=FailurePolicy(step.failure_policy or DEFAULTS.failure_policy),
        max_attempts=step.max_attempts or DEFAULTS.max_attempts,
        timeout_minutes=timeout,
        rule=json.loads(step.expression) if kind is StepKind.CONDITION and step.expression
        else None,
        reads=dispatch_reads(step, incoming) if rule.executor_field is not None else (),
    )


def _executor(step: Step, rule: KindRule) -> str | None:
    """The executor named by the kind's executor field (``None`` for a kind without one)."""
    if rule.executor_field is None:
        return None
    value = field_value(step, rule.executor_field)
    return None if value is None else str(value)


def _guard(text: str) -> object:
    return text if text in GUARD_LITERALS else json.loads(text)
