"""The workflow engine over HTTP, under ``/api/workflow``: definitions, runs, operator
verbs, human tasks, dead letters, events, retention and audit.

Every route names the scope it needs (:class:`~renderer.api.auth.Scope`) and reads and
writes only the caller's tenant: another tenant's run is a 404, like a run that does not
exist. State changes write their audit row in the same transaction as the change.
"""

from __future__ import annotations

import functools
import hashlib
import json
import time
from collections.abc import Callable
from dataclasses import dataclass

from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from renderer.api import graph
from renderer.api.auth import Scope
from renderer.api.events import event_stream
from renderer.api.gate import Gate
from renderer.api.graph_schemas import GRAPH_QUERY
from renderer.api.http import (
    Call,
    Endpoint,
    QueryError,
    by_method,
    endpoint,
    json_response,
    parse_choice,
    parse_limit,
    parse_sequence,
    raced,
)
from renderer.api.metrics import Metrics, RejectionReason
from renderer.api.schemas import BodyError
from renderer.api.views import (
    audit,
    dead_letter,
    definition_version,
    event,
    instance,
    iso_time,
    next_steps,
    parse_iso_time,
    summary,
    task,
)
from renderer.definition_diff import diff_definitions
from renderer.drawings import GraphDrawer
from renderer.readers import ReaderError, read_definition_document
from workflow.background import PumpThread
from workflow.definitions import VersionConflictError, canonical_form
from workflow.dsl import DslError
from workflow.engine import Engine, NotFoundError
from workflow.model import Cancel, Repair, Resume, Retry, Run, RunState
from workflow.operations import OperatorEvent
from workflow.store import (
    AuditEntry,
    ConcurrentTransitionError,
    IdempotencyClaim,
    RunFilter,
    TaskStatus,
)
from workflow.stores import ServiceStore
from workflow.validation import InvalidDefinitionError, validate_definition

PREFIX = "/api/workflow"
REJECTIONS: tuple[tuple[type[Exception], RejectionReason], ...] = (
    (InvalidDefinitionError, RejectionReason.INVALID),
    (VersionConflictError, RejectionReason.CONFLICT),
    (ReaderError, RejectionReason.UNREADABLE),
    (DslError, RejectionReason.UNREADABLE),
)
"""Why a definition import was refused, for the rejections metric."""
VerbBuilder = Callable[[Run, float], OperatorEvent]
INLINE_RECORD_BYTES = 64 * 1024
"""Largest stored run document whose record is built on the event loop (about a hundred
steps; such a record takes about a millisecond): larger ones go to a thread, so a huge run
never stalls the other requests."""


@dataclass(slots=True)
class WorkflowApi:
    """The routes of ``/api/workflow`` over one engine and its SQLite store."""

    engine: Engine
    store: ServiceStore
    gate: Callable[[], Gate]
    retention_days: float
    pump: PumpThread | None = None
    metrics: Metrics | None = None
    graphs: GraphDrawer | None = None  # the service's layouts; without it graphs are 503

    def routes(self) -> list[BaseRoute]:
        """Every route of :data:`ROUTES`, each with the scope it needs."""
        routes: list[BaseRoute] = [Route(PREFIX + "/events/stream",
                                         event_stream(self.store, self.gate),
                                         methods=["GET"])]
        paths: dict[str, dict[str, Endpoint]] = {}
        for spec in ROUTES:
            handler = functools.partial(spec.handler, self)
            path = PREFIX + spec.path.replace("/instances/{id}", "/instances/{id:path}")
            inline = None if spec.inline is None else functools.partial(spec.inline, self)
            paths.setdefault(path, {})[spec.method] = endpoint(handler, spec.scope,
                                                               self.gate, inline)
        routes += [Route(path, by_method(methods), methods=list(methods))
                   for path, methods in paths.items()]
        return routes

    # --- definitions ----------------------------------------------------------------------

    def validate(self, call: Call) -> Response:
        call.allow_query()
        try:
            definition = read_definition_document(call.document_body())
        except (ReaderError, DslError) as error:
            return json_response({"valid": False, "problems": [
                {"severity": "error", "subject": "document", "message": str(error)}]})
        problems = validate_definition(definition, known_executors=tuple(self.engine.executors))
        return json_response({"valid": not any(p.is_error for p in problems), "problems": [
            {"severity": p.severity, "subject": p.subject, "message": p.message}
            for p in problems]})

    def import_definition(self, call: Call) -> Response:
        call.allow_query()
        try:
            definition = read_definition_document(call.document_body())
            known = self.engine.versions.get(call.tenant, definition.workflow,
                                             definition.version)
            entry = AuditEntry(call.principal.subject, call.tenant, "definition.import",
                               f"{definition.workflow}@{definition.version}", None, None,
                               self.engine.now())
            registered = self.engine.register(definition, tenant=call.tenant, audit=entry)
        except Exception as error:
            self._count_rejection(error)
            raise
        rows = self.store.definition_rows(call.tenant, definition.workflow)
        row = next(r for r in rows if r.version == definition.version)
        return json_response(definition_version(row), 200 if known is not None else 201,
                             {"ETag": f'"{registered.hash}"'})

    def definitions(self, call: Call) -> Response:
        call.allow_query()
        by_name: dict[str, list[str]] = {}
        for row in self.store.definition_rows(call.tenant):
            by_name.setdefault(row.workflow, []).append(row.version)
        items = []
        for name, versions in by_name.items():
            latest = self.engine.resolve(name, tenant=call.tenant).definition.version
            items.append({"workflowName": name, "versions": versions, "latest": latest})
        return json_response({"items": items})

    def versions(self, call: Call) -> Response:
        call.allow_query()
        rows = self.store.definition_rows(call.tenant, call.path["name"])
        if not rows:
            raise NotFoundError(f"no workflow '{call.path['name']}'")
        return json_response({"items": [definition_version(r) for r in rows]})

    def version(self, call: Call) -> Response:
        call.allow_query()
        name, version = call.path["name"], call.path["version"]
        registered = self.engine.definition(name, version, tenant=call.tenant)
        row = next(r for r in self.store.definition_rows(call.tenant, name)
                   if r.version == version)
        return json_response({**definition_version(row),
                              "document": canonical_form(registered.definition)},
                             headers={"ETag": f'"{registered.hash}"'})

    def definition_graph(self, call: Call) -> Response:
        return graph.definition_graph(self.engine, self.store, self.graphs, call)

    def diff(self, call: Call) -> Response:
        call.allow_query("from", "to")
        missing = [name for name in ("from", "to") if not call.query.get(name)]
        if missing:
            raise QueryError(f"query parameter {missing[0]!r} (a version) is required")
        name, versions = call.path["name"], (call.query["from"], call.query["to"])
        old, new = (self.engine.definition(name, v, tenant=call.tenant).definition
                    for v in versions)
        return json_response({"workflowName": name, "from": versions[0], "to": versions[1],
                              **diff_definitions(old, new).to_dict()})

    # --- runs -----------------------------------------------------------------------------

    def start(self, call: Call) -> Response:
        call.allow_query()
        body = call.json_body("StartRequest")
        key = call.headers.get("idempotency-key")
        claim = None
        if key is not None:
            if not 1 <= len(key) <= 200:
                raise QueryError("the Idempotency-Key header must have 1 to 200 characters")
            digest = hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest()
            claim = IdempotencyClaim(key, digest)
        entry = AuditEntry(call.principal.subject, call.tenant, "run.start", "", None, None,
                           self.engine.now(), body["workflowName"])
        run = self.engine.start(body["workflowName"], body.get("workflowVersion"),
                                body.get("payload"), tenant=call.tenant,
                                business_reference=body.get("businessReference"),
                                idempotency=claim, audit=entry)
        self._wake()
        plan = self.engine.plan(run)
        return json_response({"workflowInstanceId": run.run_id, "workflowName": run.workflow,
                              "workflowVersion": run.version, "state": run.state.value,
                              "revision": run.revision, "nextTasks": next_steps(plan, run)},
                             201, {"Location": f"{PREFIX}/instances/{run.run_id}"})

    def instances(self, call: Call) -> Response:
        call.allow_query("workflowName", "workflowVersion", "businessReference", "status",
                         "limit", "after")
        state = parse_choice(call.query, "status", tuple(s.value for s in RunState))
        where = RunFilter(call.query.get("workflowName"), call.query.get("workflowVersion"),
                          call.query.get("businessReference"),
                          None if state is None else RunState(state))
        try:
            page = self.store.find_runs(call.tenant, where, limit=parse_limit(call.query),
                                        after=call.query.get("after"))
        except ValueError as error:
            raise QueryError(f"query parameter 'after': {error}") from None
        return json_response({"items": [summary(r) for r in page.items],
                              "next": page.next_cursor})

    def instance(self, call: Call) -> Response:
        call.allow_query()
        run = self.engine.run(call.path["id"], tenant=call.tenant)
        children = self.store.find_runs(call.tenant, RunFilter(parent_run_id=run.run_id),
                                        limit=1000).items
        tasks = self.store.tasks(call.tenant, run_id=run.run_id, limit=1000).items
        record = instance(self.engine.plan(run), run, events=self.store.outbox(run.run_id),
                          queued=self.store.queued_for(run.run_id), children=children,
                          tasks=tasks)
        return json_response(record, headers={"ETag": f'"{run.run_id}:{run.revision}"'})

    def small_record(self, call: Call) -> bool:
        """Whether a run's record is read on the event loop: when the store reads locally
        without waiting and the run's document is at most :data:`INLINE_RECORD_BYTES`
        (a bigger record, or one over the network, is built in a thread)."""
        size = self.store.local_read_size(call.path["id"])
        return size is not None and size <= INLINE_RECORD_BYTES

    def run_graph(self, call: Call) -> Response:
        return graph.run_graph(self.engine, self.store, self.graphs, call)

    def retry(self, call: Call) -> Response:
        body = call.json_body("VerbRequest")
        return self._verb(call, body, lambda run, now: Retry(now, run.revision))

    def repair(self, call: Call) -> Response:
        body = call.json_body("RepairRequest")
        return self._verb(call, body, lambda run, now: Repair(
            now, run.revision, body["rewindTo"], body.get("input")))

    def resume(self, call: Call) -> Response:
        body = call.json_body("ResumeRequest")
        return self._verb(call, body, lambda run, now: Resume(
            now, run.revision, body.get("decision"), body.get("data"), body.get("stepId")))

    def cancel(self, call: Call) -> Response:
        body = call.json_body("CancelRequest")
        reason = body.get("reason") or f"cancelled by {call.principal.subject}"
        return self._verb(call, body, lambda run, now: Cancel(now, reason))

    def _verb(self, call: Call, body: dict[str, object], build: VerbBuilder) -> Response:
        call.allow_query()
        run_id = call.path["id"]
        expected = body.get("expectedRevision")
        try:
            run = self.engine.operate(run_id, build, tenant=call.tenant,
                                      actor=call.principal.subject,
                                      expected_revision=expected if isinstance(expected, int)
                                      else None)
        except ConcurrentTransitionError as error:
            return raced(error, lambda: self._current(run_id))
        self._wake()
        return json_response(summary(run))

    def _current(self, run_id: str) -> tuple[str, int]:
        run = self.engine.run(run_id)
        return run.state.value, run.revision

    # --- tasks and signals ------------------------------------------------------------------

    def tasks(self, call: Call) -> Response:
        call.allow_query("status", "assignee", "workflowInstanceId", "limit", "after")
        status = parse_choice(call.query, "status", tuple(s.value for s in TaskStatus))
        try:
            page = self.store.tasks(call.tenant, status=None if status is None
                                    else TaskStatus(status), assignee=call.query.get("assignee"),
                                    run_id=call.query.get("workflowInstanceId"),
                                    limit=parse_limit(call.query), after=call.query.get("after"))
        except ValueError as error:
            raise QueryError(f"query parameter 'after': {error}") from None
        return json_response({"items": [task(t) for t in page.items],
                              "next": page.next_cursor})

    def complete_task(self, call: Call) -> Response:
        call.allow_query()
        body = call.json_body("CompleteTaskRequest")
        task_id = call.path["id"]
        try:
            run = self.engine.complete_task(task_id, body["decision"], body.get("input"),
                                            tenant=call.tenant, actor=call.principal.subject)
        except ConcurrentTransitionError as error:
            found = self.store.task(task_id)
            return raced(error, lambda: self._current(found.run_id if found else ""))
        self._wake()
        done = self.store.task(task_id)
        return json_response({"task": task(done) if done else None, "run": summary(run)})

    def dead_letters(self, call: Call) -> Response:
        call.allow_query()
        return json_response({"items": [dead_letter(d)
                                        for d in self.store.dead_letters(call.tenant)]})

    def replay(self, call: Call) -> Response:
        call.allow_query()
        ids: list[str] = call.json_body("ReplayRequest")["signalIds"]
        mine = {d.signal_id for d in self.store.dead_letters(call.tenant)}
        missing = [s for s in ids if s not in mine]
        if missing:
            raise NotFoundError(f"no dead letter '{missing[0]}'")
        for signal_id in dict.fromkeys(ids):
            entry = AuditEntry(call.principal.subject, call.tenant, "signal.replay", signal_id,
                               None, None, self.engine.now())
            self.store.replay(signal_id, now=self.engine.now(), audit=entry)
        self._wake()
        return json_response({"replayed": list(dict.fromkeys(ids))})

    # --- events, retention, audit -----------------------------------------------------------

    def events(self, call: Call) -> Response:
        call.allow_query("after", "limit")
        after, limit = parse_sequence(call.query), parse_limit(call.query, 100)
        items = self.store.events_after(call.tenant, after, limit)
        return json_response({"items": [event(e) for e in items],
                              "last": items[-1].seq if items else after})

    def run_history(self, call: Call) -> Response:
        call.allow_query("after", "limit")
        after, limit = parse_sequence(call.query), parse_limit(call.query, 100)
        run = self.engine.run(call.path["id"], tenant=call.tenant)  # another tenant's: 404
        items = self.store.run_events(call.tenant, run.run_id, after, limit)
        return json_response({"items": [event(e) for e in items],
                              "last": items[-1].seq if items else after})

    def retention(self, call: Call) -> Response:
        call.allow_query()
        body = call.json_body("RetentionRequest")
        reference = (parse_iso_time(body["referenceUtc"]) if "referenceUtc" in body
                     else time.time())
        before = reference - self.retention_days * 86400.0
        try:
            cutoff = iso_time(before)
        except (ValueError, OverflowError):
            raise BodyError(f"body.referenceUtc: {body['referenceUtc']!r} less the retention "
                            f"of {self.retention_days:g} days is before the year 1") from None
        entry = AuditEntry(call.principal.subject, call.tenant, "retention.purge", call.tenant,
                           None, None, self.engine.now(), f"finished before {cutoff}")
        purged = self.store.purge(before=before, tenant=call.tenant, audit=entry)
        return json_response({"purged": purged, "before": cutoff})

    def audit(self, call: Call) -> Response:
        call.allow_query("after", "limit")
        after, limit = parse_sequence(call.query), parse_limit(call.query, 100)
        items = self.store.audit_entries(call.tenant, after, limit)
        return json_response({"items": [audit(e) for e in items],
                              "last": items[-1].seq if items else after})

    def _count_rejection(self, error: Exception) -> None:
        reason = next((r for kind, r in REJECTIONS if isinstance(error, kind)), None)
        if reason is not None and self.metrics is not None:
            self.metrics.count_rejection(reason)

    def _wake(self) -> None:
        if self.pump is not None:
            self.pump.wake()


@dataclass(frozen=True, slots=True)
class RouteSpec:
    """One route of the workflow API, declared once: the router and ``/openapi.json``
    are both built from :data:`ROUTES`."""

    method: str
    path: str
    handler: Callable[[WorkflowApi, Call], Response]
    scope: Scope
    summary: str
    request: str | None = None  # a schema of renderer.api.schemas.REQUEST_SCHEMAS
    response: str | None = None  # a schema of renderer.api.schemas.RESPONSE_SCHEMAS
    query: tuple[str, ...] = ()
    success: int = 200
    body_media: str = "application/json"
    drawing: bool = False  # answers SVG or JSON drawings under an ETag (304 on a match)
    inline: Callable[[WorkflowApi, Call], bool] | None = None
    """When the handler may run on the event loop instead of a thread (a short read)."""


ROUTES: tuple[RouteSpec, ...] = (
    RouteSpec("POST", "/definitions/validate", WorkflowApi.validate, Scope.VIEW,
              "Validate a definition (YAML or JSON DSL); every problem, nothing stored",
              response="ValidationResult", body_media="application/yaml"),
    RouteSpec("POST", "/definitions", WorkflowApi.import_definition, Scope.ADMIN,
              "Import a definition: validated, hashed, stored immutable (201 new, 200 same)",
              response="DefinitionVersion", success=201, body_media="application/yaml"),
    RouteSpec("GET", "/definitions", WorkflowApi.definitions, Scope.VIEW,
              "Definitions of the caller's tenant with their versions",
              response="DefinitionList"),
    RouteSpec("GET", "/definitions/{name}/versions", WorkflowApi.versions, Scope.VIEW,
              "Versions of one definition (graph hash, step count, loaded at)",
              response="VersionList"),
    RouteSpec("GET", "/definitions/{name}/versions/{version}", WorkflowApi.version,
              Scope.VIEW, "One version's document", response="DefinitionVersion"),
    RouteSpec("GET", "/definitions/{name}/diff", WorkflowApi.diff, Scope.VIEW,
              "What changed between two versions: steps and edges added, removed, changed",
              response="DefinitionDiff", query=("from", "to")),
    RouteSpec("GET", "/definitions/{name}/versions/{version}/graph",
              WorkflowApi.definition_graph, Scope.VIEW,
              "One version's graph drawn as svg, json or elk, with the layout options of "
              "/api/render", response="GraphDrawing", query=GRAPH_QUERY, drawing=True),
    RouteSpec("POST", "/start", WorkflowApi.start, Scope.OPERATE,
              "Start a run (latest version unless one is named); Idempotency-Key header "
              "makes a retried start return the first run", "StartRequest", "StartResult",
              success=201),
    RouteSpec("GET", "/instances", WorkflowApi.instances, Scope.VIEW,
              "Runs, newest first, filtered, with cursor pagination", response="InstancePage",
              query=("workflowName", "workflowVersion", "businessReference", "status", "limit",
                     "after")),
    RouteSpec("POST", "/instances/{id}/retry", WorkflowApi.retry, Scope.OPERATE,
              "Run a Failed run again from its failed step", "VerbRequest",
              "InstanceSummary"),
    RouteSpec("POST", "/instances/{id}/repair", WorkflowApi.repair, Scope.OPERATE,
              "Rewind a run to a step (with new input) and suspend it until resume",
              "RepairRequest", "InstanceSummary"),
    RouteSpec("POST", "/instances/{id}/resume", WorkflowApi.resume, Scope.OPERATE,
              "Resume a repaired or waiting run; a decision becomes the waiting step's output",
              "ResumeRequest", "InstanceSummary"),
    RouteSpec("POST", "/instances/{id}/cancel", WorkflowApi.cancel, Scope.OPERATE,
              "Cancel a run, its waiting child runs and its timers", "CancelRequest",
              "InstanceSummary"),
    RouteSpec("GET", "/instances/{id}/graph", WorkflowApi.run_graph, Scope.VIEW,
              "A run's graph drawn with every step's and edge's state; the layout is its "
              "definition's, so a state change never moves a node", response="GraphDrawing",
              query=GRAPH_QUERY, drawing=True),
    RouteSpec("GET", "/instances/{id}/events", WorkflowApi.run_history, Scope.VIEW,
              "A run's history: its events in order, after a sequence number",
              response="EventPage", query=("after", "limit")),
    RouteSpec("GET", "/instances/{id}", WorkflowApi.instance, Scope.VIEW,
              "A run's whole record: steps with attempts, timers, compensation, children",
              response="Instance", inline=WorkflowApi.small_record),
    RouteSpec("GET", "/tasks", WorkflowApi.tasks, Scope.VIEW, "Human tasks",
              response="TaskPage",
              query=("status", "assignee", "workflowInstanceId", "limit", "after")),
    RouteSpec("POST", "/tasks/{id}/complete", WorkflowApi.complete_task, Scope.OPERATE,
              "Decide an open human task (one of racing callers wins, the rest get 409)",
              "CompleteTaskRequest"),
    RouteSpec("GET", "/signals/dead-letters", WorkflowApi.dead_letters, Scope.VIEW,
              "Queue rows that ran out of delivery attempts", response="DeadLetterList"),
    RouteSpec("POST", "/signals/dead-letters/replay", WorkflowApi.replay, Scope.ADMIN,
              "Queue dead letters again", "ReplayRequest", "ReplayResult"),
    RouteSpec("GET", "/events", WorkflowApi.events, Scope.VIEW,
              "The transactional outbox in order, after a sequence number",
              response="EventPage", query=("after", "limit")),
    RouteSpec("POST", "/retention", WorkflowApi.retention, Scope.ADMIN,
              "Purge finished runs older than the configured retention", "RetentionRequest",
              "RetentionResult"),
    RouteSpec("GET", "/audit", WorkflowApi.audit, Scope.ADMIN,
              "The audit trail of state changes", response="AuditPage",
              query=("after", "limit")),
)
"""Every route but the event stream (a streaming response, described in the OpenAPI
document by hand). Routes with an ``{id}`` take any run id, slashes included (child runs
are ``<parent>/<attempt>``), so a run's graph comes before the run: the first route that
matches wins."""
