"""Every step kind and failure policy, through the engine on the in-memory store."""

import pytest

from workflow.executors import ExecutorRegistry
from workflow.model import RunState, StepState
from workflow.policies import backoff_seconds
from workflow.pump import pump


def flaky(failures: int, calls: list[str], name: str = "x"):
    def executor(payload):
        calls.append(name)
        if len([c for c in calls if c == name]) <= failures:
            raise RuntimeError("boom")
        return {"ok": True}

    return executor


def run_to_rest(engine, workflow, run_input=None, simulate_time=True):
    run = engine.start(workflow, None, run_input)
    pump(engine, simulate_time=simulate_time)
    return engine.run(run.run_id)


ONE_TOOL = """
workflow: one
steps: [{id: a, kind: Tool, tool: x, failurePolicy: %s, maxAttempts: %d}]
"""


def test_retry_with_backoff_then_success(make_engine):
    calls: list[str] = []
    engine = make_engine(ONE_TOOL % ("Retry", 3),
                         executors=ExecutorRegistry({"x": flaky(2, calls)}))
    run = run_to_rest(engine, "one")
    assert run.state is RunState.COMPLETED
    assert run.steps["a"].attempt == 3 and calls == ["x", "x", "x"]
    # backoff: 1 s * 2**0 then 1 s * 2**1, each plus at most 25 % jitter
    assert 1.0 <= backoff_seconds("run1", "a@0.1", 1) < 1.25
    assert 2.0 <= backoff_seconds("run1", "a@0.2", 2) < 2.5
    assert backoff_seconds("run1", "a@0.1", 1) == backoff_seconds("run1", "a@0.1", 1)


def test_retry_budget_exhausted_fails_the_run(make_engine):
    calls: list[str] = []
    engine = make_engine(ONE_TOOL % ("Retry", 2),
                         executors=ExecutorRegistry({"x": flaky(9, calls)}))
    run = run_to_rest(engine, "one")
    assert run.state is RunState.FAILED
    assert run.reason == "step 'a' failed after 2 attempts: executor 'x' failed: boom"
    assert len(calls) == 2


def test_fail_policy_and_missing_executor_is_named(make_engine):
    engine = make_engine(ONE_TOOL % ("Fail", 1), executors=ExecutorRegistry())
    run = run_to_rest(engine, "one")
    assert run.state is RunState.FAILED
    assert run.reason == "step 'a' failed: no executor named 'x' is registered"
    assert run.steps["a"].state is StepState.FAILED


def test_escalate_turns_a_failure_into_a_human_task(make_engine):
    engine = make_engine(ONE_TOOL % ("Escalate", 1),
                         executors=ExecutorRegistry({"x": flaky(9, [])}))
    run = run_to_rest(engine, "one")
    assert run.state is RunState.WAITING_FOR_HUMAN
    assert run.steps["a"].waiting_for == "escalation"
    assert [e.kind for e in engine.store.outbox(run.run_id)].count("task.requested") == 1
    engine.decide(run.run_id, "a", "input", {"answer": 42})
    pump(engine)
    run = engine.run(run.run_id)
    assert run.state is RunState.COMPLETED
    assert run.steps["a"].output == {"answer": 42, "decision": "input"}


def test_escalation_rejected_fails_the_run(make_engine):
    engine = make_engine(ONE_TOOL % ("Escalate", 1),
                         executors=ExecutorRegistry({"x": flaky(9, [])}))
    run = run_to_rest(engine, "one")
    engine.decide(run.run_id, "a", "reject")
    pump(engine)
    run = engine.run(run.run_id)
    assert run.state is RunState.FAILED
    assert run.reason == "step 'a' escalation rejected: executor 'x' failed: boom"


SAGA = """
workflow: saga
steps:
  - {id: a, kind: Tool, tool: do-a, failurePolicy: Fail, compensation: undo-a}
  - {id: b, kind: Tool, tool: do-b, failurePolicy: Fail, compensation: undo-b}
  - {id: c, kind: Tool, tool: do-c, failurePolicy: Compensate}
  - {id: undo-a, kind: Compensation, tool: undo-a-tool, failurePolicy: Fail}
edges: [{from: a, to: b}, {from: b, to: c}]
"""


def saga_executors(calls, failing=()):
    def make(name):
        def executor(payload):
            calls.append(name)
            if name in failing:
                raise RuntimeError(f"{name} broke")
            return {"by": name}
        return executor
    names = ("do-a", "do-b", "do-c", "undo-a-tool", "undo-b")
    return ExecutorRegistry({n: make(n) for n in names})


def test_compensation_runs_in_reverse_completion_order(make_engine):
    calls: list[str] = []
    engine = make_engine(SAGA, executors=saga_executors(calls, failing=("do-c",)))
    run = run_to_rest(engine, "saga")
    # a then b completed; c failed -> compensate b (executor undo-b) then a (step undo-a)
    assert calls == ["do-a", "do-b", "do-c", "undo-b", "undo-a-tool"]
    assert run.state is RunState.FAILED
    assert run.reason == ("step 'c' failed: executor 'do-c' failed: do-c broke; "
                          "compensated 'b', 'a' in reverse completion order")
    assert run.steps["a"].state is StepState.COMPENSATED
    assert run.steps["b"].state is StepState.COMPENSATED
    assert run.steps["undo-a"].state is StepState.SUCCEEDED
    kinds = [e.kind for e in engine.store.outbox(run.run_id)]
    assert "run.compensating" in kinds and kinds[-1] == "run.failed"


def test_failed_compensation_lists_the_partial_result(make_engine):
    calls: list[str] = []
    engine = make_engine(SAGA, executors=saga_executors(calls, failing=("do-c", "undo-a-tool")))
    run = run_to_rest(engine, "saga")
    assert run.state is RunState.FAILED
    assert run.reason == ("step 'c' failed: executor 'do-c' failed: do-c broke; compensation of "
                          "'a' failed: executor 'undo-a-tool' failed: undo-a-tool broke; "
                          "compensated: 'b'; not compensated: 'a'")
    assert run.compensated == ("b",)


BRANCHES = """
workflow: branches
steps:
  - {id: check, kind: Condition, expression: '{">": [{"var": "input.amount"}, 100]}'}
  - {id: big, kind: Tool, tool: notifier, failurePolicy: Fail}
  - {id: small, kind: Tool, tool: notifier, failurePolicy: Fail}
  - {id: kind, kind: Condition, expression: '{"var": "input.kind"}'}
  - {id: red, kind: Tool, tool: notifier, failurePolicy: Fail}
  - {id: other, kind: Tool, tool: notifier, failurePolicy: Fail}
edges:
  - {from: check, to: big, guard: "true"}
  - {from: check, to: small, guard: "false"}
  - {from: big, to: kind}
  - {from: small, to: kind}
  - {from: kind, to: red, guard: '{"==": [{"var": "input.kind"}, "red"]}'}
  - {from: kind, to: other, guard: else}
"""


@pytest.mark.parametrize(("run_input", "ran", "skipped"), [
    ({"amount": 500, "kind": "red"}, {"big", "red"}, {"small", "other"}),
    ({"amount": 5, "kind": "blue"}, {"small", "other"}, {"big", "red"}),
])
def test_condition_guards_and_else(run_input, ran, skipped, make_engine):
    run = run_to_rest(make_engine(BRANCHES), "branches", run_input)
    assert run.state is RunState.COMPLETED
    states = {s: r.state for s, r in run.steps.items()}
    assert {s for s, st in states.items() if st is StepState.SUCCEEDED} == ran | {"check", "kind"}
    assert {s for s, st in states.items() if st is StepState.SKIPPED} == skipped
    assert run.steps["check"].output == {"result": run_input["amount"] > 100}


def test_human_step_waits_for_a_decision(make_engine):
    text = """
workflow: approve
steps:
  - {id: ask, kind: Human, failurePolicy: Fail}
  - {id: ok, kind: Condition, expression: '{"==": [{"var": "ask.decision"}, "approve"]}'}
  - {id: tell, kind: Tool, tool: notifier, failurePolicy: Fail}
edges: [{from: ask, to: ok}, {from: ok, to: tell, guard: "true"}]
"""
    engine = make_engine(text)
    # real time: simulated time would jump to the step's default 60-minute timeout
    run = run_to_rest(engine, "approve", simulate_time=False)
    assert run.state is RunState.WAITING_FOR_HUMAN
    with pytest.raises(ValueError, match="'tell' of run 'run1' is not waiting"):
        engine.decide(run.run_id, "tell", "approve")
    engine.decide(run.run_id, "ask", "approve")
    pump(engine)
    run = engine.run(run.run_id)
    assert run.state is RunState.COMPLETED
    assert run.steps["tell"].state is StepState.SUCCEEDED


def test_timer_is_durable_and_fires_when_due(make_engine, clock):
    engine = make_engine("workflow: t\nsteps: [{id: wait, kind: Timer, delayMinutes: 30}]",
                         clock=clock)
    run = run_to_rest(engine, "t", simulate_time=False)
    assert run.state is RunState.WAITING_FOR_TIMER
    clock.now = 1000.0 + 30 * 60 - 1  # one second early: nothing fires
    pump(engine)
    assert engine.run(run.run_id).state is RunState.WAITING_FOR_TIMER
    clock.now = 1000.0 + 30 * 60
    pump(engine)
    run = engine.run(run.run_id)
    assert run.state is RunState.COMPLETED
    assert run.steps["wait"].output == {"firedAt": 1000.0 + 1800.0}


def test_nested_sub_workflows_complete_with_their_results(make_engine):
    inner = ("workflow: inner\nversion: 1.2.0\n"
             "steps: [{id: i, kind: Tool, tool: notifier, failurePolicy: Fail}]")
    middle = ("workflow: middle\nversion: 2.0.0\nsteps: [{id: m, kind: SubWorkflow, "
              "workflow: inner, version: 1.x, failurePolicy: Fail}]")
    outer = ("workflow: outer\nsteps: [{id: o, kind: SubWorkflow, workflow: middle, "
             "version: 2.0.0, failurePolicy: Fail}]")
    engine = make_engine(inner, middle, outer)
    run = run_to_rest(engine, "outer")
    assert run.state is RunState.COMPLETED
    assert run.output == {"o": {"m": {"i": {"notified": True}}}}
    ids = [r.run_id for r in engine.store.list_runs()]
    assert ids == ["run1", "run1/o@0.1", "run1/o@0.1/m@0.1"]


def test_unknown_sub_workflow_fails_the_step_naming_it(make_engine):
    engine = make_engine("workflow: o\nsteps: [{id: s, kind: SubWorkflow, workflow: ghost, "
                         "failurePolicy: Fail}]")
    run = run_to_rest(engine, "o")
    assert run.state is RunState.FAILED
    assert run.reason == "step 's' failed: no registered workflow 'ghost' matching version any"


FAN = """
workflow: fan
steps:
  - {id: f, kind: Fanout}
  - {id: b1, kind: Tool, tool: t1, failurePolicy: Fail}
  - {id: b2, kind: Tool, tool: t2, failurePolicy: Fail}
  - {id: b3, kind: Tool, tool: t3, failurePolicy: Fail}
  - {id: j, kind: Join %s}
edges: [{from: f, to: b1}, {from: f, to: b2}, {from: f, to: b3},
        {from: b1, to: j}, {from: b2, to: j}, {from: b3, to: j}]
"""


def answer(number):
    return lambda payload: {f"v{number}": number}


def fan_executors():
    return ExecutorRegistry({f"t{i}": answer(i) for i in (1, 2, 3)})


def test_quorum_join_cancels_the_remaining_branch(make_engine):
    run = run_to_rest(make_engine(FAN % ", quorum: 2", executors=fan_executors()), "fan")
    # branches are dispatched b1, b2, b3 and answered in that order: b1, b2 meet the quorum
    assert run.state is RunState.COMPLETED
    assert run.steps["b3"].state is StepState.CANCELLED
    assert run.steps["j"].output == {"v1": 1, "v2": 2}


def test_join_without_quorum_waits_for_every_branch(make_engine):
    run = run_to_rest(make_engine(FAN % "", executors=fan_executors()), "fan")
    assert run.steps["j"].output == {"v1": 1, "v2": 2, "v3": 3}


LOOP = """
workflow: loop
maxLoopIterations: 2
steps:
  - {id: work, kind: Tool, tool: notifier, failurePolicy: Fail}
  - {id: again, kind: Condition, expression: '{"<": [{"var": "input.stop"}, 0]}'}
edges:
  - {from: work, to: again}
  - {from: again, to: work, guard: "true", isLoopBack: true}
"""


def test_loop_past_its_bound_fails_with_a_clear_reason(make_engine):
    run = run_to_rest(make_engine(LOOP), "loop", {"stop": -1})
    assert run.state is RunState.FAILED
    assert run.reason == "loop-back edge 'again->work' exceeded maxLoopIterations 2"
    # first pass plus two counted iterations: work ran in iterations 0, 1 and 2
    assert run.steps["work"].iteration == 2 and run.loops == {"again->work": 2}


def test_loop_not_taken_completes(make_engine):
    run = run_to_rest(make_engine(LOOP), "loop", {"stop": 1})
    assert run.state is RunState.COMPLETED and run.loops == {}


def test_cancel_ends_the_run_and_its_waiting_steps(make_engine):
    from workflow.model import Cancel
    from workflow.transition import advance

    engine = make_engine("workflow: t\nsteps: [{id: wait, kind: Timer, delayMinutes: 30}]")
    run = run_to_rest(engine, "t", simulate_time=False)
    plan = engine.plans[run.definition_hash]
    cancelled, _ = advance(plan, run, Cancel(at=2000.0, reason="operator"))
    assert cancelled.state is RunState.CANCELLED and cancelled.reason == "operator"
    assert cancelled.steps["wait"].state is StepState.CANCELLED
    assert run.state is RunState.WAITING_FOR_TIMER  # the input run is untouched


def test_engine_refuses_an_unknown_decision(make_engine):
    engine = make_engine("workflow: h\nsteps: [{id: ask, kind: Human, failurePolicy: Fail}]")
    run = run_to_rest(engine, "h", simulate_time=False)  # not past the default timeout
    with pytest.raises(ValueError, match="unknown decision 'perhaps'"):
        engine.decide(run.run_id, "ask", "perhaps")


def test_cancelling_a_parent_cancels_its_waiting_child_run(make_engine):
    child = "workflow: child\nsteps: [{id: hold, kind: Human, failurePolicy: Fail}]"
    parent = ("workflow: parent\nsteps: [{id: sub, kind: SubWorkflow, workflow: child, "
              "failurePolicy: Fail}]")
    engine = make_engine(child, parent)
    run = run_to_rest(engine, "parent", simulate_time=False)
    assert engine.run("run1/sub@0.1").state is RunState.WAITING_FOR_HUMAN
    engine.cancel(run.run_id)
    pump(engine)
    assert engine.run(run.run_id).state is RunState.CANCELLED
    assert engine.run(run.run_id).reason == "cancelled by an operator"
    assert engine.run("run1/sub@0.1").state is RunState.CANCELLED
    assert engine.run("run1/sub@0.1").reason == "parent run Cancelled"
