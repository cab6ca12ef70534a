"""Semantic validation of a workflow definition: every problem at once, each naming its place.

Reading (:mod:`workflow.dsl`) only checks shape; this module checks meaning: step kinds,
unique ids, edge ends, cycles made only of declared loop-back edges with a bound, JSONLogic
guards and Condition expressions, Join quorums, Fanout width, compensation references and
``reads`` (steps upstream of the reader).
A step without a failure policy gets the default with a warning (an error under ``strict``).

>>> from workflow.dsl import load_definition_text
>>> d = load_definition_text('''
... workflow: w
... steps: [{id: a, kind: Tool, tool: t, failurePolicy: Fail}, {id: a, kind: Robot}]
... edges: [{from: a, to: b}]
... ''')
>>> for problem in validate_definition(d):  # doctest: +ELLIPSIS
...     print(problem.describe())
error: step 'a': duplicate step id
error: step 'a': unknown kind 'Robot' (known: Agent, Tool, Human, Condition, Timer, ...)
error: edge 'a->b': target 'b' is not a step
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Collection, Iterator
from dataclasses import dataclass

import networkx as nx

from workflow.config import DEFAULTS, GUARD_LITERALS
from workflow.dsl import STEP_FIELDS, Definition, Step, Transition, field_value
from workflow.jsonlogic import JsonLogicError, parse_rule
from workflow.kinds import (
    KIND_NAMES,
    KIND_RULES,
    FailurePolicy,
    StepKind,
    parse_kind,
    parse_policy,
    rule_of,
)

MAX_MINUTES = 1_000_000_000
"""Longest ``timeoutMinutes`` or ``delayMinutes`` (about 1,900 years): a timer's due time
must stay a time that can be written (before the year 10000), and NaN or infinity never is."""
MAX_ATTEMPTS = 100
"""Most ``maxAttempts`` of a step (past it the doubling backoff alone is centuries)."""
MAX_LOOP_ITERATIONS = 10_000
"""Largest ``maxLoopIterations``: each iteration is recorded in the run."""


@dataclass(frozen=True, slots=True)
class Problem:
    """One validation finding. ``subject`` names the step, edge or workflow."""

    severity: str  # "error" or "warning"
    subject: str
    message: str

    @property
    def is_error(self) -> bool:
        """Whether this problem makes the definition unusable."""
        return self.severity == "error"

    def describe(self) -> str:
        """One printable line, e.g. ``error: step 'a': duplicate step id``."""
        return f"{self.severity}: {self.subject}: {self.message}"


class InvalidDefinitionError(ValueError):
    """A definition has validation errors; ``problems`` lists all of them."""

    def __init__(self, workflow: str, problems: tuple[Problem, ...]) -> None:
        self.problems = problems
        lines = "; ".join(p.describe() for p in problems if p.is_error)
        super().__init__(f"workflow '{workflow}' is invalid: {lines}")


def validate_definition(
    definition: Definition, *, strict: bool = False, known_executors: Collection[str] = ()
) -> tuple[Problem, ...]:
    """Every problem of ``definition``, in a stable order (steps, edges, graph).

    ``known_executors`` names executors a ``compensation`` may name instead of a step.
    """
    problems = [
        *_name_problems(definition),
        *_step_problems(definition, known_executors),
        *_edge_problems(definition),
        *_graph_problems(definition),
    ]
    if strict:
        problems = [Problem("error", p.subject, p.message) for p in problems]
    return tuple(problems)


def require_valid(definition: Definition, *, known_executors: Collection[str] = ()) -> None:
    """Raise :class:`InvalidDefinitionError` when ``definition`` has any error."""
    problems = validate_definition(definition, known_executors=known_executors)
    if any(p.is_error for p in problems):
        raise InvalidDefinitionError(definition.workflow, problems)


def _name_problems(definition: Definition) -> Iterator[Problem]:
    """A name or version with a '/' could not be read back by its URL
    (``/api/workflow/definitions/{name}/versions/{version}``).

    >>> from workflow.dsl import Definition
    >>> [p.message for p in _name_problems(Definition("team/flow", "1", (), ()))]
    ["the workflow name 'team/flow' must not contain '/': it is one segment of the API's paths"]
    """
    subject = f"workflow '{definition.workflow}'"
    for what, value in (("workflow name", definition.workflow),
                        ("version", definition.version)):
        if "/" in value:
            yield Problem("error", subject, f"the {what} '{value}' must not contain '/': it "
                                            "is one segment of the API's paths")


def _step_problems(definition: Definition, known_executors: Collection[str]) -> Iterator[Problem]:
    counts = Counter(step.id for step in definition.steps)
    step_ids = set(counts)
    reported: set[str] = set()
    for step in definition.steps:
        subject = f"step '{step.id}'"
        if counts[step.id] > 1 and step.id not in reported:
            reported.add(step.id)
            yield Problem("error", subject, "duplicate step id")
        for message in _step_messages(step, step_ids, known_executors):
            yield Problem("error", subject, message)
        if _starts_itself(definition, step):
            yield Problem("error", subject, f"SubWorkflow recursion: it starts its own workflow "
                          f"'{definition.workflow}' {step.version or 'any version'} "
                          f"({definition.workflow} -> {definition.workflow})")
        if _executes(step) and step.failure_policy is None:
            yield Problem("warning", subject,
                          f"no failurePolicy; default '{DEFAULTS.failure_policy}' applies")


def _starts_itself(definition: Definition, step: Step) -> bool:
    """Whether a SubWorkflow step names its own workflow at a version matching its own."""
    from workflow.definitions import version_matches  # definitions imports this module

    return (step.kind == StepKind.SUB_WORKFLOW and step.workflow == definition.workflow
            and (step.version is None or version_matches(definition.version, step.version)))


def _executes(step: Step) -> bool:
    """Whether an attempt of the step runs something outside the engine."""
    kind = parse_kind(step.kind)
    return kind is not None and rule_of(kind).executes


def _step_messages(
    step: Step, step_ids: set[str], known_executors: Collection[str]
) -> Iterator[str]:
    yield from _kind_messages(step)
    if step.failure_policy is not None and parse_policy(step.failure_policy) is None:
        known = ", ".join(policy.value for policy in FailurePolicy)
        yield f"unknown failurePolicy '{step.failure_policy}' (known: {known})"
    if step.max_attempts is not None and not 1 <= step.max_attempts <= MAX_ATTEMPTS:
        yield f"maxAttempts must be from 1 to {MAX_ATTEMPTS}, not {step.max_attempts}"
    for name in ("timeout_minutes", "delay_minutes"):
        value = getattr(step, name)
        if value is not None and not (math.isfinite(value) and value <= MAX_MINUTES):
            yield (f"{_dsl_name(name)} must be a number of minutes up to {MAX_MINUTES:,}, "
                   f"not {value}")
        elif value is not None and value < 0:
            yield f"{_dsl_name(name)} must not be negative, not {value}"
    if step.kind == StepKind.CONDITION and step.expression is not None:
        problem = _rule_problem(step.expression, allow_literals=False)
        if problem:
            yield f"expression is not valid JSONLogic: {problem}"
    compensation = step.compensation
    if compensation is not None and compensation not in step_ids | set(known_executors):
        yield f"compensation '{compensation}' is not a step (nor a registered executor)"


def _kind_messages(step: Step) -> Iterator[str]:
    """An unknown kind, or the fields its row of :data:`~workflow.kinds.KIND_RULES` needs.

    >>> list(_kind_messages(Step("t", "Timer")))
    ["a Timer step needs 'delayMinutes'"]
    >>> list(_kind_messages(Step("t", "Clock")))  # doctest: +ELLIPSIS
    ["unknown kind 'Clock' (known: Agent, Tool, Human, ...)"]
    """
    kind = parse_kind(step.kind)
    if kind is None:
        yield f"unknown kind '{step.kind}' (known: {', '.join(KIND_NAMES)})"
        return
    for key in rule_of(kind).required_fields:
        if field_value(step, key) is None:
            yield f"a {kind} step needs '{key}'"


_DSL_KEYS = {attribute: key for key, attribute in STEP_FIELDS.items()}


def _dsl_name(attribute: str) -> str:
    """The DSL key of a step attribute (``delay_minutes`` -> ``delayMinutes``)."""
    return _DSL_KEYS[attribute]


def _rule_problem(text: str, *, allow_literals: bool) -> str | None:
    if allow_literals and text in GUARD_LITERALS:
        return None
    try:
        parse_rule(text)
    except JsonLogicError as exc:
        return str(exc)
    return None


def _edge_problems(definition: Definition) -> Iterator[Problem]:
    step_ids = {step.id for step in definition.steps}
    for edge in definition.edges:
        subject = f"edge '{edge.id}'"
        for end, name in ((edge.source, "source"), (edge.target, "target")):
            if end not in step_ids:
                yield Problem("error", subject, f"{name} '{end}' is not a step")
        if edge.guard is not None:
            problem = _rule_problem(edge.guard, allow_literals=True)
            if problem:
                yield Problem("error", subject, f"guard is not valid JSONLogic or one of "
                              f"{', '.join(GUARD_LITERALS)}: {problem}")


def _graph_problems(definition: Definition) -> Iterator[Problem]:
    step_ids = {step.id for step in definition.steps}
    edges = [e for e in definition.edges if e.source in step_ids and e.target in step_ids]
    forward = _forward_graph(definition, edges)
    yield from _cycle_problems(forward)
    yield from _loop_back_problems(definition, forward, [e for e in edges if e.is_loop_back])
    yield from _fan_problems(definition, edges)
    yield from _reads_problems(definition, forward)


def _forward_graph(definition: Definition, edges: Collection[Transition]) -> nx.DiGraph:
    """The steps and the forward (not loop-back) ones of ``edges``."""
    forward = nx.DiGraph()
    forward.add_nodes_from(step.id for step in definition.steps)
    forward.add_edges_from((e.source, e.target) for e in edges if not e.is_loop_back)
    return forward


def _cycle_problems(forward: nx.DiGraph) -> Iterator[Problem]:
    order = {node: index for index, node in enumerate(forward.nodes)}
    components = [sorted(c, key=order.__getitem__)
                  for c in nx.strongly_connected_components(forward)]
    for component in sorted(components, key=lambda c: order[c[0]]):
        if len(component) > 1 or forward.has_edge(component[0], component[0]):
            names = ", ".join(f"'{n}'" for n in component)
            yield Problem("error", f"step '{component[0]}'",
                          f"steps {names} form a cycle with no declared isLoopBack edge")


def _loop_back_problems(
    definition: Definition, forward: nx.DiGraph, loop_backs: list[Transition]
) -> Iterator[Problem]:
    bound = definition.max_loop_iterations
    if bound is not None and not 1 <= bound <= MAX_LOOP_ITERATIONS:
        yield Problem("error", "workflow", f"maxLoopIterations must be from 1 to "
                      f"{MAX_LOOP_ITERATIONS:,}, not {bound}")
    if loop_backs and bound is None:
        yield Problem("warning", "workflow", "loop-back edges without maxLoopIterations; default "
                      f"{DEFAULTS.default_max_loop_iterations} applies")
    for edge in loop_backs:
        if not nx.has_path(forward, edge.target, edge.source):
            yield Problem("error", f"edge '{edge.id}'",
                          f"isLoopBack but '{edge.target}' does not lead back to '{edge.source}'")


def _fan_problems(definition: Definition, edges: list[Transition]) -> Iterator[Problem]:
    incoming = Counter(e.target for e in edges if not e.is_loop_back)
    outgoing = Counter(e.source for e in edges if not e.is_loop_back)
    for step in definition.steps:
        subject = f"step '{step.id}'"
        if step.kind == StepKind.JOIN and step.quorum is not None:
            if step.quorum < 1:
                yield Problem("error", subject, f"quorum must be at least 1, not {step.quorum}")
            elif step.quorum > incoming[step.id]:
                yield Problem("error", subject, f"quorum {step.quorum} exceeds its "
                              f"{incoming[step.id]} incoming branches")
        if step.kind == StepKind.FANOUT and outgoing[step.id] > DEFAULTS.max_fanout:
            yield Problem("error", subject, f"{outgoing[step.id]} branches exceed MaxFanout "
                          f"{DEFAULTS.max_fanout}")


def _reads_problems(definition: Definition, forward: nx.DiGraph) -> Iterator[Problem]:
    """A step's ``reads`` must name steps upstream of it (reachable backwards along forward
    edges), and only kinds whose executor receives outputs may have one.

    >>> from workflow.dsl import load_definition_text
    >>> d = load_definition_text('''
    ... workflow: w
    ... steps: [{id: a, kind: Tool, tool: t}, {id: b, kind: Tool, tool: t, reads: [c, a, x]},
    ...         {id: c, kind: Timer, delayMinutes: 1, reads: [a]}]
    ... edges: [{from: a, to: b}, {from: b, to: c}]
    ... ''')
    >>> for problem in _reads_problems(d, _forward_graph(d, d.edges)):
    ...     print(problem.describe())
    error: step 'b': reads unknown step 'x'
    error: step 'b': reads 'c', which is not upstream of it (only steps before it on forward edges)
    error: step 'c': a Timer step calls no executor: only Agent and Tool steps have 'reads'
    """
    readers = " and ".join(rule.kind.value for rule in KIND_RULES if rule.reads_outputs)
    for step in definition.steps:
        if step.reads is None:
            continue
        subject, kind = f"step '{step.id}'", parse_kind(step.kind)
        if kind is not None and not rule_of(kind).reads_outputs:
            yield Problem("error", subject, f"a {kind} step calls no executor: only "
                          f"{readers} steps have 'reads'")
            continue
        unknown = [name for name in step.reads if name not in forward]
        if unknown:
            yield Problem("error", subject,
                          f"reads unknown step{'s' * (len(unknown) > 1)} {_names(unknown)}")
        upstream = nx.ancestors(forward, step.id) if step.id in forward else set()
        outside = [name for name in step.reads if name in forward and name not in upstream]
        if outside:
            which = "which are" if len(outside) > 1 else "which is"
            yield Problem("error", subject, f"reads {_names(outside)}, {which} not upstream "
                          "of it (only steps before it on forward edges)")


def _names(ids: list[str]) -> str:
    """``'a', 'b'``: each id once, in the order given."""
    return ", ".join(f"'{name}'" for name in dict.fromkeys(ids))
