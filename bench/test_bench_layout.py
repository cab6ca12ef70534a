"""pytest-benchmark suites: every available engine on both fixtures and on generated
workflow-like graphs of 50, 100, 200, 500 and 1000 nodes, in both directions.

    .venv/bin/pytest bench/test_bench_layout.py --benchmark-only              # default sizes
    .venv/bin/pytest bench/test_bench_layout.py --benchmark-only -m explicit  # 500 and 1000

Large sizes are marked ``explicit`` (the nightly lane runs them). An engine that is not
available here is skipped with the reason.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from layouts.api import engines, layout
from layouts.graph import Graph
from layouts.options import Direction, Effort, LayoutOptions
from renderer import corpus

ENGINES = {row.name: row for row in engines()}
DIRECTIONS = [Direction.TOP_TO_BOTTOM, Direction.LEFT_TO_RIGHT]
FIXTURES = [path.stem for path in corpus.fixture_paths()]
SIZES = [50, 100, 200, pytest.param(500, marks=pytest.mark.explicit),
         pytest.param(1000, marks=pytest.mark.explicit)]

_graphs: dict[str, Graph] = {}


def _graph(key: str, make: Callable[[], Graph]) -> Graph:
    if key not in _graphs:
        _graphs[key] = make()
    return _graphs[key]


def _run(benchmark: Any, engine: str, graph: Graph, direction: Direction) -> None:
    row = ENGINES[engine]
    if not row.available:
        pytest.skip(f"{engine} unavailable: {row.reason}")
    options = LayoutOptions(direction=direction, effort=Effort.BALANCED, time_budget=120)
    rounds = 5 if len(graph.nodes) <= 200 else 2
    benchmark.group = f"{engine}"
    result = benchmark.pedantic(layout, args=(graph,),
                                kwargs={"engine": engine, "options": options},
                                rounds=rounds, iterations=1, warmup_rounds=1)
    assert len(result.nodes) == len(graph.nodes)


@pytest.mark.parametrize("direction", DIRECTIONS, ids=lambda d: d.value)
@pytest.mark.parametrize("fixture", FIXTURES)
@pytest.mark.parametrize("engine", list(ENGINES))
def test_fixture(benchmark: Any, engine: str, fixture: str, direction: Direction) -> None:
    graph = _graph(fixture, lambda: corpus.file_graph(corpus.FIXTURES_DIR / f"{fixture}.yaml"))
    _run(benchmark, engine, graph, direction)


@pytest.mark.parametrize("direction", DIRECTIONS, ids=lambda d: d.value)
@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("engine", list(ENGINES))
def test_generated(benchmark: Any, engine: str, size: int, direction: Direction) -> None:
    graph = _graph(f"generated-{size}", lambda: corpus.generated_graph(size))
    _run(benchmark, engine, graph, direction)
