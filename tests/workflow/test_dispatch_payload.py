"""What an executor receives: the outputs of the steps its definition says it reads.

A dispatch carries the run input and ``outputs``: the recorded outputs of the step's direct
predecessors (sources of its incoming forward edges) and of the steps its ``reads`` field
names, each only once it succeeded. Expected payloads are worked out by hand from the
definitions below; every executor answers ``{"by": <its name>}`` so an output names its step.
"""

from __future__ import annotations

import json

import jsonschema
import pytest

from workflow.definitions import VersionRegistry, canonical_form
from workflow.dsl import DslError, load_definition_text
from workflow.engine import Engine
from workflow.executors import ExecutorRegistry, dispatch_payload_schema
from workflow.model import DispatchStep, Json, RunState, Start, StepOutcome, new_run
from workflow.plan import compile_plan
from workflow.pump import pump
from workflow.scratch import Scratch
from workflow.sqlite_store import SqliteStore
from workflow.store import MemoryStore
from workflow.transition import advance
from workflow.validation import validate_definition

PIPELINE = """
workflow: pipeline
steps:
  - {id: fetch,  kind: Tool, tool: fetch,  failurePolicy: Fail}
  - {id: scan,   kind: Tool, tool: scan,   failurePolicy: Fail}
  - {id: clean,  kind: Condition, expression: '{"==": [{"var": "scan.by"}, "scan"]}'}
  - {id: hold,   kind: Tool, tool: hold,   failurePolicy: Fail}
  - {id: split,  kind: Fanout}
  - {id: left,   kind: Tool, tool: left,   failurePolicy: Fail}
  - {id: right,  kind: Agent, agent: right, failurePolicy: Fail}
  - {id: both,   kind: Join}
  - {id: post,   kind: Tool, tool: post,   failurePolicy: Fail, reads: [fetch, scan]}
  - {id: report, kind: Tool, tool: report, failurePolicy: Fail}
edges:
  - {from: fetch, to: scan}
  - {from: scan,  to: clean}
  - {from: clean, to: split, guard: "true"}
  - {from: clean, to: hold,  guard: "false"}
  - {from: split, to: left}
  - {from: split, to: right}
  - {from: left,  to: both}
  - {from: right, to: both}
  - {from: both,  to: post}
  - {from: post,  to: report}
  - {from: hold,  to: report}
"""

NAMES = ("fetch", "scan", "hold", "left", "right", "post", "report")


def recording() -> tuple[ExecutorRegistry, dict[str, Json]]:
    """Executors answering ``{"by": name}`` that keep the payload each one was sent."""
    received: dict[str, Json] = {}

    def executor(name: str):
        def call(payload: Json) -> Json:
            received[name] = payload
            return {"by": name}
        return call

    return ExecutorRegistry({name: executor(name) for name in NAMES}), received


def run_pipeline() -> dict[str, Json]:
    executors, received = recording()
    engine = Engine(MemoryStore(), executors, clock=lambda: 0.0, new_id=lambda: "r1")
    engine.register(load_definition_text(PIPELINE))
    engine.start("pipeline", run_input={"doc": 7})
    pump(engine)
    assert engine.run("r1").state is RunState.COMPLETED
    return received


def test_each_executor_gets_its_predecessors_and_declared_reads_only() -> None:
    received = run_pipeline()
    outputs = {name: payload["outputs"] for name, payload in received.items()}
    assert outputs["fetch"] == {}                        # an entry step: nothing upstream
    assert outputs["scan"] == {"fetch": {"by": "fetch"}}
    assert outputs["left"] == {"split": {}}              # a Fanout succeeds with {}
    assert outputs["right"] == {"split": {}}
    # the Join merges its branches' outputs ("by" twice: the later edge, right, wins);
    # then the declared reads, in the order written
    assert list(outputs["post"]) == ["both", "fetch", "scan"]
    assert outputs["post"] == {"both": {"by": "right"}, "fetch": {"by": "fetch"},
                               "scan": {"by": "scan"}}
    # hold was skipped (clean took the true branch), so only post is there
    assert outputs["report"] == {"post": {"by": "post"}}
    assert "hold" not in received


def test_the_payload_names_the_run_step_attempt_and_input_and_fits_the_schema() -> None:
    received = run_pipeline()
    assert received["scan"] == {"run": "r1", "step": "scan", "attempt": 1, "input": {"doc": 7},
                                "outputs": {"fetch": {"by": "fetch"}}}
    for payload in received.values():
        jsonschema.validate(payload, dispatch_payload_schema())


def test_the_schema_refuses_a_payload_without_outputs() -> None:
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"run": "r", "step": "s", "attempt": 1, "input": {}},
                            dispatch_payload_schema())


def chain(size: int) -> str:
    steps = "\n".join(f"  - {{id: s{i}, kind: Tool, tool: t, failurePolicy: Fail}}"
                      for i in range(size))
    edges = "\n".join(f"  - {{from: s{i}, to: s{i + 1}}}" for i in range(size - 1))
    return f"workflow: chain\nsteps:\n{steps}\nedges:\n{edges}\n"


def test_the_dispatch_of_the_1000th_step_of_a_chain_carries_one_output() -> None:
    """Regression: every dispatch carried every recorded output of the run, so the payload of
    step k held k outputs and building it grew with the run."""
    plan = compile_plan(VersionRegistry().register(load_definition_text(chain(1000))))
    run, effects = advance(plan, new_run("r", "chain", "0", plan.hash, {}, at=0.0),
                           Start(at=0.0))
    sizes = []
    for i in range(1000):
        dispatch = next(e for e in effects if isinstance(e, DispatchStep))
        assert dispatch.step_id == f"s{i}"
        sizes.append(len(dispatch.payload["outputs"]))
        run, effects = advance(plan, run, StepOutcome(f"s{i}", dispatch.attempt_id, True,
                                                      at=1.0 + i, output={"n": i}))
    assert run.state is RunState.COMPLETED
    assert sizes == [0] + [1] * 999
    assert dispatch.payload["outputs"] == {"s998": {"n": 998}}


def test_guards_and_conditions_look_up_only_the_steps_they_name() -> None:
    """Regression: the JSONLogic data was a dict of every succeeded step's output, built
    for each guard and Condition; now it is a view that looks steps up one by one."""
    plan = compile_plan(VersionRegistry().register(load_definition_text(chain(3))))
    run, _ = advance(plan, new_run("r", "chain", "0", plan.hash, {"k": 1}, at=0.0),
                     Start(at=0.0))
    run, _ = advance(plan, run, StepOutcome("s0", "s0@0.1", True, at=1.0, output={"n": 5}))

    class NoScans(dict):
        def __iter__(self):
            raise AssertionError("the context scanned every step")

        items = values = keys = __iter__

    scratch = Scratch.of(plan, run, 2.0)
    scratch.steps = NoScans(scratch.steps)
    context = scratch.context()
    assert (context["s0"], context["input"], "s1" in context) == ({"n": 5}, {"k": 1}, False)


def test_a_condition_of_the_whole_data_records_plain_json() -> None:
    text = """
workflow: whole
steps:
  - {id: a, kind: Tool, tool: t, failurePolicy: Fail}
  - {id: all, kind: Condition, expression: '{"var": ""}'}
edges: [{from: a, to: all}]
"""
    plan = compile_plan(VersionRegistry().register(load_definition_text(text)))
    run, _ = advance(plan, new_run("r", "whole", "0", plan.hash, {"k": 1}, at=0.0),
                     Start(at=0.0))
    run, _ = advance(plan, run, StepOutcome("a", "a@0.1", True, at=1.0, output={"n": 5}))
    result = run.steps["all"].output["result"]
    assert type(result) is dict
    assert json.loads(json.dumps(result)) == {"a": {"n": 5}, "input": {"k": 1},
                                              "variables": {}}


# --- the DSL field and its validation ---------------------------------------------------

def problems(text: str) -> list[str]:
    return [p.describe() for p in validate_definition(load_definition_text(text))
            if p.is_error]


def test_reads_naming_unknown_steps_is_an_error_naming_them() -> None:
    assert problems("""
workflow: w
steps:
  - {id: a, kind: Tool, tool: t, failurePolicy: Fail}
  - {id: b, kind: Tool, tool: t, failurePolicy: Fail, reads: [nope, a, gone]}
edges: [{from: a, to: b}]
""") == ["error: step 'b': reads unknown steps 'nope', 'gone'"]


def test_a_step_reads_only_steps_upstream_of_it() -> None:
    # c is downstream of b, y is on a parallel branch, b itself is not upstream of b, and
    # a loop-back edge (c -> a) does not make c upstream of a
    assert problems("""
workflow: w
maxLoopIterations: 2
steps:
  - {id: a, kind: Tool, tool: t, failurePolicy: Fail, reads: [c]}
  - {id: f, kind: Fanout}
  - {id: b, kind: Tool, tool: t, failurePolicy: Fail, reads: [a, c, y, b]}
  - {id: y, kind: Tool, tool: t, failurePolicy: Fail}
  - {id: c, kind: Condition, expression: "true"}
edges:
  - {from: a, to: f}
  - {from: f, to: b}
  - {from: f, to: y}
  - {from: b, to: c}
  - {from: c, to: a, isLoopBack: true}
""") == [
        "error: step 'a': reads 'c', which is not upstream of it (only steps before it on "
        "forward edges)",
        "error: step 'b': reads 'c', 'y', 'b', which are not upstream of it (only steps "
        "before it on forward edges)",
    ]


def test_only_agent_and_tool_steps_have_reads() -> None:
    assert problems("""
workflow: w
steps:
  - {id: a, kind: Tool, tool: t, failurePolicy: Fail}
  - {id: h, kind: Human, failurePolicy: Fail, reads: [a]}
edges: [{from: a, to: h}]
""") == ["error: step 'h': a Human step calls no executor: only Agent and Tool steps have "
         "'reads'"]


@pytest.mark.parametrize("value", ["a", "[1]", "{a: 1}", "[a, [b]]"])
def test_reads_must_be_a_list_of_step_ids(value: str) -> None:
    with pytest.raises(DslError, match="step 'b' field 'reads' must be a list of step ids"):
        load_definition_text(f"workflow: w\nsteps: [{{id: b, kind: Tool, tool: t, "
                             f"reads: {value}}}]")


def test_reads_is_kept_in_the_canonical_form_and_left_out_when_absent() -> None:
    definition = load_definition_text(PIPELINE)
    steps = {s["id"]: s for s in canonical_form(definition)["steps"]}
    assert steps["post"]["reads"] == ["fetch", "scan"] and "reads" not in steps["scan"]



def test_a_stored_definition_reads_back_with_its_reads(tmp_path) -> None:
    store = SqliteStore(tmp_path / "w.db")
    store.save_definition(VersionRegistry().register(load_definition_text(PIPELINE)), at=0.0)
    (stored,) = store.load_definitions()
    store.close()
    assert {s.id: s.reads for s in stored.definition.steps}["post"] == ("fetch", "scan")
