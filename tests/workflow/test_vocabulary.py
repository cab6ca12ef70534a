"""The engine's vocabulary enums keep their stored text, and stored text loads as members."""

import json

import pytest

from workflow.model import TimerFired, TimerPurpose, WaitingFor, event_from_dict, event_to_dict
from workflow.serialize import run_from_json, run_to_json
from workflow.sqlite_store import SqliteStore
from workflow.store import Commit, QueuedSignal, QueueRowKind

# A run document as the engine writes it (waiting_for was a plain string before the enum).
STORED_RUN = (
    '{"business_reference":null,"compensated":[],"compensation":[],"completion_order":[],"created_at":0.0,'
    '"definition_hash":"h","edges":{},"input":{},"loops":{},"output":null,'
    '"parent_attempt_id":null,"parent_run_id":null,"parent_step_id":null,'
    '"processed":["start"],"reason":null,"run_id":"r","state":"WaitingForHuman",'
    '"step_transitions":2,"steps":[{"attempt":1,"attempt_id":"ask@0.1","error":null,'
    '"finished_at":null,"iteration":0,"output":null,"started_at":0.0,"state":"Waiting",'
    '"step_id":"ask","waiting_for":"decision"},{"attempt":0,"attempt_id":null,"error":null,'
    '"finished_at":null,"iteration":0,"output":null,"started_at":null,"state":"Pending",'
    '"step_id":"next","waiting_for":null}],"tenant":"default","transitions":1,'
    '"updated_at":0.0,"variables":{},"version":"1","workflow":"w"}'
)


def test_a_stored_run_loads_with_enum_members_and_writes_back_the_same_bytes():
    run = run_from_json(STORED_RUN)
    assert run.steps["ask"].waiting_for is WaitingFor.DECISION
    assert run.steps["next"].waiting_for is None
    assert run_to_json(run) == STORED_RUN


@pytest.mark.parametrize("waiting_for", list(WaitingFor))
def test_every_waiting_for_round_trips(waiting_for):
    text = STORED_RUN.replace('"decision"', json.dumps(waiting_for.value))
    assert run_from_json(text).steps["ask"].waiting_for is waiting_for


def test_timer_event_payload_keeps_its_text_and_rebuilds_the_member():
    event = TimerFired("a", "a@0.1", TimerPurpose.TIMEOUT, at=1.0)
    stored = json.dumps(event_to_dict(event))
    assert stored == ('{"type": "TimerFired", "step_id": "a", "attempt_id": "a@0.1", '
                      '"purpose": "timeout", "at": 1.0}')
    loaded = event_from_dict(json.loads(stored))
    assert loaded == event and loaded.purpose is TimerPurpose.TIMEOUT
    assert loaded.key == "timer:timeout:a@0.1"


def test_an_unknown_timer_purpose_is_a_value_error_naming_the_event():
    data = {"type": "TimerFired", "step_id": "a", "attempt_id": "a@0.1", "purpose": "nap",
            "at": 1.0}
    with pytest.raises(ValueError, match="event TimerFired: 'nap' is not a valid TimerPurpose"):
        event_from_dict(data)


def test_enum_values_are_the_stored_text():
    assert [w.value for w in WaitingFor] == ["timer", "retry", "decision", "escalation", "child"]
    assert [p.value for p in TimerPurpose] == ["delay", "retry", "timeout"]


@pytest.mark.parametrize("kind", list(QueueRowKind))
def test_queue_rows_store_the_kind_text_and_claim_the_member(kind, tmp_path):
    store = SqliteStore(tmp_path / "w.db")
    store.commit(Commit(None, enqueue=(QueuedSignal("s", "r", kind, {}, 0.0),)), at=0.0)
    stored = store.connection.execute("SELECT kind, typeof(kind) FROM queue").fetchone()
    assert stored == (kind.value, "text")
    assert store.pending()[0].kind is kind
    assert store.claim("me", now=0.0, lease_seconds=1.0).kind is kind
    store.close()


def test_a_dead_letter_keeps_its_queue_row_kind(tmp_path):
    store = SqliteStore(tmp_path / "w.db")
    signal = QueuedSignal("s", "r", QueueRowKind.START_CHILD, {}, 0.0)
    store.commit(Commit(None, enqueue=(signal,)), at=0.0)
    store.dead_letter(signal, "boom", now=1.0)
    assert store.dead_letters()[0].kind is QueueRowKind.START_CHILD
    store.close()


def test_queue_row_kind_values_are_the_stored_text():
    assert [k.value for k in QueueRowKind] == ["event", "dispatch", "start-child"]
