"""The ELK option table: every spelling ELK accepts finds its entry, values read as ours,
and what an engine cannot honour is named."""

from __future__ import annotations

import pytest

from layouts.elk_options import document_option_values, elk_option, unhonoured
from layouts.graph import Edge, Graph, Node, Port, PortSide


@pytest.mark.parametrize(("key", "elk_id"), [
    ("org.eclipse.elk.direction", "direction"),
    ("elk.direction", "direction"),
    ("direction", "direction"),
    ("org.eclipse.elk.layered.spacing.nodeNodeBetweenLayers",
     "layered.spacing.nodeNodeBetweenLayers"),
    ("spacing.nodeNodeBetweenLayers", "layered.spacing.nodeNodeBetweenLayers"),
    ("nodePlacement.strategy", "layered.nodePlacement.strategy"),
    # an exact id wins over a longer id that ends with it
    ("elk.spacing.edgeEdge", "spacing.edgeEdge"),
])
def test_every_spelling_finds_its_entry(key: str, elk_id: str) -> None:
    entry = elk_option(key)
    assert entry is not None and entry.elk_id == elk_id


def test_ambiguous_or_unknown_suffixes_find_nothing() -> None:
    assert elk_option("strategy") is None  # nodePlacement, cycleBreaking and layering
    assert elk_option("elk.layered.compaction.postCompaction.strategy") is None


def test_values_read_as_our_options() -> None:
    values = document_option_values((
        ("elk.direction", "LEFT"), ("spacing.nodeNode", "12.5"), ("elk.randomSeed", 8),
        ("elk.layered.thoroughness", 1), ("elk.spacing.edgeNode", 30),
        ("elk.layered.spacing.nodeNodeBetweenLayers", 90)))
    # ELK seed 8 is our seed 7 (ours s is sent as s + 1, ELK's 0 meaning the clock);
    # thoroughness 1 is a single pass: draft
    assert values == {"direction": "RightToLeft", "node_spacing": 12.5, "seed": 7,
                      "effort": "draft", "clearance": 30.0, "layer_spacing": 90.0}
    assert document_option_values((("elk.direction", "UNDEFINED"),
                                   ("elk.randomSeed", 0))) == {}


def test_unhonoured_names_where_and_what() -> None:
    graph = Graph(
        (Node("a", 9, 9, ports=(Port("p", PortSide.EAST, layout_options=(
            ("elk.port.side", "EAST"), ("elk.port.borderOffset", 3))),),
            layout_options=(("elk.portConstraints", "FIXED_SIDE"),)),
         Node("b", 9, 9)),
        (Edge("e", "a", "b", source_port="p",
              layout_options=(("elk.layered.priority.direction", 5),)),),
        layout_options=(("elk.randomSeed", 0), ("elk.algorithm", "layered"),
                        ("elk.layered.nodePlacement.strategy", "NETWORK_SIMPLEX")))
    assert unhonoured(graph, "graphviz") == (
        "the graph: option elk.randomSeed=0 is not honoured by engine 'graphviz'",
        "port 'p': option elk.port.borderOffset=3 is not honoured by engine 'graphviz'",
        "edge 'e': option elk.layered.priority.direction=5 is not honoured by engine "
        "'graphviz'",
    )
    # the layered engine places nodes with Brandes-Koepf, not network simplex
    assert ("the graph: option elk.layered.nodePlacement.strategy=NETWORK_SIMPLEX is not "
            "honoured by engine 'layered'") in unhonoured(graph, "layered")
