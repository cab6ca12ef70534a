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

from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from layouts.errors import LayoutError
from layouts.graph import Graph
from renderer.diagram import Diagram
from renderer.from_definition import diagram_from_definition
from renderer.readers import ReaderError, read_diagram_file
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


REAL_SUFFIXES = (".gv", ".dot", ".gv.gz", ".dot.gz", ".bpmn")


@dataclass(frozen=True, slots=True)
class RealCorpus:
    """The readable graphs under some folders (``tools/fetch_real_graphs.py`` fetches
    them): ``(name, diagram)`` in path order, and ``(name, reason)`` for every file left
    out (unreadable, no edges, too large, or the same graph as an earlier file)."""

    diagrams: tuple[tuple[str, Diagram], ...]
    skipped: tuple[tuple[str, str], ...]


def real_corpus(folders: Sequence[str | Path], max_nodes: int = 1000) -> RealCorpus:
    """Every graph file under ``folders`` that reads, has an edge and at most
    ``max_nodes`` nodes, laid out flat (DOT clusters and BPMN sub-processes dropped, so
    every engine draws the same graph); a graph whose nodes and edges repeat an earlier
    one's counts once. Names are ``folder/relative path``.

    >>> real_corpus([]).diagrams
    ()
    """
    diagrams: list[tuple[str, Diagram]] = []
    skipped: list[tuple[str, str]] = []
    seen: set[tuple[object, ...]] = set()
    for folder in map(Path, folders):
        files = sorted(p for p in folder.rglob("*")
                       if p.is_file() and p.name.lower().endswith(REAL_SUFFIXES))
        for path in files:
            name = f"{folder.name}/{path.relative_to(folder)}"
            try:
                diagram = read_diagram_file(path)
            except (ReaderError, LayoutError) as error:
                skipped.append((name, f"unreadable: {str(error)[:80]}"))
                continue
            graph = diagram.flat_fallback or diagram.graph
            signature = (tuple(sorted(n.id for n in graph.nodes)),
                         tuple(sorted((e.source, e.target) for e in graph.edges)))
            reason = ("no edges" if not graph.edges
                      else f"{len(graph.nodes)} nodes > {max_nodes}"
                      if len(graph.nodes) > max_nodes
                      else "same graph as an earlier file" if signature in seen else None)
            if reason:
                skipped.append((name, reason))
                continue
            seen.add(signature)
            diagrams.append((name, replace(diagram, graph=graph, flat_fallback=None)))
    return RealCorpus(tuple(diagrams), tuple(skipped))
