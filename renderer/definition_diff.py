"""What changed between two versions of a definition, and one definition holding both, so
a drawing can show removed steps where they were.

Steps and edges are matched by id (an edge's id is ``from->to`` unless the DSL names it).
A step is *changed* when any of its fields differs; an edge when its endpoints, guard or
loop-back flag do. Lists keep the order of the version they come from.

>>> from workflow.dsl import load_definition_text
>>> a = load_definition_text("workflow: w\\nversion: '1'\\nsteps: [{id: x, kind: Tool, tool: t},"
...                          " {id: y, kind: Tool, tool: t}]\\nedges: [{from: x, to: y}]")
>>> b = load_definition_text("workflow: w\\nversion: '2'\\nsteps: [{id: x, kind: Tool, tool: u},"
...                          " {id: z, kind: Tool, tool: t}]\\nedges: [{from: x, to: z}]")
>>> d = diff_definitions(a, b)
>>> d.added, d.removed, d.changed, d.added_edges, d.removed_edges
(('z',), ('y',), ('x',), ('x->z',), ('x->y',))
>>> [s.id for s in union_definition(a, b).steps], [e.id for e in union_definition(a, b).edges]
(['x', 'z', 'y'], ['x->z', 'x->y'])
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from workflow.dsl import Definition


@dataclass(frozen=True, slots=True)
class DefinitionDiff:
    """Step ids and edge ids added in B, removed from A, and present in both but changed."""

    added: tuple[str, ...]
    removed: tuple[str, ...]
    changed: tuple[str, ...]
    added_edges: tuple[str, ...]
    removed_edges: tuple[str, ...]
    changed_edges: tuple[str, ...]

    @property
    def empty(self) -> bool:
        """Whether the two versions have the same steps and edges."""
        return not any(dataclasses.astuple(self))


def diff_definitions(a: Definition, b: Definition) -> DefinitionDiff:
    """What changed from ``a`` to ``b``."""
    steps_a, steps_b = {s.id: s for s in a.steps}, {s.id: s for s in b.steps}
    edges_a, edges_b = {e.id: e for e in a.edges}, {e.id: e for e in b.edges}
    return DefinitionDiff(
        added=tuple(s for s in steps_b if s not in steps_a),
        removed=tuple(s for s in steps_a if s not in steps_b),
        changed=tuple(s for s, step in steps_b.items() if s in steps_a and steps_a[s] != step),
        added_edges=tuple(e for e in edges_b if e not in edges_a),
        removed_edges=tuple(e for e in edges_a if e not in edges_b),
        changed_edges=tuple(e for e, edge in edges_b.items()
                            if e in edges_a and edges_a[e] != edge),
    )


def union_definition(a: Definition, b: Definition) -> Definition:
    """``b`` plus the steps of ``a`` that ``b`` removed and the edges of ``a`` that touch
    them (those whose id ``b`` does not use), after ``b``'s own steps and edges."""
    kept = {s.id for s in b.steps}
    removed = [s for s in a.steps if s.id not in kept]
    gone = {s.id for s in removed}
    edge_ids = {e.id for e in b.edges}
    ghost_edges = [e for e in a.edges if (e.source in gone or e.target in gone)
                   and e.id not in edge_ids]
    return dataclasses.replace(b, steps=(*b.steps, *removed), edges=(*b.edges, *ghost_edges))
