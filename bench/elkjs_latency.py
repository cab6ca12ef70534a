"""Latency of the elkjs provider, per-call mode against worker mode: median and p95.

    .venv/bin/python bench/elkjs_latency.py --rounds 20

Graphs: the two workflow fixtures and a seeded 200-node generated workflow. Each
(graph, mode) pair gets one warm-up call (which also starts the workers), then
``--rounds`` timed calls of the provider's ``layout``, wall clock, one at a time.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Iterator
from pathlib import Path

from layouts.graph import Graph
from layouts.options import LayoutOptions
from layouts.providers.elkjs import ElkjsProvider, ElkMode
from renderer.from_definition import diagram_from_definition
from renderer.readers import read_diagram_file
from workflow.generate import generate_definition

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
GENERATED_SIZE = 200
GENERATED_SEED = 1


def benchmark_graphs() -> Iterator[tuple[str, Graph]]:
    """The two fixtures, then the generated 200-node workflow."""
    for path in sorted(FIXTURES.glob("*.yaml")):
        yield path.stem, read_diagram_file(path).graph
    definition = generate_definition(GENERATED_SIZE, GENERATED_SEED)
    yield f"generated-{GENERATED_SIZE}", diagram_from_definition(definition).graph


def percentile(samples: list[float], fraction: float) -> float:
    """Nearest-rank percentile: the smallest sample with at least ``fraction`` of all
    samples at or below it.

    >>> percentile([5.0, 1.0, 3.0, 2.0, 4.0], 0.95)
    5.0
    """
    ordered = sorted(samples)
    rank = max(1, -(-len(ordered) * fraction // 1))
    return ordered[int(rank) - 1]


def measure(provider: ElkjsProvider, graph: Graph, rounds: int) -> list[float]:
    """Seconds of ``rounds`` calls after one warm-up call."""
    options = LayoutOptions(time_budget=120)
    provider.layout(graph, options)
    samples = []
    for _ in range(rounds):
        started = time.perf_counter()
        provider.layout(graph, options)
        samples.append(time.perf_counter() - started)
    return samples


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=20)
    rounds = parser.parse_args().rounds
    print(f"{'graph':<24} {'nodes':>5} {'mode':<9} {'median ms':>10} {'p95 ms':>9}")
    for name, graph in benchmark_graphs():
        for mode in ElkMode:
            provider = ElkjsProvider(mode=mode, workers=1)
            try:
                samples = measure(provider, graph, rounds)
            finally:
                provider.close()
            print(f"{name:<24} {len(graph.nodes):>5} {mode.value:<9} "
                  f"{statistics.median(samples) * 1000:>10.1f} "
                  f"{percentile(samples, 0.95) * 1000:>9.1f}")


if __name__ == "__main__":
    main()
