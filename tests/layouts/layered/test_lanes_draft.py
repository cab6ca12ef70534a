"""``draft`` skips the trial of short loop-back lanes (issue 16's speed target: it orders
and places a second drawing and keeps one); ``balanced`` and ``best`` run it."""

from __future__ import annotations

import pytest

from layouts.graph import Edge, Graph, Node
from layouts.layered.contracts import check_layout
from layouts.layered.pipeline import prepare, run_layout
from layouts.options import Effort, LayoutOptions


def one_column_loop() -> Graph:
    """s -> a -> b -> c -> t in one column, s and t 300 wide, and the loop c -> a: a lane
    beside the column is shorter than a corridor beyond s and t (the trial takes it)."""
    sizes = {"s": 300, "a": 60, "b": 60, "c": 60, "t": 300}
    nodes = tuple(Node(n, w, 40 if w == 300 else 30) for n, w in sizes.items())
    edges = (Edge("sa", "s", "a"), Edge("ab", "a", "b"), Edge("bc", "b", "c"),
             Edge("ct", "c", "t"), Edge("back", "c", "a", loop_back=True))
    return Graph(nodes, edges)


@pytest.mark.parametrize(("effort", "lane"), [(Effort.DRAFT, False), (Effort.BALANCED, True),
                                              (Effort.BEST, True)])
def test_only_draft_leaves_a_short_loop_in_its_corridor(effort: Effort, lane: bool) -> None:
    graph, options = one_column_loop(), LayoutOptions(effort=effort)
    lanes = [e.id for e in prepare(graph, options).proper.chain_edges if e.lane]
    assert lanes == (["back"] if lane else [])
    result = run_layout(graph, options)
    # a corridor runs beyond the 300 px wide s and t, a lane between them
    assert (result.width == 300) is lane
    assert check_layout(graph, result, options) == []
