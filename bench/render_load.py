"""Load on the render service over loopback: latency and throughput of ``POST /api/render``
of the reference workflow (``fixtures/document-processing.yaml``, 24 steps, as SVG with the
default ``layered`` engine).

It starts the service itself (``python -m renderer.serve --dev`` in a temporary folder, on
a free 127.0.0.1 port, with its default pool of layout workers), waits for ``/readyz`` and
always stops it at the end. Then three phases:

1. ``uncached x1``: ``--requests`` renders from one client, each with
   ``Cache-Control: no-cache`` so the service parses, lays out and writes every one;
2. ``uncached x8``: the same from ``--clients`` (8) concurrent clients;
3. ``cached x8``: the same body without ``no-cache``, so the service answers from its
   response cache (one render first fills it).

Meanwhile a probe process of its own (``healthz_probe.py``) asks ``/healthz`` every 50 ms;
its worst latency per phase is reported.
Each client is one keep-alive HTTP/1.1 connection (``workflow_load.KeepAliveClient``). The
targets of issue 15 on the 2-core bench machine: uncached p50 under 25 ms from one client,
at least 60 renders/s from 8 clients, cached at least 500/s. Exit code 0 when every request
got a 200, 1 otherwise, 2 for bad options.

    PYTHONPATH=$PWD .venv/bin/python bench/render_load.py --requests 400
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import tempfile
from collections.abc import Awaitable
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import httpx

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
for folder in (ROOT, BENCH):  # run as a file: the project and the sibling bench module
    if str(folder) not in sys.path:
        sys.path.insert(0, str(folder))

import healthz_probe  # noqa: E402
from workflow_load import (  # noqa: E402
    Answer,
    BenchError,
    KeepAliveClient,
    PhaseResult,
    Server,
    free_port,
    start_server,
    wait_ready,
)

PROG = "render_load.py"
REFERENCE = ROOT / "fixtures" / "document-processing.yaml"
RENDER = "/api/render"
YAML = {"content-type": "application/yaml"}
NO_CACHE = {**YAML, "cache-control": "no-cache"}
READY_SECONDS = 60.0
PROBE_SECONDS = 0.05


STAGES = ("read", "layout", "write", "cpu", "pool")
"""The service's ``Server-Timing`` stages: the worker's read, layout and write (wall
clock), its CPU time for the three (``cpu``), and the server's whole wait for the worker
(``pool``)."""


@dataclass
class Phase:
    """One phase's requests, their server-side stages and the worst ``/healthz`` latency
    seen meanwhile."""

    result: PhaseResult
    healthz_max_ms: float = 0.0
    healthz_probes: int = 0
    stages: dict[str, list[float]] = field(default_factory=lambda: {s: [] for s in STAGES})

    def note(self, answer: Answer) -> None:
        """Keep the stage durations (ms) of ``answer``'s ``Server-Timing`` header."""
        for item in answer.headers.get("server-timing", "").split(","):
            name, _, duration = item.strip().partition(";dur=")
            if name in self.stages and duration:
                self.stages[name].append(float(duration))

    def stage_medians(self) -> dict[str, float]:
        """Median ms per stage, and what lies between: ``waited`` (the worker's wall
        time minus its CPU time: time it waited for a core), ``hand-off`` (pool minus the
        worker's stages: queueing, pickling, the socket) and ``http`` (the client's
        latency minus pool: HTTP, the event loop, the client).

        >>> phase = Phase(PhaseResult("p"))
        >>> phase.stages = {"read": [2.0], "layout": [10.0], "write": [3.0], "cpu": [12.0],
        ...                 "pool": [16.5]}
        >>> {k: phase.stage_medians()[k] for k in ("waited", "hand-off")}
        {'waited': 3.0, 'hand-off': 1.5}

        A server without the ``cpu`` stage (an older one, for A/B runs) has no ``waited``.
        """
        medians = {s: statistics.median(v) for s, v in self.stages.items() if v}
        if any(s not in medians for s in STAGES if s != "cpu"):
            return {}
        worker = medians["read"] + medians["layout"] + medians["write"]
        waited = {"waited": worker - medians["cpu"]} if "cpu" in medians else {}
        return {**medians, **waited, "hand-off": medians["pool"] - worker,
                "http": self.result.percentile(50) - medians["pool"]}

    def summary(self) -> dict[str, Any]:
        return {**self.result.summary(), "healthzMaxMs": round(self.healthz_max_ms, 1),
                "healthzProbes": self.healthz_probes,
                "stageMedianMs": {k: round(v, 2) for k, v in self.stage_medians().items()}}


@dataclass
class Report:
    phases: list[Phase] = field(default_factory=list)
    setup: dict[str, Any] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return all(not p.result.errors for p in self.phases)


async def run(name: str, port: int, clients: int, count: int, headers: dict[str, str],
              body: bytes, server: Server | None) -> Phase:
    """``count`` renders of ``body`` from ``clients`` keep-alive clients, with the probe."""
    from workflow_load import run_phase

    connections = [KeepAliveClient("127.0.0.1", port, 60.0) for _ in range(clients)]
    phase = Phase(PhaseResult(name))
    probe = await healthz_probe.start(port, PROBE_SECONDS)

    def render(client: KeepAliveClient, index: int) -> Awaitable[Answer]:
        return client.request("POST", RENDER, headers, body)

    try:
        phase.result = await run_phase(name, connections, render, count=count, seconds=None,
                                       server=server, on_response=lambda i, a: phase.note(a))
    finally:
        probed = await healthz_probe.finish(probe)
        phase.healthz_max_ms, phase.healthz_probes = probed["maxMs"], probed["probes"]
        for connection in connections:
            await connection.close()
    return phase


async def bench(args: argparse.Namespace, port: int, server: Server | None) -> Report:
    body = REFERENCE.read_bytes()
    report = Report()
    async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}", timeout=60) as control:
        await wait_ready(control, server, READY_SECONDS)
        first = await control.post(RENDER, content=body, headers=YAML)
        if first.status_code != 200:
            raise BenchError(f"reference render: {first.status_code} {first.text[:300]}")
    warm = max(8, args.requests // 20)  # let both workers import and warm their caches
    await run("warm-up", port, args.clients, warm, NO_CACHE, body, server)
    for name, clients, headers in (("uncached x1", 1, NO_CACHE),
                                   (f"uncached x{args.clients}", args.clients, NO_CACHE),
                                   (f"cached x{args.clients}", args.clients, YAML)):
        count = args.requests * (5 if headers is YAML else 1)
        print(f"{name}: {count} renders ...", file=sys.stderr, flush=True)
        report.phases.append(await run(name, port, clients, count, headers, body, server))
    return report


def table(report: Report) -> str:
    """The phases as a Markdown table (latencies in ms)."""
    lines = ["| phase | requests | errors | req/s | p50 ms | p95 ms | p99 ms | max ms "
             "| /healthz max ms | server CPU s |",
             "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for phase in report.phases:
        s = phase.summary()
        errors = str(s["errors"]) + ("" if not s["errors"] else f" {s['errorsByStatus']}")
        cpu = "-" if s["serverCpuSeconds"] is None else f"{s['serverCpuSeconds']:.2f}"
        lines.append(f"| {s['phase']} | {s['count']} | {errors} | {s['throughput']:.0f} "
                     f"| {s['p50Ms']:.1f} | {s['p95Ms']:.1f} | {s['p99Ms']:.1f} "
                     f"| {s['maxMs']:.1f} | {s['healthzMaxMs']:.1f} | {cpu} |")
    derived = ("waited", "hand-off", "http")
    lines += ["", "median ms per stage of the uncached renders (Server-Timing): "
              "read, layout, write in the worker (wall), cpu = the worker's CPU time for "
              "them; waited = read + layout + write - cpu; hand-off = pool - worker; "
              "http = p50 - pool",
              "| phase | " + " | ".join((*STAGES, *derived)) + " |",
              "| --- |" + " ---: |" * (len(STAGES) + len(derived))]
    for phase in report.phases:
        medians = phase.stage_medians()
        if medians:
            lines.append(f"| {phase.result.name} | " + " | ".join(
                f"{medians[s]:.1f}" if s in medians else "-"
                for s in (*STAGES, *derived)) + " |")
    return "\n".join(lines)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog=PROG, description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--requests", type=int, default=400,
                        help="renders per uncached phase (400); the cached phase sends 5x")
    parser.add_argument("--clients", type=int, default=8, help="concurrent clients (8)")
    parser.add_argument("--pool-size", type=int, default=None,
                        help="layout workers of the service (its default: 2)")
    parser.add_argument("--json", type=Path, default=None, metavar="OUT",
                        help="also write the numbers as JSON to OUT")
    return parser


def main(argv: list[str] | None = None, out: IO[str] | None = None) -> int:
    """Run the bench; print the table to ``out``; 0 ok, 1 errors, 2 bad options."""
    out = out or sys.stdout
    args = build_parser().parse_args(argv)
    if args.requests < 1 or args.clients < 1:
        print(f"{PROG}: --requests and --clients must be at least 1", file=sys.stderr)
        return 2
    port = free_port()
    command = [sys.executable, "-m", "renderer.serve", "--dev", "--host", "127.0.0.1",
               "--port", str(port), *(["--pool-size", str(args.pool_size)]
                                      if args.pool_size else [])]
    secret = f"bench-{os.urandom(24).hex()}"
    server: Server | None = None
    with tempfile.TemporaryDirectory(prefix="wfr-render-load-") as folder:
        try:
            server = start_server(command, Path(folder), secret)
            report = asyncio.run(bench(args, port, server))
        except (BenchError, OSError) as error:
            print(f"{PROG}: {error}", file=sys.stderr)
            return 1
        finally:
            if server is not None:
                server.stop()
    report.setup = {"requests": args.requests, "clients": args.clients,
                    "poolSize": args.pool_size, "cpus": os.cpu_count(),
                    "input": str(REFERENCE.relative_to(ROOT))}
    print(table(report), file=out)
    if args.json is not None:
        document = {"setup": report.setup, "phases": [p.summary() for p in report.phases],
                    "ok": report.ok}
        args.json.write_text(json.dumps(document, indent=2) + "\n", encoding="utf-8")
    return 0 if report.ok else 1


if __name__ == "__main__":
    try:
        raise SystemExit(main())
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted", file=sys.stderr)
        raise SystemExit(130) from None
