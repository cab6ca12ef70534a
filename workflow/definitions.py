"""Canonical form, graph hash and the immutable versions registry of workflow definitions.

The canonical form is the DSL as plain JSON data with defaults left out and keys sorted;
its SHA-256 is the definition's hash. A (workflow, version) pair, once registered, is
immutable: registering a different graph under it is refused.

>>> from workflow.dsl import load_definition_text
>>> d = load_definition_text(
...     "workflow: w\\nversion: '1.0'\\nsteps: [{id: a, kind: Timer, delayMinutes: 1}]")
>>> canonical_json(d)
'{"steps":[{"delayMinutes":1.0,"id":"a","kind":"Timer"}],"version":"1.0","workflow":"w"}'
>>> registry = VersionRegistry()
>>> registry.register(d).hash == definition_hash(d)
True
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Collection, Iterator
from dataclasses import dataclass, field
from typing import Any

from workflow.dsl import STEP_FIELDS, Definition, definition_from_data
from workflow.validation import InvalidDefinitionError, Problem, require_valid


class VersionConflictError(ValueError):
    """A different graph was offered under an already registered workflow version."""


class UnknownWorkflowError(LookupError):
    """No registered workflow matches the requested name and version."""


def canonical_form(definition: Definition) -> dict[str, Any]:
    """The definition as DSL-shaped JSON data (``None`` fields and automatic edge ids left out)."""
    form: dict[str, Any] = {"workflow": definition.workflow, "version": definition.version}
    for key, value in (("input", definition.input), ("output", definition.output),
                       ("maxLoopIterations", definition.max_loop_iterations)):
        if value is not None:
            form[key] = value
    form["steps"] = [
        {key: _json_field(getattr(step, attribute)) for key, attribute in STEP_FIELDS.items()
         if getattr(step, attribute) is not None}
        for step in definition.steps
    ]
    edges = []
    for edge in definition.edges:
        item: dict[str, Any] = {"from": edge.source, "to": edge.target}
        base = f"{edge.source}->{edge.target}"
        if edge.id != base and not edge.id.startswith(base + "#"):
            item["id"] = edge.id
        if edge.guard is not None:
            item["guard"] = edge.guard
        if edge.is_loop_back:
            item["isLoopBack"] = True
        edges.append(item)
    if edges:
        form["edges"] = edges
    return form


def _json_field(value: object) -> object:
    """A step field as JSON data: the tuple of ``reads`` as a list."""
    return list(value) if isinstance(value, tuple) else value


def canonical_json(definition: Definition) -> str:
    """Compact, key-sorted JSON of :func:`canonical_form` (the hashed text)."""
    return json.dumps(canonical_form(definition), sort_keys=True, separators=(",", ":"),
                      ensure_ascii=False)


def definition_hash(definition: Definition) -> str:
    """SHA-256 (hex) of the canonical JSON form."""
    return hashlib.sha256(canonical_json(definition).encode("utf-8")).hexdigest()


def definition_from_json(text: str) -> Definition:
    """Rebuild a definition from :func:`canonical_json` text."""
    return definition_from_data(json.loads(text))


@dataclass(frozen=True, slots=True)
class RegisteredDefinition:
    """A validated, immutable definition, its hash and the tenant that imported it (the hash
    depends on the graph alone, so two tenants' identical graphs share one compiled plan)."""

    definition: Definition
    hash: str
    tenant: str = "default"


Version = tuple[str, str]  # (workflow, version)


def subworkflow_cycle(registered: Collection[Definition], new: Definition
                      ) -> list[tuple[str, str, str]] | None:
    """The cycle of SubWorkflow steps through ``new``, as (workflow, version, step) hops
    starting at ``new``, or ``None``. A step reaches every registered version its
    ``version`` pattern matches (any version without one), so a cycle is found whichever
    version a run would resolve to.

    >>> from workflow.dsl import load_definition_text
    >>> a = load_definition_text("workflow: a\\nversion: '1'\\nsteps: "
    ...     "[{id: call-b, kind: SubWorkflow, workflow: b, version: 1.x}]")
    >>> b = load_definition_text("workflow: b\\nversion: '1.2'\\nsteps: "
    ...     "[{id: call-a, kind: SubWorkflow, workflow: a}]")
    >>> subworkflow_cycle([a], b)
    [('b', '1.2', 'call-a'), ('a', '1', 'call-b')]
    >>> subworkflow_cycle([], b) is None
    True
    """
    by_name: dict[str, list[Definition]] = {}
    for definition in (*registered, new):
        by_name.setdefault(definition.workflow, []).append(definition)
    start: Version = (new.workflow, new.version)

    def calls(definition: Definition) -> list[tuple[str, Definition]]:
        return [(step.id, target) for step in definition.steps
                if step.kind == "SubWorkflow" and step.workflow is not None
                for target in by_name.get(step.workflow, ())
                if step.version is None or version_matches(target.version, step.version)]

    # depth-first search without recursion (a tenant may chain thousands of definitions)
    path: list[tuple[str, str, str]] = []
    stack: list[tuple[Definition, list[tuple[str, Definition]]]] = [(new, calls(new))]
    seen: set[Version] = {start}
    while stack:
        definition, pending = stack[-1]
        if not pending:
            stack.pop()
            if path:
                path.pop()
            continue
        step_id, target = pending.pop(0)
        node = (target.workflow, target.version)
        if node == start:
            return [*path, (definition.workflow, definition.version, step_id)]
        if node not in seen:
            seen.add(node)
            path.append((definition.workflow, definition.version, step_id))
            stack.append((target, calls(target)))
    return None


def version_matches(version: str, pattern: str) -> bool:
    """Whether ``version`` satisfies ``pattern`` (exact, or ``1.x`` / ``1.2.x`` prefixes).

    >>> [version_matches(v, p) for v, p in (("1.4.2", "1.x"), ("2.0.0", "1.x"), ("1.0", "1.0"))]
    [True, False, True]
    """
    if pattern.endswith(".x"):
        return version.startswith(pattern[:-1])
    return version == pattern


def _version_key(version: str) -> tuple[tuple[int, str], ...]:
    return tuple((int(p), "") if p.isdigit() else (-1, p) for p in version.split("."))


@dataclass(slots=True)
class VersionRegistry:
    """Registered definitions by (tenant, workflow, version); a version never changes once
    loaded. Each tenant has its own names: one tenant's ``w`` 1.0 is not another's.

    The service's threads share one registry: entries are only ever added, and readers
    iterate over a snapshot (``tuple(dict)`` copies without letting another thread in), so
    a definition imported meanwhile cannot break a lookup."""

    known_executors: Collection[str] = ()
    _entries: dict[tuple[str, str, str], RegisteredDefinition] = field(default_factory=dict)

    def register(self, definition: Definition, *, tenant: str = "default"
                 ) -> RegisteredDefinition:
        """Validate and register; the same graph again is a no-op, a changed one is refused,
        and so is one whose SubWorkflow steps would close a cycle through the tenant's
        definitions (:func:`subworkflow_cycle`)."""
        require_valid(definition, known_executors=self.known_executors)
        key = (tenant, definition.workflow, definition.version)
        if key not in self._entries:
            others = [e.definition for e in tuple(self._entries.values()) if e.tenant == tenant]
            cycle = subworkflow_cycle(others, definition)
            if cycle is not None:
                raise InvalidDefinitionError(definition.workflow, (Problem(
                    "error", f"step '{cycle[0][2]}'", "SubWorkflow recursion: "
                    + " -> ".join(f"{w} {v} (step '{s}')" for w, v, s in cycle)
                    + f" -> {definition.workflow} {definition.version}"),))
        entry = RegisteredDefinition(definition, definition_hash(definition), tenant)
        existing = self._entries.get(key)
        if existing is not None and existing.hash != entry.hash:
            raise VersionConflictError(
                f"workflow '{key[1]}' version {key[2]} is already registered with a different "
                f"graph (hash {existing.hash[:12]}, offered {entry.hash[:12]}); bump the version")
        self._entries.setdefault(key, entry)
        return self._entries[key]

    def restore(self, registered: RegisteredDefinition) -> RegisteredDefinition:
        """Re-register a definition loaded from a store (validated when first stored)."""
        if definition_hash(registered.definition) != registered.hash:
            raise VersionConflictError(f"stored workflow '{registered.definition.workflow}' "
                                       "does not match its recorded hash")
        key = (registered.tenant, registered.definition.workflow, registered.definition.version)
        return self._entries.setdefault(key, registered)

    def resolve(self, workflow: str, version: str | None = None, *, tenant: str = "default"
                ) -> RegisteredDefinition:
        """The highest registered version of ``workflow`` matching ``version`` (any if None)."""
        matches = [v for (owner, name, v) in tuple(self._entries) if owner == tenant
                   and name == workflow and (version is None or version_matches(v, version))]
        if not matches:
            raise UnknownWorkflowError(f"no registered workflow '{workflow}' matching version "
                                       f"{version or 'any'}")
        return self._entries[(tenant, workflow, max(matches, key=_version_key))]

    def get(self, tenant: str, workflow: str, version: str) -> RegisteredDefinition | None:
        """Exactly that registered version, if any."""
        return self._entries.get((tenant, workflow, version))

    def by_hash(self, digest: str) -> RegisteredDefinition:
        """The registered definition with this hash."""
        for entry in tuple(self._entries.values()):
            if entry.hash == digest:
                return entry
        raise UnknownWorkflowError(f"no registered definition with hash {digest[:12]}")

    def __iter__(self) -> Iterator[RegisteredDefinition]:
        return iter(tuple(self._entries.values()))
