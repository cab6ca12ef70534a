"""What a BPMN diagram keeps beyond its layout graph, for the drawing and for BPMN DI.

A BPMN document has *scopes*: each process (a participant's pool in a collaboration)
and each sub-process has its own flow nodes. All scopes are laid out in one flat graph,
each scope a separate component; a sub-process is drawn collapsed in its parent (with
a ``+``) and its content as a framed component of its own, which BPMN DI writes as the
sub-process's own plane (the drill-down bpmn-js shows). Boundary events are not in the
layout graph: :func:`renderer.bpmn_attach.attach_boundary_events` puts them on their
host's border after the layout.

>>> scope = Scope("p1", ScopeKind.PROCESS, "Orders", ("a", "b"))
>>> scope.plane_element
'p1'
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum

from layouts.graph import Edge, Node


class ScopeKind(StrEnum):
    PROCESS = "process"
    PARTICIPANT = "participant"
    SUB_PROCESS = "subProcess"


@dataclass(frozen=True, slots=True)
class Lane:
    """A lane of a process (``laneSet``/``childLaneSet``): its id, name, the flow nodes
    it holds (``flowNodeRef``) and its child lanes.

    >>> inner = Lane("l2", "Desk", ("t",))
    >>> [lane.id for lane in Lane("l1", "Office", (), (inner,)).walk()]
    ['l1', 'l2']
    """

    id: str
    name: str
    node_ids: tuple[str, ...]
    children: tuple[Lane, ...] = ()

    def walk(self) -> list[Lane]:
        """This lane and every lane below it, parents first."""
        out = [self]
        for child in self.children:
            out += child.walk()
        return out

    def leaves(self) -> list[Lane]:
        """The lanes below this one (itself when it has none) that hold flow nodes."""
        if not self.children:
            return [self]
        return [leaf for child in self.children for leaf in child.leaves()]


@dataclass(frozen=True, slots=True)
class Scope:
    """One scope: its element id (the process, participant or sub-process), name and
    the ids of the flow nodes drawn in it (boundary events, data objects and annotations
    included). A participant without a process is a ``black_box`` pool: its one node is
    the pool itself (an empty band). ``lanes`` partition a process's flow nodes."""

    id: str
    kind: ScopeKind
    name: str
    node_ids: tuple[str, ...]
    process_id: str | None = None
    """A participant's process."""
    lanes: tuple[Lane, ...] = ()
    black_box: bool = False

    def all_lanes(self) -> list[Lane]:
        """Every lane of the scope, parents before their children."""
        return [lane for top in self.lanes for lane in top.walk()]

    @property
    def plane_element(self) -> str:
        """The element a BPMN DI plane of this scope refers to."""
        return self.id


@dataclass(frozen=True, slots=True)
class Boundary:
    """A boundary event, the activity it is attached to and its outgoing flows."""

    event_id: str
    host_id: str
    width: float
    height: float


@dataclass(frozen=True, slots=True)
class BpmnModel:
    """The BPMN source and what the drawing and the DI writer need from it.

    ``main_scopes`` are drawn in the document's first diagram (a collaboration's pools,
    or the processes); ``sub_scopes`` are sub-processes with their own plane.
    ``label_sizes`` give the size of the external label of events and gateways."""

    source: bytes
    main_scopes: tuple[Scope, ...]
    sub_scopes: tuple[Scope, ...] = ()
    boundaries: tuple[Boundary, ...] = ()
    collaboration_id: str | None = None
    flow_ends: Mapping[str, tuple[str, str]] = field(default_factory=dict)
    """Source and target element of every sequence and message flow drawn, by flow id
    (the layout graph has a boundary event's host in its place)."""
    label_sizes: Mapping[str, tuple[float, float]] = field(default_factory=dict)
    detached_edges: tuple[Edge, ...] = ()
    """Message flows to or from a black-box pool: left out of the layout graph (they
    would tie the pools' layouts together, often in a cycle) and routed when the pools
    are stacked."""


def expanded_ids(graph_nodes: Iterable[Node]) -> frozenset[str]:
    """The sub-processes laid out expanded: the compound nodes of the graph drawn.

    >>> expanded_ids([Node("s", 9, 9, children=(Node("a", 9, 9),)), Node("b", 9, 9)])
    frozenset({'s'})
    """
    return frozenset(n.id for n in graph_nodes if n.children)
