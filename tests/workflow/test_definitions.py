import pytest

from workflow.definitions import (
    UnknownWorkflowError,
    VersionConflictError,
    VersionRegistry,
    canonical_json,
    definition_from_json,
    definition_hash,
)
from workflow.dsl import load_definition_text
from workflow.validation import InvalidDefinitionError

TEXT = """
workflow: w
version: "1.0.0"
steps: [{id: a, kind: Tool, tool: t, failurePolicy: Fail}, {id: b, kind: Timer, delayMinutes: 5}]
edges: [{from: a, to: b}]
"""


def test_hash_ignores_layout_of_the_text_but_not_the_graph():
    same = load_definition_text('{"workflow": "w", "version": "1.0.0", "edges": [{"to": "b", '
                                '"from": "a"}], "steps": [{"tool": "t", "id": "a", "kind": "Tool",'
                                ' "failurePolicy": "Fail"}, {"id": "b", "kind": "Timer", '
                                '"delayMinutes": 5}]}')
    original = load_definition_text(TEXT)
    assert definition_hash(same) == definition_hash(original)
    changed = load_definition_text(TEXT.replace("delayMinutes: 5", "delayMinutes: 6"))
    assert definition_hash(changed) != definition_hash(original)
    assert len(definition_hash(original)) == 64  # SHA-256 in hex


def test_canonical_json_round_trips():
    original = load_definition_text(TEXT)
    assert definition_from_json(canonical_json(original)) == original


def test_versions_are_immutable():
    registry = VersionRegistry()
    first = registry.register(load_definition_text(TEXT))
    assert registry.register(load_definition_text(TEXT)) == first
    with pytest.raises(VersionConflictError, match=r"'w' version 1\.0\.0"):
        registry.register(load_definition_text(TEXT.replace("5}", "7}")))
    bumped = load_definition_text(TEXT.replace("7}", "7}").replace('"1.0.0"', '"1.2.0"'))
    registry.register(bumped)
    assert registry.resolve("w", "1.x").definition.version == "1.2.0"
    assert registry.resolve("w", "1.0.0").definition.version == "1.0.0"
    with pytest.raises(UnknownWorkflowError):
        registry.resolve("w", "2.x")


def test_invalid_definitions_are_not_registered():
    with pytest.raises(InvalidDefinitionError, match="unknown kind 'Nope'"):
        VersionRegistry().register(
            load_definition_text("workflow: w\nsteps: [{id: a, kind: Nope}]"))
