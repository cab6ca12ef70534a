"""The seeded workflow-like generator: size, determinism, structure and variety.

Structural facts are checked with networkx, independently of how the generator builds.
"""

from __future__ import annotations

import json
from collections import Counter

import networkx as nx
import pytest

from workflow.dsl import Definition, definition_from_data
from workflow.generate import generate_definition

SIZES = (2, 3, 4, 5, 6, 7, 8, 9, 10, 13, 24, 50, 99, 100, 137, 250, 500)


def _forward_graph(d: Definition) -> nx.DiGraph:
    g = nx.DiGraph()
    g.add_nodes_from(s.id for s in d.steps)
    g.add_edges_from((e.source, e.target) for e in d.edges if not e.is_loop_back)
    return g


def _all_graph(d: Definition) -> nx.MultiDiGraph:
    g = nx.MultiDiGraph()
    g.add_nodes_from(s.id for s in d.steps)
    g.add_edges_from((e.source, e.target) for e in d.edges)
    return g


@pytest.mark.parametrize("size", SIZES)
def test_exact_step_count_and_unique_ids(size: int) -> None:
    for seed in range(3):
        d = generate_definition(size, seed)
        ids = [s.id for s in d.steps]
        assert len(ids) == size
        assert len(set(ids)) == size
        assert len({e.id for e in d.edges}) == len(d.edges)
        assert {e.source for e in d.edges} | {e.target for e in d.edges} <= set(ids)


@pytest.mark.parametrize("size", SIZES)
def test_acyclic_without_loop_backs_and_single_entry_reaching_all(size: int) -> None:
    for seed in range(3):
        d = generate_definition(size, seed)
        forward = _forward_graph(d)
        assert nx.is_directed_acyclic_graph(forward)
        entries = [n for n in forward.nodes if forward.in_degree(n) == 0]
        assert entries == [d.steps[0].id]
        assert nx.descendants(forward, entries[0]) == set(forward.nodes) - {entries[0]}


def test_loop_backs_go_back_to_an_ancestor() -> None:
    # "back" means: the target reaches the source through forward edges.
    for seed in range(5):
        d = generate_definition(100, seed)
        forward = _forward_graph(d)
        loops = [e for e in d.edges if e.is_loop_back]
        assert loops, f"seed {seed}: no loop-back at 100 steps"
        for e in loops:
            assert e.source in nx.descendants(forward, e.target), e.id
        assert d.max_loop_iterations is not None and d.max_loop_iterations >= 1


def test_no_loop_backs_when_disabled() -> None:
    for seed in range(5):
        d = generate_definition(100, seed, loop_backs=False)
        assert not any(e.is_loop_back for e in d.edges)
        assert d.max_loop_iterations is None
        assert nx.is_directed_acyclic_graph(_all_graph(d))


@pytest.mark.parametrize("size", (10, 100, 500))
def test_same_seed_same_definition_other_seed_differs(size: int) -> None:
    assert generate_definition(size, 42) == generate_definition(size, 42)
    assert generate_definition(size, 42) != generate_definition(size, 43)


def test_generator_does_not_touch_global_random() -> None:
    import random

    random.seed(5)
    expected = random.random()
    random.seed(5)
    generate_definition(60, 1)
    assert random.random() == expected


def test_join_quorum_within_its_in_degree() -> None:
    for seed in range(5):
        d = generate_definition(200, seed)
        in_degree = Counter(e.target for e in d.edges if not e.is_loop_back)
        joins = [s for s in d.steps if s.kind == "Join"]
        assert joins
        for s in joins:
            assert s.quorum is not None
            assert 1 <= s.quorum <= in_degree[s.id], s.id


def test_kinds_and_shapes_present_at_100_steps() -> None:
    for seed in range(5):
        d = generate_definition(100, seed)
        kinds = Counter(s.kind for s in d.steps)
        for kind in ("Tool", "Agent", "Human", "Timer", "SubWorkflow", "Condition",
                     "Fanout", "Join", "Compensation"):
            assert kinds[kind] >= 1, f"seed {seed}: no {kind}"
        out = Counter(e.source for e in d.edges if not e.is_loop_back)
        gateway_widths = {out[s.id] for s in d.steps if s.kind == "Condition"}
        # gateways have 2 or 3 forward edges (a review-loop condition has 1)
        assert 2 in gateway_widths and 3 in gateway_widths, f"seed {seed}: {gateway_widths}"
        fanout_widths = {out[s.id] for s in d.steps if s.kind == "Fanout"}
        assert min(fanout_widths) >= 2


def test_condition_edges_are_guarded() -> None:
    d = generate_definition(150, 3)
    kind = {s.id: s.kind for s in d.steps}
    for e in d.edges:
        if kind[e.source] == "Condition":
            assert e.guard is not None, e.id
            if e.guard not in ("true", "false", "else"):
                assert isinstance(json.loads(e.guard), dict), e.guard
    for s in d.steps:
        if s.kind == "Condition":
            assert s.expression is not None
            json.loads(s.expression)


def test_compensation_steps_are_named_by_their_compensated_step() -> None:
    d = generate_definition(200, 2)
    ids = {s.id: s for s in d.steps}
    compensated = [s for s in d.steps if s.compensation is not None]
    assert compensated
    for s in compensated:
        assert s.compensation is not None
        assert ids[s.compensation].kind == "Compensation"
        assert s.failure_policy == "Compensate"


def test_nesting_reaches_at_least_two_levels_at_200_steps() -> None:
    # Nesting depth of a step = how many branch entries lie on its dominator chain
    # (a branch entry: in-degree 1, entered straight from a splitting Condition/Fanout
    # that dominates it). A merge step has in-degree >= 2 and so never counts.
    d = generate_definition(200, 0)
    forward = _forward_graph(d)
    splitters = {s.id for s in d.steps if s.kind in ("Condition", "Fanout")
                 and forward.out_degree(s.id) >= 2}
    best = 0
    entry = d.steps[0].id
    dominators = nx.immediate_dominators(forward, entry)
    for node in forward.nodes:
        depth, current = 0, node
        while current != entry:
            parent = dominators[current]
            if parent in splitters and forward.in_degree(current) == 1:
                depth += 1
            current = parent
        best = max(best, depth)
    assert best >= 2


def test_round_trips_through_the_dsl_reader() -> None:
    d = generate_definition(40, 9)
    data = {
        "workflow": d.workflow,
        "version": d.version,
        "maxLoopIterations": d.max_loop_iterations,
        "steps": [_step_data(s) for s in d.steps],
        "edges": [{"from": e.source, "to": e.target, "isLoopBack": e.is_loop_back,
                   **({"guard": e.guard} if e.guard is not None else {})} for e in d.edges],
    }
    again = definition_from_data(json.loads(json.dumps(data)))
    assert again.steps == d.steps
    assert again.edges == d.edges


def _step_data(step: object) -> dict[str, object]:
    from workflow.dsl import STEP_FIELDS

    out = {}
    for key, attribute in STEP_FIELDS.items():
        value = getattr(step, attribute)
        if value is not None:
            out[key] = value
    return out


@pytest.mark.parametrize("bad", [1, 0, -5, 2.5, "10", True, None])
def test_bad_node_count_is_a_value_error(bad: object) -> None:
    with pytest.raises(ValueError, match="node_count"):
        generate_definition(bad, 0)  # type: ignore[arg-type]


def test_generated_definitions_pass_the_engine_validator() -> None:
    from workflow.validation import validate_definition

    for size in (2, 3, 5, 24, 100, 300):
        for seed in range(3):
            problems = validate_definition(generate_definition(size, seed))
            assert problems == (), (size, seed, problems)
