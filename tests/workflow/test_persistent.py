"""The persistent collections of a run (:mod:`workflow.persistent`), checked against the
plain dict, frozenset and tuple they replace, and the property they exist for: applying
an event never walks the run's steps, edges, processed keys or completion order."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bench.event_cost import chain_definition
from workflow.engine import Engine
from workflow.executors import ExecutorRegistry
from workflow.model import StepState, TimerFired, TimerPurpose, event_to_dict
from workflow.persistent import AppendOnly, KeySet, OrderedMap
from workflow.pump import pump_once
from workflow.sqlite_store import SqliteStore
from workflow.store import QueuedSignal, QueueRowKind

KEYS = st.sampled_from("abcdefgh")
OPERATIONS = st.lists(st.tuples(st.booleans(), KEYS, st.integers(0, 9)), max_size=40)


@given(OPERATIONS)
def test_ordered_map_keeps_a_dicts_order_and_items(operations: list[tuple[bool, str, int]]
                                                   ) -> None:
    """Each operation sets ``key`` to ``value`` (True) or removes ``key`` (False), on a dict
    and, one version per operation, on an OrderedMap; every older version stays as it was."""
    model: dict[str, int] = {}
    current: OrderedMap[str, int] = OrderedMap()
    versions: list[tuple[OrderedMap[str, int], list[tuple[str, int]]]] = []
    for is_set, key, value in operations:
        if is_set:
            model[key] = value
            current = current.apply({key: value})
        else:
            model.pop(key, None)
            current = current.apply({}, removed=(key,))
        versions.append((current, list(model.items())))
        assert list(current.items()) == list(model.items())
        assert current == model and model == current and len(current) == len(model)
        assert all((k in current) == (k in model) for k in "abcdefghz")
    for version, items in versions:
        assert list(version.items()) == items


def test_ordered_map_from_a_dict_and_its_lookups() -> None:
    steps = OrderedMap({"b": 1, "a": 2})
    assert list(steps) == ["b", "a"] and steps["a"] == 2 and steps.get("z", 0) == 0
    assert steps != {"b": 1} and steps != {"b": 1, "a": 3} and steps != [("b", 1)]
    with pytest.raises(KeyError):
        steps["z"]
    assert steps.place("b") < steps.place("a")


@given(st.lists(KEYS, max_size=20))
def test_key_set_is_a_frozenset_that_adds_in_place_of_copying(keys: list[str]) -> None:
    versions = [KeySet[str]()]
    for key in keys:
        versions.append(versions[-1].add(key))
    for count, version in enumerate(versions):
        expected = frozenset(keys[:count])
        assert version == expected and expected == version and len(version) == len(expected)
        assert list(version) == sorted(expected)
        assert hash(version) == hash(expected)


@given(st.lists(st.lists(KEYS, max_size=4), max_size=10))
def test_append_only_is_a_tuple_that_extends_without_copying(batches: list[list[str]]) -> None:
    version, model = AppendOnly[str](), ()
    for batch in batches:
        older, older_model = version, model
        version, model = version.extend(batch), (*model, *batch)
        assert version == model and model == version and tuple(older) == older_model
        assert [version[i] for i in range(-len(model), len(model))] == list(model * 2)
        assert version[1:3] == model[1:3] and version[-1:] == model[-1:]
    with pytest.raises(IndexError):
        version[len(model)]


def test_applying_an_event_walks_none_of_the_runs_growing_parts(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A chain of 200 Timer steps pumped halfway on SQLite, then one more event (its
    transition, the commit of the run's head and changed rows, the queue rows) with
    iteration over any of the four collections made to fail."""
    store = SqliteStore(tmp_path / "w.db")
    engine = Engine(store, clock=lambda: 0.0)
    engine.register(chain_definition(200, "Timer"))
    run = engine.start("chain-200")
    for _ in range(100):
        assert pump_once(engine)
    before = engine.run(run.run_id)
    assert len(before.steps) > 90 and len(before.completion_order) > 90

    def no_walk(self: object) -> Iterator[object]:
        raise AssertionError(f"walked a {type(self).__name__} of the run")

    for kind in (OrderedMap, KeySet, AppendOnly):
        monkeypatch.setattr(kind, "__iter__", no_walk)
    assert pump_once(engine)
    monkeypatch.undo()
    after = engine.run(run.run_id)
    store.close()
    assert after.revision == before.revision + 1
    assert len(after.completion_order) == len(before.completion_order) + 1


def test_a_stale_event_is_recorded_without_walking_the_run(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Regression: an event that changes nothing but its key (here the timeout of an attempt
    that already succeeded) made a new run without a delta, so its commit compared every
    step, edge and key of the run."""
    store = SqliteStore(tmp_path / "w.db")
    engine = Engine(store, ExecutorRegistry({"echo": lambda payload: {"ok": True}}),
                    clock=lambda: 0.0)
    engine.register(chain_definition(100))
    run = engine.start("chain-100")
    for _ in range(60):
        assert pump_once(engine)
    before = engine.run(run.run_id)
    assert before.steps["s10"].state is StepState.SUCCEEDED
    stale = TimerFired("s10", "s10@0.1", TimerPurpose.TIMEOUT, at=0.0)

    def no_walk(self: object) -> Iterator[object]:
        raise AssertionError(f"walked a {type(self).__name__} of the run")

    for kind in (OrderedMap, KeySet, AppendOnly):
        monkeypatch.setattr(kind, "__iter__", no_walk)
    engine.process(QueuedSignal("stale", run.run_id, QueueRowKind.EVENT, event_to_dict(stale),
                                0.0))
    monkeypatch.undo()
    after = engine.run(run.run_id)
    store.close()
    assert after.revision == before.revision + 1 and stale.key in after.processed
    assert after.steps == before.steps
