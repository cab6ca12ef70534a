#!/usr/bin/env python3
"""Latency of the run graph endpoint, cold (first layout) and cached.

    python tools/graph_latency.py                       # the reference workflow
    python tools/graph_latency.py --generate 500        # a 500-step generated workflow

starts the service in process (a temporary store, its worker pool, the ASGI app driven by
Starlette's test client, so HTTP parsing, authorization, the thread hop and the worker
process are in the numbers but no network is), imports the workflow, starts a run and lets
it advance, then times ``GET /api/workflow/instances/{id}/graph``:

- fresh: the first request of the service (the layout runs in a worker that has not laid
  out anything yet, so it also imports the engine);
- cold: the first request for new options (``seed=1``), a layout in a worker that has;
- memory: repeats, the layout from the in-memory cache (median of ``--repeat``), per format;
- 304: a repeat with ``If-None-Match`` (still renders, to compare the ETag);
- store: the first request of a second service on the same store (as after a restart).
"""

from __future__ import annotations

import argparse
import functools
import json
import statistics
import sys
import tempfile
import time
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from renderer.api.auth import issue_token
from renderer.api.runtime import WorkflowRuntime
from renderer.api.settings import ServiceSettings
from renderer.isolation import WorkerPool
from renderer.service import create_app
from workflow.definitions import canonical_form
from workflow.demo import DEMO_OUTPUTS, RECORDS_ARCHIVAL
from workflow.dsl import Definition, load_definition
from workflow.executors import ExecutorRegistry
from workflow.generate import generate_definition

with warnings.catch_warnings():
    warnings.filterwarnings("ignore", message="Using `httpx` with `starlette.testclient`")
    from starlette.testclient import TestClient

SECRET = "latency-" + "x" * 32
API = "/api/workflow"
REFERENCE = Path(__file__).resolve().parent.parent / "fixtures" / "document-processing.yaml"
FORMATS = ("svg", "json", "elk")


def _headers(scope: str) -> dict[str, str]:
    token = issue_token(SECRET, subject="latency", tenant="bench", scopes=[f"workflow:{scope}"])
    return {"authorization": f"Bearer {token}"}


def _executors(definition: Definition) -> ExecutorRegistry:
    """The demo executors, and an executor with an empty output for every other name."""
    names = {s.tool or s.agent for s in definition.steps if s.tool or s.agent}
    outputs: dict[str, Any] = {name: {} for name in names}
    outputs.update(DEMO_OUTPUTS)
    return ExecutorRegistry({name: _fixed(value) for name, value in outputs.items()})


def _fixed(output: object) -> Callable[[Any], object]:
    return lambda payload: output


@contextmanager
def _service(database: Path, executors: ExecutorRegistry) -> Iterator[TestClient]:
    settings = ServiceSettings(jwt_secret=SECRET, database=str(database))
    runtime = WorkflowRuntime.create(settings, executors=executors)
    with TestClient(create_app(pool=WorkerPool(), settings=settings, runtime=runtime)) as client:
        yield client


def _timed(call: Callable[[], Any]) -> tuple[float, Any]:
    start = time.perf_counter()
    response = call()
    return time.perf_counter() - start, response


def _start_run(client: TestClient, definition: Definition, settle: float) -> str:
    for text in (RECORDS_ARCHIVAL.encode(), json.dumps(canonical_form(definition)).encode()):
        imported = client.post(f"{API}/definitions", content=text,
                               headers={**_headers("admin"), "content-type": "application/json"
                                        if text.startswith(b"{") else "application/yaml"})
        if imported.status_code not in (200, 201):
            raise SystemExit(f"import failed: {imported.text}")
    started = client.post(f"{API}/start", json={"workflowName": definition.workflow},
                          headers=_headers("operate"))
    run_id: str = started.json()["workflowInstanceId"]
    time.sleep(settle)  # the pump moves the run on meanwhile
    return run_id


def measure(definition: Definition, repeat: int, settle: float) -> dict[str, Any]:
    """Seconds per request: cold, memory (per format), 304 and store, and the run's state."""
    executors = _executors(definition)
    with tempfile.TemporaryDirectory() as folder:
        database = Path(folder) / "w.db"
        with _service(database, executors) as client:
            run_id = _start_run(client, definition, settle)
            path, view = f"{API}/instances/{run_id}/graph", _headers("view")
            client.get(f"{API}/instances/{run_id}", headers=view)  # see the restart below
            fresh, first = _timed(lambda: client.get(path, headers=view))
            if first.status_code != 200:
                raise SystemExit(f"graph request failed: {first.text}")
            client.get(path, params={"seed": "2"}, headers=view)  # both workers have worked
            cold, _ = _timed(lambda: client.get(path, params={"seed": "1"}, headers=view))
            memory = {fmt: statistics.median(
                _timed(functools.partial(client.get, path, params={"format": fmt},
                                         headers=view))[0]
                for _ in range(repeat)) for fmt in FORMATS}
            conditional = {**view, "if-none-match": first.headers["etag"]}
            not_modified = statistics.median(
                _timed(lambda: client.get(path, headers=conditional))[0] for _ in range(repeat))
            state = client.get(f"{API}/instances/{run_id}", headers=view).json()["state"]
        with _service(database, executors) as client:
            # a first request of another route, so the numbers below are the graph's own
            client.get(f"{API}/instances/{run_id}", headers=view)
            store, again = _timed(lambda: client.get(path, headers=view))
            if again.content != first.content and state == "Completed":
                raise SystemExit("the restarted service drew other bytes")
    return {"workflow": definition.workflow, "steps": len(definition.steps), "run": state,
            "svgBytes": len(first.content), "fresh": fresh, "cold": cold, "memory": memory,
            "notModified": not_modified, "store": store}


def _report(row: dict[str, Any]) -> str:
    memory = ", ".join(f"{fmt} {seconds * 1000:.0f} ms" for fmt, seconds in row["memory"].items())
    return (f"{row['workflow']} ({row['steps']} steps, run {row['run']}, svg "
            f"{row['svgBytes'] // 1024} KiB)\n"
            f"  fresh service, first:      {row['fresh'] * 1000:.0f} ms\n"
            f"  cold (layout in the pool): {row['cold'] * 1000:.0f} ms\n"
            f"  cached in memory:          {memory}\n"
            f"  304 (If-None-Match):       {row['notModified'] * 1000:.0f} ms\n"
            f"  cached in the store:       {row['store'] * 1000:.0f} ms (svg, after a restart)")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="graph_latency.py",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("--generate", type=int, metavar="N",
                        help="a generated workflow of N steps instead of the reference one")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=5, help="cached requests per format")
    parser.add_argument("--settle", type=float, default=1.0,
                        help="seconds the run advances before the first request")
    parser.add_argument("--json", action="store_true", help="print the numbers as JSON")
    args = parser.parse_args(argv)
    definition = (generate_definition(args.generate, args.seed) if args.generate
                  else load_definition(REFERENCE))
    row = measure(definition, max(1, args.repeat), args.settle)
    print(json.dumps(row, indent=2) if args.json else _report(row))
    return 0


if __name__ == "__main__":
    sys.exit(main())
