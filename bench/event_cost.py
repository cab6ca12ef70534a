"""Cost of applying one event as a run grows: a chain of N steps on the SQLite store (or on
PostgreSQL with ``--store postgres``).

For each size N it registers ``chain-N`` (N Tool steps in a row, each answered at once by
an in-process executor; ``--kind Timer``: N Timer steps of no delay, so no executor and
no dispatch payload), starts one run and pumps it to the end on a fresh SQLite file,
timing every *event* row the engine applies (load the run, advance it, commit the
transition; dispatch rows, which only call the executor, are not counted). A chain of N
steps takes N + 1 events; the last tenth of them is applied to a run of nearly N step runs.

It prints, per size: events applied, the median and 95th percentile CPU milliseconds of
this thread per event (CPU time, so other load on a shared machine does not count; SQLite
runs in this thread, so its work counts) of all events and of the last tenth, and the
total wall seconds. With ``--store postgres`` (a throwaway server with fsync on, or
``--db postgresql://...``; each size in a new schema) the server's work is not in this
thread's CPU time, so the table also has the median wall milliseconds per event of the
last tenth (which the machine's other load does count). ``--max-seconds`` bounds each size
(a size that hits it is marked ``stopped`` with the step it reached). ``--profile`` prints
cProfile's top functions of the largest size. ``--json OUT`` writes the same numbers.

    PYTHONPATH=$PWD .venv/bin/python bench/event_cost.py --sizes 100,1000,5000
    PYTHONPATH=$PWD .venv/bin/python bench/event_cost.py --store postgres --sizes 100,1000,5000
"""

from __future__ import annotations

import argparse
import cProfile
import json
import pstats
import statistics
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from workflow.dsl import Definition, Step, Transition
from workflow.engine import Engine
from workflow.executors import ExecutorRegistry
from workflow.pump import pump_once
from workflow.sqlite_store import SqliteStore
from workflow.store import QueuedSignal, QueueRowKind


def chain_definition(size: int, kind: str = "Tool") -> Definition:
    """``size`` steps ``s0 -> s1 -> ...``: Tool steps failing the run on an error, or Timer
    steps of no delay (no executor, no dispatch payload: only transitions and the store).

    >>> d = chain_definition(3)
    >>> [s.id for s in d.steps], [e.id for e in d.edges]
    (['s0', 's1', 's2'], ['s0->s1', 's1->s2'])
    """
    steps = tuple(Step(f"s{i}", "Tool", tool="echo", failure_policy="Fail") if kind == "Tool"
                  else Step(f"s{i}", "Timer", delay_minutes=0.0) for i in range(size))
    edges = tuple(Transition(f"s{i}->s{i + 1}", f"s{i}", f"s{i + 1}")
                  for i in range(size - 1))
    return Definition(f"chain-{size}", "1", steps, edges)


@dataclass(slots=True)
class TimedEngine(Engine):
    """An engine that records the seconds each event row takes to apply."""

    event_seconds: list[float] = field(default_factory=list)
    event_wall: list[float] = field(default_factory=list)

    def process(self, signal: QueuedSignal) -> None:
        if signal.kind != QueueRowKind.EVENT:
            Engine.process(self, signal)
            return
        started = time.thread_time()  # CPU time: other load on the machine does not count
        began = time.perf_counter()
        Engine.process(self, signal)
        self.event_seconds.append(time.thread_time() - started)
        self.event_wall.append(time.perf_counter() - began)


@dataclass(frozen=True, slots=True)
class SizeResult:
    """The numbers of one size."""

    steps: int
    events: int
    median_ms: float
    p95_ms: float
    last_tenth_median_ms: float
    last_tenth_p95_ms: float
    seconds: float
    finished: bool
    state: str
    last_tenth_wall_ms: float = 0.0


def measure(size: int, folder: Path, max_seconds: float, kind: str = "Tool",
            url: str | None = None) -> SizeResult:
    """Run one chain of ``size`` steps to its end (or ``max_seconds``) and time its events
    (on SQLite in ``folder``, or on the PostgreSQL ``url`` in a new schema)."""
    if url is None:
        store: Any = SqliteStore(folder / f"chain-{kind}-{size}.db")
    else:
        from workflow.postgres_store import PostgresStore

        store = PostgresStore(url, schema=f"cost_{uuid.uuid4().hex[:8]}", max_connections=2)
    engine = TimedEngine(store, ExecutorRegistry({"echo": lambda payload: {"ok": True}}))
    engine.register(chain_definition(size, kind))
    run = engine.start(f"chain-{size}")
    started = time.perf_counter()
    while pump_once(engine):
        if time.perf_counter() - started > max_seconds:
            break
    seconds = time.perf_counter() - started
    state = engine.run(run.run_id)
    store.close()
    times = engine.event_seconds
    tail = times[-max(1, len(times) // 10):]
    wall = engine.event_wall[-max(1, len(times) // 10):]
    finished = state.state.is_finished
    label = state.state.value if finished else f"stopped at step {len(state.steps)} of {size}"
    return SizeResult(size, len(times), _ms(statistics.median(times)), _ms(_p95(times)),
                      _ms(statistics.median(tail)), _ms(_p95(tail)), round(seconds, 2),
                      finished, label, _ms(statistics.median(wall)))


def _p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]


def _ms(seconds: float) -> float:
    return round(seconds * 1000.0, 3)


def _table(results: list[SizeResult]) -> str:
    lines = ["steps  events  median ms  p95 ms  last-10% median  last-10% p95  "
             "last-10% wall  seconds  state"]
    for r in results:
        lines.append(f"{r.steps:5d}  {r.events:6d}  {r.median_ms:9.3f}  {r.p95_ms:6.3f}  "
                     f"{r.last_tenth_median_ms:15.3f}  {r.last_tenth_p95_ms:12.3f}  "
                     f"{r.last_tenth_wall_ms:13.3f}  {r.seconds:7.2f}  {r.state}")
    return "\n".join(lines)


def _sizes(text: str) -> list[int]:
    try:
        sizes = [int(part) for part in text.split(",") if part.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"--sizes wants integers like 100,1000: {text!r}"
                                         ) from None
    if not sizes or any(size < 1 or size > 100_000 for size in sizes):
        raise argparse.ArgumentTypeError("--sizes must be from 1 to 100000")
    return sizes


def main(argv: list[str] | None = None) -> int:
    """Measure every size, print the table; 0 when every run finished, 1 otherwise."""
    parser = argparse.ArgumentParser(prog="bench/event_cost.py", description=__doc__.split(
        "\n\n")[0])
    parser.add_argument("--sizes", type=_sizes, default=[100, 1000, 5000])
    parser.add_argument("--max-seconds", type=float, default=300.0)
    parser.add_argument("--kind", choices=("Tool", "Timer"), default="Tool",
                        help="the chain's steps: Tool (dispatched) or Timer (delay 0)")
    parser.add_argument("--store", choices=("sqlite", "postgres"), default="sqlite")
    parser.add_argument("--db", default=None, metavar="URL",
                        help="with --store postgres: this server (default: a throwaway one)")
    parser.add_argument("--profile", action="store_true")
    parser.add_argument("--json", type=Path, default=None, metavar="OUT")
    args = parser.parse_args(argv)
    results = []
    with tempfile.TemporaryDirectory(prefix="wfr-event-cost-") as folder, \
            _postgres(args.store, args.db) as url:
        for size in args.sizes:
            if args.profile and size == max(args.sizes):
                profiler = cProfile.Profile()
                results.append(profiler.runcall(measure, size, Path(folder), args.max_seconds,
                                                args.kind, url))
                pstats.Stats(profiler, stream=sys.stderr).sort_stats("cumulative").print_stats(30)
            else:
                results.append(measure(size, Path(folder), args.max_seconds, args.kind, url))
            print(_table(results).splitlines()[-1] if len(results) > 1 else _table(results),
                  flush=True)
    if args.json is not None:
        args.json.write_text(json.dumps([asdict(r) for r in results], indent=2) + "\n")
    return 0 if all(r.finished for r in results) else 1


@contextmanager
def _postgres(store: str, url: str | None) -> Iterator[str | None]:
    """The PostgreSQL URL to measure on (None: SQLite); a throwaway server unless given."""
    if store != "postgres" or url is not None:
        yield url
        return
    from workflow.pg_server import start_server

    server = start_server(durable=True)
    try:
        yield server.url
    finally:
        server.stop()


if __name__ == "__main__":
    raise SystemExit(main())
