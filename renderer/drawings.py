"""Drawings of stored workflow definitions and runs: definition -> diagram -> cached
layout -> SVG, JSON or ELK JSON, with the run's statuses when drawing a run.

The graph endpoints of the workflow API and ``wfr render --run`` both draw through
:class:`GraphDrawer`, so the same run and options give the same bytes from both.

>>> from layouts.api import layout
>>> from workflow.dsl import load_definition_text
>>> drawer = GraphDrawer(LayoutCache(lambda g, e, o: layout(g, engine=e, options=o)))
>>> definition = load_definition_text("workflow: w\\nsteps: [{id: a, kind: Tool, tool: t}]")
>>> svg = drawer.definition(definition, OutputFormat.SVG, "layered", LayoutOptions(),
...                         tenant="t")
>>> b'data-step-id="a"' in svg
True
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from layouts.graph import Graph
from layouts.options import LayoutOptions
from layouts.result import LayoutResult
from renderer.diagram import Diagram
from renderer.from_definition import diagram_from_definition
from renderer.isolation import WorkerPool
from renderer.layout_cache import LayoutCache
from renderer.run_graph import GRAPH_FORMATS, write_graph
from renderer.run_overlay import RunOverlay, run_overlay
from renderer.run_views import (
    DrawingView,
    RunTree,
    definition_diagram,
    load_run_tree,
    run_diagram,
    store_child_runs,
)
from renderer.writers import OutputFormat
from workflow.dsl import Definition
from workflow.engine import Engine, NotFoundError
from workflow.model import Run
from workflow.schema import MigrationError
from workflow.store import QueryStore, QueuedSignal
from workflow.stores import is_postgres, open_store, sqlite_path


class RunDrawingError(ValueError):
    """No store at the path, no such run in it, or a format a run cannot be drawn as."""


@dataclass(frozen=True, slots=True)
class GraphDrawer:
    """Draws definitions and runs with layouts from one :class:`LayoutCache`."""

    layouts: LayoutCache

    def draw(self, diagram: Diagram, fmt: OutputFormat, engine: str, options: LayoutOptions,
             *, tenant: str, overlay: RunOverlay | None = None) -> bytes:
        """The drawing of ``diagram`` (with ``overlay``'s states when given); the layout is
        the stored one, whose numbers have 3 decimals (the JSON is byte for byte the render
        endpoint's)."""
        result = self.layouts.layout(diagram.graph, engine, options, tenant=tenant)
        return write_graph(diagram, result, fmt, overlay)

    def definition(self, definition: Definition, fmt: OutputFormat, engine: str,
                   options: LayoutOptions, *, tenant: str,
                   view: ViewSource | None = None) -> bytes:
        """The drawing of a definition (no states), as ``POST /api/render`` draws its
        document, or in ``view.view`` with children from ``view``'s engine."""
        if view is None or view.view.is_plain:
            diagram = diagram_from_definition(definition)
        else:
            diagram = definition_diagram(definition, view.view, view.resolve, tenant)
        return self.draw(diagram, fmt, engine, options, tenant=tenant)

    def run(self, definition: Definition, run: Run, queued: Iterable[QueuedSignal],
            fmt: OutputFormat, engine: str, options: LayoutOptions, *,
            view: ViewSource | None = None, tree: RunTree | None = None) -> bytes:
        """The drawing of ``run`` (of ``definition``) with every step's and edge's state;
        ``queued`` are its queue rows (for its timers). The layout is the definition's, or
        in ``view.view`` the opened one's, with its child runs from ``tree`` when the
        caller has read it already, else read through ``view``."""
        queued = tuple(queued)
        if view is None or view.view.is_plain:
            diagram = diagram_from_definition(definition)
            overlay = run_overlay(definition, run, queued)
        else:
            tree = tree or view.run_tree(run, definition)
            diagram, overlay = run_diagram(tree, queued, view.view, view.resolve)
        return self.draw(diagram, fmt, engine, options, tenant=run.tenant, overlay=overlay)


@dataclass(frozen=True, slots=True)
class ViewSource:
    """A :class:`DrawingView` with the engine and store its drawings read child runs and
    child definitions from."""

    view: DrawingView
    engine: Engine
    store: QueryStore

    def resolve(self, workflow: str, version: str | None, tenant: str) -> Definition:
        """The definition a SubWorkflow step of ``tenant`` would start now."""
        return self.engine.resolve(workflow, version, tenant=tenant).definition

    def run_tree(self, run: Run, definition: Definition) -> RunTree:
        """``run`` with its current child runs, each with the definition it ran."""
        return load_run_tree(run, definition, store_child_runs(self.store),
                             lambda child: self.engine.definition(
                                 child.workflow, child.version, tenant=child.tenant).definition)


def draw_stored_run(db: str | Path, run_id: str, fmt: OutputFormat, engine: str,
                    options: LayoutOptions, view: DrawingView | None = None) -> bytes:
    """The drawing of a run of the store ``db`` (any tenant's: whoever reads the file may),
    in ``view`` (default: as defined), laid out in a worker process of its own on a miss of
    the store's layout cache.

    Raises :class:`RunDrawingError` for a missing or unreadable store, an unknown run or a
    format not in :data:`~renderer.run_graph.GRAPH_FORMATS`; the layout's own errors as
    :func:`renderer.render.render_document` does.

    >>> draw_stored_run("no-such.db", "r1", OutputFormat.SVG, "layered", LayoutOptions())
    Traceback (most recent call last):
    ...
    renderer.drawings.RunDrawingError: no workflow store at no-such.db
    """
    if fmt not in GRAPH_FORMATS:
        known = ", ".join(f.value for f in GRAPH_FORMATS)
        raise RunDrawingError(f"a run is drawn as {known}, not {fmt.value}")
    target = str(db)
    try:
        if not is_postgres(target) and not Path(sqlite_path(target)).is_file():
            raise RunDrawingError(f"no workflow store at {db}")  # SQLite would make a new one
        store = open_store(target)
    except (OSError, ValueError, MigrationError) as error:
        raise RunDrawingError(str(error)) from None
    pool = WorkerPool(size=1)
    try:
        workflows = Engine(store)
        try:
            run = workflows.run(run_id)
        except NotFoundError:
            raise RunDrawingError(f"no run '{run_id}' in {db}") from None
        definition = workflows.definition(run.workflow, run.version, tenant=run.tenant)

        def runner(graph: Graph, layout_engine: str, layout_options: LayoutOptions
                   ) -> LayoutResult:
            pool.start()  # only on a miss of the store's layout cache
            return pool.run(graph, layout_engine, layout_options)

        drawer = GraphDrawer(LayoutCache(runner, store))
        source = None if view is None else ViewSource(view, workflows, store)
        return drawer.run(definition.definition, run, store.queued_for(run.run_id), fmt,
                          engine, options, view=source)
    finally:
        pool.close()
        store.close()
