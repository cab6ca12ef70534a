"""Post-routing compaction (:mod:`layouts.layered.compaction`): expected coordinates are
worked out by hand from the spacings (node 40, layer 60, edge 12, clearance 12)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from layouts.graph import Edge, Graph, Node, Shape
from layouts.layered import compaction
from layouts.layered.compaction import Attempt, Compacted, compact
from layouts.layered.contracts import check_layout
from layouts.layered.model import Deadline, Routing
from layouts.layered.pipeline import run_layout
from layouts.options import Direction, Effort, LayoutOptions
from layouts.quality import measure
from layouts.result import Box, EdgeRoute, NodeBox, Point
from renderer.from_definition import diagram_from_definition
from renderer.readers import read_diagram_file
from workflow.generate import generate_definition

FIXTURES = Path(__file__).resolve().parents[3] / "fixtures"
OPTIONS = LayoutOptions()


def _route(edge_id: str, source: str, target: str, *points: tuple[float, float]) -> EdgeRoute:
    return EdgeRoute(edge_id, source, target, tuple(Point(x, y) for x, y in points))


def test_a_straight_chain_closes_its_layer_gaps_to_layer_spacing_and_stays_straight() -> None:
    # a (0..40), b (200..240), c (400..440): gaps of 160 close to 60, one column at x = 50
    boxes = (NodeBox("a", 0, 0, 100, 40), NodeBox("b", 0, 200, 100, 40),
             NodeBox("c", 0, 400, 100, 40))
    routes = (_route("e1", "a", "b", (50, 40), (50, 200)),
              _route("e2", "b", "c", (50, 240), (50, 400)))
    out = compact(Routing(boxes, routes, 100, 440), OPTIONS)
    assert out is not None
    assert [(n.x, n.y) for n in out.nodes] == [(0, 0), (0, 100), (0, 200)]
    assert [p for r in out.edges for p in r.points] == [
        Point(50, 40), Point(50, 100), Point(50, 140), Point(50, 200)]
    assert out.height == 240          # 440 - 2 * (160 - 60)


def test_an_empty_channel_between_two_columns_closes_to_node_spacing() -> None:
    # two unconnected nodes of one layer 200 apart: they close to 40 apart, 240 wide
    boxes = (NodeBox("a", 0, 0, 100, 40), NodeBox("b", 300, 0, 100, 40))
    out = compact(Routing(boxes, (), 400, 40), OPTIONS)
    assert out is not None
    assert [n.x for n in out.nodes] == [0, 140]
    assert out.width == 240


def test_a_jogged_edge_closes_both_ways_and_keeps_its_track_between_the_layers() -> None:
    # a (0..100 x 0..40) above b (300..400 x 160..200); a -> b jogs on a track at y = 100.
    # x pass: b (with its run at x 350) is one unit, a (with its run at 50) another; the
    # two runs meet on the track's line and may come to 12 apart (edge spacing): b's run
    # to 62, b.x = 12. y pass: a and b now overlap in x, so layer_spacing holds b's top
    # 60 below a's bottom: b.y = 100. The track may sit anywhere from 40 + 12 to
    # 100 - 12 (clearance); it keeps its place (y = 100) as near as that room allows: 88.
    boxes = (NodeBox("a", 0, 0, 100, 40), NodeBox("b", 300, 160, 100, 40))
    routes = (_route("e", "a", "b", (50, 40), (50, 100), (350, 100), (350, 160)),)
    out = compact(Routing(boxes, routes, 400, 200), OPTIONS)
    assert out is not None
    a, b = out.nodes
    assert (a.x, a.y, b.x, b.y) == (0, 0, 12, 100)
    assert out.edges[0].points == (Point(50, 40), Point(50, 88), Point(62, 88), Point(62, 100))
    assert (out.width, out.height) == (112, 140)


def test_siblings_under_a_gateway_sit_symmetric_at_the_minimum_spacing() -> None:
    # diamond g (80 wide) over b and c (100 wide): b.x + 100 + 40 = c.x, and g's centre
    # halfway between theirs
    graph = Graph((Node("g", 80, 40, Shape.DIAMOND), Node("b", 100, 40), Node("c", 100, 40)),
                  (Edge("e1", "g", "b"), Edge("e2", "g", "c")))
    result = run_layout(graph, OPTIONS)
    g, b, c = (result.node(n) for n in "gbc")
    assert c.x - (b.x + b.width) == OPTIONS.node_spacing
    assert g.center.x == pytest.approx((b.center.x + c.center.x) / 2)


def test_a_straight_chain_beside_a_wide_sibling_stays_in_one_column() -> None:
    graph = Graph((Node("a", 100, 40), Node("b", 60, 40), Node("c", 100, 40),
                   Node("x", 300, 40)),
                  (Edge("e1", "a", "b"), Edge("e2", "b", "c"), Edge("e3", "a", "x")))
    result = run_layout(graph, OPTIONS)
    routes = {r.id: r for r in result.edges}
    # one column up to float rounding (a's slot is x + 100/3, b's centre x + 60/2)
    assert [p.x for r in ("e1", "e2") for p in routes[r].points] == \
        pytest.approx([result.node("b").center.x] * 4, abs=1e-9)


def test_a_compacted_drawing_that_breaks_a_contract_is_undone(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # a "compaction" that stacks both nodes on one spot overlaps them: the step must
    # hand back the uncompacted drawing and say which contract broke
    graph = Graph((Node("a", 100, 40), Node("b", 100, 40)), ())
    routing = Routing((NodeBox("a", 0, 0, 100, 40), NodeBox("b", 140, 0, 100, 40)), (),
                      240, 40)

    def overlapping(r: Routing, options: LayoutOptions) -> Attempt:
        return Attempt(replace(r, nodes=(r.nodes[0], replace(r.nodes[1], x=0.0))), False)

    monkeypatch.setattr(compaction, "attempt_compaction", overlapping)
    out = compaction.run(routing, graph, OPTIONS, Deadline(5))
    assert out == Compacted(routing, "compaction undone: it broke node-overlap")


def test_a_compaction_that_moves_a_label_nearer_another_edge_is_undone(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # label 4 px right of its own edge (x = 50); the other edge at x = 100 is 26 px away
    # from it; a "compaction" bringing the other edge to x = 78 (4 px from the label's
    # right side, tied with its own edge) must be undone
    graph = Graph((Node("a", 100, 40), Node("b", 100, 40), Node("c", 60, 40)),
                  (Edge("e", "a", "b"), Edge("f", "a", "c")))
    label = Box(54, 60, 20, 10)
    own = EdgeRoute("e", "a", "b", (Point(50, 40), Point(50, 200)), label_box=label)
    other = _route("f", "a", "c", (100, 40), (100, 200))
    boxes = (NodeBox("a", 0, 0, 140, 40), NodeBox("b", 0, 200, 100, 40),
             NodeBox("c", 80, 200, 60, 40))
    routing = Routing(boxes, (own, other), 140, 240)

    def closer(r: Routing, options: LayoutOptions) -> Attempt:
        return Attempt(replace(r, edges=(own, _route("f", "a", "c", (78, 40), (78, 200)))),
                       False)

    monkeypatch.setattr(compaction, "attempt_compaction", closer)
    out = compaction.run(routing, graph, OPTIONS, Deadline(5))
    assert out.routing is routing
    assert out.note == "compaction undone: it moved a label nearer another edge"


def _graphs() -> list[tuple[str, Graph]]:
    graphs = [(p.stem, read_diagram_file(p).graph) for p in sorted(FIXTURES.glob("*.yaml"))]
    graphs += [(f"generated-{n}-{seed}",
                diagram_from_definition(generate_definition(n, seed)).graph)
               for n, seed in ((25, 2), (50, 3), (100, 4))]
    return graphs


@pytest.mark.parametrize("direction", [Direction.TOP_TO_BOTTOM, Direction.LEFT_TO_RIGHT])
@pytest.mark.parametrize(("name", "graph"), _graphs(), ids=[n for n, _ in _graphs()])
def test_compaction_is_applied_keeps_contracts_and_shrinks(
        name: str, graph: Graph, direction: Direction,
        monkeypatch: pytest.MonkeyPatch) -> None:
    options = LayoutOptions(direction=direction)
    compacted = run_layout(graph, options)
    assert not [n for n in compacted.diagnostics.notes if "compaction" in n]
    assert check_layout(graph, compacted, options) == []
    again = run_layout(graph, options)                     # deterministic
    assert (again.nodes, again.edges, again.width, again.height) == \
        (compacted.nodes, compacted.edges, compacted.width, compacted.height)
    monkeypatch.setattr(compaction, "run", lambda r, g, o, d: Compacted(r))
    plain = run_layout(graph, options)
    after, before = measure(compacted), measure(plain)
    assert after.crossings == before.crossings            # order kept on every line
    assert after.bends == before.bends
    assert compacted.width <= plain.width + 1e-6
    assert compacted.height <= plain.height + 1e-6
    assert after.total_edge_length <= before.total_edge_length + 1e-6


def test_draft_effort_skips_compaction(monkeypatch: pytest.MonkeyPatch) -> None:
    graph = read_diagram_file(FIXTURES / "document-processing.yaml").graph
    options = LayoutOptions(effort=Effort.DRAFT)
    drafted = run_layout(graph, options)
    monkeypatch.setattr(compaction, "compact", lambda r, o: pytest.fail("compacted"))
    assert run_layout(graph, options).edges == drafted.edges
