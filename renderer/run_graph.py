"""The drawing of a workflow definition, or of one of its runs, as SVG, JSON or ELK JSON.

A run's drawing is its definition's drawing with the run's statuses added
(:mod:`renderer.run_overlay`): the layout graph is the definition's, unchanged (a state or
an attempt count never changes a node's size), so it takes the definition's layout, and
a state change never moves a node.

- SVG: node groups get a ``state-<state>`` class and an attempt count, edge groups an
  ``edge-<state>`` class (see :mod:`renderer.svg`).
- JSON (our :class:`~layouts.result.LayoutResult` schema) and ELK JSON: every node object
  gets ``state``, ``attempts``, ``iteration``, ``startedAt``, ``finishedAt``, ``error``
  and ``waitingFor``; every edge object ``state`` (plus ``iterations`` on loop-backs);
  the document a top-level ``run`` object (:func:`run_fields`).

Without a run the output is exactly what ``wfr render`` and ``POST /api/render`` write.

>>> from layouts.graph import Graph, Node
>>> from layouts.result import Diagnostics, LayoutResult, NodeBox
>>> diagram = Diagram("d", Graph((Node("a", 80, 40),)))
>>> result = LayoutResult((NodeBox("a", 0, 0, 80, 40),), (), 80, 40,
...                       Diagnostics("hand", "draft", "TopToBottom"))
>>> write_graph(diagram, result, OutputFormat.JSON) == result.to_json().encode()
True
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable, Mapping
from typing import Any

from layouts.result import LayoutResult
from renderer.api.views import iso_time, timer
from renderer.diagram import Diagram
from renderer.elk_json import elk_document, elk_text
from renderer.run_overlay import EdgeStatus, RunOverlay, StepStatus
from renderer.svg import write_svg
from renderer.writers import OutputFormat, write_output

GRAPH_FORMATS: tuple[OutputFormat, ...] = (OutputFormat.SVG, OutputFormat.JSON,
                                           OutputFormat.ELK)
"""What a graph endpoint writes (DOT has no place for states)."""


def with_states(diagram: Diagram, overlay: RunOverlay) -> Diagram:
    """``diagram`` with each node's state and attempts and each edge's state; the layout
    graph is the same object, so the layout cannot differ.

    >>> from layouts.graph import Graph, Node
    >>> d = Diagram("d", Graph((Node("a", 9, 9),)))
    >>> from workflow.model import RunState, StepState
    >>> overlay = RunOverlay("r", "d", "1", RunState.RUNNING, 1,
    ...                      {"a": StepStatus(StepState.RUNNING, 1, 0, 1.0, None, None, None)},
    ...                      {}, (), (), ())
    >>> with_states(d, overlay).node_view("a").state
    <StepState.RUNNING: 'Running'>
    """
    nodes = {}
    for node in diagram.graph.all_nodes():
        status = overlay.steps.get(node.id)
        node_view = diagram.node_view(node.id)
        nodes[node.id] = node_view if status is None else dataclasses.replace(
            node_view, state=status.state, attempts=status.attempts)
    edges = {}
    for edge in diagram.graph.edges:
        found = overlay.edges.get(edge.id)
        edge_view = diagram.edge_view(edge.id)
        edges[edge.id] = edge_view if found is None else dataclasses.replace(
            edge_view, state=found.state, iterations=found.iterations)
    return Diagram(diagram.name, diagram.graph, nodes, edges)


def step_fields(status: StepStatus) -> dict[str, Any]:
    """The keys a run view adds to a node object.

    >>> from workflow.model import StepState
    >>> step_fields(StepStatus(StepState.FAILED, 2, 0, 0.0, 1.5, "boom", None))["finishedAt"]
    '1970-01-01T00:00:01.500Z'
    """
    return {"state": status.state.value, "attempts": status.attempts,
            "iteration": status.iteration, "startedAt": iso_time(status.started_at),
            "finishedAt": iso_time(status.finished_at), "error": status.error,
            "waitingFor": status.waiting_for}


def edge_fields(status: EdgeStatus) -> dict[str, Any]:
    """The keys a run view adds to an edge object.

    >>> from renderer.diagram import EdgeState
    >>> edge_fields(EdgeStatus(EdgeState.TAKEN, 2))
    {'state': 'taken', 'iterations': 2}
    """
    fields: dict[str, Any] = {"state": status.state.value}
    if status.iterations is not None:
        fields["iterations"] = status.iterations
    return fields


def run_fields(overlay: RunOverlay) -> dict[str, Any]:
    """The top-level ``run`` object: which run, its state and revision, its queued
    timers (as in ``GET /api/workflow/instances/{id}``) and its compensation."""
    return {"workflowInstanceId": overlay.run_id, "workflowName": overlay.workflow,
            "workflowVersion": overlay.version, "state": overlay.state.value,
            "revision": overlay.revision, "timers": [timer(s) for s in overlay.timers],
            "compensation": {"pending": list(overlay.compensation),
                             "compensated": list(overlay.compensated)}}


def _add_states(nodes: list[dict[str, Any]], edges: list[dict[str, Any]],
                overlay: RunOverlay) -> None:
    """Add the run's fields to freshly written node and edge objects (ours, not a
    caller's); an opened SubWorkflow step's node also names its child run."""
    for node in nodes:
        status = overlay.steps.get(node["id"])
        if status is not None:
            node.update(step_fields(status))
        child = overlay.child_runs.get(node["id"])
        if child is not None:
            node["childRun"] = {"workflowInstanceId": child[0], "state": child[1].value}
    for edge in edges:
        found = overlay.edges.get(edge["id"])
        if found is not None:
            edge.update(edge_fields(found))


def _add_elk_states(container: dict[str, Any], overlay: RunOverlay) -> None:
    """:func:`_add_states` over an ELK document, whose nodes nest (``children``) and whose
    edges are declared in their containers."""
    _add_states(container.get("children", []), container.get("edges", []), overlay)
    for child in container.get("children", []):
        _add_elk_states(child, overlay)


def _run_svg(diagram: Diagram, result: LayoutResult, overlay: RunOverlay) -> bytes:
    return write_svg(with_states(diagram, overlay), result)


def _run_json(diagram: Diagram, result: LayoutResult, overlay: RunOverlay) -> bytes:
    document = result.to_dict()
    _add_states(document["nodes"], document["edges"], overlay)
    document["run"] = run_fields(overlay)
    return (json.dumps(document, indent=2, sort_keys=True) + "\n").encode("utf-8")


def _run_elk(diagram: Diagram, result: LayoutResult, overlay: RunOverlay) -> bytes:
    document = elk_document(diagram, result)
    _add_elk_states(document, overlay)
    document["run"] = run_fields(overlay)
    return elk_text(document)


RUN_WRITERS: Mapping[OutputFormat, Callable[[Diagram, LayoutResult, RunOverlay], bytes]] = {
    OutputFormat.SVG: _run_svg,
    OutputFormat.JSON: _run_json,
    OutputFormat.ELK: _run_elk,
}


def write_graph(diagram: Diagram, result: LayoutResult, fmt: OutputFormat,
                overlay: RunOverlay | None = None) -> bytes:
    """The drawing of ``diagram`` laid out as ``result``, with ``overlay``'s statuses when
    given; ``ValueError`` for a format not in :data:`GRAPH_FORMATS`."""
    if fmt not in GRAPH_FORMATS:
        known = ", ".join(f.value for f in GRAPH_FORMATS)
        raise ValueError(f"format {fmt.value!r} is not one of {known}")
    if overlay is None:
        return write_output(diagram, result, fmt)
    return RUN_WRITERS[fmt](diagram, result, overlay)
