"""The /metrics registry: step durations and compensations from engine transitions, the
store gauges read at scrape time, the request/render/rejection counters and label bounds.

Expected values are worked out by hand from the runs and events built here."""

from __future__ import annotations

import dataclasses
import itertools
import logging
import threading
from collections.abc import Callable

import pytest
from prometheus_client import CONTENT_TYPE_LATEST, REGISTRY
from prometheus_client.parser import text_string_to_metric_families

from renderer.api.labels import OTHER, BoundedLabel, clean_label
from renderer.api.metrics import STEP_BUCKETS, Metrics, RejectionReason
from workflow.demo import demo_executors
from workflow.dsl import load_definition_text
from workflow.engine import Engine
from workflow.executors import ExecutorRegistry
from workflow.model import (
    EmitEvent,
    Run,
    RunState,
    StepOutcome,
    StepRun,
    StepState,
    TimerFired,
    new_run,
)
from workflow.pump import pump
from workflow.store import MemoryStore

Samples = dict[tuple[str, frozenset[tuple[str, str]]], float]


def scrape(metrics: Metrics) -> Samples:
    """Every sample of the exposition, parsed back, by (sample name, labels)."""
    body, _ = metrics.exposition()
    return {(s.name, frozenset(s.labels.items())): s.value
            for family in text_string_to_metric_families(body.decode())
            for s in family.samples}


def value(samples: Samples, name: str, **labels: str) -> float | None:
    return samples.get((name, frozenset(labels.items())))


def names(samples: Samples, name: str) -> list[dict[str, str]]:
    return [dict(labels) for sample, labels in samples if sample == name]


def step_bucket(samples: Samples, le: str, kind: str = "Tool", tenant: str = "acme"
                ) -> float | None:
    return value(samples, "wfr_step_duration_seconds_bucket", kind=kind, tenant=tenant, le=le)


def tool(run: Run, step_id: str) -> str:
    return "Tool"


def run_with(*steps: StepRun, tenant: str = "acme", state: RunState = RunState.RUNNING) -> Run:
    run = new_run("r1", "invoice", "1", "hash", {}, at=0.0, tenant=tenant)
    return dataclasses.replace(run, steps={s.step_id: s for s in steps}, state=state)


# --- step durations ----------------------------------------------------------------------

def test_a_step_of_a_quarter_second_lands_in_the_quarter_second_bucket() -> None:
    metrics = Metrics()
    observe = metrics.observer(tool)
    done = StepRun("a", StepState.SUCCEEDED, attempt=1, attempt_id="a@0.1",
                   started_at=100.0, finished_at=100.25)
    observe(run_with(done), StepOutcome("a", "a@0.1", True, at=100.25),
            (EmitEvent("step.succeeded", "a"),))
    samples = scrape(metrics)
    assert step_bucket(samples, "0.1") == 0.0
    assert step_bucket(samples, "0.25") == 1.0  # le is inclusive: 0.25 <= 0.25
    assert step_bucket(samples, "+Inf") == 1.0
    labels = {"kind": "Tool", "tenant": "acme"}
    assert value(samples, "wfr_step_duration_seconds_count", **labels) == 1.0
    assert value(samples, "wfr_step_duration_seconds_sum", **labels) == 0.25
    assert [float(b["le"]) for b in names(samples, "wfr_step_duration_seconds_bucket")
            ][:-1] == list(STEP_BUCKETS)


def test_a_failed_attempt_without_finished_at_is_timed_to_the_event() -> None:
    # Retry policy: the failed attempt waits for its retry timer, finished_at stays unset
    metrics = Metrics()
    waiting = StepRun("a", StepState.WAITING, attempt=1, attempt_id="a@0.1",
                      started_at=10.0, waiting_for="retry")
    metrics.observer(tool)(run_with(waiting), StepOutcome("a", "a@0.1", False, at=13.0),
                           (EmitEvent("step.attempt_failed", "a", "boom"),))
    samples = scrape(metrics)
    assert value(samples, "wfr_step_duration_seconds_sum", kind="Tool", tenant="acme") == 3.0
    assert step_bucket(samples, "2.5") == 0.0
    assert step_bucket(samples, "10.0") == 1.0


def test_only_ending_lifecycle_events_are_observed() -> None:
    metrics = Metrics()
    started = StepRun("a", StepState.RUNNING, attempt=1, attempt_id="a@0.1", started_at=5.0)
    observe = metrics.observer(tool)
    observe(run_with(started), TimerFired("a", "a@0.1", "retry", at=5.0),
            (EmitEvent("step.started", "a", "a@0.1"),))
    observe(run_with(started), StepOutcome("a", "a@0.0", True, at=6.0), ())  # stale outcome
    assert names(scrape(metrics), "wfr_step_duration_seconds_count") == []


def test_an_unknown_kind_and_a_step_never_started_are_handled() -> None:
    metrics = Metrics()
    skipped = StepRun("s", StepState.SUCCEEDED, attempt_id="s@0.1")  # no started_at
    done = StepRun("a", StepState.SUCCEEDED, attempt_id="a@0.1", started_at=1.0, finished_at=2.0)
    metrics.observer(lambda run, step: None)(
        run_with(skipped, done), StepOutcome("a", "a@0.1", True, at=2.0),
        (EmitEvent("step.succeeded", "s"), EmitEvent("step.succeeded", "a")))
    samples = scrape(metrics)
    assert value(samples, "wfr_step_duration_seconds_count", kind="unknown", tenant="acme") == 1.0
    assert len(names(samples, "wfr_step_duration_seconds_count")) == 1


# --- compensations -----------------------------------------------------------------------

def test_a_compensated_step_counts_and_times_its_compensation_step() -> None:
    metrics = Metrics()
    target = StepRun("a", StepState.COMPENSATED, attempt_id="a@0.compensate", started_at=1.0,
                     finished_at=50.5)
    undo = StepRun("undo-a", StepState.SUCCEEDED, attempt=1, attempt_id="a@0.compensate",
                   started_at=50.0, finished_at=50.5)
    metrics.observer(lambda run, step: "Compensation" if step == "undo-a" else "Tool")(
        run_with(target, undo, state=RunState.COMPENSATING),
        StepOutcome("a", "a@0.compensate", True, at=50.5),
        (EmitEvent("step.compensated", "a"),))
    samples = scrape(metrics)
    assert value(samples, "wfr_compensations_total", tenant="acme", outcome="compensated") == 1.0
    assert value(samples, "wfr_compensations_total", tenant="acme", outcome="failed") is None
    # only the compensation step's attempt ended (0.5 s), not the compensated step's
    assert step_bucket(samples, "0.25", kind="Compensation") == 0.0
    assert step_bucket(samples, "1.0", kind="Compensation") == 1.0
    assert step_bucket(samples, "+Inf", kind="Tool") is None


def test_a_failed_compensation_counts_as_failed_and_a_stale_one_not_at_all() -> None:
    metrics = Metrics()
    observe = metrics.observer(tool)
    target = StepRun("b", StepState.SUCCEEDED, attempt_id="b@0.compensate")  # bare executor
    failed = run_with(target, state=RunState.FAILED)
    outcome = StepOutcome("b", "b@0.compensate", False, at=9.0, error="undo-b broke")
    observe(failed, outcome, (EmitEvent("run.failed", detail="compensation failed"),))
    observe(failed, outcome, ())  # delivered again: no transition effects
    samples = scrape(metrics)
    assert value(samples, "wfr_compensations_total", tenant="acme", outcome="failed") == 1.0
    assert names(samples, "wfr_step_duration_seconds_count") == []


# --- the observer never raises ------------------------------------------------------------

def test_the_observer_swallows_a_failing_kind_of_and_logs_once(
        caplog: pytest.LogCaptureFixture) -> None:
    def broken(run: Run, step_id: str) -> str:
        raise KeyError(step_id)

    metrics = Metrics()
    observe = metrics.observer(broken)
    done = StepRun("a", StepState.SUCCEEDED, attempt_id="a@0.1", started_at=1.0, finished_at=2.0)
    with caplog.at_level(logging.ERROR, logger="renderer.api.metrics"):
        for _ in range(3):
            observe(run_with(done), StepOutcome("a", "a@0.1", True, at=2.0),
                    (EmitEvent("step.succeeded", "a"),))
    assert len(caplog.records) == 1 and "metrics observer failed" in caplog.records[0].message
    assert value(scrape(metrics), "wfr_metrics_observer_errors_total") == 3.0


# --- store gauges --------------------------------------------------------------------------

class FakeSource:
    def __init__(self) -> None:
        self.runs = [("acme", "invoice", "Running", 2), ("acme", "invoice", "Completed", 5),
                     ("globex", "triage", "Failed", 1)]
        self.timers = [("acme", 3)]
        self.letters = [("globex", 1)]
        self.broken = False

    def run_counts(self) -> list[tuple[str, str, str, int]]:
        if self.broken:
            raise OSError("database is locked")
        return self.runs

    def pending_timers(self) -> list[tuple[str, int]]:
        return self.timers

    def dead_letter_counts(self) -> list[tuple[str, int]]:
        return self.letters


def test_every_run_state_is_reported_for_each_workflow_with_runs() -> None:
    samples = scrape(Metrics(FakeSource()))
    runs = {(r["tenant"], r["workflow"], r["state"]): samples[("wfr_runs", frozenset(r.items()))]
            for r in names(samples, "wfr_runs")}
    assert len(runs) == 2 * len(RunState)  # two (tenant, workflow) pairs, all nine states
    assert runs[("acme", "invoice", "Running")] == 2.0
    assert runs[("acme", "invoice", "Completed")] == 5.0
    assert runs[("acme", "invoice", "Failed")] == 0.0
    assert runs[("globex", "triage", "Failed")] == 1.0
    assert sum(runs.values()) == 8.0
    assert ("acme", "triage", "Running") not in runs
    assert value(samples, "wfr_timers_pending", tenant="acme") == 3.0
    assert value(samples, "wfr_dead_letters", tenant="globex") == 1.0
    assert value(samples, "wfr_dead_letters", tenant="acme") is None
    assert value(samples, "wfr_metrics_source_up") == 1.0


def test_the_gauges_are_read_at_each_scrape_and_a_failing_source_reports_down(
        caplog: pytest.LogCaptureFixture) -> None:
    source = FakeSource()
    metrics = Metrics(source)
    source.runs = [("acme", "invoice", "Running", 1), ("acme", "invoice", "Running", 1)]
    samples = scrape(metrics)
    assert value(samples, "wfr_runs", tenant="acme", workflow="invoice", state="Running") == 2.0
    source.broken = True
    with caplog.at_level(logging.ERROR):
        samples = scrape(metrics)
    assert value(samples, "wfr_metrics_source_up") == 0.0
    assert names(samples, "wfr_runs") == [] and names(samples, "wfr_timers_pending") == []
    assert value(samples, "wfr_definition_rejections_total", reason="invalid") == 0.0
    assert "reading the metrics source failed" in caplog.text


def test_tenants_beyond_the_bound_are_summed_as_other() -> None:
    source = FakeSource()
    source.runs = [(f"tenant-{i}", "w", "Running", 1) for i in range(203)]
    source.timers = [(f"tenant-{i}", 2) for i in range(203)]
    samples = scrape(Metrics(source))
    running = {r["tenant"]: samples[("wfr_runs", frozenset(r.items()))]
               for r in names(samples, "wfr_runs") if r["state"] == "Running"}
    assert len(running) == 201 and running[OTHER] == 3.0 and running["tenant-199"] == 1.0
    assert value(samples, "wfr_timers_pending", tenant=OTHER) == 6.0


def test_no_source_means_no_store_gauges() -> None:
    samples = scrape(Metrics())
    assert names(samples, "wfr_runs") == [] and value(samples, "wfr_metrics_source_up") is None


# --- service counters and the exposition ----------------------------------------------------

def test_render_durations_by_engine_and_format() -> None:
    metrics = Metrics()
    metrics.observe_render("elkjs", "svg", 0.3)
    metrics.observe_render("elkjs", "svg", 0.004)
    metrics.observe_render("graphviz", "dot", -1.0)  # a clock step back counts as 0
    samples = scrape(metrics)
    bucket = "wfr_render_duration_seconds_bucket"
    assert value(samples, bucket, engine="elkjs", format="svg", le="0.005") == 1.0
    assert value(samples, bucket, engine="elkjs", format="svg", le="0.25") == 1.0
    assert value(samples, bucket, engine="elkjs", format="svg", le="0.5") == 2.0
    assert value(samples, "wfr_render_duration_seconds_sum", engine="elkjs",
                 format="svg") == pytest.approx(0.304)
    assert value(samples, bucket, engine="graphviz", format="dot", le="0.005") == 1.0


def test_rejections_start_at_zero_for_every_reason() -> None:
    metrics = Metrics()
    metrics.count_rejection(RejectionReason.TOO_LARGE)
    metrics.count_rejection(RejectionReason.TOO_LARGE)
    samples = scrape(metrics)
    counts = {r["reason"]: samples[("wfr_definition_rejections_total", frozenset(r.items()))]
              for r in names(samples, "wfr_definition_rejections_total")}
    assert counts == {"unreadable": 0.0, "invalid": 0.0, "conflict": 0.0, "too_large": 2.0}
    with pytest.raises(ValueError):
        metrics.count_rejection("nonsense")  # type: ignore[arg-type]


def test_requests_by_route_template_method_and_status_class() -> None:
    metrics = Metrics()
    metrics.count_request("/api/workflow/runs/{run_id}", "get", 200)
    metrics.count_request("/api/workflow/runs/{run_id}", "GET", 204)
    metrics.count_request("/api/workflow/runs", "POST", 409)
    metrics.count_request("/api/workflow/runs", "BREW", 999)
    samples = scrape(metrics)
    total = "wfr_http_requests_total"
    assert value(samples, total, route="/api/workflow/runs/{run_id}", method="GET",
                 status="2xx") == 2.0
    assert value(samples, total, route="/api/workflow/runs", method="POST", status="4xx") == 1.0
    assert value(samples, total, route="/api/workflow/runs", method=OTHER, status=OTHER) == 1.0


def test_the_exposition_is_private_text_without_created_series() -> None:
    first, second = Metrics(), Metrics()
    first.count_request("/a", "GET", 200)
    body, content_type = first.exposition()
    assert content_type == CONTENT_TYPE_LATEST
    assert b"_created" not in body and b"# TYPE wfr_http_requests_total counter" in body
    assert b"wfr_http_requests_total{" not in second.exposition()[0]
    assert REGISTRY.get_sample_value("wfr_http_requests_total",
                                     {"route": "/a", "method": "GET", "status": "2xx"}) is None


# --- label bounds ----------------------------------------------------------------------------

def test_bounded_label_keeps_the_first_values_and_maps_the_rest_to_other() -> None:
    tenants = BoundedLabel(limit=3)
    assert [tenants(t) for t in ("a", "b", "a", "c", "d", "b", "e")] == \
        ["a", "b", "a", "c", OTHER, "b", OTHER]
    assert len(tenants) == 3
    assert BoundedLabel(limit=0)("a") == OTHER
    with pytest.raises(ValueError):
        BoundedLabel(limit=-1)


def test_bounded_label_cleans_and_truncates() -> None:
    assert clean_label("  acme  corp\t\n") == "acme_corp"
    assert clean_label("a\x00b\u200bc") == "a_b_c"  # control and format characters
    assert clean_label('quo"te\\') == 'quo"te\\'  # the exposition escapes these itself
    assert clean_label("x" * 500) == "x" * 64
    assert clean_label("müller-gmbh") == "müller-gmbh"
    assert clean_label(" \t ") == "_empty" and clean_label("") == "_empty"
    label = BoundedLabel(limit=1, max_length=4)
    assert label("abcdef") == "abcd" and label("abcdxyz") == "abcd"  # same cleaned value
    assert label("other") == OTHER


def test_bounded_label_is_thread_safe() -> None:
    label = BoundedLabel(limit=50)
    results: list[str] = []
    lock = threading.Lock()

    def worker(offset: int) -> None:
        out = [label(f"t{offset + i}") for i in range(100)]
        with lock:
            results.extend(out)

    threads = [threading.Thread(target=worker, args=(n * 100,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(set(results) - {OTHER}) == 50 and results.count(OTHER) == 750


def test_the_observer_bounds_tenants_too() -> None:
    metrics = Metrics()
    observe = metrics.observer(tool)
    for i in range(201):
        done = StepRun("a", StepState.SUCCEEDED, attempt_id="a@0.1", started_at=0.0,
                       finished_at=1.0)
        observe(run_with(done, tenant=f"t{i}"), StepOutcome("a", "a@0.1", True, at=1.0),
                (EmitEvent("step.succeeded", "a"),))
    samples = scrape(metrics)
    assert len(names(samples, "wfr_step_duration_seconds_count")) == 201
    assert value(samples, "wfr_step_duration_seconds_count", kind="Tool", tenant=OTHER) == 1.0


# --- end to end through a real engine ---------------------------------------------------------

RETRIED = """
workflow: retried
steps:
  - {id: fetch, kind: Tool, tool: flaky, failurePolicy: Retry, maxAttempts: 3}
  - {id: check, kind: Condition, expression: '{"==": [1, 1]}'}
  - {id: notify, kind: Tool, tool: notifier, failurePolicy: Fail}
edges: [{from: fetch, to: check}, {from: check, to: notify}]
"""

SAGA = """
workflow: saga
steps:
  - {id: a, kind: Tool, tool: do-a, failurePolicy: Fail, compensation: undo-a}
  - {id: b, kind: Tool, tool: do-b, failurePolicy: Fail, compensation: undo-b}
  - {id: c, kind: Tool, tool: do-c, failurePolicy: Compensate}
  - {id: undo-a, kind: Compensation, tool: undo-a-tool, failurePolicy: Fail}
edges: [{from: a, to: b}, {from: b, to: c}]
"""


class StoreSource:
    """A MetricsSource over an engine store, as the service might write one."""

    def __init__(self, store: MemoryStore) -> None:
        self.store = store

    def run_counts(self) -> list[tuple[str, str, str, int]]:
        runs = self.store.list_runs()
        keys = [(r.tenant, r.workflow, r.state.value) for r in runs]
        return [(*key, keys.count(key)) for key in sorted(set(keys))]

    def pending_timers(self) -> list[tuple[str, int]]:
        timers = [s for s in self.store.pending() if s.payload.get("type") == "TimerFired"]
        return [("default", len(timers))] if timers else []

    def dead_letter_counts(self) -> list[tuple[str, int]]:
        return []


def engine_with(text: str, executors: ExecutorRegistry) -> tuple[Engine, Metrics]:
    ids = itertools.count(1)
    engine = Engine(MemoryStore(), executors, clock=lambda: 1000.0,
                    new_id=lambda: f"run{next(ids)}")
    engine.register(load_definition_text(text))
    metrics = Metrics(StoreSource(engine.store))
    engine.observer = metrics.observer(
        lambda run, step: engine.plans[run.definition_hash].steps[step].kind)
    return engine, metrics


def ended_attempts(engine: Engine) -> int:
    return sum(e.kind in ("step.succeeded", "step.attempt_failed") for e in engine.store.outbox())


def test_a_real_run_observes_every_attempt_that_ended() -> None:
    calls: list[str] = []

    def flaky(payload: object) -> dict[str, bool]:
        calls.append("flaky")
        if len(calls) <= 2:
            raise RuntimeError("boom")
        return {"ok": True}

    engine, metrics = engine_with(RETRIED, demo_executors().with_executor("flaky", flaky))
    run = engine.start("retried")
    pump(engine, simulate_time=True)
    assert engine.run(run.run_id).state is RunState.COMPLETED
    samples = scrape(metrics)
    count = "wfr_step_duration_seconds_count"
    tools = value(samples, count, kind="Tool", tenant="default")
    conditions = value(samples, count, kind="Condition", tenant="default")
    # fetch: 2 failed attempts and 1 success; check and notify: one success each
    assert (tools, conditions) == (4.0, 1.0) and ended_attempts(engine) == 5
    # a retried attempt is timed from the step's first start (t=1000): the first failure
    # at once, the second after a ~1 s backoff, the success after ~1 s + ~2 s more
    bucket = {le: step_bucket(samples, le, tenant="default") for le in ("0.005", "1.0", "2.5",
                                                                       "10.0")}
    assert bucket == {"0.005": 2.0, "1.0": 2.0, "2.5": 3.0, "10.0": 4.0}  # + notify at once
    assert value(samples, "wfr_runs", tenant="default", workflow="retried",
                 state="Completed") == 1.0
    assert value(samples, "wfr_runs", tenant="default", workflow="retried",
                 state="Running") == 0.0


@pytest.mark.parametrize(("failing", "compensated", "failed"), [
    (("do-c",), 2.0, None),
    (("do-c", "undo-a-tool"), 1.0, 1.0),
])
def test_a_real_saga_counts_compensation_outcomes(failing: tuple[str, ...], compensated: float,
                                                 failed: float | None) -> None:
    def make(name: str) -> Callable[[object], dict[str, str]]:
        def executor(payload: object) -> dict[str, str]:
            if name in failing:
                raise RuntimeError(f"{name} broke")
            return {"by": name}
        return executor

    tools = ("do-a", "do-b", "do-c", "undo-a-tool", "undo-b")
    engine, metrics = engine_with(SAGA, ExecutorRegistry({n: make(n) for n in tools}))
    run = engine.start("saga")
    pump(engine, simulate_time=True)
    assert engine.run(run.run_id).state is RunState.FAILED
    samples = scrape(metrics)
    outcome = "wfr_compensations_total"
    assert value(samples, outcome, tenant="default", outcome="compensated") == compensated
    assert value(samples, outcome, tenant="default", outcome="failed") == failed
    count = "wfr_step_duration_seconds_count"
    # a and b succeeded, c failed: 3 Tool attempts; b's compensation is a bare executor (no
    # step to time), a's is the Compensation step undo-a, which ends either way
    assert value(samples, count, kind="Tool", tenant="default") == 3.0 == ended_attempts(engine)
    assert value(samples, count, kind="Compensation", tenant="default") == 1.0
