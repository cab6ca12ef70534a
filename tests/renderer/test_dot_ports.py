"""DOT edge ends at named ports: ``node:port``, ``node:port:compass`` and ``node:compass``,
read into ports and drawn by dot (routed to the record field by name) and elkjs.

The records here have fields with the same text, so each field is an equal share of the
node: field ``i`` of ``n`` side-by-side fields spans ``[i/n, (i+1)/n]`` of the width."""

from __future__ import annotations

import math
import shutil

import pytest

from layouts.api import layout
from layouts.graph import PortSide
from layouts.options import LayoutOptions
from layouts.providers.graphviz import build_dot_source, read_layout, run_dot
from layouts.result import LayoutResult
from renderer.dot_reader import read_dot

NEEDS = {"graphviz": "dot", "elkjs": "node"}
# s has three equal fields; s:f2:s leaves from the bottom of the right-hand field,
# t:w enters t's left side, u:ne enters u's top-right corner, s:f0 enters field f0
TEXT = ('digraph { node [shape=record]; s [label="<f0> x|<f1> x|<f2> x"]; '
        't [shape=box]; u [shape=ellipse]; '
        's:f2:s -> t:w; t -> u:ne; u -> s:f0 }')


def _laid(engine: str) -> LayoutResult:
    if shutil.which(NEEDS[engine]) is None:
        pytest.skip(f"{engine} needs {NEEDS[engine]}")
    return layout(read_dot(TEXT).graph, engine=engine)


def test_the_reader_makes_a_port_per_named_port_and_compass_point() -> None:
    graph = read_dot(TEXT).graph
    s, t, u = (graph.node(n) for n in "stu")
    f2_bottom = s.port("s:f2:s")
    assert f2_bottom.side is PortSide.SOUTH
    assert (f2_bottom.x, f2_bottom.y) == (pytest.approx(s.width * 5 / 6), s.height)
    west = t.port("t::w")
    assert (west.side, west.x, west.y) == (PortSide.WEST, 0.0, t.height / 2)
    corner = u.port("u::ne")
    assert (corner.x, corner.y) == (u.width, 0.0)
    ends = {e.id: (e.source_port, e.target_port) for e in graph.edges}
    assert ends == {"s->t": ("s:f2:s", "t::w"), "t->u": (None, "u::ne"),
                    "u->s": (None, "s:f0:in")}


def test_dot_gets_the_record_and_the_port_names() -> None:
    source = build_dot_source(read_dot(TEXT).graph, LayoutOptions())
    assert "n0:f2:s -> n1:w" in source     # s, t, u are n0, n1, n2 (model order)
    assert "n1 -> n2:ne" in source and "n2 -> n0:f0" in source
    assert "shape=record" in source and '"<f0> x|<f1> x|<f2> x"' in source


@pytest.mark.parametrize("engine", ["graphviz", "elkjs"])
def test_edges_end_at_their_named_ports(engine: str) -> None:
    result = _laid(engine)
    s, t, u = (result.node(n) for n in "stu")
    routes = {e.id: e.points for e in result.edges}
    start = routes["s->t"][0]
    assert math.isclose(start.x, s.x + s.width * 5 / 6, abs_tol=0.01)   # field f2's middle
    assert math.isclose(start.y, s.y + s.height, abs_tol=0.01)          # its south side
    end = routes["s->t"][-1]
    assert (end.x, end.y) == (pytest.approx(t.x), pytest.approx(t.y + t.height / 2))
    corner = routes["t->u"][-1]
    assert (corner.x, corner.y) == (pytest.approx(u.x + u.width), pytest.approx(u.y))
    into_f0 = routes["u->s"][-1]
    assert math.isclose(into_f0.x, s.x + s.width / 6, abs_tol=0.01)    # field f0's middle
    assert not result.diagnostics.warnings


def test_dot_itself_routes_to_the_field() -> None:
    """dot's own route (before our ends are snapped to the ports) starts under field f2:
    within the right-hand third of s, not at s's centre as a bare compass point would."""
    if shutil.which("dot") is None:
        pytest.skip("graphviz needs dot")
    graph = read_dot(TEXT).graph
    output = run_dot("dot", build_dot_source(graph, LayoutOptions()), 10)
    centers, routes, _ = read_layout(output, graph)
    s = graph.node("s")
    left = centers["s"].x - s.width / 2
    start = next(r for r in routes if r.edge.id == "s->t").points[0]
    assert left + s.width * 2 / 3 - 0.5 <= start.x <= left + s.width + 0.5


def test_a_record_label_that_looks_like_html_reaches_dot_as_a_record() -> None:
    """``<f0> 0x10ba8| <f1>`` starts with ``<`` and ends with ``>``: pygraphviz wrote it
    unquoted as an HTML label, and dot failed on it (Graphviz's triedds.gv)."""
    if shutil.which("dot") is None:
        pytest.skip("graphviz needs dot")
    text = ('digraph { node [shape=record]; a [label="<f0> 0x10ba8| <f1>"]; '
            'b [label="<f0> x| <f1>"]; a:f1 -> b:f0 }')
    result = layout(read_dot(text).graph, engine="graphviz")
    a = result.node("a")
    start = result.edges[0].points[0]
    assert a.x + a.width / 2 < start.x <= a.x + a.width   # from field f1, the right half


def test_a_record_field_named_like_a_compass_point_is_the_field() -> None:
    """Graphviz looks a port name up among the record's fields before the compass points
    (Graphviz's hashtable.gv names its fields n and p): ``b:n`` is field n, the left
    third of b, not b's top centre."""
    text = ('digraph { node [shape=record]; a; b [label="<n> x|x|<p> x"]; a -> b:n; '
            'c [shape=box]; a -> c:n }')
    graph = read_dot(text).graph
    assert [e.target_port for e in graph.edges] == ["b:n:in", "c::n"]
    if shutil.which("dot") is None:
        pytest.skip("graphviz needs dot")
    result = layout(graph, engine="graphviz")
    b = result.node("b")
    end = result.edges[0].points[-1]
    assert math.isclose(end.x, b.x + b.width / 6, abs_tol=0.01)
