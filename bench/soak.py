"""Soak test of the render service: minutes of mixed valid, malformed, oversized and slow
requests over loopback, then the requests by status, the server's RSS at the start and the
end, and the worst ``/healthz`` latency.

It starts the service itself (``python -m renderer.serve --dev`` in a temporary folder on a
free 127.0.0.1 port) and always stops it. ``--clients`` (8) keep-alive clients send, in a
fixed rotation (seeded, so runs are comparable):

* valid: the reference workflow as SVG (cached, and with ``Cache-Control: no-cache``), as
  JSON with a new seed each time (a new cache entry), small graph JSON, DOT and ELK JSON,
  fixture drawings by name, ``If-None-Match`` revalidations;
* malformed: garbage bytes, broken YAML, JSON and DOT, unknown engines and formats, a
  ``timeBudget`` over the server's maximum, an unsupported content type, duplicate edge ids;
* oversized: a body over 2 MiB, 5,001 nodes, a 5,000-character label, a YAML alias bomb.

Besides them, ``--heavy`` (1) clients send heavy renders (a 1,500-node graph with a 0.5 s
budget, each laid out anew), and ``--slow`` (2) raw-socket clients play slow or idle peers
in turn: a
connection that never sends anything, headers sent a byte a second, a body that never
completes, and a render whose client hangs up half way. A probe process of its own
(``healthz_probe.py``) asks ``/healthz`` every 100 ms. The targets of issue 15: no 5xx
other than 503/504, RSS growth under 50 MB, and ``/healthz`` never slower than 200 ms.
Exit code 0 when all three hold, 1 otherwise.

    PYTHONPATH=$PWD .venv/bin/python bench/soak.py --minutes 3
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import httpx

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
for folder in (ROOT, BENCH):
    if str(folder) not in sys.path:
        sys.path.insert(0, str(folder))

import healthz_probe  # noqa: E402
from workflow_load import (  # noqa: E402
    BenchError,
    HttpError,
    KeepAliveClient,
    Server,
    free_port,
    start_server,
    wait_ready,
)

PROG = "soak.py"
REFERENCE = (ROOT / "fixtures" / "document-processing.yaml").read_bytes()
RSS_GROWTH_MB = 50.0
HEALTHZ_MAX_MS = 200.0
PROBE_SECONDS = 0.1
SETTLE_SECONDS = 5.0
"""Wait after the load before the final RSS reading (workers replaced, buffers freed)."""


@dataclass(frozen=True, slots=True)
class Shot:
    """One request of the rotation."""

    kind: str
    method: str
    path: str
    body: bytes | None = None
    headers: dict[str, str] = field(default_factory=dict)


def _graph(nodes: int, label: str = "", chain: bool = True) -> bytes:
    items = [{"id": f"n{i}", "width": 60, "height": 30, **({"label": label} if label else {})}
             for i in range(nodes)]
    edges = [{"id": f"e{i}", "source": f"n{i}", "target": f"n{i + 1}"}
             for i in range(nodes - 1)] if chain else []
    return json.dumps({"nodes": items, "edges": edges}).encode()


def _heavy_graph(nodes: int, seed: int = 7) -> bytes:
    pick = random.Random(seed)
    items = [{"id": f"n{i}", "width": 60, "height": 30} for i in range(nodes)]
    edges = [{"id": f"e{i}", "source": f"n{i}", "target": f"n{pick.randrange(i + 1, nodes)}"}
             for i in range(nodes - 1) for _ in range(2)]
    unique = [{**e, "id": f"e{k}"} for k, e in enumerate(edges)]
    return json.dumps({"nodes": items, "edges": unique}).encode()


ALIAS_BOMB = b"\n".join([b"a: &a [x, x, x, x, x, x, x, x, x]"] + [
    f"{chr(98 + i)}: &{chr(98 + i)} [{', '.join(['*' + chr(97 + i)] * 9)}]".encode()
    for i in range(8)])
YAML = {"content-type": "application/yaml"}
JSON = {"content-type": "application/json"}


def rotation() -> list[Callable[[int], Shot]]:
    """The request makers, each called with a running index."""
    small = _graph(6)
    return [
        lambda i: Shot("valid", "POST", "/api/render", REFERENCE, YAML),
        lambda i: Shot("valid", "POST", "/api/render", REFERENCE,
                       {**YAML, "cache-control": "no-cache"}),
        lambda i: Shot("valid", "POST", f"/api/render?format=json&seed={i}", REFERENCE, YAML),
        lambda i: Shot("valid", "POST", "/api/render?engine=graphviz&format=json", small, JSON),
        lambda i: Shot("valid", "POST", "/api/render?format=dot",
                       b"digraph g { a -> b -> c; a -> c [label=\"x\"] }", {}),
        lambda i: Shot("valid", "POST", "/api/render?format=elk",
                       b'{"id": "r", "children": [{"id": "a", "width": 40, "height": 20}, '
                       b'{"id": "b", "width": 40, "height": 20}], "edges": [{"id": "e", '
                       b'"sources": ["a"], "targets": ["b"]}]}', JSON),
        lambda i: Shot("valid", "GET", "/drawings/repository-assessment.svg"),
        lambda i: Shot("valid", "GET", "/drawings/document-processing.json"),
        lambda i: Shot("malformed", "POST", "/api/render",
                       random.Random(i).randbytes(512), {}),
        lambda i: Shot("malformed", "POST", "/api/render", b"workflow: [unclosed\n  - {", YAML),
        lambda i: Shot("malformed", "POST", "/api/render", b'{"nodes": [', JSON),
        lambda i: Shot("malformed", "POST", "/api/render", b"digraph { a -> ; }", {}),
        lambda i: Shot("malformed", "POST", "/api/render?engine=nope", small, JSON),
        lambda i: Shot("malformed", "POST", "/api/render?format=png", small, JSON),
        lambda i: Shot("malformed", "POST", "/api/render?timeBudget=600", small, JSON),
        lambda i: Shot("malformed", "POST", "/api/render", b"\x89PNG",
                       {"content-type": "image/png"}),
        lambda i: Shot("malformed", "POST", "/api/render",
                       b"workflow: w\nsteps: [{id: a, kind: Tool}, {id: b, kind: Tool}]\n"
                       b"edges: [{id: e, from: a, to: b}, {id: e, from: b, to: a}]\n", YAML),
        lambda i: Shot("oversized", "POST", "/api/render", b"#" * (2 * 1024 * 1024 + 1), {}),
        lambda i: Shot("oversized", "POST", "/api/render", _graph(5001, chain=False), JSON),
        lambda i: Shot("oversized", "POST", "/api/render", _graph(2, label="x" * 5000), JSON),
        lambda i: Shot("oversized", "POST", "/api/render", ALIAS_BOMB, YAML),
    ]


def heavy_rotation() -> list[Callable[[int], Shot]]:
    """Slow renders, sent by a client of their own (the others would wait on them): a
    1,500-node graph with a 0.5 s budget, laid out anew each time."""
    heavy = _heavy_graph(1500)
    return [lambda i: Shot("heavy", "POST", "/api/render?timeBudget=0.5&format=json", heavy,
                           {**JSON, "cache-control": "no-cache"})]


@dataclass
class Tally:
    statuses: Counter[str] = field(default_factory=Counter)
    by_kind: Counter[tuple[str, str]] = field(default_factory=Counter)
    healthz_max_ms: float = 0.0
    healthz_probes: int = 0
    healthz_failures: int = 0

    def count(self, kind: str, status: str) -> None:
        self.statuses[status] += 1
        self.by_kind[(kind, status)] += 1

    @property
    def bad_5xx(self) -> int:
        return sum(n for status, n in self.statuses.items()
                   if status.startswith("5") and status not in ("503", "504"))


def rss_mb(pid: int) -> float:
    """Resident set size of process ``pid`` in MB (``/proc/PID/status``)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise BenchError(f"no VmRSS for process {pid}")


def children_rss_mb(pid: int) -> float:
    """Summed RSS of the direct children of ``pid`` (the layout workers)."""
    total = 0.0
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            if int(stat.read_text().rsplit(")", 1)[1].split()[1]) == pid:
                total += rss_mb(int(stat.parent.name))
        except (OSError, IndexError, ValueError, BenchError):
            continue
    return total


async def client_loop(port: int, tally: Tally, stop_at: float, start: int, step: int,
                      makers: list[Callable[[int], Shot]]) -> None:
    client = KeepAliveClient("127.0.0.1", port, 60.0)
    index = start
    try:
        while time.monotonic() < stop_at:
            shot = makers[index % len(makers)](index)
            index += step
            try:
                answer = await client.request(shot.method, shot.path, shot.headers, shot.body)
                tally.count(shot.kind, str(answer.status))
            except HttpError as error:
                tally.count(shot.kind, f"no answer ({error})")
    finally:
        await client.close()


async def slow_peer(port: int, tally: Tally, stop_at: float, start: int) -> None:
    """Idle, trickling and vanishing clients, one at a time, in turn."""
    index = start
    while time.monotonic() < stop_at:
        kind = index % 4
        index += 1
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        try:
            if kind == 0:  # connects and says nothing
                outcome = await _until_closed(reader, 30)
            elif kind == 1:  # headers a byte a second
                outcome = "sent"
                for byte in b"POST /api/render HTTP/1.1\r\nHost: x\r\n":
                    writer.write(bytes([byte]))
                    await writer.drain()
                    if await _closed_within(reader, 1.0):
                        outcome = "closed"
                        break
            elif kind == 2:  # a body that never completes
                writer.write(b"POST /api/render HTTP/1.1\r\nHost: x\r\ncontent-length: 1000\r\n"
                             b"content-type: application/yaml\r\n\r\nworkflow: w\n")
                await writer.drain()
                outcome = await _status_within(reader, 60)
            else:  # a render whose client hangs up before the answer
                writer.write(b"POST /api/render?format=json&engine=layered HTTP/1.1\r\nHost: x"
                             b"\r\ncache-control: no-cache\r\ncontent-type: application/yaml\r\n"
                             + f"content-length: {len(REFERENCE)}\r\n\r\n".encode() + REFERENCE)
                await writer.drain()
                await asyncio.sleep(0.005)
                outcome = "hung up"
            tally.count("slow", outcome)
        except (ConnectionError, OSError):
            tally.count("slow", "reset")
        finally:
            writer.close()
            with contextlib.suppress(OSError):
                await writer.wait_closed()


async def _closed_within(reader: asyncio.StreamReader, seconds: float) -> bool:
    try:
        data = await asyncio.wait_for(reader.read(1), seconds)
    except TimeoutError:
        return False
    return data == b""


async def _until_closed(reader: asyncio.StreamReader, seconds: float) -> str:
    return "closed by server" if await _closed_within(reader, seconds) else "left open"


async def _status_within(reader: asyncio.StreamReader, seconds: float) -> str:
    try:
        line = await asyncio.wait_for(reader.readline(), seconds)
    except TimeoutError:
        return "no answer"
    parts = line.split()
    return parts[1].decode() if len(parts) > 1 else "closed"


async def soak(args: argparse.Namespace, port: int, server: Server) -> tuple[Tally, float,
                                                                              float, float]:
    async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}", timeout=60) as control:
        await wait_ready(control, server, 60)
        for _ in range(3):  # warm both workers before the first RSS reading
            await control.post("/api/render", content=REFERENCE,
                               headers={**YAML, "cache-control": "no-cache"})
    start_rss = rss_mb(server.process.pid)
    tally = Tally()
    stop_at = time.monotonic() + args.minutes * 60
    print(f"soaking for {args.minutes:g} min: {args.clients} clients, {args.heavy} heavy, "
          f"{args.slow} slow peers; server RSS {start_rss:.1f} MB", file=sys.stderr,
          flush=True)
    prober = await healthz_probe.start(port, PROBE_SECONDS)
    await asyncio.gather(
        *(client_loop(port, tally, stop_at, k, args.clients, rotation())
          for k in range(args.clients)),
        *(client_loop(port, tally, stop_at, k, args.heavy, heavy_rotation())
          for k in range(args.heavy)),
        *(slow_peer(port, tally, stop_at, k) for k in range(args.slow)))
    probed = await healthz_probe.finish(prober)
    tally.healthz_max_ms = probed["maxMs"]
    tally.healthz_probes = probed["probes"]
    tally.healthz_failures = probed["failures"]
    await asyncio.sleep(SETTLE_SECONDS)
    return tally, start_rss, rss_mb(server.process.pid), children_rss_mb(server.process.pid)


def report(tally: Tally, start_rss: float, end_rss: float, workers_rss: float,
           minutes: float) -> str:
    total = sum(n for (kind, _), n in tally.by_kind.items() if kind != "slow")
    lines = [f"requests: {total} in {minutes:g} min ({total / (minutes * 60):.0f}/s)",
             "by status: " + ", ".join(f"{s}: {n}" for s, n in sorted(tally.statuses.items())),
             "by kind and status:"]
    lines += [f"  {kind:9} {status:>22}: {n}" for (kind, status), n in
              sorted(tally.by_kind.items())]
    lines += [f"5xx other than 503/504: {tally.bad_5xx}",
              f"server RSS: start {start_rss:.1f} MB, end {end_rss:.1f} MB, growth "
              f"{end_rss - start_rss:+.1f} MB (layout workers now {workers_rss:.1f} MB)",
              f"/healthz: {tally.healthz_probes} probes, max {tally.healthz_max_ms:.1f} ms, "
              f"{tally.healthz_failures} failed"]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog=PROG, description=__doc__.split("\n\n")[0])
    parser.add_argument("--minutes", type=float, default=10.0, help="how long (10)")
    parser.add_argument("--clients", type=int, default=8, help="keep-alive clients (8)")
    parser.add_argument("--slow", type=int, default=2, help="slow raw-socket peers (2)")
    parser.add_argument("--heavy", type=int, default=1,
                        help="clients sending heavy renders (1)")
    args = parser.parse_args(argv)
    if args.minutes <= 0 or args.clients < 1 or args.slow < 0 or args.heavy < 0:
        print(f"{PROG}: --minutes must be positive, --clients at least 1", file=sys.stderr)
        return 2
    port = free_port()
    command = [sys.executable, "-m", "renderer.serve", "--dev", "--host", "127.0.0.1",
               "--port", str(port)]
    server: Server | None = None
    with tempfile.TemporaryDirectory(prefix="wfr-soak-") as folder:
        try:
            server = start_server(command, Path(folder), f"soak-{os.urandom(24).hex()}")
            tally, start_rss, end_rss, workers_rss = asyncio.run(soak(args, port, server))
        except (BenchError, OSError) as error:
            print(f"{PROG}: {error}", file=sys.stderr)
            return 1
        finally:
            if server is not None:
                server.stop()
    print(report(tally, start_rss, end_rss, workers_rss, args.minutes))
    met = (tally.bad_5xx == 0 and end_rss - start_rss < RSS_GROWTH_MB
           and tally.healthz_max_ms < HEALTHZ_MAX_MS and tally.healthz_failures == 0)
    print("targets met" if met else "targets NOT met")
    return 0 if met else 1


if __name__ == "__main__":
    try:
        raise SystemExit(main())
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted", file=sys.stderr)
        raise SystemExit(130) from None
