"""``wfr render --expand-subworkflows``: each SubWorkflow step drawn as a compound node
holding its child workflow's steps, the child found by name and version.

The SubWorkflow step keeps its id and becomes a box (its own size is the smallest); the
child's steps and edges go inside with ids ``<step>/<child id>``, so two steps may
expand the same child. Child SubWorkflow steps expand in turn, up to :data:`MAX_DEPTH`
levels; a workflow that would contain itself is refused. Edges into and out of the
SubWorkflow step end on its box.

>>> from workflow.dsl import Definition, Step, Transition
>>> child = Definition("child", "1.0", (Step("x", "Tool"), Step("y", "Tool")),
...                    (Transition("xy", "x", "y"),))
>>> parent = Definition("parent", "1", (Step("a", "Tool"),
...     Step("s", "SubWorkflow", workflow="child", version="1.x")), (Transition("as", "a", "s"),))
>>> d = expand_subworkflows(parent, lambda name, version: child)
>>> [(n.id, [c.id for c in n.children]) for n in d.graph.nodes]
[('a', []), ('s', ['s/x', 's/y'])]
>>> [(e.id, e.source, e.target) for e in d.graph.edges]
[('as', 'a', 's'), ('s/xy', 's/x', 's/y')]
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from layouts.graph import Edge, Graph, Node
from renderer.diagram import Diagram, EdgeView, NodeView
from renderer.from_definition import diagram_from_definition
from renderer.svg_compound import heading_size
from workflow.dsl import Definition, DslError, Step
from workflow.kinds import StepKind

MAX_DEPTH = 8
"""Deepest nesting of expanded sub-workflows."""

Lookup = Callable[[str, str | None], Definition]
"""The child definition of a workflow name and version pattern (``1.x``); raises
:class:`LookupError` when there is none."""

ChildFinder = Callable[[str, Step], Definition]
"""The child definition to draw inside a SubWorkflow step, given the step's full id in the
drawing (``outer/inner`` when nested) and the step; raises :class:`LookupError` when there
is none. A definition's drawing finds children by name and version pattern; a run's
drawing takes the definitions its child runs actually ran (:mod:`renderer.run_views`)."""


def expand_subworkflows(definition: Definition, lookup: Lookup) -> Diagram:
    """The diagram of ``definition`` with every SubWorkflow step expanded (see the module
    docstring). A child that cannot be found, a cycle or nesting past :data:`MAX_DEPTH`
    is a :class:`DslError` naming the step."""
    return expand_with(definition, lambda _, step: lookup(step.workflow or "", step.version))


def expand_with(definition: Definition, find_child: ChildFinder) -> Diagram:
    """:func:`expand_subworkflows` with the children found by ``find_child``."""
    return _expand(definition, find_child, (f"{definition.workflow}@{definition.version}",), "")


def _expand(definition: Definition, find_child: ChildFinder, path: tuple[str, ...],
            prefix: str) -> Diagram:
    diagram = diagram_from_definition(definition)
    nodes: list[Node] = []
    edges: list[Edge] = list(diagram.graph.edges)
    views: dict[str, NodeView] = dict(diagram.nodes)
    edge_views: dict[str, EdgeView] = dict(diagram.edges)
    for step, node in zip(definition.steps, diagram.graph.nodes, strict=True):
        if step.kind != StepKind.SUB_WORKFLOW.value or step.workflow is None:
            nodes.append(node)
            continue
        child = _child(prefix + step.id, step, find_child, path)
        inner_prefix = f"{step.id}/"
        inner = _expand(child, find_child, (*path, f"{child.workflow}@{child.version}"),
                        prefix + inner_prefix)
        width, height = heading_size(views[node.id])   # the box's heading: badge,
        nodes.append(replace(node, label_width=width, label_height=height,   # title, child
                             children=tuple(_renamed(n, inner_prefix)
                                            for n in inner.graph.nodes)))
        edges.extend(replace(e, id=inner_prefix + e.id, source=inner_prefix + e.source,
                             target=inner_prefix + e.target) for e in inner.graph.edges)
        views.update({inner_prefix + k: v for k, v in inner.nodes.items()})
        edge_views.update({inner_prefix + k: v for k, v in inner.edges.items()})
    graph = Graph(tuple(nodes), tuple(edges))
    graph.validate()
    return replace(diagram, graph=graph, nodes=views, edges=edge_views)


def _child(full_id: str, step: Step, find_child: ChildFinder, path: tuple[str, ...]
           ) -> Definition:
    if len(path) > MAX_DEPTH:
        raise DslError(f"step '{step.id}': sub-workflows nest more than {MAX_DEPTH} deep")
    try:
        child = find_child(full_id, step)
    except LookupError as error:
        raise DslError(f"step '{step.id}': cannot expand sub-workflow '{step.workflow}' "
                       f"{step.version or 'any version'}: {error}") from None
    if f"{child.workflow}@{child.version}" in path:
        raise DslError(f"step '{step.id}': sub-workflow '{child.workflow}' {child.version} "
                       "contains itself")
    return child


def store_lookup(db: str, tenant: str = "default") -> Lookup:
    """A :data:`Lookup` over the definitions of ``tenant`` in the workflow store ``db`` (a
    SQLite file or a PostgreSQL URL); :class:`DslError` when there is no store there."""
    from workflow.definitions import VersionRegistry
    from workflow.stores import is_postgres, open_store, sqlite_path

    if not is_postgres(db) and not Path(sqlite_path(db)).is_file():  # SQLite would make one
        raise DslError(f"no workflow store at {db} (needed by --expand-subworkflows)")
    registry = VersionRegistry()
    try:
        store = open_store(db)
    except (OSError, ValueError) as error:
        raise DslError(f"cannot open the workflow store {db}: {error}") from None
    try:
        for registered in store.load_definitions():
            registry.restore(registered)
    finally:
        store.close()

    def lookup(workflow: str, version: str | None) -> Definition:
        return registry.resolve(workflow, version, tenant=tenant).definition

    return lookup


def _renamed(node: Node, prefix: str) -> Node:
    return replace(node, id=prefix + node.id,
                   children=tuple(_renamed(c, prefix) for c in node.children))
