"""What changed between two versions of a workflow definition, and one graph to draw it.

Steps and edges are matched by id. A step whose DSL fields differ is *changed* (the fields
are listed with both values); an edge whose ends, guard or loop-back flag differ is
changed. :func:`union_definition` is version B plus A's removed steps and the edges that
touch them, so the removed steps (drawn as ghosts) get places in one layout with the rest.

>>> from workflow.dsl import load_definition_text
>>> a = load_definition_text("workflow: w\\nsteps: [{id: x, kind: Tool, tool: t},"
...                          " {id: gone, kind: Timer, delayMinutes: 1}]\\n"
...                          "edges: [{from: x, to: gone}]")
>>> b = load_definition_text("workflow: w\\nversion: '2'\\nsteps: [{id: x, kind: Tool, "
...                          "tool: u}, {id: new, kind: Timer, delayMinutes: 1}]\\n"
...                          "edges: [{from: x, to: new}]")
>>> diff = diff_definitions(a, b)
>>> diff.added_steps, diff.removed_steps, [c.item_id for c in diff.changed_steps]
(('new',), ('gone',), ['x'])
>>> [s.id for s in union_definition(a, b).steps]
['x', 'new', 'gone']
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from workflow.dsl import EDGE_FIELDS, STEP_FIELDS, Definition, Transition

GHOST_EDGE_PREFIX = "removed:"
"""Prefix of a removed edge's id in the union when B has an edge of the same id."""


@dataclass(frozen=True, slots=True)
class Change:
    """One step or edge present in both versions with different fields: name -> (A, B)."""

    item_id: str
    fields: Mapping[str, tuple[object, object]]


@dataclass(frozen=True, slots=True)
class DefinitionDiff:
    """Steps and edges added in B, removed from A, and changed between them."""

    added_steps: tuple[str, ...]
    removed_steps: tuple[str, ...]
    changed_steps: tuple[Change, ...]
    added_edges: tuple[str, ...]
    removed_edges: tuple[str, ...]
    changed_edges: tuple[Change, ...]

    def to_dict(self) -> dict[str, Any]:
        """JSON data: ``steps`` and ``edges``, each with added, removed and changed."""
        return {"steps": _part(self.added_steps, self.removed_steps, self.changed_steps),
                "edges": _part(self.added_edges, self.removed_edges, self.changed_edges)}


def diff_definitions(a: Definition, b: Definition) -> DefinitionDiff:
    """What changed from ``a`` to ``b``; items in B's order, then removed ones in A's."""
    steps_a = {s.id: _fields(s, STEP_FIELDS) for s in a.steps}
    steps_b = {s.id: _fields(s, STEP_FIELDS) for s in b.steps}
    edges_a = {e.id: _fields(e, EDGE_FIELDS) for e in a.edges}
    edges_b = {e.id: _fields(e, EDGE_FIELDS) for e in b.edges}
    return DefinitionDiff(
        tuple(s for s in steps_b if s not in steps_a),
        tuple(s for s in steps_a if s not in steps_b),
        _changes(steps_a, steps_b),
        tuple(e for e in edges_b if e not in edges_a),
        tuple(e for e in edges_a if e not in edges_b),
        _changes(edges_a, edges_b),
    )


def union_definition(a: Definition, b: Definition) -> Definition:
    """Version B with A's removed steps appended and A's edges that touch them."""
    kept = {s.id for s in b.steps}
    removed = tuple(s for s in a.steps if s.id not in kept)
    gone = {s.id for s in removed}
    taken = {e.id for e in b.edges}
    ghosts = tuple(_ghost_edge(e, taken) for e in a.edges
                   if (e.source in gone or e.target in gone)
                   and {e.source, e.target} <= kept | gone)
    return dataclasses.replace(b, steps=b.steps + removed, edges=b.edges + ghosts)


def ghost_edge_ids(a: Definition, b: Definition) -> tuple[str, ...]:
    """The ids that A's edges touching removed steps have in :func:`union_definition`."""
    union = union_definition(a, b)
    return tuple(e.id for e in union.edges[len(b.edges):])


def _ghost_edge(edge: Transition, taken: set[str]) -> Transition:
    if edge.id in taken:
        return dataclasses.replace(edge, id=GHOST_EDGE_PREFIX + edge.id)
    return edge


def _fields(item: object, table: Mapping[str, str]) -> dict[str, object]:
    return {key: getattr(item, attribute) for key, attribute in table.items()
            if key != "id"}


def _changes(before: Mapping[str, dict[str, object]], after: Mapping[str, dict[str, object]]
             ) -> tuple[Change, ...]:
    changes = []
    for item_id, fields in after.items():
        old = before.get(item_id)
        if old is None or old == fields:
            continue
        changes.append(Change(item_id, {k: (old[k], fields[k]) for k in fields
                                        if old[k] != fields[k]}))
    return tuple(changes)


def _part(added: tuple[str, ...], removed: tuple[str, ...], changed: tuple[Change, ...]
          ) -> dict[str, Any]:
    return {"added": list(added), "removed": list(removed),
            "changed": [{"id": c.item_id, "fields": {k: {"from": old, "to": new}
                                                     for k, (old, new) in c.fields.items()}}
                        for c in changed]}
