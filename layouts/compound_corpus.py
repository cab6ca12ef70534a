"""Compound graphs for tests and benchmarks: hand-written ones with three levels of
nesting and edges into and out of compound nodes at every level, and a seeded generator
of large nested graphs.

>>> g = three_levels()
>>> g.validate()
>>> max(_depth(g, n.id) for n in g.all_nodes())     # a leaf inside three compounds
4
>>> big = generated_compound(500, 50, seed=1)
>>> sum(1 for n in big.all_nodes() if not n.children), sum(1 for n in big.all_nodes()
...                                                        if n.children)
(500, 50)
"""

from __future__ import annotations

import random
from collections.abc import Callable

from layouts.graph import Edge, Graph, Node, Shape


def _box(node_id: str, width: float = 100, height: float = 40) -> Node:
    return Node(node_id, width, height, label=node_id)


def _group(node_id: str, *children: Node) -> Node:
    return Node(node_id, 20, 20, label=node_id.title(), children=children)


def _depth(graph: Graph, node_id: str) -> int:
    parents, depth, at = graph.parents(), 1, node_id
    while (up := parents[at]) is not None:
        depth, at = depth + 1, up
    return depth


def three_levels() -> Graph:
    """Root -> ``outer`` -> ``middle`` -> ``inner``, with a leaf at each level; edges
    into and out of every compound from inside and outside, both ways, a labelled edge
    across two borders, a loop-back from the root into the innermost compound and an
    edge into a compound box itself."""
    inner = _group("inner", _box("i1"), Node("i2", 60, 60, Shape.DIAMOND), _box("i3"))
    middle = _group("middle", _box("m1"), inner, _box("m2"))
    outer = _group("outer", _box("o1"), middle, Node("o2", 50, 50, Shape.CIRCLE))
    nodes = (_box("start"), outer, _box("end"), _box("side"))
    edges = (
        Edge("start-i1", "start", "i1"), Edge("i1-i2", "i1", "i2"), Edge("i2-i3", "i2", "i3"),
        Edge("i3-m2", "i3", "m2"), Edge("m1-inner", "m1", "inner"),
        Edge("inner-m2", "inner", "m2"), Edge("o1-m1", "o1", "m1"),
        Edge("middle-o2", "middle", "o2"), Edge("o2-end", "o2", "end"),
        Edge("start-outer", "start", "outer"), Edge("i3-end", "i3", "end", label="done",
                                                    label_width=34, label_height=14),
        Edge("side-m1", "side", "m1"), Edge("outer-side", "outer", "side"),
        Edge("end-i1", "end", "i1", loop_back=True), Edge("i2-i2", "i2", "i2"),
    )
    return Graph(nodes, edges)


def sibling_groups() -> Graph:
    """Two compound towers side by side, three levels each, with edges between their
    innermost nodes in both directions and from each tower's middle into the other."""
    def tower(p: str) -> Node:
        core = _group(f"{p}-core", _box(f"{p}1"), _box(f"{p}2"))
        return _group(f"{p}-outer", _box(f"{p}0"), _group(f"{p}-mid", core, _box(f"{p}3")))

    nodes = (_box("src"), tower("a"), tower("b"), _box("sink"))
    edges = (
        Edge("src-a1", "src", "a1"), Edge("src-b0", "src", "b0"), Edge("a1-a2", "a1", "a2"),
        Edge("b1-b2", "b1", "b2"), Edge("a2-b1", "a2", "b1"), Edge("b0-b1", "b0", "b1"),
        Edge("b2-a3", "b2", "a3"), Edge("a0-a1", "a0", "a1"), Edge("a3-sink", "a3", "sink"),
        Edge("b3-sink", "b3", "sink"), Edge("b2-b3", "b2", "b3"),
        Edge("a-mid-b-core", "a-mid", "b-core"), Edge("b-core-sink", "b-core", "sink"),
    )
    return Graph(nodes, edges)


def generated_compound(node_count: int, compound_count: int, seed: int = 1,
                       max_depth: int = 4) -> Graph:
    """A seeded nested graph: ``compound_count`` compound nodes (nested up to
    ``max_depth`` levels) holding ``node_count`` leaves between them and the root, each
    compound a run of consecutive leaves, and a workflow-like set of edges between
    leaves (each leaf fed by one of the ten before it, a fifth more edges between any
    two, one loop-back in fifty), so edges cross borders at every level."""
    rng = random.Random(seed)
    parent: list[int | None] = []     # compound index -> its parent compound
    depth: list[int] = []
    for i in range(compound_count):
        options = [None, *(j for j in range(i) if depth[j] < max_depth - 1)]
        chosen = rng.choice(options)
        parent.append(chosen)
        depth.append(1 if chosen is None else depth[chosen] + 1)
    # leaves in runs: each compound holds a run of consecutive leaves (as a sub-workflow
    # or a fan-out group holds consecutive steps), runs in the root between them
    home: list[int | None] = []
    run = max(1, node_count // (2 * compound_count + 1))
    for i in range(node_count):
        block = i // run
        home.append(block // 2 if block % 2 and block // 2 < compound_count else None)
    for j in range(compound_count):   # every compound gets a leaf
        if j not in home:
            home[rng.randrange(node_count)] = j
    leaves: dict[int | None, list[Node]] = {}
    for i, where in enumerate(home):
        leaves.setdefault(where, []).append(_box(f"n{i}", rng.choice((80, 100, 140)), 40))

    def build(index: int) -> Node:
        inner = [build(j) for j in range(compound_count) if parent[j] == index]
        return _group(f"g{index}", *leaves.get(index, []), *inner)

    roots = (*leaves.get(None, []), *(build(j) for j in range(compound_count)
                                      if parent[j] is None))
    edges = [Edge(f"e{i}", f"n{rng.randrange(max(0, i - 10), i)}", f"n{i}")
             for i in range(1, node_count)]
    for k in range(node_count // 5):
        a, b = sorted(rng.sample(range(node_count), 2))
        edges.append(Edge(f"x{k}", f"n{a}", f"n{b}"))
    for k in range(node_count // 50):
        a, b = sorted(rng.sample(range(node_count), 2))
        edges.append(Edge(f"back{k}", f"n{b}", f"n{a}", loop_back=True))
    return Graph(roots, tuple(edges))


SAMPLES: dict[str, Callable[[], Graph]] = {
    "three-levels": three_levels,
    "sibling-groups": sibling_groups,
    "generated-60": lambda: generated_compound(60, 8, seed=3),
}
"""The compound graphs the contract tests and ``bench/compare.py --compound`` use."""
