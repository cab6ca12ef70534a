"""Prometheus metrics of the service and the workflow engine, served by ``GET /metrics``.

:class:`Metrics` owns a private :class:`~prometheus_client.CollectorRegistry` (never the
global one, so several apps or tests in one process never share series). Two kinds of
metric live there:

* counted in this process: step durations and compensation outcomes (from the engine
  :meth:`~Metrics.observer`), definition rejections, render durations and HTTP requests;
* read at scrape time from a :class:`MetricsSource` (the store): runs by state, pending
  timers and dead letters, so every process sharing one store reports the same numbers.

Tenant and workflow names come from users, so they pass through a
:class:`~renderer.api.labels.BoundedLabel` (at most 200 each, the rest as ``_other``).

>>> metrics = Metrics()
>>> metrics.observe_render("layered", "svg", 0.02)
>>> metrics.count_rejection(RejectionReason.CONFLICT)
>>> body, content_type = metrics.exposition()
>>> lines = body.decode().splitlines()
>>> 'wfr_render_duration_seconds_bucket{engine="layered",format="svg",le="0.025"} 1.0' in lines
True
>>> 'wfr_definition_rejections_total{reason="conflict"} 1.0' in lines
True
>>> content_type.startswith("text/plain")
True
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterator
from enum import StrEnum

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Histogram,
    generate_latest,
)
from prometheus_client.metrics_core import Metric
from prometheus_client.registry import Collector

from renderer.api.labels import OTHER, BoundedLabel, clean_label
from renderer.api.metrics_source import MetricsSource, StoreCollector
from workflow.model import Effect, EmitEvent, Event, Run, StepOutcome, StepRun

__all__ = ["Metrics", "MetricsSource", "Observer", "RejectionReason"]

LOGGER = logging.getLogger(__name__)

Observer = Callable[[Run, Event, tuple[Effect, ...]], None]
"""The engine's observer type (:attr:`workflow.engine.Engine.observer`)."""

KindOf = Callable[[Run, str], str | None]
"""(run, step id) -> the step's kind, e.g. ``engine.plans[run.definition_hash].steps[s].kind``."""

STEP_BUCKETS = (0.005, 0.025, 0.1, 0.25, 1.0, 2.5, 10.0, 30.0, 60.0, 300.0, 900.0, 3600.0,
                4 * 3600.0, 24 * 3600.0)
"""Seconds: from a condition evaluated at once to a human task left for a day."""

RENDER_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0)
"""Seconds: a small drawing in milliseconds up to the layout time budget."""

HTTP_METHODS = frozenset(("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"))
COMPENSATION_SUFFIX = ".compensate"  # attempt ids of compensations (workflow.policies)


class RejectionReason(StrEnum):
    """Why a definition offered to the API was refused."""

    UNREADABLE = "unreadable"  # not YAML/JSON, or not the DSL's shape
    INVALID = "invalid"  # validation errors
    CONFLICT = "conflict"  # same name and version, different hash
    TOO_LARGE = "too_large"


class Metrics:
    """The service's metrics on their own registry; see the module docstring."""

    def __init__(self, source: MetricsSource | None = None) -> None:
        self.registry = CollectorRegistry()
        self.tenants, self.workflows = BoundedLabel(200), BoundedLabel(200)
        self._engines, self._formats = BoundedLabel(16), BoundedLabel(16)
        self._routes = BoundedLabel(100, max_length=120)
        self._error_logged = False
        self._error_lock = threading.Lock()
        registry = self.registry
        self._steps = Histogram(
            "wfr_step_duration_seconds", "Time from a step's start to the end of an attempt "
            "(succeeded or failed; a retried step counts from its first attempt's start).",
            ("kind", "tenant"), buckets=STEP_BUCKETS, registry=registry)
        self._compensations = Counter(
            "wfr_compensations", "Compensation attempts that ended, by outcome.",
            ("tenant", "outcome"), registry=registry)
        self._rejections = Counter(
            "wfr_definition_rejections", "Definitions refused by the API, by reason.",
            ("reason",), registry=registry)
        self._renders = Histogram(
            "wfr_render_duration_seconds", "Time to lay out and write one drawing.",
            ("engine", "format"), buckets=RENDER_BUCKETS, registry=registry)
        self._requests = Counter(
            "wfr_http_requests", "HTTP requests answered, by route template and status class.",
            ("route", "method", "status"), registry=registry)
        self._observer_errors = Counter(
            "wfr_metrics_observer_errors", "Transitions the metrics observer failed to record "
            "(the first one is logged).", registry=registry)
        for reason in RejectionReason:
            self._rejections.labels(reason.value)
        if source is not None:
            registry.register(StoreCollector(source, self.tenants, self.workflows))

    def observe_render(self, engine: str, fmt: str, seconds: float) -> None:
        """Record one render of ``fmt`` by layout ``engine`` that took ``seconds``."""
        self._renders.labels(self._engines(engine), self._formats(fmt)).observe(max(0.0, seconds))

    def count_rejection(self, reason: RejectionReason) -> None:
        """Count one refused definition (ValueError for a string that is no reason)."""
        self._rejections.labels(RejectionReason(reason).value).inc()

    def count_request(self, route: str, method: str, status: int) -> None:
        """Count one answered request; ``route`` is the route template (``/runs/{id}``)."""
        verb = method.upper() if method.upper() in HTTP_METHODS else OTHER
        status_class = f"{status // 100}xx" if 100 <= status <= 599 else OTHER
        self._requests.labels(self._routes(route), verb, status_class).inc()

    def observer(self, kind_of: KindOf) -> Observer:
        """An engine observer recording step durations and compensation outcomes.

        A step duration is observed at each ``step.succeeded`` and ``step.attempt_failed``
        the transition emits and when a compensation step's attempt ends; ``kind_of`` names
        the step's kind (``None``: ``unknown``). The observer never raises: a failure is
        logged once, then only counted in ``wfr_metrics_observer_errors_total``.
        """
        def observe(run: Run, event: Event, effects: tuple[Effect, ...]) -> None:
            try:
                self._record(kind_of, run, event, effects)
            except Exception:
                self._observer_errors.inc()
                with self._error_lock:
                    first, self._error_logged = not self._error_logged, True
                if first:
                    LOGGER.exception("metrics observer failed on run %r; later failures are "
                                     "only counted", getattr(run, "run_id", None))

        return observe

    def exposition(self) -> tuple[bytes, str]:
        """The metrics in the Prometheus text format, and its content type."""
        return generate_latest(_WithoutCreated(self.registry)), CONTENT_TYPE_LATEST

    def _record(self, kind_of: KindOf, run: Run, event: Event,
                effects: tuple[Effect, ...]) -> None:
        tenant = self.tenants(run.tenant)
        emitted = [(e.kind, e.step_id) for e in effects if isinstance(e, EmitEvent)]
        for kind, step_id in emitted:
            step_run = run.steps.get(step_id or "")
            if kind in ("step.succeeded", "step.attempt_failed") and step_run is not None:
                self._observe_step(kind_of, run, step_run, event.at, tenant)
        if not (isinstance(event, StepOutcome)
                and event.attempt_id.endswith(COMPENSATION_SUFFIX)):
            return
        compensated = ("step.compensated", event.step_id) in emitted
        failed = not event.ok and ("run.failed", None) in emitted
        if not (compensated or failed):
            return  # a stale or repeated outcome: nothing ended
        self._compensations.labels(tenant, "compensated" if compensated else "failed").inc()
        for step_run in run.steps.values():  # the Compensation step, when it is one
            if step_run.step_id != event.step_id and step_run.attempt_id == event.attempt_id:
                self._observe_step(kind_of, run, step_run, event.at, tenant)

    def _observe_step(self, kind_of: KindOf, run: Run, step_run: StepRun, at: float,
                      tenant: str) -> None:
        if step_run.started_at is None:
            return
        finished = step_run.finished_at if step_run.finished_at is not None else at
        kind = kind_of(run, step_run.step_id)
        self._steps.labels(clean_label(kind or "unknown"), tenant).observe(
            max(0.0, finished - step_run.started_at))


class _WithoutCreated(Collector):
    """A registry's metrics without the ``_created`` samples, which the text format would
    expose as one more gauge series per counter and histogram series."""

    def __init__(self, registry: CollectorRegistry) -> None:
        self.registry = registry

    def collect(self) -> Iterator[Metric]:
        for metric in self.registry.collect():
            metric.samples = [s for s in metric.samples if not s.name.endswith("_created")]
            yield metric
