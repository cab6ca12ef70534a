"""ELK JSON compatibility: graphs written for these tests, each laid out by our pipeline
(ELK JSON reader -> elkjs provider -> ELK JSON writer) and by the pinned elkjs called
directly (tools/elk-layout/layout.js, one worker process for every graph), must give the
same output shape and, since both get identical options, the same coordinates.

Every graph's root carries the options our provider sends (see ``FULL``), so "identical
options" is literally the same document; graphs that leave some out get the option table's
defaults, written here as ELK options (``TABLE_DEFAULTS``). What is compared:

- shape: the same keys on every object at every level (elkjs's internal ``$H`` aside) and
  the same list lengths; our echo keeps every input field, id type and order;
- coordinates: ``x``, ``y``, ``width``, ``height`` of every node, port and label, and every
  edge's sections (start, bends, end, incoming/outgoing shape) and ``container``, to the
  2 decimals we write.
"""

from __future__ import annotations

import copy
import json
import subprocess
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from layouts.options import LayoutOptions
from layouts.providers.elkjs import ElkjsProvider
from renderer.elk_read import read_elk_graph
from renderer.elk_write import elk_document
from renderer.render import resolve_options

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "tools" / "elk-layout" / "layout.js"

TABLE_DEFAULTS = {  # LayoutOptions() as ELK options, from the option table's defaults
    "elk.direction": "DOWN", "elk.spacing.nodeNode": "40",
    "elk.layered.spacing.nodeNodeBetweenLayers": "60", "elk.spacing.edgeEdge": "12",
    "elk.layered.spacing.edgeEdgeBetweenLayers": "12", "elk.spacing.edgeNode": "12",
    "elk.layered.spacing.edgeNodeBetweenLayers": "12", "elk.randomSeed": "1",
    "elk.layered.thoroughness": "7", "elk.algorithm": "layered",
    "elk.edgeRouting": "ORTHOGONAL",
}


def full(**changes: Any) -> dict[str, Any]:
    """Root options with every option our provider sets, some changed (ELK short names)."""
    options = dict(TABLE_DEFAULTS)
    for short, value in changes.items():
        key = next(k for k in options if k.endswith("." + short)) if any(
            k.endswith("." + short) for k in options) else f"elk.{short}"
        options[key] = value
    return options


def n(node_id: Any, w: float = 40, h: float = 30, **extra: Any) -> dict[str, Any]:
    return {"id": node_id, "width": w, "height": h, **extra}


def e(edge_id: Any, source: Any, target: Any, **extra: Any) -> dict[str, Any]:
    return {"id": edge_id, "sources": [source], "targets": [target], **extra}


def port(port_id: str, side: str | None = None, index: int | None = None,
         **extra: Any) -> dict[str, Any]:
    options: dict[str, Any] = {}
    if side:
        options["elk.port.side"] = side
    if index is not None:
        options["elk.port.index"] = str(index)
    item: dict[str, Any] = {"id": port_id, "width": 6, "height": 6, **extra}
    if options:
        item["layoutOptions"] = options
    return item


def graph(children: list[dict[str, Any]], edges: list[dict[str, Any]],
          options: dict[str, Any] | None = None, **extra: Any) -> dict[str, Any]:
    return {"id": "root", "layoutOptions": full() if options is None else options,
            "children": children, "edges": edges, **extra}


def label(text: str, w: float, h: float, **extra: Any) -> dict[str, Any]:
    return {"text": text, "width": w, "height": h, **extra}


def _chain(k: int, prefix: str = "n") -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    nodes = [n(f"{prefix}{i}", 40 + 10 * (i % 3), 30) for i in range(k)]
    edges = [e(f"{prefix}e{i}", f"{prefix}{i}", f"{prefix}{i + 1}") for i in range(k - 1)]
    return nodes, edges


def _diamond() -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    nodes = [n("s"), n("a"), n("b"), n("t")]
    return nodes, [e("e1", "s", "a"), e("e2", "s", "b"), e("e3", "a", "t"), e("e4", "b", "t")]


def _ported(constraints: str, sides: list[tuple[str, str | None, int | None]]
            ) -> dict[str, Any]:
    return n("hub", 60, 60, ports=[port(pid, side, index) for pid, side, index in sides],
             layoutOptions={"elk.portConstraints": constraints})


def _options_graphs() -> Iterator[tuple[str, str, dict[str, Any]]]:
    nodes, edges = _diamond()
    for direction in ("DOWN", "UP", "RIGHT", "LEFT"):
        yield "options", f"direction-{direction}", graph(copy.deepcopy(nodes),
                                                         copy.deepcopy(edges),
                                                         full(direction=direction))
    chain_nodes, chain_edges = _chain(5)
    yield "options", "spacings", graph(chain_nodes, chain_edges, full(
        **{"spacing.nodeNode": "25", "spacing.nodeNodeBetweenLayers": "35"}))
    yield "options", "thoroughness-seed", graph(*_diamond(), full(
        thoroughness="30", randomSeed="5"))
    # prefixes: the full id, the short id and a bare suffix, as ELK accepts them
    yield "options", "prefixes", graph(*_diamond(), {
        **{k: v for k, v in TABLE_DEFAULTS.items() if k != "elk.direction"},
        "org.eclipse.elk.direction": "RIGHT"})
    yield "options", "table-defaults", graph(*_diamond(), {"elk.direction": "LEFT"})
    yield "options", "legacy-properties", {"id": "root", "properties": full(direction="UP"),
                                           "children": nodes, "edges": edges}
    yield "options", "node-placement-linear", graph(*_chain(4), full(
        **{"layered.nodePlacement.strategy": "LINEAR_SEGMENTS"}))
    cyc_nodes = [n("a"), n("b"), n("c")]
    yield "options", "cycle-breaking-depth-first", graph(
        cyc_nodes, [e("ab", "a", "b"), e("bc", "b", "c"), e("ca", "c", "a")],
        full(**{"layered.cycleBreaking.strategy": "DEPTH_FIRST"}))
    yield "options", "polyline-routing", graph(*_diamond(), full(edgeRouting="POLYLINE"))


def _port_graphs() -> Iterator[tuple[str, str, dict[str, Any]]]:
    targets = [n(f"t{i}") for i in range(4)]
    four = [("pn", "NORTH", None), ("pe", "EAST", None), ("ps", "SOUTH", None),
            ("pw", "WEST", None)]
    yield "ports", "fixed-side", graph(
        [_ported("FIXED_SIDE", four), *targets],
        [e(f"e{i}", pid, f"t{i}") for i, (pid, _, _) in enumerate(four)])
    ordered = [("o1", "SOUTH", 2), ("o2", "SOUTH", 3), ("o3", "SOUTH", 4), ("i1", "NORTH", 0),
               ("i2", "NORTH", 1)]
    yield "ports", "fixed-order", graph(
        [_ported("FIXED_ORDER", ordered), n("src1"), n("src2"), *targets[:3]],
        [e("in1", "src1", "i1"), e("in2", "src2", "i2"),
         *[e(f"out{i}", f"o{i + 1}", f"t{i}") for i in range(3)]])
    fixed_pos = n("hub", 80, 40, layoutOptions={"elk.portConstraints": "FIXED_POS"}, ports=[
        {"id": "left", "x": 10, "y": 34, "width": 6, "height": 6},
        {"id": "right", "x": 64, "y": 34, "width": 6, "height": 6}])
    yield "ports", "fixed-pos", graph([fixed_pos, n("a"), n("b")],
                                      [e("e1", "left", "a"), e("e2", "right", "b")])
    yield "ports", "free", graph([_ported("FREE", [("p1", None, None), ("p2", None, None)]),
                                  n("a"), n("b")], [e("e1", "a", "p1"), e("e2", "p2", "b")])
    yield "ports", "undefined-with-sides", graph(
        [n("x", 50, 50, ports=[port("q", "NORTH")]), n("y")], [e("e1", "y", "q")])
    yield "ports", "port-labels", graph(
        [n("x", 60, 40, layoutOptions={"elk.portConstraints": "FIXED_SIDE",
                                       "elk.portLabels.placement": "OUTSIDE"},
           ports=[port("q", "EAST", labels=[label("out", 20, 10)])]), n("y")],
        [e("e1", "q", "y")], full(direction="RIGHT"))
    yield "ports", "many-edges-one-port", graph(
        [_ported("FIXED_SIDE", [("fan", "SOUTH", None)]), *targets],
        [e(f"f{i}", "fan", f"t{i}") for i in range(4)])
    yield "ports", "port-to-port", graph(
        [n("a", 40, 40, ports=[port("ao", "EAST")],
           layoutOptions={"elk.portConstraints": "FIXED_SIDE"}),
         n("b", 40, 40, ports=[port("bi", "WEST")],
           layoutOptions={"elk.portConstraints": "FIXED_SIDE"})],
        [e("e1", "ao", "bi")], full(direction="RIGHT"))


def _compound_graphs() -> Iterator[tuple[str, str, dict[str, Any]]]:
    inner_nodes, inner_edges = _chain(3, "g")
    yield "compound", "one-group", graph(
        [{"id": "G", "children": inner_nodes, "edges": inner_edges}, n("out")],
        [e("x", "G", "out")])
    yield "compound", "three-levels", graph(
        [{"id": "L1", "children": [
            {"id": "L2", "children": [
                {"id": "L3", "children": [n("deep1"), n("deep2")],
                 "edges": [e("d", "deep1", "deep2")]}, n("mid")],
             "edges": [e("m", "L3", "mid")]}, n("top")],
          "edges": [e("t", "L2", "top")]}, n("outside")],
        [e("o", "L1", "outside")])
    yield "compound", "cross-hierarchy-include-children", graph(
        [{"id": "A", "children": [n("a1"), n("a2")], "edges": [e("ia", "a1", "a2")]},
         {"id": "B", "children": [n("b1"), n("b2")], "edges": [e("ib", "b1", "b2")]}],
        [e("ab", "a2", "b1"), e("ba", "a1", "b2")],
        full(hierarchyHandling="INCLUDE_CHILDREN"))
    yield "compound", "edge-declared-at-root", graph(
        [{"id": "A", "children": [n("a1"), n("a2")]}, n("z")],
        [e("inner", "a1", "a2"), e("out", "a2", "z")],
        full(hierarchyHandling="INCLUDE_CHILDREN"))
    yield "compound", "parent-to-child", graph(
        [{"id": "P", "children": [n("c1"), n("c2")], "edges": [e("pc", "P", "c1"),
                                                               e("cc", "c1", "c2")]}],
        [], full(hierarchyHandling="INCLUDE_CHILDREN"))
    yield "compound", "group-with-direction", graph(
        [{"id": "G", "layoutOptions": {"elk.direction": "RIGHT"},
          "children": [n("r1"), n("r2"), n("r3")],
          "edges": [e("r12", "r1", "r2"), e("r23", "r2", "r3")]}, n("below")],
        [e("gb", "G", "below")])
    yield "compound", "group-label-and-padding", graph(
        [{"id": "G", "labels": [label("Group", 50, 16)],
          "layoutOptions": {"elk.padding": "[top=30,left=10,bottom=10,right=10]",
                            "elk.nodeLabels.placement": "INSIDE V_TOP H_CENTER"},
          "children": [n("a"), n("b")], "edges": [e("ab", "a", "b")]}], [])
    yield "compound", "ports-on-group", graph(
        [{"id": "G", "ports": [port("gin", "WEST"), port("gout", "EAST")],
          "layoutOptions": {"elk.portConstraints": "FIXED_SIDE"},
          "children": [n("a")], "edges": [e("in", "gin", "a"), e("out", "a", "gout")]},
         n("s"), n("t")],
        [e("sg", "s", "gin"), e("gt", "gout", "t")],
        full(direction="RIGHT", hierarchyHandling="INCLUDE_CHILDREN"))


def _label_graphs() -> Iterator[tuple[str, str, dict[str, Any]]]:
    yield "labels", "edge-labels", graph(
        [n("a"), n("b"), n("c")],
        [e("ab", "a", "b", labels=[label("yes", 24, 12)]),
         e("ac", "a", "c", labels=[label("no", 16, 12)])])
    yield "labels", "node-labels-placed", graph(
        [n("a", 80, 40, labels=[label("Alpha", 40, 14)],
           layoutOptions={"elk.nodeLabels.placement": "INSIDE V_CENTER H_CENTER"}),
         n("b", 80, 40, labels=[label("Beta", 30, 14)],
           layoutOptions={"elk.nodeLabels.placement": "OUTSIDE V_TOP H_LEFT"})],
        [e("ab", "a", "b")])
    yield "labels", "center-edge-label-right", graph(
        [n("a"), n("b")],
        [e("ab", "a", "b", labels=[label("go", 20, 10, layoutOptions={
            "elk.edgeLabels.placement": "CENTER"})])], full(direction="RIGHT"))


def _multi_label_graphs() -> Iterator[tuple[str, str, dict[str, Any]]]:
    yield "labels", "edge-with-three-labels", graph(
        [n("a"), n("b")],
        [e("ab", "a", "b", labels=[label("one", 24, 12), label("two", 30, 10),
                                    label("three", 36, 14)])])
    yield "labels", "node-with-two-labels", graph(
        [n("a", 80, 50, labels=[label("A1", 20, 10), label("A2", 30, 12)],
           layoutOptions={"elk.nodeLabels.placement": "INSIDE V_TOP H_CENTER"}),
         n("b", 80, 50, labels=[label("B1", 20, 10), label("B2", 26, 10)],
           layoutOptions={"elk.nodeLabels.placement": "OUTSIDE V_BOTTOM H_LEFT"})],
        [e("ab", "a", "b")])
    yield "labels", "port-and-edge-labels-right", graph(
        [n("a", 50, 40, ports=[port("p", "EAST", labels=[label("p1", 10, 8),
                                                         label("p2", 14, 8)])]),
         n("b")],
        [e("ab", "p", "b", labels=[label("x", 10, 10), label("yy", 20, 10)])],
        full(direction="RIGHT"))


def _coords_graph(root: dict[str, str], group: dict[str, str]) -> dict[str, Any]:
    """A compound node ``g`` (label, port, two children, an edge declared inside) and
    edges declared at the root into and out of it; ``root``/``group`` are extra options
    of the root and of ``g`` (the coordinate systems under test)."""
    g = n("g", 10, 10, labels=[label("G", 10, 10)],
          ports=[port("gp", "EAST", labels=[label("gpl", 8, 8)])],
          children=[n("a", labels=[label("A", 10, 10)]), n("b")],
          edges=[e("ab", "a", "b", labels=[label("x", 8, 8)])])
    if group:
        g["layoutOptions"] = group
    return graph([g, n("c")], [e("ac", "a", "c"), e("gc", "gp", "c")],
                 full(hierarchyHandling="INCLUDE_CHILDREN", **root))


def _coords_graphs() -> Iterator[tuple[str, str, dict[str, Any]]]:
    shape, edge = "elk.json.shapeCoords", "elk.json.edgeCoords"
    yield "coords", "shape-coords-root", _coords_graph({"json.shapeCoords": "ROOT"}, {})
    yield "coords", "shape-coords-root-in-group", _coords_graph({}, {shape: "ROOT"})
    yield "coords", "shape-coords-parent-explicit", _coords_graph(
        {"json.shapeCoords": "PARENT"}, {shape: "INHERIT"})
    yield "coords", "edge-coords-root", _coords_graph({"json.edgeCoords": "ROOT"}, {})
    yield "coords", "edge-coords-parent", _coords_graph({"json.edgeCoords": "PARENT"}, {})
    yield "coords", "edge-coords-root-in-group", _coords_graph({}, {edge: "ROOT"})
    yield "coords", "edge-coords-container-explicit", _coords_graph(
        {"json.edgeCoords": "CONTAINER"}, {edge: "INHERIT"})
    yield "coords", "both-root", _coords_graph(
        {"json.shapeCoords": "ROOT", "json.edgeCoords": "ROOT"}, {})


def _echo_graphs() -> Iterator[tuple[str, str, dict[str, Any]]]:
    yield "echo", "unknown-fields-and-integer-ids", graph(
        [n(1, data={"kind": "task", "n": [1, 2]}, type="custom"), n(2), n("three")],
        [e(10, 1, 2, data={"weight": 3}), e("e20", 2, "three", type="dashed")],
        meta={"source": "written for this test"})
    yield "echo", "legacy-source-target", graph(
        [n("a"), n("b"), n("c")],
        [{"id": "ab", "source": "a", "target": "b"}, e("bc", "b", "c")])
    yield "echo", "key-order-kept", graph(
        [{"height": 30, "id": "z", "width": 50, "zeta": 1}, {"width": 40, "id": "y",
                                                             "height": 20}],
        [{"targets": ["y"], "id": "zy", "sources": ["z"]}])


GRAPHS = [*_options_graphs(), *_port_graphs(), *_compound_graphs(), *_label_graphs(),
          *_multi_label_graphs(), *_coords_graphs(), *_echo_graphs()]


def _normalised(document: dict[str, Any]) -> dict[str, Any]:
    """The document as elkjs 0.12 lays it out: it ignores the older ``source``/``target``
    edges (no sections), so those are given as ``sources``/``targets``."""
    out = copy.deepcopy(document)
    stack = [out]
    while stack:
        item = stack.pop()
        for edge in item.get("edges", []):
            if "source" in edge:
                edge["sources"] = [edge.pop("source")]
                edge["targets"] = [edge.pop("target")]
        stack.extend(item.get("children", []))
    return out


def _elkjs_direct(documents: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Lay out every document with one ``node layout.js --worker`` process."""
    lines = "".join(json.dumps({"id": i, "graph": d}) + "\n" for i, d in enumerate(documents))
    done = subprocess.run(["node", str(SCRIPT), "--worker"], input=lines.encode(),
                          capture_output=True, timeout=120, check=True)
    replies = [json.loads(line) for line in done.stdout.decode().splitlines()]
    assert [r["id"] for r in replies] == list(range(len(documents)))
    for reply in replies:
        assert "error" not in reply, reply
    return [r["graph"] for r in replies]


@pytest.fixture(scope="module")
def laid_out() -> dict[str, tuple[dict[str, Any], dict[str, Any], dict[str, Any]]]:
    """name -> (input, ours, elkjs direct), for every graph, with two node processes."""
    if not ElkjsProvider().availability().available:
        pytest.skip(f"elkjs unavailable: {ElkjsProvider().availability().reason}")
    provider = ElkjsProvider(mode="worker", workers=1)
    ours = []
    try:
        for _, _, document in GRAPHS:
            diagram = read_elk_graph(copy.deepcopy(document))
            options = resolve_options(diagram, LayoutOptions(), frozenset())
            result = provider.layout(diagram.graph, options)
            ours.append(json.loads(json.dumps(elk_document(diagram, result))))
    finally:
        provider.close()
    direct = _elkjs_direct([_with_defaults(_normalised(d)) for _, _, d in GRAPHS])
    return {name: (d, o, x) for (_, name, d), o, x in zip(GRAPHS, ours, direct, strict=True)}


def _with_defaults(document: dict[str, Any]) -> dict[str, Any]:
    """The table's defaults for every option the document's root leaves out, as our
    provider sends them (identical options)."""
    key = "layoutOptions" if "layoutOptions" in document or "properties" not in document \
        else "properties"
    given = document.get(key, {})
    short = {k.removeprefix("org.eclipse.elk.").removeprefix("elk.") for k in given}
    for name, value in TABLE_DEFAULTS.items():
        if name.removeprefix("elk.") not in short:
            given[name] = value
    document[key] = given
    return document


def _shape(value: Any) -> Any:
    """Keys and types at every level; option objects are input, compared by the echo test
    (the direct call gets the table's defaults added to them)."""
    if isinstance(value, dict):
        return {k: "options" if k in {"layoutOptions", "properties"} else _shape(v)
                for k, v in value.items() if k != "$H"}
    if isinstance(value, list):
        return [_shape(v) for v in value]
    return type(value).__name__ if not isinstance(value, int | float) or isinstance(
        value, bool) else "number"


POSITIONAL = {"x", "y", "width", "height"}


def _coordinates(value: Any, path: str = "") -> Iterator[tuple[str, Any]]:
    """Every positional number and every section field, by path."""
    if isinstance(value, dict):
        for k, v in value.items():
            if k in POSITIONAL and isinstance(v, int | float):
                yield f"{path}.{k}", round(float(v), 2)
            elif k in {"incomingShape", "outgoingShape", "container"}:
                yield f"{path}.{k}", v
            elif k not in {"layoutOptions", "properties", "$H"}:
                yield from _coordinates(v, f"{path}.{k}")
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _coordinates(v, f"{path}[{i}]")


def _differences(ours: Any, theirs: Any) -> list[str]:
    a, b = dict(_coordinates(ours)), dict(_coordinates(theirs))
    out = [f"{k}: ours {a.get(k)!r} elkjs {b.get(k)!r}" for k in sorted(set(a) | set(b))
           if not _close(a.get(k), b.get(k))]
    return out


def _close(a: Any, b: Any) -> bool:
    if isinstance(a, float) and isinstance(b, float):
        return abs(a - b) <= 0.011
    return bool(a == b)


NAMES = [name for _, name, _ in GRAPHS]


def test_the_suite_covers_every_feature() -> None:
    features = Counter(feature for feature, _, _ in GRAPHS)
    assert len(GRAPHS) >= 30 and len(set(NAMES)) == len(NAMES)
    assert {f for f, c in features.items() if c >= 3} == {"options", "ports", "compound",
                                                           "labels", "coords", "echo"}


@pytest.mark.parametrize("name", NAMES)
def test_same_shape_as_elkjs(laid_out: dict[str, Any], name: str) -> None:
    document, ours, direct = laid_out[name]
    expected = _shape(direct)
    if name == "legacy-source-target":  # our echo keeps the keys as given
        expected = _shape(_relabel_legacy(direct, document))
    assert _shape(ours) == expected


def _relabel_legacy(direct: dict[str, Any], document: dict[str, Any]) -> dict[str, Any]:
    out = copy.deepcopy(direct)
    for mine, given in zip(out["edges"], document["edges"], strict=True):
        if "source" in given:
            mine.pop("sources"), mine.pop("targets")
            rest = {k: mine.pop(k) for k in list(mine) if k != "id"}
            mine.update({"source": given["source"], "target": given["target"], **rest})
    return out


@pytest.mark.parametrize("name", NAMES)
def test_same_coordinates_as_elkjs(laid_out: dict[str, Any], name: str) -> None:
    _, ours, direct = laid_out[name]
    assert _differences(ours, direct) == []


@pytest.mark.parametrize("name", NAMES)
def test_echo_keeps_the_input(laid_out: dict[str, Any], name: str) -> None:
    """Every key of the input is in the output with its value (positions aside), in order."""
    document, ours, _ = laid_out[name]

    def keep(given: Any, written: Any) -> None:
        if isinstance(given, dict):
            assert list(written)[:len(given)] == list(given)
            for k, v in given.items():
                if k in POSITIONAL and not isinstance(v, dict | list):
                    continue
                keep(v, written[k])
        elif isinstance(given, list):
            assert len(given) == len(written)
            for g, w in zip(given, written, strict=True):
                keep(g, w)
        else:
            assert given == written and type(given) is type(written)

    keep(document, ours)


PORT_GRAPHS = [(name, document) for feature, name, document in GRAPHS if feature == "ports"]


def _route_free(value: Any) -> Any:
    """``value`` without bend and junction points (routes differ between engines)."""
    if isinstance(value, dict):
        return {k: _route_free(v) for k, v in value.items()
                if k not in {"bendPoints", "junctionPoints"}}
    if isinstance(value, list):
        return [_route_free(v) for v in value]
    return value


@pytest.mark.parametrize(("name", "document"), PORT_GRAPHS, ids=[n for n, _ in PORT_GRAPHS])
def test_layered_writes_port_graphs_in_the_elkjs_shape(
        name: str, document: dict[str, Any],
        laid_out: dict[str, tuple[dict[str, Any], dict[str, Any], dict[str, Any]]]) -> None:
    """``--engine layered`` lays the ELK port graphs out (no 422) and writes them in the
    shape elkjs returns: every node, port and edge section with the same keys and types
    (bend points aside), ports with ``x``/``y`` relative to their node."""
    from layouts.layered.provider import LayeredProvider

    diagram = read_elk_graph(copy.deepcopy(document))
    options = resolve_options(diagram, LayoutOptions(), frozenset())
    result = LayeredProvider().layout(diagram.graph, options)
    ours = json.loads(json.dumps(elk_document(diagram, result)))
    assert _shape(_route_free(ours)) == _shape(_route_free(laid_out[name][2]))
    nodes = {n.id: n for n in result.nodes}
    stack = [ours]
    while stack:
        item = stack.pop()
        for child in item.get("children", []):
            for p in child.get("ports", []):
                placed = result.port(str(p["id"]))
                node = nodes[placed.node]
                assert (p["x"], p["y"]) == pytest.approx((placed.x - node.x, placed.y - node.y))
            stack.append(child)


def test_layered_refuses_an_edge_from_inside_a_group_to_its_own_port() -> None:
    from layouts.errors import InvalidGraphError
    from layouts.layered.provider import LayeredProvider

    document = next(d for _, name, d in GRAPHS if name == "ports-on-group")
    diagram = read_elk_graph(copy.deepcopy(document))
    options = resolve_options(diagram, LayoutOptions(), frozenset())
    with pytest.raises(InvalidGraphError, match="joins compound node 'G' to its own "
                                                "descendant"):
        LayeredProvider().layout(diagram.graph, options)


# --- SEPARATE_CHILDREN with edges crossing levels ---------------------------------------------

def _separate_graphs() -> list[dict[str, Any]]:
    """Edges into and out of a compound node's children, with SEPARATE_CHILDREN asked for
    at the root and on the compound node: ELK would leave those edges unrouted."""
    inner = n("g", 10, 10, children=[n("a"), n("b")], edges=[e("ab", "a", "b")])
    at_root = graph([copy.deepcopy(inner), n("s"), n("t")],
                    [e("sa", "s", "a"), e("bt", "b", "t")],
                    full(hierarchyHandling="SEPARATE_CHILDREN"))
    on_node = copy.deepcopy(at_root)
    on_node["layoutOptions"].pop("elk.hierarchyHandling")
    on_node["children"][0]["layoutOptions"] = {"elk.hierarchyHandling": "SEPARATE_CHILDREN"}
    return [at_root, on_node]


def _included(document: dict[str, Any]) -> dict[str, Any]:
    out = copy.deepcopy(document)
    out["layoutOptions"]["elk.hierarchyHandling"] = "INCLUDE_CHILDREN"
    for child in out["children"]:
        child.get("layoutOptions", {}).pop("elk.hierarchyHandling", None)
    return out


def test_separate_children_with_crossing_edges_is_laid_out_as_include_children() -> None:
    """Our answer equals elkjs's own for the same graph with INCLUDE_CHILDREN, every edge
    has a routed section, and the fallback is named in the warnings."""
    if not ElkjsProvider().availability().available:
        pytest.skip(f"elkjs unavailable: {ElkjsProvider().availability().reason}")
    documents = _separate_graphs()
    provider = ElkjsProvider()
    ours, warnings = [], []
    for document in documents:
        diagram = read_elk_graph(copy.deepcopy(document))
        result = provider.layout(diagram.graph, resolve_options(diagram, LayoutOptions(),
                                                                frozenset()))
        warnings.append(result.diagnostics.warnings)
        ours.append(json.loads(json.dumps(elk_document(diagram, result))))
    direct = _elkjs_direct([_included(d) for d in documents])
    for mine, theirs, said in zip(ours, direct, warnings, strict=True):
        assert any("SEPARATE_CHILDREN" in w and "INCLUDE_CHILDREN instead" in w
                   and "sa, bt" in w for w in said)
        edges = [*mine["edges"], *mine["children"][0]["edges"]]
        assert all(edge["sections"] for edge in edges)
        assert _differences(_included(mine), _included(theirs)) == []
