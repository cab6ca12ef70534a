"""The workflow engine over HTTP, under ``/api/workflow``: definitions, runs, operator
verbs, human tasks, dead letters, events, retention and audit.

Every route names the scope it needs (:class:`~renderer.api.auth.Scope`) and reads and
writes only the caller's tenant: another tenant's run is a 404, like a run that does not
exist. State changes write their audit row in the same transaction as the change.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable
from dataclasses import dataclass

from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from renderer.api.auth import Scope, TokenVerifier
from renderer.api.events import event_stream
from renderer.api.http import (
    Call,
    QueryError,
    endpoint,
    json_response,
    parse_choice,
    parse_limit,
    parse_sequence,
    raced,
)
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
from renderer.readers import ReaderError, read_definition_document
from workflow.background import PumpThread
from workflow.definitions import canonical_form
from workflow.dsl import DslError
from workflow.engine import Engine, NotFoundError
from workflow.model import Cancel, Repair, Resume, Retry, Run, RunState
from workflow.operations import OperatorEvent
from workflow.sqlite_store import SqliteStore
from workflow.store import (
    AuditEntry,
    ConcurrentTransitionError,
    IdempotencyClaim,
    RunFilter,
    TaskStatus,
)
from workflow.validation import validate_definition

PREFIX = "/api/workflow"
VerbBuilder = Callable[[Run, float], OperatorEvent]


@dataclass(slots=True)
class WorkflowApi:
    """The routes of ``/api/workflow`` over one engine and its SQLite store."""

    engine: Engine
    store: SqliteStore
    verifier: Callable[[], TokenVerifier]
    retention_days: float
    pump: PumpThread | None = None

    def routes(self) -> list[BaseRoute]:
        """Every route, with the scope it needs."""
        table: list[tuple[str, Callable[[Call], Response], Scope, str]] = [
            ("/definitions/validate", self.validate, Scope.VIEW, "POST"),
            ("/definitions", self.import_definition, Scope.ADMIN, "POST"),
            ("/definitions", self.definitions, Scope.VIEW, "GET"),
            ("/definitions/{name}/versions", self.versions, Scope.VIEW, "GET"),
            ("/definitions/{name}/versions/{version}", self.version, Scope.VIEW, "GET"),
            ("/start", self.start, Scope.OPERATE, "POST"),
            ("/instances", self.instances, Scope.VIEW, "GET"),
            ("/instances/{id:path}/retry", self.retry, Scope.OPERATE, "POST"),
            ("/instances/{id:path}/repair", self.repair, Scope.OPERATE, "POST"),
            ("/instances/{id:path}/resume", self.resume, Scope.OPERATE, "POST"),
            ("/instances/{id:path}/cancel", self.cancel, Scope.OPERATE, "POST"),
            ("/instances/{id:path}", self.instance, Scope.VIEW, "GET"),
            ("/tasks", self.tasks, Scope.VIEW, "GET"),
            ("/tasks/{id}/complete", self.complete_task, Scope.OPERATE, "POST"),
            ("/signals/dead-letters", self.dead_letters, Scope.VIEW, "GET"),
            ("/signals/dead-letters/replay", self.replay, Scope.ADMIN, "POST"),
            ("/events", self.events, Scope.VIEW, "GET"),
            ("/retention", self.retention, Scope.ADMIN, "POST"),
            ("/audit", self.audit, Scope.ADMIN, "GET"),
        ]
        routes: list[BaseRoute] = [
            Route(PREFIX + path, endpoint(handler, scope, self.verifier), methods=[method])
            for path, handler, scope, method in table]
        routes.insert(0, Route(PREFIX + "/events/stream",
                               event_stream(self.store, self.verifier), methods=["GET"]))
        return routes

    # --- definitions ----------------------------------------------------------------------

    def validate(self, call: Call) -> Response:
        call.allow_query()
        try:
            definition = read_definition_document(call.body)
        except (ReaderError, DslError) as error:
            return json_response({"valid": False, "problems": [
                {"severity": "error", "subject": "document", "message": str(error)}]})
        problems = validate_definition(definition, known_executors=tuple(self.engine.executors))
        return json_response({"valid": not any(p.is_error for p in problems), "problems": [
            {"severity": p.severity, "subject": p.subject, "message": p.message}
            for p in problems]})

    def import_definition(self, call: Call) -> Response:
        call.allow_query()
        definition = read_definition_document(call.body)
        known = self.engine.versions.get(call.tenant, definition.workflow, definition.version)
        entry = AuditEntry(call.principal.subject, call.tenant, "definition.import",
                           f"{definition.workflow}@{definition.version}", None, None,
                           self.engine.now())
        registered = self.engine.register(definition, tenant=call.tenant, audit=entry)
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

    def retention(self, call: Call) -> Response:
        call.allow_query()
        body = call.json_body("RetentionRequest")
        reference = (parse_iso_time(body["referenceUtc"]) if "referenceUtc" in body
                     else time.time())
        before = reference - self.retention_days * 86400.0
        entry = AuditEntry(call.principal.subject, call.tenant, "retention.purge", call.tenant,
                           None, None, self.engine.now(), f"finished before {iso_time(before)}")
        purged = self.store.purge(before=before, tenant=call.tenant, audit=entry)
        return json_response({"purged": purged, "before": iso_time(before)})

    def audit(self, call: Call) -> Response:
        call.allow_query("after", "limit")
        after, limit = parse_sequence(call.query), parse_limit(call.query, 100)
        items = self.store.audit_entries(call.tenant, after, limit)
        return json_response({"items": [audit(e) for e in items],
                              "last": items[-1].seq if items else after})

    def _wake(self) -> None:
        if self.pump is not None:
            self.pump.wake()
