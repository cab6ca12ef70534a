"""Several labels on one element: every label gets a box, for every engine that places
labels. The expected boxes are reasoned from the label sizes: an edge's labels are a
stack as wide as the widest, each centred on the stack, one under the other."""

from __future__ import annotations

import itertools
import shutil

import pytest

from layouts.api import layout
from layouts.graph import Edge, Graph, Label, Node
from layouts.result import Box

LABELS = (("one", 24.0, 12.0), ("two", 30.0, 10.0), ("three", 36.0, 14.0))
GRAPH = Graph((Node("a", 60, 40), Node("b", 60, 40), Node("c", 60, 40)),
              (Edge("ab", "a", "b", "one", label_width=24, label_height=12,
                    extra_labels=(Label("two", 30, 10), Label("three", 36, 14))),
               Edge("bc", "b", "c", "solo", label_width=20, label_height=10)))


def _overlap(a: Box, b: Box) -> bool:
    return a.x < b.right and b.x < a.right and a.y < b.bottom and b.y < a.bottom


@pytest.mark.parametrize("engine", ["layered", "graphviz", "grandalf", "elkjs"])
def test_every_label_of_an_edge_is_placed_in_a_stack(engine: str) -> None:
    needs = {"graphviz": "dot", "elkjs": "node"}.get(engine)
    if needs and shutil.which(needs) is None:
        pytest.skip(f"{engine} needs {needs}")
    route = layout(GRAPH, engine=engine).edges[0]
    assert route.label_box is not None
    boxes = (route.label_box, *route.extra_label_boxes)
    assert [(b.width, b.height) for b in boxes] == [(w, h) for _, w, h in LABELS]
    centre = boxes[0].center.x
    for upper, lower in itertools.pairwise(boxes):
        assert lower.y == pytest.approx(upper.bottom)        # one under the other
        if engine != "elkjs":   # ELK aligns its stack its own way (the compat suite checks)
            assert lower.center.x == pytest.approx(centre)   # centred on one line
    solo = layout(GRAPH, engine=engine).edges[1]
    assert solo.extra_label_boxes == ()
    assert solo.label_box is not None and not any(_overlap(solo.label_box, b) for b in boxes)


def test_extra_labels_round_trip_through_graph_json() -> None:
    data = GRAPH.to_dict()
    assert data["edges"][0]["extraLabels"] == [{"text": "two", "width": 30, "height": 10},
                                               {"text": "three", "width": 36, "height": 14}]
    assert Graph.from_dict(data) == GRAPH
