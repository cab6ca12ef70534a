"""An executor that cannot take the call (DeliveryError) is a delivery to retry, not a failed
attempt: the dispatch is dead-lettered past the budget and a replay after the fix goes on."""

from workflow.config import DEFAULTS
from workflow.demo import demo_executors
from workflow.executors import DeliveryError
from workflow.model import RunState
from workflow.pump import pump

FLOW = "workflow: w\nsteps: [{id: a, kind: Tool, tool: flaky, failurePolicy: Fail}]\n"


def test_an_unavailable_executor_is_dead_lettered_then_replayed(store, make_engine, clock):
    broken = {"on": True}

    def flaky(payload):
        if broken["on"]:
            raise DeliveryError("flaky is down")
        return {"ok": True}

    engine = make_engine(FLOW, store=store, clock=clock,
                         executors=demo_executors().with_executor("flaky", flaky))
    run_id = engine.start("w").run_id
    for _ in range(DEFAULTS.max_delivery_attempts):
        pump(engine)
        clock.now += 2 * DEFAULTS.delivery_backoff_max_seconds  # past any delivery backoff
    (letter,) = store.dead_letters()
    assert letter.signal_id == f"{run_id}:dispatch:a@0.1"
    assert letter.attempts == DEFAULTS.max_delivery_attempts
    assert "DeliveryError: flaky is down" in letter.error
    run = engine.run(run_id)
    assert run.state is RunState.RUNNING and run.steps["a"].attempt == 1  # no attempt failed
    broken["on"] = False
    store.replay(letter.signal_id, now=clock.now)
    pump(engine)
    assert engine.run(run_id).state is RunState.COMPLETED and store.dead_letters() == ()
