"""Transitions per second with 1, 2 and 4 worker processes on PostgreSQL and 1 on SQLite.

``python bench/transitions.py [--db postgresql://...] [--runs 300] [--workers 1,2,4]``

Each round starts ``--runs`` runs of the reference workflow (the chaos script's variant:
demo executors, confident outputs so no review, the settle-window timer 10 ms) with no
worker running, then starts the worker processes, waits until each has its store open,
lets them go at once and times until every run has finished. A *transition* is an event
applied to a run (``Run.transitions``, summed over the runs and their child runs; the
executor calls between them are not counted). Worker CPU is counted from the start
signal on (each worker's start-up, about 0.8 s of imports here, is not). Without ``--db`` the script
starts its own throwaway PostgreSQL (fsync on, ``pg_stat_statements`` loaded) and prints,
after the largest round, the statements that took the most server time from the start
signal on (the runs' start is not counted); ``--profile``
also samples one worker of that round with py-spy and prints where its CPU went, and
``--waits`` what the server's backends were doing (:mod:`pg_waits`: running, waiting for a
lock or the WAL, idle waiting for their worker). The
CPU seconds of the worker processes and of the PostgreSQL server are printed per round.
"""

from __future__ import annotations

import argparse
import collections
import functools
import os
import shutil
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]

import chaos  # noqa: E402
from pg_waits import WaitSampler, summary  # noqa: E402

from workflow.demo import demo_definitions  # noqa: E402
from workflow.engine import Engine  # noqa: E402
from workflow.stores import open_store  # noqa: E402

TICKS = os.sysconf("SC_CLK_TCK")


@dataclass(frozen=True)
class Round:
    """One measured round."""

    store: str
    workers: int
    runs: int
    transitions: int
    seconds: float
    worker_cpu: float
    server_cpu: float

    @property
    def per_second(self) -> float:
        return self.transitions / self.seconds

    def row(self) -> str:
        return (f"| {self.store} | {self.workers} | {self.runs} | {self.transitions} | "
                f"{self.seconds:.2f} | {self.per_second:,.0f} | "
                f"{self.worker_cpu:.1f} | {self.server_cpu:.1f} |")


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of a process (0 if it is gone)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / TICKS


def server_cpu(data_dir: Path | None) -> float:
    """CPU seconds of one PostgreSQL server: its postmaster (``postmaster.pid`` of
    ``data_dir``) and its backends. Without ``data_dir`` (an outside ``--db``): every
    ``postgres`` process on the machine, other servers included."""
    postmaster = None
    if data_dir is not None:
        postmaster = int((data_dir / "postmaster.pid").read_text().split()[0])
    total = 0.0
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if (entry / "comm").read_text().strip() != "postgres":
                    continue
                parent = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                continue
            if postmaster is None or postmaster in (int(entry.name), parent):
                total += cpu_seconds(int(entry.name))
    return total


def measure(db: str, workers: int, runs: int, label: str, profile: Path | None = None,
            data_dir: Path | None = None, at_go: Callable[[], None] | None = None,
            waits: WaitSampler | None = None) -> Round:
    """One round; ``at_go`` is called just before the workers are let go (after the runs
    were started), e.g. to reset the server's statement statistics; ``waits`` samples
    the server's backends from then until every run has finished."""
    folder = Path(tempfile.mkdtemp(prefix="wfr-tps-"))
    marker = folder / "fixed"
    marker.touch()
    store = open_store(db)
    engine = Engine(store, chaos.chaos_executors(marker), clock=time.time)
    for extra in demo_definitions():
        engine.register(extra)
    engine.register(chaos.chaos_definition(0.01))
    started = [engine.start(chaos.WORKFLOW, chaos.VERSION, {"confidence": 0.95, "n": i}).run_id
               for i in range(runs)]
    pool = chaos.Workers.start(workers, db, marker, lease_seconds=30.0, reconcile_every=0,
                               ready=folder)
    try:
        while len(list(folder.glob("ready-*"))) < workers:
            time.sleep(0.05)
        server_before = server_cpu(data_dir)
        workers_before = sum(cpu_seconds(p.pid) for p in pool.processes)  # start-up, imports
        spy = _spy(pool.processes[0].pid, profile) if profile is not None else None
        if at_go is not None:
            at_go()
        if waits is not None:
            waits.start()
        (folder / "go").touch()
        began = time.monotonic()
        while _unfinished(store, len(started)):
            time.sleep(0.1)  # each look is a query competing with the workers
        seconds = time.monotonic() - began
        if waits is not None:
            waits.stop()
        worker_cpu = sum(cpu_seconds(p.pid) for p in pool.processes) - workers_before
        server_used = server_cpu(data_dir) - server_before if data_dir or "://" in db else 0.0
        if spy is not None:
            spy.wait(60)
    finally:
        pool.stop()
    everything = store.list_runs()
    transitions = sum(run.transitions for run in everything)
    store.close()
    shutil.rmtree(folder, ignore_errors=True)
    return Round(label, workers, runs, transitions, seconds, worker_cpu, server_used)


def _unfinished(store: object, expected: int) -> bool:
    counts = store.run_counts()  # type: ignore[attr-defined]
    done = sum(n for _, workflow, state, n in counts
               if workflow == chaos.WORKFLOW and state in ("Completed", "Failed", "Cancelled"))
    return done < expected


def _spy(pid: int, output: Path) -> subprocess.Popen[bytes] | None:
    py_spy = shutil.which("py-spy") or str(Path(sys.executable).parent / "py-spy")
    if not Path(py_spy).exists():
        print("(py-spy is not installed: pip install py-spy)", file=sys.stderr)
        return None
    return subprocess.Popen([py_spy, "record", "--pid", str(pid), "--duration", "5",
                             "--rate", "200", "--format", "raw", "--output", str(output),
                             "--nonblocking"], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)


def profile_summary(raw: Path, top: int = 12) -> list[str]:
    """The functions a py-spy raw profile spent most samples in (own time, by file)."""
    own: collections.Counter[str] = collections.Counter()
    total = 0
    for line in raw.read_text().splitlines():
        stack, _, count = line.rpartition(" ")
        if not stack or not count.isdigit():
            continue
        leaf = stack.split(";")[-1]
        name, _, where = leaf.partition(" (")
        module = where.split(":")[0].rsplit("/site-packages/", 1)[-1].removeprefix(str(ROOT) + "/")
        own[f"{name} ({module})"] += int(count)
        total += int(count)
    by_area: collections.Counter[str] = collections.Counter()
    for key, count in own.items():
        area = ("psycopg / libpq (waiting on the server)" if "psycopg" in key
                else "json" if "json" in key
                else "workflow engine" if "workflow/" in key
                else "python threading / other")
        by_area[area] += count
    lines = [f"  {100 * c / total:5.1f}%  {area}" for area, c in by_area.most_common()]
    lines += [f"  {100 * c / total:5.1f}%  {key}" for key, c in own.most_common(top)]
    return lines


def top_statements(admin_url: str, database: str, top: int = 8) -> list[str]:
    import psycopg

    with psycopg.connect(admin_url.rsplit("/", 1)[0] + f"/{database}", autocommit=True) as db:
        rows = db.execute("SELECT calls, total_exec_time, mean_exec_time, rows, query FROM "
                          "pg_stat_statements ORDER BY total_exec_time DESC LIMIT %s",
                          (top,)).fetchall()
        (total,) = db.execute("SELECT sum(total_exec_time) FROM pg_stat_statements").fetchone()
        ends = dict(db.execute("SELECT query, sum(calls) FROM pg_stat_statements WHERE query "
                               "IN ('COMMIT', 'ROLLBACK') GROUP BY query").fetchall())
    rolled_back, committed = int(ends.get("ROLLBACK", 0)), int(ends.get("COMMIT", 0))
    heading = (f"  transactions: {committed} committed, {rolled_back} rolled back (refused "
               "groups and conflicts)")
    return [heading] + [f"  {100 * t / total:5.1f}%  {calls:>7} calls  {mean:6.3f} ms  "
                        f"{n:>7} rows  {' '.join(str(q).split())[:80]}"
                        for calls, t, mean, n, q in rows]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="bench/transitions.py", description=__doc__.split("\n\n")[0])
    p.add_argument("--db", default=None, help="postgresql://... (default: a throwaway server)")
    p.add_argument("--runs", type=int, default=300)
    p.add_argument("--workers", default="1,2,4", help="worker counts on PostgreSQL")
    p.add_argument("--no-sqlite", action="store_true", help="skip the SQLite round")
    p.add_argument("--profile", action="store_true", help="py-spy one worker of the last round")
    p.add_argument("--waits", action="store_true",
                   help="sample what the server's backends wait for in the last round")
    args = p.parse_args(argv)
    counts = [int(n) for n in args.workers.split(",")]
    server = None
    if args.db is None:
        from workflow.pg_server import start_server

        server = start_server(durable=True,
                              settings=["shared_preload_libraries=pg_stat_statements"])
        import psycopg

        with psycopg.connect(server.admin_url.rsplit("/", 1)[0] + "/wfr",
                             autocommit=True) as admin:
            admin.execute("CREATE EXTENSION IF NOT EXISTS pg_stat_statements")
    base = args.db or server.url  # type: ignore[union-attr]
    rounds, profile = [], Path(tempfile.mkdtemp(prefix="wfr-spy-")) / "worker.txt"
    waits = None
    try:
        for index, workers in enumerate(counts):
            last = index == len(counts) - 1
            if args.waits and last and server is not None:
                waits = WaitSampler(server.admin_url, "wfr")
            schema = f"tps_{uuid.uuid4().hex[:8]}"
            rounds.append(measure(f"{base}{'&' if '?' in base else '?'}schema={schema}", workers,
                                  args.runs, "PostgreSQL",
                                  profile if (args.profile and last) else None,
                                  None if server is None else server.folder / "data",
                                  None if server is None else
                                  functools.partial(_reset_statements, server.admin_url),
                                  waits))
            print(rounds[-1].row(), flush=True)
        statements = top_statements(server.admin_url, "wfr") if server is not None else []
        if not args.no_sqlite:
            folder = Path(tempfile.mkdtemp(prefix="wfr-tps-sqlite-"))
            rounds.append(measure(str(folder / "bench.db"), 1, args.runs, "SQLite"))
            print(rounds[-1].row(), flush=True)
            shutil.rmtree(folder, ignore_errors=True)
    finally:
        if server is not None:
            server.stop()
    print("\n| store | workers | runs | transitions | seconds | transitions/s | "
          "worker CPU s | server CPU s |\n|---|---|---|---|---|---|---|---|")
    for measured in rounds:
        print(measured.row())
    if statements:
        print(f"\nPostgreSQL time by statement ({counts[-1]} workers, pg_stat_statements):")
        print("\n".join(statements))
    if waits is not None:
        print(f"\nWhat the server's backends were doing ({counts[-1]} workers, "
              f"{sum(waits.counts.values())} samples of pg_stat_activity):")
        print("\n".join(summary(waits.counts)))
    if args.profile and profile.exists():
        print(f"\nOne worker's own CPU samples ({counts[-1]} workers, py-spy):")
        print("\n".join(profile_summary(profile)))
    return 0


def _reset_statements(admin_url: str) -> None:
    import psycopg

    with psycopg.connect(admin_url.rsplit("/", 1)[0] + "/wfr", autocommit=True) as db:
        db.execute("SELECT pg_stat_statements_reset()")


if __name__ == "__main__":
    raise SystemExit(main())
