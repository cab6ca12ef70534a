"""bench/pg_waits.py: the sampler sees a backend blocked on a row lock as ``lock`` and the
holder, idle in its transaction, as waiting for its client."""

import importlib.util
import sys
import threading
import time
from pathlib import Path

import psycopg

ROOT = Path(__file__).resolve().parents[2]


def _load():
    spec = importlib.util.spec_from_file_location("pg_waits", ROOT / "bench" / "pg_waits.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["pg_waits"] = module
    spec.loader.exec_module(module)
    return module


def test_a_backend_blocked_on_a_row_lock_counts_as_a_lock_wait(pg_server):
    pg_waits = _load()
    url = pg_server.admin_url.rsplit("/", 1)[0] + "/wfr"
    with psycopg.connect(url, autocommit=True) as setup:
        setup.execute("CREATE TABLE IF NOT EXISTS waits_probe (id int PRIMARY KEY, n int)")
        setup.execute("INSERT INTO waits_probe VALUES (1, 0) ON CONFLICT DO NOTHING")
    holder, waiter = psycopg.connect(url), psycopg.connect(url)
    sampler = pg_waits.WaitSampler(pg_server.admin_url, "wfr", interval=0.01)
    try:
        holder.execute("UPDATE waits_probe SET n = n + 1 WHERE id = 1")  # holds the row lock
        blocked = threading.Thread(target=lambda: (
            waiter.execute("UPDATE waits_probe SET n = n + 1 WHERE id = 1"), waiter.commit()))
        blocked.start()
        sampler.start()
        time.sleep(0.5)
        counts = sampler.stop()
        holder.commit()  # lets the waiter through
        blocked.join(10)
    finally:
        holder.close()
        waiter.close()
    # 0.5 s at 10 ms: about 50 samples of each of the two backends
    assert counts.get("lock", 0) >= 10 and counts.get("idle in transaction", 0) >= 10
    assert "running" not in counts  # nothing ran a statement meanwhile
