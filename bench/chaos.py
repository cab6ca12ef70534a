"""kill -9 chaos test of several workers on one store (PostgreSQL or an SQLite file).

``python bench/chaos.py --db postgresql://... --workers 4 --runs 500 --kill-every 2``
starts the workers as separate OS processes, starts the runs (the reference workflow
``fixtures/document-processing.yaml`` with the demo executors), and ``kill -9``s a random
worker every ``--kill-every`` seconds, starting a new one in its place, until every run has
finished. The script answers the human decisions (``--review-fraction`` of the runs are
given a low confidence, so their ``review`` step asks for one), and seeds a poison executor
into ``--poison-fraction`` of the runs: their ``notifier`` raises
:class:`~workflow.executors.DeliveryError` until the script "fixes" it (a marker file), so
their dispatch is dead-lettered after the delivery budget; once every other run has
finished the script fixes the executor and replays every dead letter.

Then it checks, from the store: every run finished (and Completed); no step transition
applied twice (each (run, step, iteration, attempt) succeeded at most once, and no run was
created or finished twice in the outbox); no signal lost (nothing left in the queue or the
dead letters). It prints ``chaos: runs=... finished=... kills=... duplicates=... lost=...
dead_lettered=... replayed=...`` and exits 1 on any loss, duplicate or unfinished run.

Two deviations from the fixture, both for time: the 30-minute ``settle-window`` timer waits
``--timer-seconds`` (default 0.5) instead, and workers lease rows for ``--lease-seconds``
(default 5, the engine's default is 30), so a row a killed worker held is taken over
within seconds. A PostgreSQL run uses a new schema (``chaos_<random>``, dropped at the end
unless ``--keep``); an SQLite run needs a file that does not exist yet.
"""

from __future__ import annotations

import argparse
import collections
import os
import random
import signal
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from workflow.definitions import VersionConflictError  # noqa: E402
from workflow.demo import DEMO_OUTPUTS, demo_definitions  # noqa: E402
from workflow.dsl import Definition, load_definition_text  # noqa: E402
from workflow.engine import Engine, EngineError  # noqa: E402
from workflow.executors import DeliveryError, ExecutorRegistry  # noqa: E402
from workflow.model import Json, RunState  # noqa: E402
from workflow.store import ConcurrentTransitionError, OutboxEntry, TaskStatus  # noqa: E402
from workflow.stores import ServiceStore, is_postgres, open_store  # noqa: E402

REFERENCE = ROOT / "fixtures" / "document-processing.yaml"
WORKFLOW, VERSION = "document-processing", "1.0.0"
CONFIDENT = ("vendor-registry", "tax-validator", "duplicate-detector")


def chaos_definition(timer_seconds: float) -> Definition:
    """The reference workflow with its settle-window timer shortened."""
    text = REFERENCE.read_text(encoding="utf-8")
    shortened = text.replace("delayMinutes: 30 }", f"delayMinutes: {timer_seconds / 60.0!r} }}")
    if shortened == text:
        raise SystemExit("chaos: the reference workflow's settle-window timer was not found")
    return load_definition_text(shortened)


def chaos_executors(fixed_marker: Path) -> ExecutorRegistry:
    """The demo executors, with the run input's ``confidence`` (review when low) and a
    ``notifier`` that is down for ``poison`` runs until ``fixed_marker`` exists."""

    def fixed(output: Json) -> object:
        return lambda payload: output

    def confident(name: str) -> object:
        def executor(payload: Json) -> Json:
            run_input = payload.get("input") if isinstance(payload, dict) else None
            level = run_input.get("confidence", 0.95) if isinstance(run_input, dict) else 0.95
            return {**dict(DEMO_OUTPUTS[name]), "confidence": level}  # type: ignore[arg-type]
        return executor

    def notifier(payload: Json) -> Json:
        run_input = payload.get("input") if isinstance(payload, dict) else None
        if isinstance(run_input, dict) and run_input.get("poison") and not fixed_marker.exists():
            raise DeliveryError("poison: the notifier is down for this run")
        return DEMO_OUTPUTS["notifier"]

    executors: dict[str, object] = {name: fixed(output) for name, output in DEMO_OUTPUTS.items()}
    executors.update({name: confident(name) for name in CONFIDENT})
    executors["notifier"] = notifier
    return ExecutorRegistry(executors)  # type: ignore[arg-type]


# --- a worker process ------------------------------------------------------------------------

def worker_main(db: str, marker: Path, *, concurrency: int, lease_seconds: float,
                reconcile_every: float, ready: Path | None = None) -> int:
    """Pump ``db`` until SIGTERM (or SIGKILL, which is the point). With ``ready`` (a
    folder), say so there once the store is open and wait for its ``go`` file to start."""
    from workflow.background import PumpThread
    from workflow.reconciler import reconcile_periodically
    from workflow.stores import listen_for_signals

    store = open_store(db, max_connections=concurrency + 2)
    engine = Engine(store, chaos_executors(marker), clock=time.time)
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    if ready is not None:
        (ready / f"ready-{os.getpid()}").touch()
        while not (ready / "go").exists() and not stop.wait(0.01):
            pass
    pumps = [PumpThread(engine, owner=f"chaos-{os.getpid()}-{i}", lease_seconds=lease_seconds)
             for i in range(concurrency)]
    for pump in pumps:
        pump.start()

    def wake() -> None:
        for pump in pumps:
            pump.wake()

    listen_for_signals(store, wake, stop)
    if reconcile_every > 0:
        reconcile_periodically(engine, stop, every=reconcile_every)
    stop.wait()
    for pump in pumps:
        pump.stop()
    store.close()
    return 0


@dataclass
class Workers:
    """The worker processes, restarted after each kill."""

    db: str
    marker: Path
    concurrency: int
    lease_seconds: float
    reconcile_every: float
    processes: list[subprocess.Popen[bytes]]
    ready: Path | None = None

    @classmethod
    def start(cls, count: int, db: str, marker: Path, *, concurrency: int = 1,
              lease_seconds: float = 5.0, reconcile_every: float = 10.0,
              ready: Path | None = None) -> Workers:
        workers = cls(db, marker, concurrency, lease_seconds, reconcile_every, [], ready)
        workers.processes = [workers._spawn() for _ in range(count)]
        return workers

    def _spawn(self) -> subprocess.Popen[bytes]:
        environment = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), *sys.path])}
        return subprocess.Popen(
            [sys.executable, str(Path(__file__).resolve()), "--worker", "--db", self.db,
             "--marker", str(self.marker), "--concurrency", str(self.concurrency),
             "--lease-seconds", str(self.lease_seconds),
             "--reconcile-every", str(self.reconcile_every),
             *(() if self.ready is None else ("--ready", str(self.ready)))],
            env=environment, stdin=subprocess.DEVNULL)

    def kill_one(self, chooser: random.Random) -> None:
        """``kill -9`` a random worker and start a new one in its place."""
        index = chooser.randrange(len(self.processes))
        victim = self.processes[index]
        victim.send_signal(signal.SIGKILL)
        victim.wait()
        self.processes[index] = self._spawn()

    def died(self) -> str | None:
        """Why a worker ended by itself (a crash at start, say), if one did."""
        for process in self.processes:
            code = process.poll()
            if code is not None:
                return f"a worker exited by itself with code {code}"
        return None

    def stop(self) -> None:
        """SIGTERM every worker and wait for it (SIGKILL after 20 s)."""
        for process in self.processes:
            process.send_signal(signal.SIGTERM)
        for process in self.processes:
            try:
                process.wait(20)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


# --- the checks ----------------------------------------------------------------------------

def duplicate_transitions(entries: Iterable[OutboxEntry]) -> int:
    """Outbox rows that record a transition a second time: a step attempt that succeeded
    twice (each ``step.succeeded`` belongs to the attempt its last ``step.started`` named),
    or a run created or finished twice.

    >>> e = lambda seq, kind, step=None, detail=None: OutboxEntry(seq, "r", kind, step, detail, 0.0)
    >>> duplicate_transitions([e(1, "run.created"), e(2, "step.started", "a", "a@0.1"),
    ...                        e(3, "step.succeeded", "a"), e(4, "step.started", "a", "a@1.1"),
    ...                        e(5, "step.succeeded", "a"), e(6, "run.completed")])
    0
    >>> duplicate_transitions([e(1, "step.started", "a", "a@0.1"), e(2, "step.succeeded", "a"),
    ...                        e(3, "step.succeeded", "a"), e(4, "run.created"),
    ...                        e(5, "run.created")])
    2
    """
    attempt: dict[tuple[str, str], str] = {}
    seen: collections.Counter[tuple[str, ...]] = collections.Counter()
    for entry in sorted(entries, key=lambda e: e.seq):
        if entry.kind == "step.started" and entry.step_id is not None:
            attempt[(entry.run_id, entry.step_id)] = entry.detail or ""
        elif entry.kind == "step.succeeded" and entry.step_id is not None:
            seen[(entry.run_id, "succeeded", entry.step_id,
                  attempt.get((entry.run_id, entry.step_id), "?"))] += 1
        elif entry.kind in ("run.created", "run.completed", "run.failed", "run.cancelled"):
            seen[(entry.run_id, "created" if entry.kind == "run.created" else "finished")] += 1
    return sum(count - 1 for count in seen.values() if count > 1)


@dataclass(frozen=True)
class Verdict:
    """What the store says after the chaos."""

    runs: int
    finished: int
    completed: int
    duplicates: int
    lost: int

    def line(self, kills: int, dead_lettered: int, replayed: int) -> str:
        return (f"chaos: runs={self.runs} finished={self.finished} kills={kills} "
                f"duplicates={self.duplicates} lost={self.lost} dead_lettered={dead_lettered} "
                f"replayed={replayed}")


def verdict(store: ServiceStore, started: set[str]) -> Verdict:
    """Count finished runs, duplicate transitions and signals neither done nor dead."""
    runs = {run.run_id: run for run in store.list_runs()}
    mine = [runs[run_id] for run_id in started if run_id in runs]
    finished = sum(run.state.is_finished for run in mine)
    completed = sum(run.state is RunState.COMPLETED for run in mine)
    lost = len(store.pending()) + len(store.dead_letters()) + (len(started) - len(mine))
    return Verdict(len(started), finished, completed, duplicate_transitions(store.outbox()), lost)


# --- the driver ----------------------------------------------------------------------------

@dataclass
class Chaos:
    """One chaos run's state."""

    store: ServiceStore
    engine: Engine
    started: set[str]
    poisoned: set[str]
    kills: int = 0
    dead_lettered: int = 0
    replayed: int = 0
    fixed: bool = False
    decided: int = 0
    errors: collections.Counter[str] = field(default_factory=collections.Counter)

    def answer_tasks(self) -> None:
        """Approve every open review task (a racing duplicate is a conflict, ignored)."""
        for task in self.store.tasks("default", status=TaskStatus.OPEN, limit=200).items:
            try:
                self.engine.complete_task(task.task_id, "approve", tenant="default",
                                          actor="chaos")
                self.decided += 1
            except (EngineError, ConcurrentTransitionError):
                continue

    def unfinished(self) -> int:
        counts = self.store.run_counts()
        done = sum(n for _, workflow, state, n in counts
                   if workflow == WORKFLOW and RunState(state).is_finished)
        return len(self.started) - done

    def replay_dead_letters(self, marker: Path) -> None:
        """Once only poison runs are left: fix the executor, replay every dead letter."""
        letters = self.store.dead_letters()
        if not self.fixed:
            blocked = {letter.run_id for letter in letters}
            if not letters or not self.poisoned <= blocked or self.unfinished() > len(blocked):
                return
            marker.touch()
            self.fixed = True
        for letter in letters:
            self.errors[letter.error.split(":")[0][:60]] += 1
            self.dead_lettered += 1
            self.store.replay(letter.signal_id, now=time.time())
            self.replayed += 1


def run_chaos(args: argparse.Namespace, out: object = sys.stdout) -> int:
    db, cleanup = _fresh_target(args.db, keep=args.keep)
    chooser = random.Random(args.seed)
    folder = Path(tempfile.mkdtemp(prefix="wfr-chaos-"))
    marker = folder / "notifier-fixed"
    store = open_store(db)
    engine = Engine(store, chaos_executors(marker), clock=time.time)
    for extra in demo_definitions():
        engine.register(extra)
    try:
        engine.register(chaos_definition(args.timer_seconds))
    except VersionConflictError as error:
        raise SystemExit(f"chaos: {error}") from None
    poison = set(chooser.sample(range(args.runs), max(1, round(args.runs * args.poison_fraction))
                                if args.poison_fraction > 0 else 0))
    review = {i for i in range(args.runs) if chooser.random() < args.review_fraction}
    workers = Workers.start(args.workers, db, marker, concurrency=args.concurrency,
                            lease_seconds=args.lease_seconds,
                            reconcile_every=args.reconcile_every)
    chaos = Chaos(store, engine, set(), set())
    began = time.monotonic()
    try:
        for i in range(args.runs):
            run = engine.start(WORKFLOW, VERSION, {"confidence": 0.5 if i in review else 0.95,
                                                   "poison": i in poison, "n": i})
            chaos.started.add(run.run_id)
            if i in poison:
                chaos.poisoned.add(run.run_id)
        next_kill = time.monotonic() + args.kill_every
        while chaos.unfinished() > 0 or (chaos.fixed and store.dead_letters()):
            failure = workers.died()
            if failure is not None:
                print(f"chaos: {failure}", file=sys.stderr)
                break
            if time.monotonic() - began > args.max_seconds:
                print(f"chaos: gave up after {args.max_seconds:g} s", file=sys.stderr)
                break
            if args.kill_every > 0 and time.monotonic() >= next_kill and (
                    args.max_kills is None or chaos.kills < args.max_kills):
                workers.kill_one(chooser)
                chaos.kills += 1
                next_kill += args.kill_every
            chaos.answer_tasks()
            chaos.replay_dead_letters(marker)
            time.sleep(0.1)
        _settle(store)
    finally:
        workers.stop()
    seconds = time.monotonic() - began
    result = verdict(store, chaos.started)
    print(f"chaos: {args.workers} workers on {store.path}: {result.completed} of "
          f"{result.runs} runs completed in {seconds:.1f} s; {chaos.decided} reviews approved; "
          f"{len(chaos.poisoned)} runs poisoned; dead letters: "
          f"{dict(chaos.errors) or 'none'}", file=out)  # type: ignore[call-overload]
    print(result.line(chaos.kills, chaos.dead_lettered, chaos.replayed), file=out)  # type: ignore[call-overload]
    store.close()
    cleanup()
    ok = (result.finished == result.completed == result.runs and result.duplicates == 0
          and result.lost == 0 and chaos.dead_lettered == chaos.replayed)
    return 0 if ok else 1


def _settle(store: ServiceStore, seconds: float = 10.0) -> None:
    """Wait (briefly) for the queue to drain after the last run finished."""
    deadline = time.monotonic() + seconds
    while store.pending() and time.monotonic() < deadline:
        time.sleep(0.1)


def _fresh_target(db: str, *, keep: bool) -> tuple[str, object]:
    """A PostgreSQL URL with a new schema (dropped afterwards unless ``keep``), or an SQLite
    file that must not exist yet."""
    if is_postgres(db):
        from workflow.postgres_store import split_schema

        base, _ = split_schema(db)
        schema = f"chaos_{uuid.uuid4().hex[:10]}"
        separator = "&" if "?" in base else "?"

        def drop() -> None:
            if keep:
                return
            import psycopg

            with psycopg.connect(base, autocommit=True) as connection:
                connection.execute(f"DROP SCHEMA IF EXISTS {schema} CASCADE".encode())

        return f"{base}{separator}schema={schema}", drop
    if Path(db).exists():
        raise SystemExit(f"chaos: {db} exists; the chaos test needs a new SQLite file")
    return db, lambda: None


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="bench/chaos.py", description=__doc__.split("\n\n")[0])
    p.add_argument("--db", required=True, help="postgresql://... URL or a new SQLite file")
    p.add_argument("--workers", type=int, default=4, help="worker processes (default 4)")
    p.add_argument("--concurrency", type=int, default=1, help="pump threads per worker")
    p.add_argument("--runs", type=int, default=500, help="runs to start (default 500)")
    p.add_argument("--kill-every", type=float, default=2.0, metavar="SECONDS",
                   help="kill -9 a random worker this often (default 2; 0: never)")
    p.add_argument("--max-kills", type=int, default=None,
                   help="stop killing after this many kills (default: kill until the end)")
    p.add_argument("--poison-fraction", type=float, default=0.01,
                   help="share of runs whose notifier is down until fixed (default 0.01)")
    p.add_argument("--review-fraction", type=float, default=0.1,
                   help="share of runs that wait for a review decision (default 0.1)")
    p.add_argument("--timer-seconds", type=float, default=0.5,
                   help="the settle-window timer's wait (the fixture's is 30 minutes)")
    p.add_argument("--lease-seconds", type=float, default=5.0,
                   help="how long a worker's claim lasts (default 5)")
    p.add_argument("--reconcile-every", type=float, default=10.0,
                   help="each worker's reconciler interval (default 10 s)")
    p.add_argument("--max-seconds", type=float, default=900.0,
                   help="give up (and fail) after this long (default 900)")
    p.add_argument("--seed", type=int, default=12)
    p.add_argument("--keep", action="store_true", help="keep the PostgreSQL schema")
    p.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--marker", default="", help=argparse.SUPPRESS)
    p.add_argument("--ready", default="", help=argparse.SUPPRESS)
    return p


def main(argv: list[str] | None = None, out: object = sys.stdout) -> int:
    args = parser().parse_args(argv)
    if args.worker:
        return worker_main(args.db, Path(args.marker), concurrency=args.concurrency,
                           lease_seconds=args.lease_seconds,
                           reconcile_every=args.reconcile_every,
                           ready=Path(args.ready) if args.ready else None)
    if args.workers < 1 or args.runs < 1:
        parser().error("--workers and --runs must be at least 1")
    return run_chaos(args, out)


if __name__ == "__main__":
    raise SystemExit(main())
