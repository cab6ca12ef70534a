"""Seeded workflow-like graphs, shared by tests, the benchmark and the stress harness.

A generated definition is a recursive composition of blocks, the way real workflows are
written: a *sequence* of blocks, where a block is a single task step (Tool, Agent, Human,
Timer, SubWorkflow), a 2- or 3-way *Condition gateway* whose branches (sequences
themselves, one of them possibly empty) rejoin at a merge step, a *Fanout/Join* block
with a quorum no larger than its branch count, a *compensated step* (a Tool whose
``compensate`` edge leads to a Compensation step, both rejoining), or a *review loop* (a
Human step and a Condition whose ``false`` edge is a declared loop-back to the entry of an
earlier block of the same sequence).

Guarantees: exactly ``node_count`` steps; one entry step (the first); every step reachable
from it; acyclic once loop-back edges are removed; the same seed gives the same
definition. Steps are created in a topological order of the forward edges.

All randomness comes from one ``random.Random(seed)``; nothing global is touched.

>>> d = generate_definition(12, seed=7)
>>> len(d.steps), d.steps[0].id == generate_definition(12, seed=7).steps[0].id
(12, True)
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field

from workflow.dsl import Definition, Step, Transition
from workflow.kinds import FailurePolicy, StepKind

TASK_KINDS: tuple[tuple[StepKind, int], ...] = (
    (StepKind.TOOL, 36), (StepKind.AGENT, 26), (StepKind.HUMAN, 14), (StepKind.TIMER, 10),
    (StepKind.SUB_WORKFLOW, 10),
)
"""Kinds of single task steps and their relative weights."""

BLOCK_WEIGHTS: tuple[tuple[str, int], ...] = (
    ("task", 40), ("condition", 24), ("fanout", 14), ("review", 6), ("compensated", 6),
)
"""Kinds of blocks in a sequence and their relative weights."""

BLOCK_MINIMUM_SIZE: dict[str, int] = {
    "task": 1, "review": 2, "compensated": 3, "condition": 3, "fanout": 4,
}

MAX_LOOP_ITERATIONS = 3


@dataclass(frozen=True, slots=True)
class _Fragment:
    """A built block: its entry step, its exit step and the guard that every edge
    leaving the exit must carry (a review loop continues only on ``true``)."""

    entry: str
    exit: str
    exit_guard: str | None = None


@dataclass(slots=True)
class _Builder:
    """Scratch state of one generation: the random source and what was built so far."""

    rng: random.Random
    loop_backs: bool
    steps: list[Step] = field(default_factory=list)
    edges: list[Transition] = field(default_factory=list)
    edge_ids: set[str] = field(default_factory=set)

    def add_step(self, kind: StepKind, **fields: object) -> str:
        step_id = f"{_PREFIX[kind]}-{len(self.steps) + 1}"
        self.steps.append(Step(id=step_id, kind=kind.value, **fields))  # type: ignore[arg-type]
        return step_id

    def connect(self, source: str, target: str, guard: str | None = None,
                loop_back: bool = False) -> None:
        base = f"{source}->{target}"
        edge_id, count = base, 1
        while edge_id in self.edge_ids:
            count += 1
            edge_id = f"{base}#{count}"
        self.edge_ids.add(edge_id)
        self.edges.append(Transition(edge_id, source, target, guard, loop_back))

    def join(self, fragment: _Fragment, target: str) -> None:
        self.connect(fragment.exit, target, fragment.exit_guard)


_PREFIX: dict[StepKind, str] = {
    StepKind.TOOL: "tool", StepKind.AGENT: "agent", StepKind.HUMAN: "human",
    StepKind.TIMER: "timer", StepKind.SUB_WORKFLOW: "sub", StepKind.CONDITION: "decide",
    StepKind.FANOUT: "fanout", StepKind.JOIN: "join", StepKind.COMPENSATION: "undo",
}
"""The prefix of a generated step's id, by kind."""


def generate_definition(node_count: int, seed: int, *, loop_backs: bool = True) -> Definition:
    """A seeded workflow-like definition with exactly ``node_count`` steps.

    ``node_count`` must be an integer >= 2 (``ValueError`` otherwise). With
    ``loop_backs=False`` no loop-back edges are declared and the graph is a DAG.

    >>> d = generate_definition(30, seed=1)
    >>> len(d.steps), d.edges[0].source == d.steps[0].id
    (30, True)
    >>> all(not e.is_loop_back for e in generate_definition(30, 1, loop_backs=False).edges)
    True
    """
    if isinstance(node_count, bool) or not isinstance(node_count, int) or node_count < 2:
        raise ValueError(f"node_count must be an integer >= 2, not {node_count!r}")
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise ValueError(f"seed must be an integer, not {seed!r}")
    builder = _Builder(random.Random(seed), loop_backs)
    _sequence(builder, node_count, before=None)
    has_loops = any(e.is_loop_back for e in builder.edges)
    return Definition(
        workflow=f"generated-{node_count}-{seed}",
        version="1.0.0",
        steps=tuple(builder.steps),
        edges=_in_source_order(builder.steps, builder.edges),
        max_loop_iterations=MAX_LOOP_ITERATIONS if has_loops else None,
    )


def _sequence(b: _Builder, budget: int, before: str | None) -> _Fragment:
    """Blocks in series using exactly ``budget`` steps (``budget`` >= 1)."""
    fragments: list[_Fragment] = []
    remaining = budget
    while remaining > 0:
        kind = _pick_block(b, remaining, has_earlier=bool(fragments))
        if before is None and _loop_still_wanted(b, fragments, remaining, budget):
            kind = "review"
        size = _block_size(b.rng, kind, remaining, budget)
        previous = fragments[-1].exit if fragments else before
        if kind == "review":
            loop_target = b.rng.choice(fragments[-3:]).entry
            fragment = _review_loop(b, previous, loop_target)
        else:
            fragment = _BLOCKS[kind](b, size, previous)
        if fragments:
            b.join(fragments[-1], fragment.entry)
        fragments.append(fragment)
        remaining -= size
    return _Fragment(fragments[0].entry, fragments[-1].exit, fragments[-1].exit_guard)


def _loop_still_wanted(b: _Builder, fragments: list[_Fragment], remaining: int,
                       budget: int) -> bool:
    """The top-level sequence forces one review loop half-way if none came by chance."""
    return (b.loop_backs and bool(fragments) and 3 <= remaining <= budget // 2 + 2
            and not any(e.is_loop_back for e in b.edges))


def _pick_block(b: _Builder, remaining: int, has_earlier: bool) -> str:
    choices = [
        (kind, weight) for kind, weight in BLOCK_WEIGHTS
        if BLOCK_MINIMUM_SIZE[kind] <= remaining
        and (kind != "review" or (b.loop_backs and has_earlier and remaining > 2))
    ]
    kinds, weights = zip(*choices, strict=True)
    kind: str = b.rng.choices(kinds, weights=weights)[0]
    return kind


def _block_size(rng: random.Random, kind: str, remaining: int, budget: int) -> int:
    """Fixed sizes for small blocks; gateways and fanouts favour small sizes but may
    take up to a third of their sequence, so large graphs nest deeply enough."""
    if kind in ("task", "review", "compensated"):
        return BLOCK_MINIMUM_SIZE[kind]
    low = BLOCK_MINIMUM_SIZE[kind]
    high = max(low, min(remaining, 6 + budget // 3))
    return low + int(rng.random() ** 2 * (high - low + 1) * 0.999)


def _task(b: _Builder, size: int, before: str | None) -> _Fragment:
    kinds, weights = zip(*TASK_KINDS, strict=True)
    kind: StepKind = b.rng.choices(kinds, weights=weights)[0]
    step = b.add_step(kind, **_task_fields(kind, b.rng))
    return _Fragment(step, step)


def _task_fields(kind: StepKind, rng: random.Random) -> dict[str, object]:
    if kind is StepKind.TOOL:
        return {"tool": f"tool-{rng.randint(1, 9)}", "action_class": "read",
                "failure_policy": FailurePolicy.RETRY.value, "max_attempts": 3}
    if kind is StepKind.AGENT:
        return {"agent": f"agent-{rng.randint(1, 9)}", "action_class": "read",
                "failure_policy": FailurePolicy.RETRY.value, "max_attempts": 2}
    if kind is StepKind.HUMAN:
        return {"action_class": "shared-write", "failure_policy": FailurePolicy.ESCALATE.value,
                "timeout_minutes": 240.0}
    if kind is StepKind.TIMER:
        return {"delay_minutes": float(rng.choice((5, 15, 30, 60)))}
    return {"workflow": f"child-workflow-{rng.randint(1, 5)}", "version": "1.x",
            "failure_policy": FailurePolicy.FAIL.value}


def _condition(b: _Builder, size: int, before: str | None) -> _Fragment:
    """A Condition, 2 or 3 guarded branches (one may go straight to the merge step),
    and the merge step where the branches rejoin."""
    inner = size - 2
    ways = 3 if inner >= 2 and b.rng.random() < 0.35 else 2
    skip = inner < ways or b.rng.random() < 0.25
    subject = f"{before or 'input'}.result"
    guards = _guards(ways, subject)
    gate = b.add_step(StepKind.CONDITION, expression=_expression(ways, subject))
    branches = [_sequence(b, part, gate) for part in _split(b.rng, inner, ways - skip)]
    merge = _task(b, 1, None).entry
    for guard, branch in zip(guards, branches, strict=False):
        b.connect(gate, branch.entry, guard)
        b.join(branch, merge)
    if skip:
        b.connect(gate, merge, guards[-1])
    return _Fragment(gate, merge)


def _expression(ways: int, subject: str) -> str:
    if ways == 2:
        return json.dumps({">=": [{"var": subject}, 0.5]})
    return json.dumps({"var": subject})


def _guards(ways: int, subject: str) -> list[str]:
    if ways == 2:
        return ["true", "false"]
    return [json.dumps({"==": [{"var": subject}, "a"]}),
            json.dumps({"==": [{"var": subject}, "b"]}), "else"]


def _fanout(b: _Builder, size: int, before: str | None) -> _Fragment:
    """A Fanout, 2 to 4 parallel branches and a Join whose quorum is at most the
    number of branches."""
    inner = size - 2
    ways = min(b.rng.randint(2, 4), inner)
    fan = b.add_step(StepKind.FANOUT)
    branches = [_sequence(b, part, fan) for part in _split(b.rng, inner, ways)]
    quorum = b.rng.choice((ways, ways, max(1, ways - 1)))
    join = b.add_step(StepKind.JOIN, quorum=quorum)
    for branch in branches:
        b.connect(fan, branch.entry)
        b.join(branch, join)
    return _Fragment(fan, join)


def _compensated(b: _Builder, size: int, before: str | None) -> _Fragment:
    """A Tool with a compensation step on its ``compensate`` edge; both rejoin."""
    undo_id = f"{_PREFIX[StepKind.COMPENSATION]}-{len(b.steps) + 2}"
    tool = b.add_step(StepKind.TOOL, tool=f"tool-{b.rng.randint(1, 9)}",
                      action_class="external-write",
                      failure_policy=FailurePolicy.COMPENSATE.value, compensation=undo_id)
    undo = b.add_step(StepKind.COMPENSATION, tool="reverse-tool",
                      action_class="external-write", failure_policy=FailurePolicy.FAIL.value)
    assert undo == undo_id, "the compensation id is predicted before it is created"
    merge = _task(b, 1, None).entry
    b.connect(tool, merge)
    b.connect(tool, undo, "compensate")
    b.connect(undo, merge)
    return _Fragment(tool, merge)


def _review_loop(b: _Builder, before: str | None, loop_target: str) -> _Fragment:
    """A Human review and a Condition: ``false`` loops back, ``true`` continues."""
    review = b.add_step(StepKind.HUMAN, action_class="shared-write",
                        failure_policy=FailurePolicy.ESCALATE.value, timeout_minutes=1440.0)
    decide = b.add_step(StepKind.CONDITION,
                        expression=json.dumps({"==": [{"var": f"{review}.decision"}, "ok"]}))
    b.connect(review, decide)
    b.connect(decide, loop_target, "false", loop_back=True)
    return _Fragment(review, decide, exit_guard="true")


_BLOCKS = {"task": _task, "condition": _condition, "fanout": _fanout,
           "compensated": _compensated}


def _in_source_order(steps: list[Step], edges: list[Transition]) -> tuple[Transition, ...]:
    """Edges listed by their source step's position, as people write them (stable)."""
    position = {step.id: index for index, step in enumerate(steps)}
    return tuple(sorted(edges, key=lambda e: position[e.source]))


def _split(rng: random.Random, total: int, parts: int) -> list[int]:
    """``total`` as ``parts`` positive integers in random proportions."""
    cuts = sorted(rng.sample(range(1, total), parts - 1))
    bounds = [0, *cuts, total]
    return [bounds[i + 1] - bounds[i] for i in range(parts)]
