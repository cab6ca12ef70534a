"""Disconnected components are laid out on their own and packed toward ``aspectRatio``
(issue 16)."""

from __future__ import annotations

import itertools
import json
import random

import pytest

from layouts.errors import InvalidOptionError
from layouts.graph import Edge, Graph, Node, Shape
from layouts.layered.contracts import check_layout
from layouts.layered.packing import pack, split
from layouts.layered.pipeline import run_layout
from layouts.options import Direction, LayoutOptions
from layouts.result import Box, LayoutResult


def many_components(count: int = 60, seed: int = 3) -> Graph:
    """``count`` small workflows: a chain of 2-5 steps, some with a gateway and two
    branches that join again, some with a loop-back and a labelled guard."""
    rng = random.Random(seed)
    nodes: list[Node] = []
    edges: list[Edge] = []
    for c in range(count):
        names = [f"c{c}n{i}" for i in range(rng.randint(2, 5))]
        nodes += [Node(n, rng.choice((80, 120, 160)), 40) for n in names]
        edges += [Edge(f"c{c}e{i}", a, b) for i, (a, b) in enumerate(itertools.pairwise(names))]
        if rng.random() < 0.4:
            gate, left, right, join = (f"c{c}{x}" for x in ("g", "l", "r", "j"))
            nodes += [Node(gate, 60, 40, Shape.DIAMOND), Node(left, 100, 40),
                      Node(right, 100, 40), Node(join, 60, 40, Shape.DIAMOND)]
            edges += [Edge(f"c{c}-in", names[-1], gate),
                      Edge(f"c{c}-l", gate, left, label="ok", label_width=30, label_height=14),
                      Edge(f"c{c}-r", gate, right, label="else", label_width=40,
                           label_height=14),
                      Edge(f"c{c}-lj", left, join), Edge(f"c{c}-rj", right, join)]
        if rng.random() < 0.3:
            edges.append(Edge(f"c{c}-back", names[-1], names[0], loop_back=True))
    return Graph(tuple(nodes), tuple(edges))


def component_boxes(graph: Graph, result: LayoutResult) -> list[Box]:
    boxes = []
    for part in split(graph):
        ids = {n.id for n in part.nodes}
        xs, ys = [], []
        for n in result.nodes:
            if n.id in ids:
                xs += [n.x, n.x + n.width]
                ys += [n.y, n.y + n.height]
        for e in result.edges:
            if e.source in ids:
                xs += [p.x for p in e.points]
                ys += [p.y for p in e.points]
        boxes.append(Box(min(xs), min(ys), max(xs) - min(xs), max(ys) - min(ys)))
    return boxes


def overlap(a: Box, b: Box) -> bool:
    return a.x < b.right and b.x < a.right and a.y < b.bottom and b.y < a.bottom


@pytest.mark.parametrize("aspect_ratio", [1.6, 0.5, 4.0])
@pytest.mark.parametrize("direction", list(Direction))
def test_many_small_components_pack_to_a_bounded_aspect_ratio(
        aspect_ratio: float, direction: Direction) -> None:
    graph = many_components()
    options = LayoutOptions(direction=direction, aspect_ratio=aspect_ratio)
    result = run_layout(graph, options)
    # shelf packing over a dozen row widths gets within a factor of two of the target
    # (one row of sixty would be about 60 times wider than tall)
    ratio = result.width / result.height
    assert aspect_ratio / 2 <= ratio <= aspect_ratio * 2, ratio
    boxes = component_boxes(graph, result)
    assert not [(i, j) for i, j in itertools.combinations(range(len(boxes)), 2)
                if overlap(boxes[i], boxes[j])]
    assert check_layout(graph, result, options) == []
    assert all(n.x >= 0 and n.x + n.width <= result.width + 0.5 for n in result.nodes)
    assert all(n.y >= 0 and n.y + n.height <= result.height + 0.5 for n in result.nodes)
    again = run_layout(graph, options)
    assert json.dumps(again.to_dict()) == json.dumps(result.to_dict())


def test_results_keep_input_order_and_name_the_packing() -> None:
    graph = many_components(8)
    result = run_layout(graph, LayoutOptions())
    assert [n.id for n in result.nodes] == [n.id for n in graph.nodes]
    assert [e.id for e in result.edges] == [e.id for e in graph.edges]
    assert "8 components packed" in result.diagnostics.notes


def test_pack_starts_a_new_row_when_the_next_drawing_passes_the_row_width() -> None:
    # one wide drawing (300 x 100) and three squares (100 x 100), gap 10, target 1.0:
    # area = 310*110 + 3*110*110 = 70,400, ideal row width sqrt(70,400) = 265, so rows
    # of 300 (the widest) up to 398 give: the wide one alone, two squares, one square:
    # 300 x 320 (ratio 0.94). Rows of 464 hold the wide one and a square: 410 x 210
    # (1.95); 530: 520 x 210 (2.5); 663: one row, 630 x 100 (6.3). Nearest to 1: rows of 300.
    assert pack([(300, 100), (100, 100), (100, 100), (100, 100)], 1.0, 10) == [
        (0.0, 0.0), (0.0, 110.0), (110.0, 110.0), (0.0, 220.0)]


def test_aspect_ratio_is_validated_and_accepted_in_camel_case() -> None:
    assert LayoutOptions.from_mapping({"aspectRatio": 2}).aspect_ratio == 2.0
    assert LayoutOptions().aspect_ratio == 1.6
    for bad in (0, -1, 11, "wide", float("nan"), True):
        with pytest.raises(InvalidOptionError, match="aspect_ratio"):
            LayoutOptions.from_mapping({"aspectRatio": bad})
