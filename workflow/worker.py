"""A worker process: pumps one SQLite store's queue with the demo executors.

``python -m workflow.worker --db FILE [--simulate-time] [--clock-offset SECONDS]
[--lease-seconds SECONDS]``.
It honours ``WFR_CRASH_AT`` (see :mod:`workflow.pump`), which the crash tests use to kill
it with SIGKILL between claim and commit or between commit and acknowledge.
"""

from __future__ import annotations

import argparse
import time

from workflow.config import DEFAULTS
from workflow.demo import demo_executors
from workflow.engine import Engine
from workflow.pump import CrashHook, pump
from workflow.sqlite_store import SqliteStore


def main(argv: list[str] | None = None) -> int:
    """Pump until nothing is due; print how many queue rows were handled."""
    parser = argparse.ArgumentParser(prog="python -m workflow.worker")
    parser.add_argument("--db", default="workflow.db")
    parser.add_argument("--simulate-time", action="store_true")
    parser.add_argument("--clock-offset", type=float, default=0.0)
    parser.add_argument("--lease-seconds", type=float, default=DEFAULTS.lease_seconds)
    args = parser.parse_args(argv)
    store = SqliteStore(args.db)
    engine = Engine(store, demo_executors(), clock=lambda: time.time() + args.clock_offset)
    handled = pump(engine, simulate_time=args.simulate_time, hook=CrashHook.from_environment(),
                   lease_seconds=args.lease_seconds)
    store.close()
    print(handled)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
