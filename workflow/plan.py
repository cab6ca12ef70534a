"""A registered definition compiled for running: defaults applied, guards parsed, adjacency.

Pre-condition: the definition is valid (:func:`workflow.validation.require_valid`).
Post-condition: every step has its effective policy, attempts, timeout and executor, and
every loop-back edge knows the body it re-runs (the steps its target reaches forward).

>>> from workflow.definitions import VersionRegistry
>>> from workflow.dsl import load_definition_text
>>> d = load_definition_text("workflow: w\\nsteps: [{id: a, kind: Tool, tool: t}]")
>>> plan = compile_plan(VersionRegistry().register(d))
>>> plan.steps["a"].failure_policy, plan.steps["a"].max_attempts, plan.entries
('Fail', 1, ('a',))
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass

import networkx as nx

from workflow.config import DEFAULTS, GUARD_LITERALS
from workflow.definitions import RegisteredDefinition
from workflow.dsl import Step, Transition


@dataclass(frozen=True, slots=True)
class StepSpec:
    """A step with the defaults of :mod:`workflow.config` applied."""

    step: Step
    executor: str | None
    action_class: str
    failure_policy: str
    max_attempts: int
    timeout_minutes: float | None
    rule: object  # parsed Condition expression (None for other kinds)

    @property
    def id(self) -> str:
        return self.step.id

    @property
    def kind(self) -> str:
        return self.step.kind


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
    compensations = {s.id for s in definition.steps if s.kind == "Compensation"}
    return Plan(
        workflow=definition.workflow,
        version=definition.version,
        hash=registered.hash,
        order=order,
        steps={step.id: _spec(step) for step in definition.steps},
        incoming={s: tuple(e for e in forward if e.target == s) for s in order},
        outgoing={s: tuple(e for e in forward if e.source == s) for s in order},
        loop_backs={s: tuple(e for e in loops if e.source == s) for s in order},
        loop_bodies={e.id: frozenset(nx.descendants(graph, e.target)) | {e.target}
                     for e in loops},
        guards={e.id: _guard(e.guard) for e in definition.edges if e.guard is not None},
        entries=tuple(s for s in order if graph.in_degree(s) == 0 and s not in compensations),
        sinks=tuple(s for s in order if graph.out_degree(s) == 0),
        max_loop_iterations=definition.max_loop_iterations
        or DEFAULTS.default_max_loop_iterations,
    )


def _spec(step: Step) -> StepSpec:
    timeout = step.timeout_minutes
    if timeout is None and step.kind in ("Agent", "Tool", "Compensation"):
        timeout = DEFAULTS.default_step_timeout_minutes
    return StepSpec(
        step=step,
        executor=step.agent if step.kind == "Agent" else step.tool,
        action_class=step.action_class or DEFAULTS.action_class,
        failure_policy=step.failure_policy or DEFAULTS.failure_policy,
        max_attempts=step.max_attempts or DEFAULTS.max_attempts,
        timeout_minutes=timeout,
        rule=json.loads(step.expression) if step.kind == "Condition" and step.expression else None,
    )


def _guard(text: str) -> object:
    return text if text in GUARD_LITERALS else json.loads(text)
