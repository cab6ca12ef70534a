"""The one mapping of our options table to ELK's option names, and the graph copy-in.

Expected names and values come from the ELK reference (eclipse.dev/elk/reference/options)
and the issue's table: effort draft 1, balanced 7, best 30 (elk.layered.thoroughness).
"""

from __future__ import annotations

import pytest

from layouts.graph import Edge, Graph, Node, Shape
from layouts.options import Direction, Effort, LayoutOptions
from layouts.providers.elkjs_options import elk_layout_options, to_elk_graph


@pytest.mark.parametrize(("effort", "thoroughness"),
                         [(Effort.DRAFT, "1"), (Effort.BALANCED, "7"), (Effort.BEST, "30")])
def test_effort_maps_to_thoroughness(effort: Effort, thoroughness: str) -> None:
    assert elk_layout_options(LayoutOptions(effort=effort))["elk.layered.thoroughness"] == (
        thoroughness)


@pytest.mark.parametrize(("direction", "elk_direction"),
                         [(Direction.TOP_TO_BOTTOM, "DOWN"), (Direction.LEFT_TO_RIGHT, "RIGHT")])
def test_direction_maps_to_elk_direction(direction: Direction, elk_direction: str) -> None:
    assert elk_layout_options(LayoutOptions(direction=direction))["elk.direction"] == (
        elk_direction)


def test_spacings_routing_and_seed() -> None:
    mapped = elk_layout_options(LayoutOptions(node_spacing=25, layer_spacing=35.5,
                                              edge_spacing=7, clearance=9, seed=41))
    assert mapped["elk.algorithm"] == "layered"
    assert mapped["elk.edgeRouting"] == "ORTHOGONAL"
    assert mapped["elk.spacing.nodeNode"] == "25"
    assert mapped["elk.layered.spacing.nodeNodeBetweenLayers"] == "35.5"
    assert mapped["elk.spacing.edgeEdge"] == "7"
    assert mapped["elk.layered.spacing.edgeEdgeBetweenLayers"] == "7"
    assert mapped["elk.spacing.edgeNode"] == "9"
    assert mapped["elk.layered.spacing.edgeNodeBetweenLayers"] == "9"
    # ELK reads randomSeed 0 as "seed from the clock"; ours is shifted by one: 41 + 1.
    assert mapped["elk.randomSeed"] == "42"
    assert all(isinstance(value, str) for value in mapped.values())


def test_graph_copy_keeps_model_order_sizes_and_labels() -> None:
    graph = Graph(
        nodes=(Node("z", 120, 40), Node("a", 40, 30, Shape.DIAMOND)),
        edges=(Edge("e2", "z", "a", label="yes", label_width=22, label_height=14),
               Edge("e1", "a", "z", loop_back=True), Edge("e3", "z", "a", label="")),
    )
    elk = to_elk_graph(graph, LayoutOptions())
    assert elk["children"] == [{"id": "z", "width": 120, "height": 40},
                               {"id": "a", "width": 40, "height": 30}]
    assert [e["id"] for e in elk["edges"]] == ["e2", "e1", "e3"]
    assert elk["edges"][0]["labels"] == [{"text": "yes", "width": 22, "height": 14}]
    assert "labels" not in elk["edges"][1]
    assert "labels" not in elk["edges"][2]  # a label without a measured size is not sent
    assert elk["edges"][0]["sources"] == ["z"] and elk["edges"][0]["targets"] == ["a"]
    # the loop-back a -> z goes to ELK as z -> a, so ELK never reverses a forward edge
    assert elk["edges"][1]["sources"] == ["z"] and elk["edges"][1]["targets"] == ["a"]


def test_root_id_never_collides_with_a_node_id() -> None:
    graph = Graph(nodes=(Node("wfr-root", 10, 10), Node("wfr-root_", 10, 10)))
    elk = to_elk_graph(graph, LayoutOptions())
    assert elk["id"] not in {"wfr-root", "wfr-root_"}
