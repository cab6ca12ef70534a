"""What each Studio page shows, built from the runtime's engine and store (in a worker
thread: the store is synchronous). Each builder returns the template's context; an unknown
run or definition raises the engine's not-found errors, which the routes turn into a 404
page.

The run page's drawing is the graph endpoint's SVG (the same drawer, engine and default
options, so the same cached layout) and its script data carries the run's record (as
``GET /api/workflow/instances/{id}`` gives it) and the colours of every state from
:data:`renderer.styles.STATE_STYLES`, so the script restyles steps with the server's
table instead of a copy of it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from markupsafe import Markup

from layouts.options import LayoutOptions
from renderer.api.runtime import WorkflowRuntime
from renderer.api.views import event, instance, summary
from renderer.definition_diff import diff_definitions, ghost_edge_ids, union_definition
from renderer.diagram import StepState
from renderer.drawings import GraphDrawer, ViewSource
from renderer.query import drawing_query
from renderer.run_graph import GRAPH_FORMATS
from renderer.run_views import (
    VIEW_QUERY_NAMES,
    DrawingView,
    drawing_view,
    opened_definitions,
    opened_runs,
)
from renderer.studio.drawing import inline_svg
from renderer.studio.signin import Session
from renderer.styles import EDGE_STYLES, STATE_STYLES
from renderer.svg import EDGE_STYLE_NAMES
from renderer.web import RequestProblem
from renderer.writers import OutputFormat
from workflow.definitions import canonical_form
from workflow.dsl import Definition
from workflow.engine import NotFoundError
from workflow.model import Run, RunState
from workflow.store import OutboxEntry, QueuedSignal, RunFilter

RUNS_PER_PAGE = 50
HISTORY_PAGE = 200
"""Events of a run's history on its page; the rest a page at a time ("Show more")."""
API = "/api/workflow"
EVENT_KINDS: tuple[str, ...] = tuple(dict.fromkeys((
    "run.created", "run.started", "run.retried", "run.resumed", "run.repaired",
    "run.compensating", *(f"run.{state.value.lower()}" for state in RunState),
    "step.started", "step.succeeded", "step.attempt_failed", "step.cancelled",
    "step.compensating", "step.compensated", "task.requested")))
"""The outbox's event kinds (the server-sent events' names, which a page's EventSource
must name to hear them); ``tests/studio`` checks a whole run emits no other."""


@dataclass(frozen=True, slots=True)
class Pages:
    """The page builders over one runtime."""

    runtime: WorkflowRuntime

    def home(self, session: Session, query: Mapping[str, str]) -> dict[str, Any]:
        """Definitions with their versions, and the newest runs (of one state, if asked)."""
        tenant = session.principal.tenant
        state = _run_state(query.get("state"))
        by_name: dict[str, list[str]] = {}
        for row in self.runtime.store.definition_rows(tenant):
            by_name.setdefault(row.workflow, []).append(row.version)
        counts: dict[str, int] = {}
        for row_tenant, _, row_state, count in self.runtime.store.run_counts():
            if row_tenant == tenant:
                counts[row_state] = counts.get(row_state, 0) + count
        try:
            found = self.runtime.store.find_runs(tenant, RunFilter(state=state),
                                                 limit=RUNS_PER_PAGE, after=query.get("after"))
        except ValueError as error:
            raise RequestProblem(400, f"this page of runs cannot be found: {error}") from None
        return {"session": session, "definitions": by_name, "counts": counts,
                "states": [s.value for s in RunState], "state": state and state.value,
                "total": sum(counts.values()),
                "runs": [{**summary(r), "took": run_duration(r)} for r in found.items],
                "next_cursor": found.next_cursor}

    def run(self, session: Session, run_id: str, query: Mapping[str, str] | None = None
            ) -> dict[str, Any]:
        """A run: its drawing with states, its record and what the viewer may do. The query
        may open SubWorkflow steps (``expandSubworkflows``: the child runs' steps drawn in
        place, with their records for the panel) and box fan-outs (``groupFanouts``)."""
        store, engine = self.runtime.store, self.runtime.engine
        view = drawing_view(query or {})
        events = store.outbox(run_id)  # read before the run: a later event means a refetch
        run = engine.run(run_id, tenant=session.principal.tenant)
        definition = engine.definition(run.workflow, run.version, tenant=run.tenant).definition
        queued = store.queued_for(run.run_id)
        fmt, layout_engine, options = _drawing_options()
        source = ViewSource(view, engine, store)
        tree = source.run_tree(run, definition) if view.expand_subworkflows else None
        svg = self._drawer().run(definition, run, queued, fmt, layout_engine, options,
                                 view=source, tree=tree)
        record = self._record(run, events, queued)
        child_runs: dict[str, str] = {}
        child_records: dict[str, Any] = {}
        for prefix, child in (opened_runs(tree) if tree is not None else {}).items():
            child_runs[prefix] = child.run.run_id
            child_records[child.run.run_id] = self._record(
                child.run, store.outbox(child.run.run_id), store.queued_for(child.run.run_id))
        history = run_history(events)
        data = {"page": "run", "api": API, "runId": run.run_id, "csrf": session.csrf,
                "canOperate": session.can_operate, "record": record,
                "lastSeq": events[-1].seq if events else 0, "styles": state_styles(),
                "eventKinds": EVENT_KINDS, "viewQuery": view_query(view),
                "childRuns": child_runs, "childRecords": child_records,
                "finishedStates": [state.value for state in RunState if state.is_finished],
                "history": {"last": history.last, "complete": not history.more,
                            "count": history.count, "start": history.start,
                            "page": HISTORY_PAGE}}
        return {"session": session, "run": record, "drawing": Markup(inline_svg(svg)),
                "legend": legend(), "data": data, "steps": len(definition.steps),
                "view": view, "view_links": view_links(view), "history": history}

    def _record(self, run: Run, events: tuple[OutboxEntry, ...],
                queued: tuple[QueuedSignal, ...]) -> dict[str, Any]:
        """A run's record as ``GET /api/workflow/instances/{id}`` gives it."""
        store = self.runtime.store
        children = store.find_runs(run.tenant, RunFilter(parent_run_id=run.run_id),
                                   limit=1000).items
        tasks = store.tasks(run.tenant, run_id=run.run_id, limit=1000).items
        return instance(self.runtime.engine.plan(run), run, events=events, queued=queued,
                        children=children, tasks=tasks)

    def definition(self, session: Session, name: str, version: str,
                   query: Mapping[str, str] | None = None) -> dict[str, Any]:
        """One version of a definition, drawn without states (in the query's view: with
        its sub-workflows opened, each step's panel showing its own fields)."""
        tenant = session.principal.tenant
        view = drawing_view(query or {})
        registered = self.runtime.engine.definition(name, version, tenant=tenant)
        definition = registered.definition
        versions = [r.version for r in self.runtime.store.definition_rows(tenant, name)]
        fmt, layout_engine, options = _drawing_options()
        source = ViewSource(view, self.runtime.engine, self.runtime.store)
        svg = self._drawer().definition(definition, fmt, layout_engine, options,
                                        tenant=tenant, view=source)
        steps = _step_fields(definition)
        if view.expand_subworkflows:
            for prefix, child in opened_definitions(definition, source.resolve, tenant).items():
                steps.update({prefix + k: v for k, v in _step_fields(child).items()})
        data = {"page": "definition", "steps": steps}
        return {"session": session, "name": name, "version": version, "versions": versions,
                "drawing": Markup(inline_svg(svg)), "data": data,
                "steps": len(definition.steps), "hash": registered.hash,
                "view": view, "view_links": view_links(view)}

    def diff(self, session: Session, name: str, query: Mapping[str, str]) -> dict[str, Any]:
        """Version ``to`` drawn with what changed since version ``from``; the layout is the
        union of both, so removed steps are drawn (as ghosts) where they were."""
        tenant = session.principal.tenant
        versions = [r.version for r in self.runtime.store.definition_rows(tenant, name)]
        if not versions:
            raise NotFoundError(f"no workflow '{name}'")
        old_version = query.get("from") or (versions[-2] if len(versions) > 1 else versions[0])
        new_version = query.get("to") or versions[-1]
        old = self.runtime.engine.definition(name, old_version, tenant=tenant).definition
        new = self.runtime.engine.definition(name, new_version, tenant=tenant).definition
        changes = diff_definitions(old, new)
        changed = [c.item_id for c in changes.changed_steps]
        marks = {**{s: "diff-added" for s in changes.added_steps},
                 **{s: "diff-removed" for s in changes.removed_steps},
                 **{s: "diff-changed" for s in changed}}
        edge_marks = {**{e: "diff-added" for e in changes.added_edges},
                      **{e: "diff-removed" for e in ghost_edge_ids(old, new)},
                      **{c.item_id: "diff-changed" for c in changes.changed_edges}}
        svg = self._draw_definition(union_definition(old, new), tenant)
        data = {"page": "diff", "steps": {**_step_fields(old), **_step_fields(new)},
                "marks": marks, "changes": {c.item_id: {name: list(values) for name, values
                                                        in c.fields.items()}
                                            for c in changes.changed_steps}}
        return {"session": session, "name": name, "versions": versions,
                "old_version": old_version, "new_version": new_version,
                "added": changes.added_steps, "removed": changes.removed_steps,
                "changed": changed,
                "drawing": Markup(inline_svg(svg, step_classes=marks, edge_classes=edge_marks)),
                "data": data}

    def _draw_definition(self, definition: Definition, tenant: str) -> bytes:
        fmt, layout_engine, options = _drawing_options()
        return self._drawer().definition(definition, fmt, layout_engine, options,
                                         tenant=tenant)

    def _drawer(self) -> GraphDrawer:
        drawer = self.runtime.api.graphs
        if drawer is None:
            raise RequestProblem(503, "drawings need the service's layout workers")
        return drawer


def _drawing_options() -> tuple[OutputFormat, str, LayoutOptions]:
    """The graph endpoint's defaults (so a page and the API share cached layouts)."""
    return drawing_query({}, GRAPH_FORMATS)


def view_query(view: DrawingView) -> str:
    """The query suffix of the view's graph fetches (empty for the plain view).

    >>> view_query(DrawingView(expand_subworkflows=True))
    '&expandSubworkflows=true'
    """
    return "".join(f"&{name}=true" for name, attribute in VIEW_QUERY_NAMES.items()
                   if getattr(view, attribute))


def view_links(view: DrawingView) -> dict[str, str]:
    """The page's own query with one view switched, for each of the view's switches.

    >>> view_links(DrawingView(group_fanouts=True))["expandSubworkflows"]
    '?expandSubworkflows=true&groupFanouts=true'
    >>> view_links(DrawingView(group_fanouts=True))["groupFanouts"]
    '?'
    """
    links = {}
    for name, attribute in VIEW_QUERY_NAMES.items():
        switched = replace(view, **{attribute: not getattr(view, attribute)})
        links[name] = "?" + view_query(switched).removeprefix("&")
    return links


def _run_state(text: str | None) -> RunState | None:
    if not text:
        return None
    for state in RunState:
        if state.value.lower() == text.lower():
            return state
    known = ", ".join(s.value for s in RunState)
    raise RequestProblem(400, f"no run state {text!r}; known: {known}")


def _step_fields(definition: Definition) -> dict[str, dict[str, Any]]:
    """Each step's DSL fields by step id (what a definition page's panel shows)."""
    return {step["id"]: step for step in canonical_form(definition)["steps"]}


def state_styles() -> dict[str, Any]:
    """The run view's colours as script data: each step state's fill, stroke, width and
    dash from :data:`STATE_STYLES`, each edge state's stroke and marker from
    :data:`EDGE_STYLES`, keyed by the class suffix the SVG writer uses.

    >>> state_styles()["steps"]["waiting"]["stroke"]
    '#ff8f00'
    """
    steps = {state.value.lower(): {"state": state.value, "fill": style.fill,
                                   "stroke": style.stroke, "strokeWidth": style.stroke_width,
                                   "dashed": style.dashed}
             for state, style in STATE_STYLES.items()}
    edges = {}
    for edge_state, name in EDGE_STYLE_NAMES.items():
        if edge_state is None:
            continue
        style = EDGE_STYLES[name]
        edges[edge_state.value] = {"stroke": style.stroke, "strokeWidth": style.stroke_width,
                                   "marker": style.marker_id}
    return {"steps": steps, "edges": edges}


def run_duration(run: Run) -> str:
    """How long a finished run took, from its start to its last change ("" while it runs).

    >>> from workflow.model import new_run
    >>> started = new_run("r", "w", "1", "h", {}, at=100.0)
    >>> run_duration(replace(started, state=RunState.COMPLETED, updated_at=100.25))
    '250 ms'
    >>> run_duration(replace(started, state=RunState.FAILED, updated_at=100 + 3 * 3600))
    '3.0 h'
    >>> run_duration(started)
    ''
    """
    if not run.state.is_finished:
        return ""
    return format_duration(run.updated_at - run.created_at)


def format_duration(seconds: float) -> str:
    """A duration in the unit that reads best, as the Studio's timeline writes it.

    >>> [format_duration(s) for s in (0.0004, 0.25, 59.94, 119.9, 600, 7200)]
    ['0 ms', '250 ms', '59.9 s', '119.9 s', '10.0 min', '2.0 h']
    """
    if seconds < 1:
        return f"{seconds * 1000:.0f} ms"
    if seconds < 120:
        return f"{seconds:.1f} s"
    if seconds < 7200:
        return f"{seconds / 60:.1f} min"
    return f"{seconds / 3600:.1f} h"


@dataclass(frozen=True, slots=True)
class RunHistory:
    """The first :data:`HISTORY_PAGE` events of a run, as the history table shows them."""

    rows: tuple[dict[str, Any], ...]
    """Each event as the API gives it, plus ``since``: seconds after the run's first event."""
    count: int  # every event of the run

    @property
    def more(self) -> bool:
        """Whether the run has events after the rows."""
        return self.count > len(self.rows)

    @property
    def last(self) -> int:
        """The last row's sequence number (0: no rows)."""
        return int(self.rows[-1]["seq"]) if self.rows else 0

    @property
    def start(self) -> str | None:
        """The first event's time, for the script's "since" of later rows."""
        return str(self.rows[0]["at"]) if self.rows else None


def run_history(events: tuple[OutboxEntry, ...]) -> RunHistory:
    """``events`` (a run's outbox rows in order) as its history's first page.

    >>> from workflow.store import OutboxEntry
    >>> h = run_history((OutboxEntry(4, "r", "run.created", None, None, 10.0),
    ...                  OutboxEntry(9, "r", "step.started", "a", None, 11.5)))
    >>> [(row["seq"], row["kind"], row["since"]) for row in h.rows], h.count, h.more, h.last
    ([(4, 'run.created', '+0.000 s'), (9, 'step.started', '+1.500 s')], 2, False, 9)
    """
    shown = events[:HISTORY_PAGE]
    start = events[0].created_at if events else 0.0
    rows = tuple({**event(e), "since": f"+{e.created_at - start:.3f} s"} for e in shown)
    return RunHistory(rows, len(events))


def legend() -> list[dict[str, Any]]:
    """The legend of step states, in the order of :class:`StepState`."""
    return [{"state": state.value, "fill": STATE_STYLES[state].fill,
             "stroke": STATE_STYLES[state].stroke,
             "dashed": STATE_STYLES[state].dashed} for state in StepState]
