"""Port labels in the ELK JSON writer (renderer/elk_write.py): a graph that was not read
from ELK JSON gets every label of each port, placed relative to its port as ELK does."""

from __future__ import annotations

from layouts.api import layout
from layouts.graph import Edge, Graph, Label, Node, Port, PortConstraints, PortSide
from renderer.diagram import Diagram
from renderer.elk_write import elk_document


def test_port_labels_carry_their_text_and_their_place_relative_to_the_port() -> None:
    port = Port("out", PortSide.SOUTH, width=6, height=6, label="out", label_width=30,
                label_height=12, extra_labels=(Label("more", 30, 12),))
    graph = Graph((Node("a", 120, 60, ports=(port,), port_constraints=PortConstraints.FIXED_SIDE),
                   Node("b", 80, 40)), (Edge("e", "a", "b", source_port="out"),))
    result = layout(graph, engine="layered")
    placed = result.port("out")
    assert placed.label_box is not None
    node = result.node("a")
    elk_port = elk_document(Diagram("g", graph), result)["children"][0]["ports"][0]
    # the port relative to its node, its labels relative to the port
    assert (elk_port["x"], elk_port["y"]) == (placed.x - node.x, placed.y - node.y)
    first, second = elk_port["labels"]
    assert first["text"] == "out" and second["text"] == "more"
    assert (first["x"], first["y"], first["width"], first["height"]) == (
        placed.label_box.x - placed.x, placed.label_box.y - placed.y, 30, 12)
    assert (second["width"], second["height"]) == (30, 12)
