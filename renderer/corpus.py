"""The graphs the stress harness, the benchmarks and the quality tests lay out.

One place turns "the reference graph", "a fixture file" or "a generated graph of N nodes"
into a :class:`~renderer.diagram.Diagram` (and its layout graph), sized with the renderer's
real font metrics, so every instrument measures the same graphs.

>>> len(generated_graph(20, seed=1).nodes)
20
>>> len(reference_graph().nodes)
24
"""

from __future__ import annotations

from pathlib import Path

from layouts.graph import Graph
from renderer.diagram import Diagram
from renderer.from_definition import diagram_from_definition
from renderer.readers import read_diagram_file
from workflow.generate import generate_definition

FIXTURES_DIR = Path(__file__).resolve().parent.parent / "fixtures"
REFERENCE_FIXTURE = FIXTURES_DIR / "document-processing.yaml"
DEFAULT_SEED = 1


def fixture_paths() -> list[Path]:
    """Every workflow fixture, sorted by name."""
    return sorted(FIXTURES_DIR.glob("*.yaml"))


def file_diagram(path: str | Path) -> Diagram:
    """The diagram of any readable file: workflow DSL, ELK JSON, graph JSON or DOT."""
    return read_diagram_file(path)


def generated_diagram(node_count: int, seed: int = DEFAULT_SEED) -> Diagram:
    """A seeded workflow-like diagram of ``node_count`` steps (see
    :func:`workflow.generate.generate_definition`)."""
    return diagram_from_definition(generate_definition(node_count, seed))


def reference_graph() -> Graph:
    """The 24-step document-processing workflow, the product's reference graph."""
    return file_diagram(REFERENCE_FIXTURE).graph


def file_graph(path: str | Path) -> Graph:
    """The layout graph of :func:`file_diagram`."""
    return file_diagram(path).graph


def generated_graph(node_count: int, seed: int = DEFAULT_SEED) -> Graph:
    """The layout graph of :func:`generated_diagram`."""
    return generated_diagram(node_count, seed).graph
