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

from layouts.graph import Edge, Graph, Node
from renderer.diagram import Diagram, EdgeView, NodeView
from renderer.from_definition import diagram_from_definition
from workflow.dsl import Definition, DslError
from workflow.kinds import StepKind

MAX_DEPTH = 8
"""Deepest nesting of expanded sub-workflows."""

Lookup = Callable[[str, str | None], Definition]
"""The child definition of a workflow name and version pattern (``1.x``); raises
:class:`LookupError` when there is none."""


def expand_subworkflows(definition: Definition, lookup: Lookup) -> Diagram:
    """The diagram of ``definition`` with every SubWorkflow step expanded (see the module
    docstring). A child that cannot be found, a cycle or nesting past :data:`MAX_DEPTH`
    is a :class:`DslError` naming the step."""
    return _expand(definition, lookup, (f"{definition.workflow}@{definition.version}",))


def _expand(definition: Definition, lookup: Lookup, path: tuple[str, ...]) -> Diagram:
    diagram = diagram_from_definition(definition)
    nodes: list[Node] = []
    edges: list[Edge] = list(diagram.graph.edges)
    views: dict[str, NodeView] = dict(diagram.nodes)
    edge_views: dict[str, EdgeView] = dict(diagram.edges)
    for step, node in zip(definition.steps, diagram.graph.nodes, strict=True):
        if step.kind != StepKind.SUB_WORKFLOW.value or step.workflow is None:
            nodes.append(node)
            continue
        child = _child(step.id, step.workflow, step.version, lookup, path)
        inner = _expand(child, lookup, (*path, f"{child.workflow}@{child.version}"))
        prefix = f"{step.id}/"
        nodes.append(replace(node, children=tuple(_renamed(n, prefix)
                                                  for n in inner.graph.nodes)))
        edges.extend(replace(e, id=prefix + e.id, source=prefix + e.source,
                             target=prefix + e.target) for e in inner.graph.edges)
        views.update({prefix + k: v for k, v in inner.nodes.items()})
        edge_views.update({prefix + k: v for k, v in inner.edges.items()})
    graph = Graph(tuple(nodes), tuple(edges))
    graph.validate()
    return replace(diagram, graph=graph, nodes=views, edges=edge_views)


def _child(step_id: str, workflow: str, version: str | None, lookup: Lookup,
           path: tuple[str, ...]) -> Definition:
    if len(path) > MAX_DEPTH:
        raise DslError(f"step '{step_id}': sub-workflows nest more than {MAX_DEPTH} deep")
    try:
        child = lookup(workflow, version)
    except LookupError as error:
        raise DslError(f"step '{step_id}': cannot expand sub-workflow '{workflow}' "
                       f"{version or 'any version'}: {error}") from None
    if f"{child.workflow}@{child.version}" in path:
        raise DslError(f"step '{step_id}': sub-workflow '{child.workflow}' {child.version} "
                       "contains itself")
    return child


def store_lookup(db: str) -> Lookup:
    """A :data:`Lookup` over the definitions of the SQLite workflow store ``db`` (the
    default tenant's); :class:`DslError` when there is no store there."""
    from pathlib import Path

    from workflow.definitions import VersionRegistry
    from workflow.sqlite_store import SqliteStore

    if not Path(db).is_file():  # SQLite would make a new, empty store
        raise DslError(f"no workflow store at {db} (needed by --expand-subworkflows)")
    registry = VersionRegistry()
    store = SqliteStore(db)
    try:
        for registered in store.load_definitions():
            registry.restore(registered)
    finally:
        store.close()

    def lookup(workflow: str, version: str | None) -> Definition:
        return registry.resolve(workflow, version).definition

    return lookup


def _renamed(node: Node, prefix: str) -> Node:
    return replace(node, id=prefix + node.id,
                   children=tuple(_renamed(c, prefix) for c in node.children))
