"""The shared pipeline read -> isolated layout -> write, and the error table."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from layouts.api import layout
from layouts.errors import (
    InvalidGraphError,
    InvalidOptionError,
    LayoutTimeoutError,
    ProviderFailedError,
    ProviderUnavailableError,
    UnknownEngineError,
)
from layouts.graph import Graph
from layouts.options import LayoutOptions
from layouts.result import LayoutResult
from renderer.readers import ReaderError, read_diagram
from renderer.render import classify_error, one_line, render_document, render_timed
from renderer.writers import OutputFormat, write_output
from workflow.dsl import DslError

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "document-processing.yaml"
GRAPH_JSON = json.dumps({
    "nodes": [{"id": "a", "width": 80, "height": 40}, {"id": "b", "width": 80, "height": 40},
              {"id": "c", "width": 60, "height": 30}],
    "edges": [{"id": "ab", "source": "a", "target": "b"},
              {"id": "ac", "source": "a", "target": "c"}],
})


def in_process(graph: Graph, engine: str, options: LayoutOptions) -> LayoutResult:
    return layout(graph, engine=engine, options=options)


def test_isolated_output_equals_an_in_process_layout_written_the_same_way() -> None:
    isolated = render_document(GRAPH_JSON, fmt=OutputFormat.JSON, engine="graphviz",
                               options=LayoutOptions())
    diagram = read_diagram(GRAPH_JSON)
    direct = write_output(diagram, layout(diagram.graph, engine="graphviz"), OutputFormat.JSON)
    assert isolated == direct
    assert [n["id"] for n in json.loads(isolated)["nodes"]] == ["a", "b", "c"]


def test_the_fixture_renders_to_the_same_svg_bytes_twice() -> None:
    data = FIXTURE.read_bytes()
    first = render_document(data, filename=str(FIXTURE), fmt=OutputFormat.SVG,
                            engine="graphviz", options=LayoutOptions(), runner=in_process)
    second = render_document(data, filename=str(FIXTURE), fmt=OutputFormat.SVG,
                             engine="graphviz", options=LayoutOptions(), runner=in_process)
    assert first == second
    assert first.count(b"<svg") == 1 and b"post-to-erp" in first


def test_the_runner_gets_the_read_graph_the_engine_and_the_options() -> None:
    calls: list[tuple[list[str], str, LayoutOptions]] = []

    def recording(graph: Graph, engine: str, options: LayoutOptions) -> LayoutResult:
        calls.append(([n.id for n in graph.nodes], engine, options))
        return in_process(graph, "grandalf", options)

    options = LayoutOptions.from_mapping({"effort": "best", "direction": "LR"})
    rendering = render_timed(GRAPH_JSON, fmt=OutputFormat.JSON, engine="my-engine",
                             options=options, runner=recording)
    assert calls == [(["a", "b", "c"], "my-engine", options)]
    assert [name for name, _ in rendering.stages] == ["read", "layout", "write"]
    assert all(seconds >= 0 for _, seconds in rendering.stages)
    assert rendering.result.diagnostics.engine == "grandalf"


def test_an_invalid_graph_fails_before_any_layout_and_names_the_edge() -> None:
    dangling = json.dumps({"nodes": [{"id": "a", "width": 10, "height": 10}],
                           "edges": [{"id": "to-nowhere", "source": "a", "target": "zz"}]})

    def never(graph: Graph, engine: str, options: LayoutOptions) -> LayoutResult:
        raise AssertionError("the layout must not run")

    with pytest.raises(InvalidGraphError, match="to-nowhere"):
        render_document(dangling, fmt=OutputFormat.SVG, engine="graphviz",
                        options=LayoutOptions(), runner=never)


@pytest.mark.parametrize(("error", "status", "exit_code"), [
    # The statuses the brief asks for: 422 invalid graph, 400 unreadable input / bad option /
    # unknown engine, 503 unavailable provider, 504 timeout; a crashed provider is 502 and,
    # not being the user's fault, exit code 1.
    (InvalidGraphError("duplicate node id 'a'", offending_id="a"), 422, 2),
    (ReaderError("line 3: not YAML"), 400, 2),
    (DslError("steps must be a list"), 400, 2),
    (InvalidOptionError("effort 'max' is not one of draft, balanced, best"), 400, 2),
    (UnknownEngineError("unknown layout engine 'x'"), 400, 2),
    (ProviderUnavailableError("elkjs", "node", "apt-get install nodejs"), 503, 2),
    (LayoutTimeoutError("layered", 12.0), 504, 2),
    (ProviderFailedError("layout worker died with exit code -9"), 502, 1),
])
def test_expected_errors_map_to_a_status_and_an_exit_code(
    error: Exception, status: int, exit_code: int
) -> None:
    problem = classify_error(error)
    assert problem is not None
    assert (problem.status, problem.exit_code, problem.message) == (status, exit_code, str(error))


def test_a_bug_is_not_classified() -> None:
    assert classify_error(KeyError("x")) is None
    assert classify_error(ZeroDivisionError()) is None


def test_messages_are_folded_onto_one_line() -> None:
    assert one_line("bad input\n  at line 3\n\n") == "bad input; at line 3"
    problem = classify_error(ReaderError("two\nlines"))
    assert problem is not None and problem.message == "two; lines"
