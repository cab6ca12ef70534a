"""What the renderer draws: a layout graph plus what each node shows.

A :class:`Diagram` is read from a workflow definition, an ELK JSON graph, our graph JSON
or a DOT file (see :mod:`renderer.readers`), laid out by any engine, and written by the
writers. Runs add a state per step (see :class:`NodeView.state`) and per edge
(:class:`EdgeView.state`); neither changes a node's size, so a run's drawing has the
layout of its definition's.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from layouts.graph import Graph
from workflow.model import StepState

__all__ = ["Diagram", "EdgeState", "EdgeView", "NodeView", "StepKind", "StepState"]


class StepKind(StrEnum):
    """Workflow step kinds; ``PLAIN`` marks nodes of graphs that are not workflows."""

    AGENT = "Agent"
    TOOL = "Tool"
    HUMAN = "Human"
    CONDITION = "Condition"
    TIMER = "Timer"
    SUB_WORKFLOW = "SubWorkflow"
    FANOUT = "Fanout"
    JOIN = "Join"
    COMPENSATION = "Compensation"
    PLAIN = "Plain"


class EdgeState(StrEnum):
    """Whether a run took an edge: decided ``taken`` or ``not-taken`` (the engine's
    ``taken``/``dead``), or still ``pending``."""

    TAKEN = "taken"
    NOT_TAKEN = "not-taken"
    PENDING = "pending"


@dataclass(frozen=True, slots=True)
class NodeView:
    """What one node shows: its kind marker, title, optional subtitle (agent or tool
    name), and in a run view its state and attempt count."""

    kind: StepKind
    title: str
    subtitle: str | None = None
    state: StepState | None = None
    attempts: int | None = None


@dataclass(frozen=True, slots=True)
class EdgeView:
    """What one edge shows: its guard label, and in a run view its state and, for a
    loop-back, how often the run took it."""

    label: str | None = None
    state: EdgeState | None = None
    iterations: int | None = None


@dataclass(frozen=True, slots=True)
class Diagram:
    """A layout graph with the views of its nodes and edges, keyed by id.

    ``option_values`` are the layout options the document itself asks for (our option
    names; query and CLI options win over them, see :func:`renderer.render.render_timed`);
    ``elk_source`` is the ELK JSON document it was read from, which the ELK writer echoes
    with every field it had."""

    name: str
    graph: Graph
    nodes: Mapping[str, NodeView] = field(default_factory=dict)
    edges: Mapping[str, EdgeView] = field(default_factory=dict)
    option_values: Mapping[str, object] = field(default_factory=dict)
    elk_source: Mapping[str, Any] | None = None

    def node_view(self, node_id: str) -> NodeView:
        """The view of a node; plain nodes default to their label (or id) as title."""
        view = self.nodes.get(node_id)
        if view is not None:
            return view
        node = self.graph.node(node_id)
        return NodeView(StepKind.PLAIN, node.label or node.id)

    def edge_view(self, edge_id: str) -> EdgeView:
        return self.edges.get(edge_id, EdgeView())
