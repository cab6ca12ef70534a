"""``wfr render --group-fanouts``: each Fanout..Join block of a workflow drawn as one
group box (a compound node holding the block's steps).

A block starts at a Fanout step ``F`` and ends at the first Join ``J`` a breadth-first
walk from ``F`` meets (loop-back edges not followed); it holds ``F``, ``J`` and every step
on a forward path from ``F`` to ``J``. Blocks nest when one holds another; a block that
overlaps another without holding it or lying inside it is left ungrouped (the smaller
one wins), since a box cannot be drawn for it. Edges are unchanged: the engines route
them into and out of the boxes.

>>> from workflow.dsl import Definition, Step, Transition
>>> from renderer.from_definition import diagram_from_definition
>>> d = diagram_from_definition(Definition("w", "1", (
...     Step("start", "Tool"), Step("f", "Fanout"), Step("a", "Tool"), Step("b", "Tool"),
...     Step("j", "Join"), Step("end", "Tool")), tuple(Transition(f"e{i}", s, t) for i, (s, t)
...     in enumerate([("start", "f"), ("f", "a"), ("f", "b"), ("a", "j"), ("b", "j"),
...                   ("j", "end")]))))
>>> grouped = group_fanouts(d)
>>> [(n.id, [c.id for c in n.children]) for n in grouped.graph.nodes]
[('start', []), ('f-block', ['f', 'a', 'b', 'j']), ('end', [])]
>>> grouped.node_view("f-block").title
'f .. j'
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import replace

from layouts.graph import Graph, Node
from renderer.diagram import Diagram, NodeView, StepKind
from renderer.svg_compound import heading_size

GROUP_SIZE = 20.0
"""The smallest width and height of a group box; it grows to hold its steps."""


def _blocks(diagram: Diagram) -> dict[str, tuple[str, frozenset[str]]]:
    """Each Fanout's Join and block (its steps), by Fanout id, for Fanouts that reach a
    Join."""
    graph = diagram.graph
    forward: dict[str, list[str]] = {n.id: [] for n in graph.nodes}
    backward: dict[str, list[str]] = {n.id: [] for n in graph.nodes}
    for e in graph.edges:
        if not e.loop_back and e.source in forward and e.target in forward:
            forward[e.source].append(e.target)
            backward[e.target].append(e.source)

    def kind(node_id: str) -> StepKind:
        return diagram.node_view(node_id).kind

    out: dict[str, tuple[str, frozenset[str]]] = {}
    for fanout in (n.id for n in graph.nodes if kind(n.id) is StepKind.FANOUT):
        join = _first_join(fanout, forward, kind)
        if join is None:
            continue
        after = _reach(fanout, forward, stop=join)
        before = _reach(join, backward, stop=fanout)
        out[fanout] = (join, frozenset(after & before) | {fanout, join})
    return out


def _first_join(start: str, forward: Mapping[str, list[str]],
                kind: Callable[[str], StepKind]) -> str | None:
    seen, queue = {start}, deque(forward[start])
    while queue:
        at = queue.popleft()
        if at in seen:
            continue
        seen.add(at)
        if kind(at) is StepKind.JOIN:
            return at
        queue.extend(forward[at])
    return None


def _reach(start: str, edges: Mapping[str, list[str]], *, stop: str) -> set[str]:
    seen, stack = {start}, [start]
    while stack:
        for nxt in edges[stack.pop()]:
            if nxt not in seen:
                seen.add(nxt)
                if nxt != stop:
                    stack.append(nxt)
    return seen


def _nested(blocks: Mapping[str, tuple[str, frozenset[str]]]
            ) -> list[tuple[str, frozenset[str]]]:
    """The blocks that can be drawn: smallest first, each disjoint from or nested with
    every one kept before it."""
    kept: list[tuple[str, frozenset[str]]] = []
    for fanout, (_, members) in sorted(blocks.items(),
                                       key=lambda item: (len(item[1][1]), item[0])):
        if all(members >= other or not members & other for _, other in kept):
            kept.append((fanout, members))
    return kept


def _group_id(fanout: str, taken: set[str]) -> str:
    candidate = f"{fanout}-block"
    while candidate in taken:
        candidate += "~"
    taken.add(candidate)
    return candidate


def group_fanouts(diagram: Diagram) -> Diagram:
    """``diagram`` with each drawable Fanout..Join block as a group box (see the module
    docstring); ``diagram`` itself when there is none. The caller's diagram is not
    changed."""
    blocks = _blocks(diagram)
    kept = _nested(blocks)
    if not kept:
        return diagram
    graph = diagram.graph
    order = {n.id: i for i, n in enumerate(graph.nodes)}
    taken = {n.id for n in graph.all_nodes()} | {e.id for e in graph.edges}
    ids = {fanout: _group_id(fanout, taken) for fanout, _ in kept}
    # every step and block goes into the smallest kept block holding it (kept is smallest
    # first, so the first match is the smallest)
    home: dict[str, str | None] = {}
    for n in graph.nodes:
        home[n.id] = next((ids[f] for f, members in kept if n.id in members), None)
    for fanout, members in kept:
        home[ids[fanout]] = next((ids[f] for f, other in kept
                                  if other > members), None)
    first = {ids[f]: min(order[m] for m in members) for f, members in kept}
    position = {**order, **first}
    contents: dict[str | None, list[str]] = {}
    for item in sorted(home, key=lambda i: (position[i], i not in order)):
        contents.setdefault(home[item], []).append(item)
    nodes_by_id = {n.id: n for n in graph.nodes}
    labels = {ids[f]: f"{f} .. {blocks[f][0]}" for f, _ in kept}

    def build(item: str) -> Node:
        if item in nodes_by_id:
            return nodes_by_id[item]
        width, height = heading_size(NodeView(StepKind.PLAIN, labels[item]))
        return Node(item, GROUP_SIZE, GROUP_SIZE, label=labels[item], label_width=width,
                    label_height=height,
                    children=tuple(build(c) for c in contents.get(item, [])))

    grouped = Graph(tuple(build(i) for i in contents.get(None, [])), graph.edges,
                    graph.layout_options)
    views = {**diagram.nodes, **{gid: NodeView(StepKind.PLAIN, labels[gid]) for gid in labels}}
    return replace(diagram, graph=grouped, nodes=views)
