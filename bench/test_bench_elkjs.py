"""pytest-benchmark: the elkjs provider in per-call mode against worker mode.

    .venv/bin/pytest bench/test_bench_elkjs.py --benchmark-only                # fixtures
    .venv/bin/pytest bench/test_bench_elkjs.py --benchmark-only -m explicit    # 200 nodes

Per-call mode starts one node process per layout; worker mode keeps one long-lived node
worker warm (started during the warm-up round). The 200-node generated workflow takes
seconds per per-call round on this 2-core machine, so it is marked ``explicit``.
``bench/elkjs_latency.py`` prints the same comparison as a median / p95 table.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from layouts.graph import Graph
from layouts.options import LayoutOptions
from layouts.providers.elkjs import ElkjsProvider, ElkMode
from renderer.from_definition import diagram_from_definition
from renderer.readers import read_diagram_file
from workflow.generate import generate_definition

pytestmark = pytest.mark.skipif(shutil.which("node") is None,
                                reason="Node.js (node) not found; apt-get install nodejs npm")

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
GRAPHS = [
    "document-processing",
    "repository-assessment",
    pytest.param("generated-200", marks=pytest.mark.explicit),
]

_graphs: dict[str, Graph] = {}


def _graph(name: str) -> Graph:
    if name not in _graphs:
        if name.startswith("generated-"):
            size = int(name.removeprefix("generated-"))
            definition = generate_definition(size, seed=1)
            _graphs[name] = diagram_from_definition(definition).graph
        else:
            _graphs[name] = read_diagram_file(FIXTURES / f"{name}.yaml").graph
    return _graphs[name]


@pytest.fixture(scope="module", params=list(ElkMode), ids=str)
def provider(request: pytest.FixtureRequest) -> Iterator[ElkjsProvider]:
    elk = ElkjsProvider(mode=request.param, workers=1)
    yield elk
    elk.close()


@pytest.mark.parametrize("graph_name", GRAPHS)
def test_elkjs_latency(benchmark: Any, provider: ElkjsProvider, graph_name: str) -> None:
    graph = _graph(graph_name)
    benchmark.group = f"elkjs {graph_name}"
    options = LayoutOptions(time_budget=120)
    result = benchmark.pedantic(provider.layout, args=(graph, options), rounds=5,
                                iterations=1, warmup_rounds=1)
    assert [node.id for node in result.nodes] == [node.id for node in graph.nodes]
