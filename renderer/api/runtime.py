"""The workflow engine inside the service process: store, engine, embedded pump, API.

:class:`WorkflowRuntime` is what ``create_app`` adds to the render service: the SQLite
store named by the settings, an engine with the registered executors, a background pump
(so a run started over HTTP advances with no other process; ``wfr worker`` processes may
share the same store) and the ``/api/workflow`` routes. In dev mode the executors are the
built-in demo executors (fixed outputs; the banner says so) and the fixtures are imported
for the tenant ``dev``.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from starlette.routing import BaseRoute

from renderer.api.auth import TokenVerifier
from renderer.api.gate import Gate, csrf_key
from renderer.api.settings import ServiceSettings
from renderer.api.workflow import WorkflowApi
from renderer.drawings import GraphDrawer
from renderer.layout_cache import LayoutCache
from renderer.render import LayoutRunner
from workflow.background import PumpThread
from workflow.demo import demo_definitions, demo_executors
from workflow.dsl import load_definition
from workflow.engine import Engine, Observer
from workflow.executors import EXECUTORS_VARIABLE, ExecutorRegistry, executors_from_file
from workflow.model import Run
from workflow.stores import ServiceStore, listen_for_signals, open_store

LOGGER = logging.getLogger(__name__)

DEV_TENANT = "dev"


def executors_for(settings: ServiceSettings, environ: Mapping[str, str] | None = None
                  ) -> tuple[ExecutorRegistry, str]:
    """The executors the engine calls and a line saying which they are.

    >>> executors_for(ServiceSettings(dev=True))[1]
    'demo executors (fixed outputs, for trying the fixtures; not real agents or tools)'
    >>> executors_for(ServiceSettings(), {})[1]
    'no executors registered (set WFR_EXECUTORS_FILE to a JSON file of name -> URL)'
    """
    if settings.dev:
        return demo_executors(), ("demo executors (fixed outputs, for trying the fixtures; "
                                  "not real agents or tools)")
    path = (os.environ if environ is None else environ).get(EXECUTORS_VARIABLE)
    if not path:
        return ExecutorRegistry(), (f"no executors registered (set {EXECUTORS_VARIABLE} to a "
                                    "JSON file of name -> URL)")
    registry = executors_from_file(path)
    return registry, f"HTTP executors from {path}: {', '.join(registry)}"


@dataclass(slots=True)
class WorkflowRuntime:
    """Store, engine, pump and routes of the workflow service."""

    settings: ServiceSettings
    store: ServiceStore
    engine: Engine
    verifier: TokenVerifier
    executors_note: str
    embedded_pump: bool = True
    pump: PumpThread | None = None
    layout_runner: LayoutRunner | None = None
    api: WorkflowApi = field(init=False)
    csrf_key: bytes = field(init=False)
    gate: Gate = field(init=False)
    _stopping: threading.Event = field(init=False, default_factory=threading.Event)

    def __post_init__(self) -> None:
        self.csrf_key = csrf_key(self.settings)
        self.gate = Gate(self.verifier, self.csrf_key)
        self.api = WorkflowApi(self.engine, self.store, lambda: self.gate,
                               self.settings.retention_days)

    @classmethod
    def create(cls, settings: ServiceSettings, *, embedded_pump: bool = True,
               clock: Callable[[], float] = time.time,
               executors: ExecutorRegistry | None = None) -> WorkflowRuntime:
        """Open the store and build the engine (nothing runs until :meth:`start`)."""
        found, note = executors_for(settings)
        store = open_store(settings.database_url or settings.database)
        engine = Engine(store, executors if executors is not None else found, clock=clock,
                        max_subworkflow_depth=settings.max_subworkflow_depth)
        return cls(settings, store, engine, TokenVerifier.from_settings(settings),
                   note if executors is None else "executors given by the caller",
                   embedded_pump)

    def step_kind(self, run: Run, step_id: str) -> str | None:
        """The kind of a step of a run's definition (for the step-latency metric)."""
        plan = self.engine.plans.get(run.definition_hash)
        spec = None if plan is None else plan.steps.get(step_id)
        return None if spec is None else str(spec.kind)

    def use_layout_runner(self, runner: LayoutRunner) -> None:
        """Draw graphs with layouts from ``runner`` (the service's worker pool), kept in a
        new cache in front of this runtime's store."""
        self.layout_runner = runner
        self.api.graphs = GraphDrawer(LayoutCache(runner, self.store))

    def observe(self, observer: Observer) -> None:
        """Send every committed transition to ``observer`` (metrics)."""
        self.engine.observer = observer

    def start(self) -> None:
        """Import the dev fixtures (dev mode) and start the embedded pump."""
        if self.settings.dev:
            self._import_dev_fixtures()
        if self.embedded_pump:
            self.pump = PumpThread(self.engine, owner=f"service-{os.getpid()}")
            self.api.pump = self.pump
            self.pump.start()
            listen_for_signals(self.store, self.pump.wake, self._stopping)

    def close(self) -> None:
        """Stop the pump and close the store."""
        self._stopping.set()
        if self.pump is not None:
            self.pump.stop()
        self.store.close()

    def routes(self) -> list[BaseRoute]:
        """The ``/api/workflow`` routes."""
        return self.api.routes()

    def not_ready(self) -> str | None:
        """Why the service cannot take workflow requests now (``None``: it can)."""
        try:
            self.store.check()
        except Exception as error:
            return f"workflow store {self.store.path} does not answer: {error}"
        if self.embedded_pump and (self.pump is None or not self.pump.alive):
            return "the embedded workflow pump is not running"
        return None

    def _import_dev_fixtures(self) -> None:
        from renderer.service import FIXTURES_DIR, fixture_paths  # the service imports us

        for definition in demo_definitions():
            self.engine.register(definition, tenant=DEV_TENANT)
        for name, path in fixture_paths(FIXTURES_DIR).items():
            if path.suffix in (".yaml", ".yml"):
                try:
                    self.engine.register(load_definition(path), tenant=DEV_TENANT)
                except ValueError as error:  # a fixture of an older version under the name
                    LOGGER.warning("dev fixture %s not imported: %s", name, error)
