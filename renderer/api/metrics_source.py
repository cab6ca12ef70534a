"""What ``wfr_runs``, ``wfr_timers_pending`` and ``wfr_dead_letters`` are read from at scrape
time: a :class:`MetricsSource` (the store), through :class:`StoreCollector`. Reading the
store at each scrape, rather than counting in memory, makes every process sharing one store
report the same numbers.

>>> from prometheus_client import CollectorRegistry, generate_latest
>>> class OneRun:
...     def run_counts(self): return [("acme", "invoice", "Running", 1)]
...     def pending_timers(self): return [("acme", 2)]
...     def dead_letter_counts(self): return []
>>> registry = CollectorRegistry()
>>> registry.register(StoreCollector(OneRun(), BoundedLabel(), BoundedLabel()))
>>> text = generate_latest(registry).decode()
>>> 'wfr_runs{state="Failed",tenant="acme",workflow="invoice"} 0.0' in text
True
>>> 'wfr_timers_pending{tenant="acme"} 2.0' in text
True
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Iterator
from typing import Protocol

from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector

from renderer.api.labels import BoundedLabel, clean_label
from workflow.model import RunState

LOGGER = logging.getLogger(__name__)


class MetricsSource(Protocol):
    """Counts read from the store at each scrape."""

    def run_counts(self) -> Iterable[tuple[str, str, str, int]]:
        """(tenant, workflow, run state, number of runs) for every non-zero combination."""
        ...

    def pending_timers(self) -> Iterable[tuple[str, int]]:
        """(tenant, number of timers not yet fired)."""
        ...

    def dead_letter_counts(self) -> Iterable[tuple[str, int]]:
        """(tenant, number of dead-lettered queue rows)."""
        ...


class StoreCollector(Collector):
    """Gauges read from a :class:`MetricsSource` at scrape time: ``wfr_runs`` (every run
    state of each tenant and workflow with any run, zeros included), ``wfr_timers_pending``
    and ``wfr_dead_letters`` by tenant, and ``wfr_metrics_source_up`` (0 when reading the
    source failed; the other gauges are then left out)."""

    def __init__(self, source: MetricsSource, tenants: BoundedLabel,
                 workflows: BoundedLabel) -> None:
        self.source, self.tenants, self.workflows = source, tenants, workflows

    def describe(self) -> Iterator[GaugeMetricFamily]:
        """The families without samples (the registry checks names with them)."""
        yield from self._families()

    def collect(self) -> Iterator[GaugeMetricFamily]:
        """Read the source once and yield the gauges."""
        runs, timers, letters, up = self._families()
        try:
            by_run: dict[tuple[str, str], dict[str, int]] = {}
            for tenant, workflow, state, count in self.source.run_counts():
                key = (self.tenants(tenant), self.workflows(workflow))
                states = by_run.setdefault(key, {s.value: 0 for s in RunState})
                label = clean_label(state)
                states[label] = states.get(label, 0) + count
            pending = self._by_tenant(self.source.pending_timers())
            dead = self._by_tenant(self.source.dead_letter_counts())
        except Exception:
            LOGGER.exception("reading the metrics source failed")
            up.add_metric((), 0)
            yield up
            return
        for (tenant, workflow), states in sorted(by_run.items()):
            for state, count in states.items():
                runs.add_metric((tenant, workflow, state), count)
        for family, counts in ((timers, pending), (letters, dead)):
            for tenant, count in sorted(counts.items()):
                family.add_metric((tenant,), count)
        up.add_metric((), 1)
        yield from (runs, timers, letters, up)

    def _by_tenant(self, rows: Iterable[tuple[str, int]]) -> dict[str, int]:
        counts: dict[str, int] = {}
        for tenant, count in rows:
            label = self.tenants(tenant)
            counts[label] = counts.get(label, 0) + count
        return counts

    @staticmethod
    def _families() -> tuple[GaugeMetricFamily, ...]:
        return (
            GaugeMetricFamily("wfr_runs", "Runs by tenant, workflow and state.",
                              labels=("tenant", "workflow", "state")),
            GaugeMetricFamily("wfr_timers_pending", "Durable timers not yet fired.",
                              labels=("tenant",)),
            GaugeMetricFamily("wfr_dead_letters", "Queue rows moved to the dead letters.",
                              labels=("tenant",)),
            GaugeMetricFamily("wfr_metrics_source_up",
                              "1 when the store could be read for this scrape, else 0."),
        )
