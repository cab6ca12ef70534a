"""The durable queue's lease and delivery budget, on both stores."""

from workflow.config import DEFAULTS
from workflow.store import Commit, QueuedSignal


def enqueue(store, signal_id="r:start", due_at=0.0):
    signal = QueuedSignal(signal_id, "r", "event", {"type": "Start", "at": 0.0}, due_at)
    store.commit(Commit(None, enqueue=(signal,)), at=0.0)


def test_a_lease_keeps_other_workers_off_until_it_runs_out(store):
    enqueue(store)
    first = store.claim("w1", now=10.0, lease_seconds=30.0)
    assert first.attempts == 1
    assert store.claim("w2", now=39.9, lease_seconds=30.0) is None  # lease until 10 + 30
    second = store.claim("w2", now=40.0, lease_seconds=30.0)
    assert second.signal_id == "r:start" and second.attempts == 2


def test_rows_are_claimed_in_due_order_and_future_rows_wait(store):
    enqueue(store, "late", due_at=50.0)
    enqueue(store, "early", due_at=5.0)
    assert store.claim("w", now=10.0, lease_seconds=1.0).signal_id == "early"
    assert store.claim("w", now=10.0, lease_seconds=1.0) is None
    assert store.next_due() == 5.0  # the leased early row is still queued until acknowledged
    store.acknowledge("early")
    assert store.next_due() == 50.0


def test_enqueueing_the_same_signal_twice_keeps_one_row(store):
    enqueue(store)
    enqueue(store)
    assert [s.signal_id for s in store.pending()] == ["r:start"]


def test_a_row_whose_workers_keep_dying_is_dead_lettered(store, make_engine, clock):
    from workflow.pump import pump_once

    engine = make_engine(store=store, clock=clock)
    enqueue(store, "doomed:start")
    for crash in range(DEFAULTS.max_delivery_attempts):  # five workers die after claiming
        assert store.claim(f"w{crash}", now=clock.now, lease_seconds=1.0) is not None
        clock.now += 2.0
    assert pump_once(engine)
    (letter,) = store.dead_letters()
    assert letter.signal_id == "doomed:start"
    assert letter.error.startswith("delivery attempts exhausted (5 tried")
    assert store.pending() == ()
