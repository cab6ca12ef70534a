"""Readers: format detection, sizes, malformed input and size limits."""

from __future__ import annotations

import contextlib
import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from layouts.errors import InvalidGraphError
from layouts.graph import Shape
from renderer.diagram import NodeView, StepKind
from renderer.from_definition import edge_label_size, node_size
from renderer.readers import INPUT_LIMITS, ReaderError, read_diagram, read_diagram_file

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"


# --- workflow DSL -------------------------------------------------------------------------

def test_reads_yaml_definition_fixture() -> None:
    diagram = read_diagram_file(FIXTURES / "document-processing.yaml")
    assert diagram.name == "document-processing"
    assert (len(diagram.graph.nodes), len(diagram.graph.edges)) == (24, 31)
    assert diagram.node_view("classify").kind is StepKind.AGENT


def test_reads_json_definition_from_bytes() -> None:
    text = json.dumps({"workflow": "w", "steps": [{"id": "a", "kind": "Timer"}], "edges": []})
    diagram = read_diagram(text.encode("utf-8"))
    assert diagram.graph.nodes[0].shape is Shape.CIRCLE


def test_definition_problems_are_reader_errors() -> None:
    with pytest.raises(ReaderError, match="unknown kind 'Robot'"):
        read_diagram("workflow: w\nsteps:\n  - {id: a, kind: Robot}\n")
    with pytest.raises(ReaderError, match="step 'a' has unknown field 'colour'"):
        read_diagram("workflow: w\nsteps:\n  - {id: a, kind: Tool, colour: red}\n")


def test_definition_with_dangling_edge_is_invalid_graph() -> None:
    text = "workflow: w\nsteps:\n  - {id: a, kind: Tool}\nedges:\n  - {from: a, to: nowhere}\n"
    with pytest.raises(InvalidGraphError, match="'nowhere', which is not a node"):
        read_diagram(text)


def test_bad_yaml_names_line() -> None:
    with pytest.raises(ReaderError, match="not valid YAML at line 3"):
        read_diagram("workflow: w\nsteps: []\nbad: a: b\n")


# --- graph JSON ---------------------------------------------------------------------------

def test_reads_graph_json() -> None:
    text = json.dumps({"nodes": [{"id": "a", "width": 50, "height": 20, "shape": "diamond"},
                                 {"id": "b", "width": 30, "height": 30}],
                       "edges": [{"id": "e", "source": "a", "target": "b", "loopBack": True}]})
    diagram = read_diagram(text, filename="mine.json")
    assert diagram.name == "mine"
    assert diagram.graph.node("a").shape is Shape.DIAMOND
    assert diagram.graph.edges[0].loop_back


def test_graph_json_duplicate_node_names_id() -> None:
    text = json.dumps({"nodes": [{"id": "a", "width": 5, "height": 5},
                                 {"id": "a", "width": 5, "height": 5}]})
    with pytest.raises(InvalidGraphError, match="duplicate node id 'a'") as caught:
        read_diagram(text)
    assert caught.value.offending_id == "a"


def test_bad_json_names_line_and_column() -> None:
    # line 2 is '  {"id": "a",, ...': two spaces, then '{"id": "a",' fills columns 3-13,
    # so the stray second comma is at column 14
    with pytest.raises(ReaderError, match="not valid JSON at line 2 column 14"):
        read_diagram('{"nodes": [\n  {"id": "a",, "width": 1}]}')


@pytest.mark.parametrize("text", ["", "   \n", "just words", "[1, 2]", '{"other": 1}', "42"])
def test_unrecognised_input_says_what_is_expected(text: str) -> None:
    with pytest.raises(ReaderError, match="expected a workflow definition"):
        read_diagram(text)


def test_yaml_key_named_graph_is_not_dot() -> None:
    with pytest.raises(ReaderError, match="unrecognised input"):
        read_diagram("graph: {}\n")


def test_non_utf8_bytes() -> None:
    with pytest.raises(ReaderError, match="not UTF-8 text"):
        read_diagram(b'{"nodes": []}\xff')


def test_deep_nesting_is_refused() -> None:
    with pytest.raises(ReaderError, match="nested too deeply"):
        read_diagram("[" * 100_000 + "]" * 100_000)


# --- ELK JSON -----------------------------------------------------------------------------

def test_reads_elk_json_with_and_without_sizes() -> None:
    text = json.dumps({
        "id": "root",
        "children": [{"id": "a", "width": 100, "height": 40},
                     {"id": "b", "labels": [{"text": "Bee node"}]}],
        "edges": [{"id": "e1", "sources": ["a"], "targets": ["b"],
                   "labels": [{"text": "go"}]}],
    })
    diagram = read_diagram(text)
    assert (diagram.graph.node("a").width, diagram.graph.node("a").height) == (100, 40)
    b = diagram.graph.node("b")
    assert (b.width, b.height) == node_size(NodeView(StepKind.PLAIN, "Bee node"))
    assert diagram.node_view("b").title == "Bee node"
    edge = diagram.graph.edges[0]
    assert (edge.label, edge.label_width, edge.label_height) == ("go", *edge_label_size("go"))


@pytest.mark.parametrize(
    ("elk", "problem"),
    [
        ({"children": [{"id": "a", "children": {"id": "x"}}]},
         "node 'a' 'children' must be a list"),
        ({"children": [{"id": "a", "layoutOptions": {"elk.padding": {"top": 1}}}]},
         "node 'a' option 'elk.padding' has"),
        ({"children": [{"id": "a"}, {"id": "b"}],
          "edges": [{"id": "e", "sources": ["a", "b"], "targets": ["b"]}]},
         "edge 'e' needs exactly one entry in 'sources'"),
        ({"children": [{"id": "a", "width": -3}]}, "node 'a' has width -3"),
        ({"children": [{"width": 3}]}, r"children\[0\].id must be a non-empty string"),
        ({"children": "nope"}, "needs a top-level object with a 'children' list"),
        ({"children": [{"id": "a"}], "edges": [{"id": "e", "targets": ["a"]}]},
         "edge 'e' needs 'sources'"),
    ],
)
def test_malformed_elk_json(elk: object, problem: str) -> None:
    with pytest.raises(ReaderError, match=problem):
        read_diagram(json.dumps(elk))


def test_elk_dangling_edge_is_invalid_graph() -> None:
    text = json.dumps({"children": [{"id": "a"}],
                       "edges": [{"id": "e", "sources": ["a"], "targets": ["ghost"]}]})
    with pytest.raises(InvalidGraphError, match="ghost") as caught:
        read_diagram(text)
    assert caught.value.offending_id == "e"


# --- DOT ----------------------------------------------------------------------------------

def test_reads_dot_sizes_shapes_labels() -> None:
    text = """// a comment first
    digraph flow {
      a [width=2, height=0.5, shape=box];
      d [shape=diamond, label="Decide?"];
      c [shape=circle, width=1, height=1];
      a -> d [label="go"];
      d -> c;
      d -> c [id=second];
      c -> a [loopBack=true];
    }"""
    diagram = read_diagram(text)
    assert diagram.name == "flow"
    a = diagram.graph.node("a")
    assert (a.width, a.height, a.shape) == (2 * 72, 0.5 * 72, Shape.RECT)
    d = diagram.graph.node("d")
    assert d.shape is Shape.DIAMOND and diagram.node_view("d").title == "Decide?"
    assert (d.width, d.height) == node_size(NodeView(StepKind.PLAIN, "Decide?"), Shape.DIAMOND)
    assert diagram.graph.node("c").shape is Shape.CIRCLE
    ids = [e.id for e in diagram.graph.edges]
    assert sorted(ids) == sorted(["a->d", "d->c", "second", "c->a"])
    assert [e.loop_back for e in diagram.graph.edges if e.id == "c->a"] == [True]
    labelled = next(e for e in diagram.graph.edges if e.id == "a->d")
    assert labelled.label == "go" and labelled.label_width > 0


def test_dot_by_extension_and_strict_undirected() -> None:
    diagram = read_diagram("strict graph { x -- y }", filename="g.gv")
    assert diagram.name == "g"
    assert [(e.source, e.target) for e in diagram.graph.edges] == [("x", "y")]


def test_dot_default_attributes_apply() -> None:
    diagram = read_diagram(
        "digraph { node [width=2, shape=diamond]; edge [label=x]; a; b [width=1]; a -> b }")
    a, b = diagram.graph.node("a"), diagram.graph.node("b")
    assert (a.width, a.shape, b.width, b.shape) == (2 * 72, Shape.DIAMOND, 72, Shape.DIAMOND)
    assert diagram.graph.edges[0].label == "x"


def test_dot_parallel_edges_get_numbered_ids() -> None:
    diagram = read_diagram("digraph { a -> b; a -> b }")
    assert [e.id for e in diagram.graph.edges] == ["a->b", "a->b#2"]


def test_dot_label_escapes() -> None:
    diagram = read_diagram('digraph { n [label="\\N first\\nsecond"] }')
    assert diagram.node_view("n").title == "n first\nsecond"


def test_dot_syntax_error_names_line() -> None:
    with pytest.raises(ReaderError, match="line 3"):
        read_diagram("digraph {\n  a ->\n}\n")


def test_dot_bad_width_names_node() -> None:
    with pytest.raises(ReaderError, match="node 'a' has width='wide'"):
        read_diagram('digraph { a [width="wide"] }')


def test_dot_duplicate_edge_id_is_invalid_graph() -> None:
    with pytest.raises(InvalidGraphError, match="duplicate edge id 'e'"):
        read_diagram("digraph { a -> b [id=e]; b -> c [id=x]; c -> a [id=e] }")


def test_dot_without_pygraphviz_names_it(monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    monkeypatch.setitem(sys.modules, "pygraphviz", None)
    with pytest.raises(ReaderError, match="pygraphviz"):
        read_diagram("digraph { a }")


# --- limits and files ---------------------------------------------------------------------

def test_too_many_nodes_is_refused() -> None:
    count = INPUT_LIMITS.max_nodes + 1
    nodes = [{"id": f"n{i}", "width": 1, "height": 1} for i in range(count)]
    with pytest.raises(ReaderError, match=f"{count} nodes; the limit is 5000"):
        read_diagram(json.dumps({"nodes": nodes}))


def test_too_many_edges_is_refused() -> None:
    count = INPUT_LIMITS.max_edges + 1
    edges = [{"from": "a", "to": "a"}] * count
    text = json.dumps({"workflow": "w", "steps": [{"id": "a", "kind": "Tool"}], "edges": edges})
    with pytest.raises(ReaderError, match=f"{count} edges; the limit is 20000"):
        read_diagram(text)


def test_too_many_dot_nodes_is_refused() -> None:
    text = "digraph {" + ";".join(f"n{i}" for i in range(INPUT_LIMITS.max_nodes + 1)) + "}"
    with pytest.raises(ReaderError, match="5001 nodes"):
        read_diagram(text)


def test_too_many_bytes_is_refused() -> None:
    with pytest.raises(ReaderError, match="the limit is 20000000"):
        read_diagram(b" " * (INPUT_LIMITS.max_bytes + 1))


def test_yaml_alias_bomb_is_refused() -> None:
    # each level repeats the previous one 9 times: 9**9 (about 387 million) strings in all
    levels = ['a0: &a0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    levels += [f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 9) + "]" for i in range(1, 9)]
    text = "\n".join(levels) + "\nworkflow: w\nsteps: []\nedges: []\n"
    with pytest.raises(ReaderError, match="expands to more than 1000000 values"):
        read_diagram(text)


def test_self_referencing_yaml_is_refused() -> None:
    with pytest.raises(ReaderError, match="input contains itself"):
        read_diagram("nodes: &loop [*loop]\n")


def test_shared_yaml_parts_within_the_limit_are_fine() -> None:
    text = ("defaults: &tool {kind: Tool, tool: t}\nworkflow: w\nsteps:\n"
            "  - {<<: *tool, id: a}\n  - {<<: *tool, id: b}\nedges:\n  - {from: a, to: b}\n"
            "x-notes: &many [1, 2, 3]\nx-more: [*many, *many]\n")
    # 'x-...' keys are not DSL fields at the top level, and the merged steps read as tools
    diagram = read_diagram(text)
    assert [n.id for n in diagram.graph.nodes] == ["a", "b"]


def test_missing_file_is_reader_error(tmp_path: Path) -> None:
    with pytest.raises(ReaderError, match="cannot read"):
        read_diagram_file(tmp_path / "absent.yaml")


# --- robustness ---------------------------------------------------------------------------

_FRAGMENTS = ["digraph {", "}", "a -> b", "[width=", "workflow: w", "steps:", "- {id: a}",
              '{"children": [', '{"nodes": [', '"id": 1', "]", ",", ":", "\n", "&a", "*a",
              '"', "\\", "strict graph", "kind: Tool", "edges: [{from: a, to: b}]"]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.one_of(st.sampled_from(_FRAGMENTS), st.text(max_size=8)), max_size=12))
def test_any_text_reads_or_fails_with_a_value_error(parts: list[str]) -> None:
    """Whatever the text, reading gives a diagram or a ReaderError/InvalidGraphError
    (both ValueErrors): never another exception."""
    with contextlib.suppress(ReaderError, InvalidGraphError):
        read_diagram(" ".join(parts))


@settings(max_examples=30, deadline=None)
@given(st.binary(max_size=64))
def test_any_bytes_read_or_fail_with_a_value_error(data: bytes) -> None:
    with contextlib.suppress(ReaderError, InvalidGraphError):
        read_diagram(data)
