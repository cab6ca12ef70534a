"""DOT as Graphviz users write it: rankdir, shapes, labels, sizes, colours, arrowheads,
charsets, gzip and clusters. Every DOT graph here was written for these tests."""

from __future__ import annotations

import gzip
import math
import re
import shutil
import warnings
from collections.abc import Iterator
from pathlib import Path

import pytest

from layouts.api import layout
from layouts.graph import Graph, Shape
from layouts.options import LayoutOptions
from layouts.result import LayoutResult
from renderer import dot_reader
from renderer.dot_reader import DOT_OUTLINES
from renderer.fonts import measure_text
from renderer.readers import INPUT_LIMITS, ReaderError, read_diagram, read_diagram_file
from renderer.record_layout import field_boxes
from renderer.render import render_timed
from renderer.writers import OutputFormat

with warnings.catch_warnings():
    warnings.filterwarnings("ignore", message="Using `httpx` with `starlette.testclient`")
    from starlette.testclient import TestClient

ENGINES = ["layered", "graphviz", "elkjs", "grandalf"]
NEEDS = {"graphviz": "dot", "elkjs": "node"}


def _direct(graph: Graph, engine: str, options: LayoutOptions) -> LayoutResult:
    return layout(graph, engine=engine, options=options)


def _render(text: str | bytes, fmt: OutputFormat = OutputFormat.SVG, engine: str = "layered",
            options: LayoutOptions | None = None, given: frozenset[str] = frozenset(),
            filename: str | None = None) -> tuple[bytes, LayoutResult]:
    rendering = render_timed(text, filename=filename, fmt=fmt, engine=engine,
                             options=options or LayoutOptions(), runner=_direct,
                             given_options=given)
    return rendering.output, rendering.result


def _skip_without(engine: str) -> None:
    if engine in NEEDS and shutil.which(NEEDS[engine]) is None:
        pytest.skip(f"{engine} needs {NEEDS[engine]}")


# --- rankdir ---------------------------------------------------------------------------------

@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize(("rankdir", "axis", "sign"), [
    ("TB", "y", 1), ("LR", "x", 1), ("BT", "y", -1), ("RL", "x", -1)])
def test_rankdir_is_honoured_by_every_engine(engine: str, rankdir: str, axis: str,
                                             sign: int) -> None:
    _skip_without(engine)
    _, result = _render(f"digraph {{ rankdir={rankdir}; a -> b -> c }}", OutputFormat.JSON,
                        engine)
    a, c = result.node("a").center, result.node("c").center
    assert sign * (getattr(c, axis) - getattr(a, axis)) > 0


def test_the_callers_direction_wins_over_rankdir() -> None:
    options = LayoutOptions.from_mapping({"direction": "TB"})
    _, result = _render("digraph { rankdir=LR; a -> b }", OutputFormat.JSON,
                        options=options, given=frozenset({"direction"}))
    assert result.node("b").y > result.node("a").y


def test_ranksep_and_nodesep_set_the_spacings() -> None:
    _skip_without("graphviz")
    _, result = _render("digraph { ranksep=1; a -> b }", OutputFormat.JSON, "graphviz")
    a, b = result.node("a"), result.node("b")
    assert math.isclose(b.y, a.y + a.height + 72, abs_tol=0.01)  # 1 in = 72 px between ranks


def test_unknown_rankdir_is_a_warning() -> None:
    diagram = read_diagram("digraph { rankdir=XY; a -> b }")
    assert diagram.option_values == {}
    assert any("rankdir=XY" in w for w in diagram.warnings)


# --- shapes ----------------------------------------------------------------------------------

def test_every_listed_shape_is_drawn_with_its_outline() -> None:
    names = sorted(DOT_OUTLINES)
    text = "digraph {" + "; ".join(f'n{i} [shape="{name.strip()}"]'
                                   for i, name in enumerate(names)) + "}"
    svg, _ = _render(text)
    for i, name in enumerate(names):
        group = re.search(rf'<g class="node figure-([a-z0-9-]+)" data-step-id="n{i}"',
                          svg.decode())
        assert group is not None, name
        assert group.group(1) == DOT_OUTLINES[name].value, name


def test_default_shape_is_an_ellipse_and_layout_outlines_follow_the_shape() -> None:
    diagram = read_diagram("digraph { a; b [shape=circle]; c [shape=diamond]; d [shape=note] }")
    shapes = [diagram.graph.node(n).shape for n in "abcd"]
    assert shapes == [Shape.ELLIPSE, Shape.CIRCLE, Shape.DIAMOND, Shape.RECT]


# --- labels ------------------------------------------------------------------------------------

def test_html_label_is_its_text_with_line_breaks_never_markup() -> None:
    text = 'digraph { t [label=<<B>Total</B><BR ALIGN="LEFT"/>a &amp; b>] }'
    diagram = read_diagram(text)
    assert diagram.node_view("t").title == "Total\na & b"
    svg, _ = _render(text)
    assert b"<B>" not in svg and b"&lt;B" not in svg and b"BR" not in svg


def test_html_table_cells_and_rows() -> None:
    text = ("digraph { t [shape=plaintext, label=<<TABLE><TR><TD>id</TD><TD>name</TD></TR>"
            "<TR><TD>1</TD><TD>Ada</TD></TR></TABLE>>] }")
    assert read_diagram(text).node_view("t").title == "id name\n1 Ada"


def test_a_quoted_label_that_looks_like_html_stays_text() -> None:
    assert read_diagram('digraph { t [label="<b>x</b>"] }').node_view("t").title == "<b>x</b>"


def test_record_fields_are_drawn_and_ports_named() -> None:
    text = ('digraph { node [shape=record]; s [label="<in> input|{<l> left|<r> right}|out"];'
            " t; s:l -> t; t -> s:in }")
    diagram = read_diagram(text)
    figure = diagram.nodes["s"].figure
    assert figure is not None and figure.record is not None
    assert figure.record.ports() == ["in", "l", "r"]
    assert figure.record.texts() == ["input", "left", "right", "out"]
    svg, result = _render(text)
    for field in ("input", "left", "right", "out"):
        assert f">{field}</text>".encode() in svg
    assert any("2 edge end(s) at a record field or compass point attach to the whole node"
               in w
               for w in result.diagnostics.warnings)  # layered lays out no ports


@pytest.mark.parametrize("engine", ["elkjs", "graphviz"])
def test_record_fields_are_ports_where_the_engine_has_ports(engine: str) -> None:
    _skip_without(engine)
    text = ('digraph { node [shape=record]; s [label="<in> input|<mid> middle|<out> output"];'
            " t; u; s:out -> t; u -> s:in }")
    _, result = _render(text, OutputFormat.JSON, engine)
    s = result.node("s")
    figure = read_diagram(text).nodes["s"].figure
    assert figure is not None and figure.record is not None
    centres = {leaf.port: box.center.x for box, leaf in field_boxes(figure.record, s.box, True)}
    out_edge = next(e for e in result.edges if e.id == "s->t")
    in_edge = next(e for e in result.edges if e.id == "u->s")
    # leaves from under the "output" field, enters above the "input" field
    assert math.isclose(out_edge.points[0].x, centres["out"], abs_tol=0.01)
    assert math.isclose(out_edge.points[0].y, s.y + s.height, abs_tol=0.01)
    assert math.isclose(in_edge.points[-1].x, centres["in"], abs_tol=0.01)
    assert not result.diagnostics.warnings


def test_xlabel_is_drawn_beside_the_node_and_edge_xlabel_labels_the_edge() -> None:
    diagram = read_diagram('digraph { a [xlabel="outside"]; a -> b [xlabel="x"] }')
    assert diagram.nodes["a"].figure is not None and diagram.nodes["a"].figure.xlabel == \
        "outside"
    assert diagram.graph.edges[0].label == "x"


# --- sizes -------------------------------------------------------------------------------------

def test_width_and_height_are_minimums_in_inches_unless_fixedsize() -> None:
    long_label = "a rather long label that needs room"
    text_width, _ = measure_text(long_label, 12.0)
    diagram = read_diagram(
        f'digraph {{ small [shape=box, width=2, height=1]; '
        f'grown [shape=box, width=1, label="{long_label}"]; '
        f'fixed [shape=box, width=1, fixedsize=true, label="{long_label}"]; '
        f'zero [shape=box, width=0, label="x"] }}')
    small, grown, fixed = (diagram.graph.node(n) for n in ("small", "grown", "fixed"))
    assert (small.width, small.height) == (2 * 72, 72)
    assert grown.width == math.ceil(text_width + 16)  # label plus the 0.11 in margins
    assert fixed.width == 72
    zero = diagram.graph.node("zero")
    assert 0 < zero.width < 54  # width=0 accepted: the label alone decides


@pytest.mark.parametrize("value", ["-1", "nan", "1e9"])
def test_bad_sizes_name_the_node(value: str) -> None:
    with pytest.raises(ReaderError, match=f"node 'a' has width='{value}'"):
        read_diagram(f'digraph {{ a [width="{value}"] }}')


# --- colours and styles ----------------------------------------------------------------------

def test_colours_and_styles_are_drawn() -> None:
    svg, _ = _render('digraph { a [color=red, style="filled,dashed", fillcolor="#00ff0080"];'
                     ' a -> b [color=blue, style=dotted, penwidth=3] }')
    text = svg.decode()
    assert 'fill="#00ff00"' in text and 'fill-opacity="0.5"' in text
    assert 'stroke="#ff0000"' in text and 'stroke-dasharray="6 4"' in text
    assert 'stroke="#0000ff"' in text and 'stroke-width="3"' in text


@pytest.mark.parametrize("colour", ['red\\" onload=\\"alert(1)', "url(javascript:x)",
                                    "#12345g", "expression(alert(1))"])
def test_a_colour_cannot_inject_into_the_svg(colour: str) -> None:
    svg, _ = _render(f'digraph {{ a [color="{colour}", fillcolor="{colour}", style=filled] }}')
    assert b"onload" not in svg and b"javascript" not in svg and b"expression" not in svg


# --- arrowheads --------------------------------------------------------------------------------

def _arrowheads(svg: bytes) -> int:
    return svg.count(b'class="arrowhead"')


def test_undirected_graphs_have_no_arrowheads() -> None:
    assert _arrowheads(_render("graph { a -- b -- c }")[0]) == 0
    assert _arrowheads(_render("digraph { a -> b -> c }")[0]) == 2


def test_dir_and_arrowhead_attributes() -> None:
    svg, _ = _render("digraph { a -> b [dir=both]; b -> c [dir=none]; c -> d [arrowhead=none];"
                     " d -> e [dir=back] }")
    assert _arrowheads(svg) == 3  # both ends of a->b, the tail of d->e
    assert _arrowheads(_render("graph { a -- b [dir=forward] }")[0]) == 1


# --- charset, gzip, no dot binary ---------------------------------------------------------------

def test_latin1_charset_is_read() -> None:
    data = 'digraph { charset=latin1; a [label="Café à la carte"] }'.encode("latin-1")
    assert read_diagram(data).node_view("a").title == "Café à la carte"


def test_latin1_bytes_without_the_charset_name_the_bad_byte() -> None:
    data = 'digraph { a [label="Café"] }'.encode("latin-1")
    with pytest.raises(ReaderError, match="bad byte at offset 23"):
        read_diagram(data)


def test_unknown_charset_is_named() -> None:
    with pytest.raises(ReaderError, match="charset='klingon'"):
        read_diagram(b"digraph { charset=klingon; a }")


def test_gzip_dot_file_is_read(tmp_path: Path) -> None:
    path = tmp_path / "flow.gv.gz"
    path.write_bytes(gzip.compress(b"digraph flow { rankdir=LR; a -> b }"))
    diagram = read_diagram_file(path)
    assert diagram.name == "flow" and [n.id for n in diagram.graph.nodes] == ["a", "b"]


def test_gzip_bomb_is_refused_after_the_limit() -> None:
    bomb = gzip.compress(b"digraph { a }" + b" " * (INPUT_LIMITS.max_bytes + 10))
    assert len(bomb) < INPUT_LIMITS.max_bytes // 100
    with pytest.raises(ReaderError, match="decompresses to more than"):
        read_diagram(bomb)


def test_truncated_gzip_is_refused() -> None:
    with pytest.raises(ReaderError, match="gzip input is truncated"):
        read_diagram(gzip.compress(b"digraph { a -> b }")[:-12])


def test_dot_is_read_and_laid_out_without_the_dot_binary(monkeypatch: pytest.MonkeyPatch
                                                         ) -> None:
    monkeypatch.setattr(dot_reader.shutil, "which", lambda name: None)
    _, result = _render("digraph { rankdir=LR; a -> b }", OutputFormat.JSON, "layered")
    assert result.node("b").x > result.node("a").x


# --- clusters ----------------------------------------------------------------------------------

CLUSTERS = """digraph {
  subgraph cluster_front { label="Front office"; style=filled; fillcolor=lightyellow;
    take -> check; subgraph cluster_inner { label="Inner"; check2 } }
  check -> check2 -> ship; ship [shape=box] }"""


@pytest.mark.parametrize("engine", ["elkjs", "graphviz", "layered"])
def test_clusters_are_compound_nodes_drawn_as_labelled_boxes(engine: str) -> None:
    _skip_without(engine)
    svg, result = _render(CLUSTERS, OutputFormat.SVG, engine)
    parents = {n.id: n.parent for n in result.nodes}
    assert parents["take"] == "cluster_front" and parents["check2"] == "cluster_inner"
    assert parents["cluster_inner"] == "cluster_front" and parents["ship"] is None
    front, take = result.node("cluster_front"), result.node("take")
    assert front.x <= take.x and take.x + take.width <= front.x + front.width
    # room for the label at the top: one 12 px line plus its 4 px padding above and below
    _, line = measure_text("Front office", 12.0)
    assert take.y >= front.y + line + 8
    assert b">Front office</text>" in svg and b'class="node figure-cluster"' in svg
    assert not result.diagnostics.warnings  # no ELK-only option reaches graphviz


@pytest.mark.parametrize("engine", ["grandalf"])
def test_engines_without_compound_nodes_draw_the_clusters_flat_with_a_warning(
        engine: str) -> None:
    _skip_without(engine)
    _, result = _render(CLUSTERS, OutputFormat.JSON, engine)
    assert {n.id for n in result.nodes} == {"take", "check", "check2", "ship"}
    assert any("2 cluster(s) drawn without their box" in w for w in result.diagnostics.warnings)


# --- the service ---------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def client() -> Iterator[TestClient]:
    from renderer.isolation import WorkerPool
    from renderer.service import create_app

    with TestClient(create_app(pool=WorkerPool(size=1))) as test_client:
        yield test_client


def test_service_reads_gzip_bodies_by_their_magic_bytes(client: TestClient) -> None:
    body = gzip.compress(b"digraph { rankdir=LR; a -> b }")
    response = client.post("/api/render?format=json", content=body,
                           headers={"content-type": "application/gzip"})
    assert response.status_code == 200, response.text
    nodes = {n["id"]: n for n in response.json()["nodes"]}
    assert nodes["b"]["x"] > nodes["a"]["x"]


def test_service_refuses_a_gzip_bomb_with_400(client: TestClient) -> None:
    bomb = gzip.compress(b" " * (INPUT_LIMITS.max_bytes + 1))
    response = client.post("/api/render", content=bomb)
    assert response.status_code == 400
    assert "decompresses to more than" in response.json()["error"]


@pytest.mark.parametrize("hidden", ["", "gc"])
def test_syntax_errors_name_their_line_with_gc_or_dot(monkeypatch: pytest.MonkeyPatch,
                                                      hidden: str) -> None:
    if shutil.which("dot") is None:
        pytest.skip("needs Graphviz's tools")
    real_which = shutil.which
    monkeypatch.setattr(dot_reader.shutil, "which",
                        lambda name: None if name == hidden else real_which(name))
    with pytest.raises(ReaderError, match="syntax error in line 3"):
        read_diagram("digraph {\n  a ->\n}\n")


def test_same_dot_gives_the_same_svg() -> None:
    text = ('digraph { rankdir=LR; node [shape=record]; s [label="<a> x|{y|<b> z}"];'
            ' subgraph cluster_c { label=C; t; u } s:a -> t; s:b -> u; t -> u [color=red] }')
    assert _render(text)[0] == _render(text)[0]
