"""Load on the workflow API over loopback: p50/p95/p99 latency and throughput of
``POST /start``, ``GET /instances/{id}`` and ``POST /tasks/{id}/complete``.

By default it starts the service itself (``python -m renderer.serve --dev`` from a temporary
folder, so the demo executors run the Tool steps) on a free 127.0.0.1 port with a fresh
SQLite file and a fresh token secret, waits for ``/readyz`` and always stops it at the end
(also on an error or Ctrl-C). Then:

1. imports a small definition, ``prepare`` (Tool) -> ``review`` (Human) -> ``book`` (Tool);
2. ``POST /start`` N times from ``--clients`` concurrent clients;
3. waits until the embedded pump has brought every run to its human task (reported as
   ``settle``: that is the pump's throughput, not a request phase);
4. ``GET /instances/{id}`` N times over the started runs (``--overlap`` runs this phase
   right after the starts instead, while the pump still works on them);
5. ``POST /tasks/{id}/complete`` once for each open task.

Each client is one asyncio task with its own HTTP/1.1 keep-alive connection (httpx). Every
request has a timeout (``--timeout``) and the whole run a bound (``--max-seconds``). The
table goes to stdout; ``--json OUT`` writes the same numbers (and the latencies' source
data: CPU seconds of this client and of the server process per phase). Exit code 0 when
every request got a 2xx and every run reached its task, 1 otherwise, 2 for bad options.

    PYTHONPATH=$PWD .venv/bin/python bench/workflow_load.py --clients 32 --requests 3000
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import itertools
import json
import math
import os
import shlex
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Awaitable, Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import httpx

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # run as a file: make the project importable
    sys.path.insert(0, str(ROOT))

from renderer.api.auth import issue_token  # noqa: E402

PROG = "workflow_load.py"
API = "/api/workflow"
TENANT = "bench"
WORKFLOW = "bench-approval"
DEFINITION = f"""
workflow: {WORKFLOW}
version: "1"
steps:
  - {{id: prepare, kind: Tool, tool: notifier, failurePolicy: Fail}}
  - {{id: review, kind: Human, failurePolicy: Fail}}
  - {{id: book, kind: Tool, tool: erp-connector, failurePolicy: Fail}}
edges:
  - {{from: prepare, to: review}}
  - {{from: review, to: book}}
"""
"""Tool steps use demo executors (``workflow.demo.DEMO_OUTPUTS``), so ``--dev`` runs them."""

START, GET, COMPLETE = "POST /start", "GET /instances/{id}", "POST /tasks/{id}/complete"
PHASES = (START, GET, COMPLETE)
READY_SECONDS = 60.0
STOP_SECONDS = 10.0
POLL_SECONDS = 0.25
TASK_PAGE = 500
CLOCK_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


class BenchError(RuntimeError):
    """The run cannot go on (server did not start, import refused, out of time)."""


# --- the server ------------------------------------------------------------------------

def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@dataclass
class Server:
    """A service process started for the run, in its own session (Ctrl-C reaches only us;
    :meth:`stop` ends it)."""

    process: subprocess.Popen[bytes]
    log_path: Path

    def log_tail(self, lines: int = 15) -> str:
        try:
            text = self.log_path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            return ""
        return "\n".join(text.splitlines()[-lines:])

    def cpu_seconds(self) -> float | None:
        """User + system CPU of the server process so far (Linux ``/proc``), all threads."""
        try:
            fields = Path(f"/proc/{self.process.pid}/stat").read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            return None
        return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS

    def stop(self) -> None:
        """SIGINT (uvicorn's graceful shutdown), then SIGKILL after :data:`STOP_SECONDS`."""
        if self.process.poll() is not None:
            return
        for sig, wait in ((signal.SIGINT, STOP_SECONDS), (signal.SIGKILL, 5.0)):
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.process.pid, sig)
            try:
                self.process.wait(wait)
                return
            except subprocess.TimeoutExpired:
                continue


def server_command(template: str | None, port: int) -> list[str]:
    """The command that starts the service; ``{port}`` in ``--server-cmd`` is replaced.

    >>> server_command("serve --port {port}", 8123)
    ['serve', '--port', '8123']
    >>> server_command(None, 8123)[1:4]
    ['-m', 'renderer.serve', '--dev']
    """
    if template is not None:
        return [part.replace("{port}", str(port)) for part in shlex.split(template)]
    return [sys.executable, "-m", "renderer.serve", "--dev", "--host", "127.0.0.1",
            "--port", str(port), "--pool-size", "1"]


def start_server(command: list[str], folder: Path, secret: str) -> Server:
    """Start ``command`` in ``folder`` with a fresh database and ``secret``."""
    env = {**os.environ, "WFR_JWT_SECRET": secret, "WFR_DATABASE": str(folder / "bench.db"),
           "PYTHONPATH": os.pathsep.join(filter(None, (str(ROOT),
                                                       os.environ.get("PYTHONPATH"))))}
    log_path = folder / "server.log"
    with log_path.open("wb") as log:
        process = subprocess.Popen(command, cwd=folder, env=env, stdin=subprocess.DEVNULL,
                                   stdout=log, stderr=subprocess.STDOUT,
                                   start_new_session=True)
    return Server(process, log_path)


async def wait_ready(client: httpx.AsyncClient, server: Server | None, seconds: float) -> None:
    deadline = time.monotonic() + seconds
    problem = "no answer"
    while time.monotonic() < deadline:
        if server is not None and server.process.poll() is not None:
            raise BenchError(f"the server exited with {server.process.returncode}:\n"
                             f"{server.log_tail()}")
        try:
            response = await client.get("/readyz", timeout=2.0)
            if response.status_code == 200:
                return
            problem = f"{response.status_code} {response.text[:200]}"
        except httpx.HTTPError as error:
            problem = f"{type(error).__name__}: {error}"
        await asyncio.sleep(0.1)
    tail = f"\n{server.log_tail()}" if server is not None else ""
    raise BenchError(f"the server was not ready within {seconds:.0f} s ({problem}){tail}")


# --- phases --------------------------------------------------------------------------------

@dataclass
class PhaseResult:
    """What one phase measured."""

    name: str
    latencies: list[float] = field(default_factory=list)  # seconds, of every request
    statuses: Counter[str] = field(default_factory=Counter)
    seconds: float = 0.0
    client_cpu: float = 0.0
    server_cpu: float | None = None

    @property
    def count(self) -> int:
        return len(self.latencies)

    @property
    def errors(self) -> dict[str, int]:
        return {status: n for status, n in sorted(self.statuses.items())
                if not status.startswith("2")}

    def percentile(self, q: float) -> float:
        """Nearest-rank percentile in milliseconds (0 without requests).

        >>> PhaseResult("x", [0.001, 0.002, 0.003, 0.004]).percentile(50)
        2.0
        """
        if not self.latencies:
            return 0.0
        ordered = sorted(self.latencies)
        rank = max(1, math.ceil(q / 100 * len(ordered)))
        return ordered[rank - 1] * 1000

    def summary(self) -> dict[str, Any]:
        return {
            "phase": self.name, "count": self.count, "errors": sum(self.errors.values()),
            "errorsByStatus": self.errors,
            "throughput": round(self.count / self.seconds, 1) if self.seconds else 0.0,
            "p50Ms": round(self.percentile(50), 2), "p95Ms": round(self.percentile(95), 2),
            "p99Ms": round(self.percentile(99), 2),
            "maxMs": round(max(self.latencies, default=0.0) * 1000, 2),
            "seconds": round(self.seconds, 3), "clientCpuSeconds": round(self.client_cpu, 3),
            "serverCpuSeconds": None if self.server_cpu is None else round(self.server_cpu, 3),
        }


class HttpError(Exception):
    """A request that got no HTTP response (refused, reset, timed out, bad framing)."""


@dataclass(frozen=True, slots=True)
class Answer:
    status: int
    body: bytes
    headers: dict[str, str] = field(default_factory=dict)
    """Response headers by lower-case name."""

    def json(self) -> Any:
        return json.loads(self.body)


class KeepAliveClient:
    """One HTTP/1.1 keep-alive connection and a request at a time: a small client that
    costs a tenth of httpx's CPU per request, so the load generator leaves the server its
    cores. Responses must be framed by Content-Length or chunked (uvicorn's are); after
    an error or ``Connection: close`` the next request opens a new connection, and a
    request that finds its idle connection closed by the server (uvicorn's keep-alive
    timeout is 5 s) is sent once more on a new one, as browsers and httpx do."""

    def __init__(self, host: str, port: int, timeout: float) -> None:
        self.host, self.port, self.timeout = host, port, timeout
        self._reader: asyncio.StreamReader | None = None
        self._writer: asyncio.StreamWriter | None = None
        self._host_header = f"Host: {host}:{port}\r\n".encode()

    async def request(self, method: str, path: str, headers: dict[str, str],
                      body: object = None) -> Answer:
        raw = isinstance(body, bytes)  # sent as it is, typed by the caller's headers
        data = body if isinstance(body, bytes) else b"" if body is None else \
            json.dumps(body).encode()
        head = [f"{method} {path} HTTP/1.1\r\n".encode(), self._host_header]
        head += [f"{name}: {value}\r\n".encode() for name, value in headers.items()]
        if body is not None and not raw:
            head.append(b"content-type: application/json\r\n")
        head.append(f"content-length: {len(data)}\r\n\r\n".encode())
        message = b"".join(head) + data
        try:
            async with asyncio.timeout(self.timeout):
                reused = self._writer is not None
                try:
                    return await self._exchange(message)
                except (asyncio.IncompleteReadError, ConnectionError) as error:
                    stale = not isinstance(error, asyncio.IncompleteReadError) or \
                        not error.partial
                    if not (reused and stale):
                        raise
                    await self.close()  # the server closed an idle keep-alive connection
                    return await self._exchange(message)
        except (OSError, asyncio.IncompleteReadError, asyncio.LimitOverrunError, ValueError,
                TimeoutError) as error:
            await self.close()
            name = "timeout" if isinstance(error, TimeoutError) else type(error).__name__
            raise HttpError(name) from None

    async def _exchange(self, message: bytes) -> Answer:
        if self._writer is None:
            self._reader, self._writer = await asyncio.open_connection(self.host, self.port)
        reader, writer = self._reader, self._writer
        assert reader is not None
        writer.write(message)
        head = await reader.readuntil(b"\r\n\r\n")
        lines = head.decode("latin-1").split("\r\n")
        status = int(lines[0].split(" ", 2)[1])
        fields = {}
        for line in lines[1:]:
            name, _, value = line.partition(":")
            fields[name.strip().lower()] = value.strip()
        if "content-length" in fields:
            body = await reader.readexactly(int(fields["content-length"]))
        elif fields.get("transfer-encoding", "").lower() == "chunked":
            body = await self._chunked(reader)
        else:
            raise ValueError("response without Content-Length or chunked framing")
        if fields.get("connection", "").lower() == "close":
            await self.close()
        return Answer(status, body, fields)

    @staticmethod
    async def _chunked(reader: asyncio.StreamReader) -> bytes:
        parts = []
        while True:
            size = int((await reader.readuntil(b"\r\n")).split(b";")[0], 16)
            if size == 0:
                await reader.readuntil(b"\r\n")  # no trailers from uvicorn
                return b"".join(parts)
            parts.append((await reader.readexactly(size + 2))[:-2])

    async def close(self) -> None:
        writer, self._reader, self._writer = self._writer, None, None
        if writer is not None:
            writer.close()
            with contextlib.suppress(OSError):
                await writer.wait_closed()


Request = Callable[[KeepAliveClient, int], Awaitable[Answer]]
OnResponse = Callable[[int, Answer], None]


async def run_phase(name: str, clients: Sequence[KeepAliveClient], request: Request, *,
                    count: int | None, seconds: float | None, server: Server | None,
                    on_response: OnResponse | None = None) -> PhaseResult:
    """``count`` requests (or as many as fit in ``seconds``) spread over ``clients``, each
    client sending its next request when its last one answered."""
    result = PhaseResult(name)
    indexes = itertools.count()
    started = time.perf_counter()
    stop_at = None if seconds is None else started + seconds

    async def client_loop(client: KeepAliveClient) -> None:
        while True:
            index = next(indexes)
            if (count is not None and index >= count) or \
                    (stop_at is not None and time.perf_counter() >= stop_at):
                return
            sent = time.perf_counter()
            try:
                response = await request(client, index)
            except HttpError as error:
                result.latencies.append(time.perf_counter() - sent)
                result.statuses[str(error)] += 1
                continue
            result.latencies.append(time.perf_counter() - sent)
            result.statuses[str(response.status)] += 1
            if on_response is not None and 200 <= response.status < 300:
                on_response(index, response)

    cpu, server_cpu = time.process_time(), server.cpu_seconds() if server else None
    await asyncio.gather(*(client_loop(client) for client in clients))
    result.seconds = time.perf_counter() - started
    result.client_cpu = time.process_time() - cpu
    if server is not None and server_cpu is not None:
        after = server.cpu_seconds()
        result.server_cpu = None if after is None else after - server_cpu
    return result


async def open_tasks(client: httpx.AsyncClient, headers: dict[str, str]) -> dict[str, str]:
    """run id -> task id of every open task of the bench tenant."""
    found: dict[str, str] = {}
    after: str | None = None
    while True:
        params = {"status": "open", "limit": str(TASK_PAGE), **({"after": after} if after
                                                                  else {})}
        response = await client.get(f"{API}/tasks", params=params, headers=headers)
        if response.status_code != 200:
            raise BenchError(f"GET /tasks: {response.status_code} {response.text[:200]}")
        page = response.json()
        found.update({item["workflowInstanceId"]: item["taskId"] for item in page["items"]})
        after = page["next"]
        if not after:
            return found


async def settle(client: httpx.AsyncClient, headers: dict[str, str], runs: Sequence[str],
                 seconds: float) -> tuple[dict[str, str], float]:
    """Wait (at most ``seconds``) until every run has its open human task."""
    started = time.perf_counter()
    wanted = set(runs)
    while True:
        tasks = await open_tasks(client, headers)
        mine = {run: task for run, task in tasks.items() if run in wanted}
        elapsed = time.perf_counter() - started
        if len(mine) >= len(wanted) or elapsed >= seconds:
            return mine, elapsed
        await asyncio.sleep(POLL_SECONDS)


# --- the run -----------------------------------------------------------------------------

@dataclass
class Report:
    phases: list[PhaseResult]
    settle_runs: int = 0
    settle_waiting: int = 0
    settle_seconds: float = 0.0
    setup: dict[str, Any] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return (len(self.phases) == len(PHASES)
                and all(not p.errors for p in self.phases)
                and self.settle_waiting == self.settle_runs)

    def to_json(self) -> dict[str, Any]:
        return {"setup": self.setup, "phases": [p.summary() for p in self.phases],
                "settle": {"runs": self.settle_runs, "waitingForTask": self.settle_waiting,
                           "seconds": round(self.settle_seconds, 3)},
                "ok": self.ok}


def table(report: Report) -> str:
    """The phases as a Markdown table (latencies in ms; CPU in seconds)."""
    lines = ["| phase | requests | errors | req/s | p50 ms | p95 ms | p99 ms | max ms "
             "| client CPU s | server CPU s |",
             "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for phase in report.phases:
        s = phase.summary()
        errors = str(s["errors"]) + ("" if not s["errors"] else " (" + ", ".join(
            f"{status}: {n}" for status, n in s["errorsByStatus"].items()) + ")")
        server = "-" if s["serverCpuSeconds"] is None else f"{s['serverCpuSeconds']:.2f}"
        lines.append(f"| {s['phase']} | {s['count']} | {errors} | {s['throughput']:.0f} "
                     f"| {s['p50Ms']:.1f} | {s['p95Ms']:.1f} | {s['p99Ms']:.1f} "
                     f"| {s['maxMs']:.1f} | {s['clientCpuSeconds']:.2f} | {server} |")
    return "\n".join(lines)


async def bench(args: argparse.Namespace, port: int, secret: str,
                server: Server | None, log: Callable[[str], None]) -> Report:
    """Import, then the three phases (and the wait for the tasks) against the server on
    127.0.0.1:``port``: setup and polling with httpx, the phases with
    :class:`KeepAliveClient`."""
    base_url = f"http://127.0.0.1:{port}"
    def bearer(scope: str) -> dict[str, str]:
        token = issue_token(secret, subject="bench", tenant=TENANT,
                            scopes=[f"workflow:{scope}"], ttl_seconds=24 * 3600)
        return {"authorization": f"Bearer {token}"}

    admin, operate, view = bearer("admin"), bearer("operate"), bearer("view")
    timeout = httpx.Timeout(args.timeout)
    count = None if args.seconds is not None else args.requests
    report = Report([])
    async with contextlib.AsyncExitStack() as stack:
        control = await stack.enter_async_context(
            httpx.AsyncClient(base_url=base_url, timeout=timeout))
        await wait_ready(control, server, READY_SECONDS)
        imported = await control.post(f"{API}/definitions", content=DEFINITION,
                                      headers={**admin, "content-type": "application/yaml"})
        if imported.status_code not in (200, 201):
            raise BenchError(f"import: {imported.status_code} {imported.text[:300]}")
        clients = [KeepAliveClient("127.0.0.1", port, args.timeout)
                   for _ in range(args.clients)]
        for client in clients:
            stack.push_async_callback(client.close)

        runs: dict[int, str] = {}

        def start(client: KeepAliveClient, index: int) -> Awaitable[Answer]:
            return client.request("POST", f"{API}/start", operate, {
                "workflowName": WORKFLOW, "businessReference": f"bench-{index}",
                "payload": {"index": index, "amount": 100 + index % 50}})

        log(f"{START}: {args.clients} clients ...")
        report.phases.append(await run_phase(
            START, clients, start, count=count, seconds=args.seconds, server=server,
            on_response=lambda i, r: runs.__setitem__(i, r.json()["workflowInstanceId"])))
        run_ids = [runs[i] for i in sorted(runs)]
        if not run_ids:
            raise BenchError("no run was started")

        def get(client: KeepAliveClient, index: int) -> Awaitable[Answer]:
            return client.request("GET", f"{API}/instances/{run_ids[index % len(run_ids)]}",
                                  view)

        async def settled() -> dict[str, str]:
            log(f"waiting for {len(run_ids)} runs to reach their human task ...")
            tasks, elapsed = await settle(control, view, run_ids, args.settle_seconds)
            report.settle_runs, report.settle_waiting = len(run_ids), len(tasks)
            report.settle_seconds = elapsed
            return tasks

        tasks = {} if args.overlap else await settled()
        log(f"{GET}: {args.clients} clients ...")
        report.phases.append(await run_phase(GET, clients, get, count=count,
                                             seconds=args.seconds, server=server))
        if args.overlap:
            tasks = await settled()
        task_ids = list(tasks.values())

        def complete(client: KeepAliveClient, index: int) -> Awaitable[Answer]:
            return client.request("POST", f"{API}/tasks/{task_ids[index]}/complete", operate,
                                  {"decision": "approve"})

        log(f"{COMPLETE}: {len(task_ids)} tasks, {args.clients} clients ...")
        report.phases.append(await run_phase(COMPLETE, clients, complete, count=len(task_ids),
                                             seconds=None, server=server))
    return report


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog=PROG, description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--clients", type=int, default=32, help="concurrent clients (32)")
    size = parser.add_mutually_exclusive_group()
    size.add_argument("--requests", type=int, default=2000,
                      help="requests of the start and the GET phase (2000); the complete "
                           "phase completes one task per started run")
    size.add_argument("--seconds", type=float, default=None,
                      help="instead of --requests: run the start and the GET phase this long")
    parser.add_argument("--port", type=int, default=None,
                        help="port of the server (default: a free port)")
    parser.add_argument("--server-cmd", default=None,
                        help="command that starts the server ({port} is replaced); it gets "
                             "WFR_JWT_SECRET and WFR_DATABASE and runs in a temporary folder. "
                             "Default: python -m renderer.serve --dev --pool-size 1")
    parser.add_argument("--json", type=Path, default=None, metavar="OUT",
                        help="also write the numbers as JSON to OUT")
    parser.add_argument("--timeout", type=float, default=10.0,
                        help="seconds one request may take (10)")
    parser.add_argument("--settle-seconds", type=float, default=120.0,
                        help="longest wait for the runs to reach their human task (120)")
    parser.add_argument("--max-seconds", type=float, default=600.0,
                        help="bound of the whole run, server start and stop included (600)")
    parser.add_argument("--overlap", action="store_true",
                        help="GET right after the starts, while the pump still works")
    return parser


def _check(args: argparse.Namespace) -> str | None:
    checks = ((args.clients >= 1, "--clients must be at least 1"),
              (args.requests >= 1, "--requests must be at least 1"),
              (args.seconds is None or args.seconds > 0, "--seconds must be positive"),
              (args.timeout > 0, "--timeout must be positive"),
              (args.max_seconds > 0, "--max-seconds must be positive"),
              (args.port is None or 0 < args.port < 65536, "--port must be 1 to 65535"))
    return next((message for ok, message in checks if not ok), None)


@contextlib.contextmanager
def _terminate_as_interrupt() -> Iterator[None]:
    """SIGTERM ends the run like Ctrl-C (so the server is stopped), from the main thread."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def interrupt(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


async def _bounded(work: Awaitable[Report], seconds: float) -> Report:
    """``work``, or :class:`TimeoutError` after ``seconds`` (a Ctrl-C stays a Ctrl-C)."""
    async with asyncio.timeout(seconds):
        return await work


def main(argv: list[str] | None = None, out: IO[str] | None = None) -> int:
    """Run the bench; print the table to ``out``; 0 ok, 1 errors, 2 bad options."""
    out = out or sys.stdout
    args = build_parser().parse_args(argv)
    problem = _check(args)
    if problem is not None:
        print(f"{PROG}: {problem}", file=sys.stderr)
        return 2

    def log(line: str) -> None:
        print(line, file=sys.stderr, flush=True)

    secret = os.environ.get("WFR_BENCH_SECRET") or f"bench-{os.urandom(24).hex()}"
    port = args.port or free_port()
    server: Server | None = None
    with tempfile.TemporaryDirectory(prefix="wfr-load-") as folder, _terminate_as_interrupt():
        try:
            command = server_command(args.server_cmd, port)
            log(f"starting {' '.join(command)} in {folder}")
            server = start_server(command, Path(folder), secret)
            report = asyncio.run(_bounded(bench(args, port, secret, server, log),
                                          args.max_seconds))
        except (BenchError, TimeoutError, OSError) as error:
            message = (f"out of time after --max-seconds {args.max_seconds:g}"
                       if isinstance(error, TimeoutError) else str(error))
            print(f"{PROG}: {message}", file=sys.stderr)
            return 1
        finally:
            if server is not None:
                server.stop()
    report.setup = {"clients": args.clients, "requests": None if args.seconds else args.requests,
                    "seconds": args.seconds, "overlap": args.overlap,
                    "server": args.server_cmd or "python -m renderer.serve --dev",
                    "cpus": os.cpu_count()}
    print(table(report), file=out)
    print(f"\nsettle: {report.settle_waiting}/{report.settle_runs} runs reached their human "
          f"task in {report.settle_seconds:.2f} s", file=out)
    if args.json is not None:
        args.json.write_text(json.dumps(report.to_json(), indent=2) + "\n", encoding="utf-8")
    return 0 if report.ok else 1


if __name__ == "__main__":
    try:
        raise SystemExit(main())
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted", file=sys.stderr)
        raise SystemExit(130) from None
