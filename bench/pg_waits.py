"""What a PostgreSQL server's client backends are doing, sampled while a bench round runs.

:class:`WaitSampler` polls ``pg_stat_activity`` every ``interval`` seconds from its own
connection and counts, per backend of one database, whether it was running a statement
(on a CPU, or runnable), waiting for a lock, for the WAL (its commit's flush, or the
WAL's own lock), for other I/O, or for its client (the worker's turn: idle in a
transaction, or reading the next statement of a pipeline). Connections not in a
transaction (``idle``: a pool's spare ones, the listeners) and the sampler's own backend
are left out; its polling
costs the server a little CPU, so ``bench/transitions.py`` samples only with ``--waits``.

>>> summary({"running": 6, "lock": 2, "wal": 2})
['    60.0%  running', '    20.0%  lock', '    20.0%  wal']
"""

from __future__ import annotations

import collections
import threading

QUERY = """
SELECT state, wait_event_type, wait_event FROM pg_stat_activity
WHERE datname = %s AND backend_type = 'client backend' AND pid <> pg_backend_pid()
"""


def category(state: str | None, wait_type: str | None, wait_event: str | None) -> str:
    """One sample's category.

    >>> category("active", None, None), category("active", "Lock", "transactionid")
    ('running', 'lock')
    >>> category("active", "IO", "WalSync"), category("active", "LWLock", "WALWrite")
    ('wal', 'wal')
    >>> category("idle in transaction", "Client", "ClientRead")
    'idle in transaction'
    >>> category("active", "Client", "ClientRead")
    'Client (ClientRead)'
    """
    if state != "active":
        return state or "idle"
    if wait_type is None:
        return "running"
    if wait_type == "Lock":
        return "lock"
    if "WAL" in (wait_event or "").upper() or wait_event == "SyncRep":
        return "wal"
    return f"{wait_type} ({wait_event})"


def summary(counts: dict[str, int]) -> list[str]:
    """The share of each category, largest first."""
    total = sum(counts.values()) or 1
    return [f"  {100 * n / total:6.1f}%  {name}"
            for name, n in sorted(counts.items(), key=lambda item: (-item[1], item[0]))]


class WaitSampler:
    """Samples ``database``'s backends (``admin_url``: a superuser's, which sees every
    backend's wait) until :meth:`stop`."""

    def __init__(self, admin_url: str, database: str, interval: float = 0.01) -> None:
        self.admin_url, self.database, self.interval = admin_url, database, interval
        self.counts: collections.Counter[str] = collections.Counter()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="pg-waits", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> dict[str, int]:
        """Stop sampling; the counts per category."""
        self._stop.set()
        self._thread.join(10)
        return dict(self.counts)

    def _loop(self) -> None:
        import psycopg

        url = self.admin_url.rsplit("/", 1)[0] + f"/{self.database}"
        with psycopg.connect(url, autocommit=True) as db:
            while not self._stop.wait(self.interval):
                for row in db.execute(QUERY, (self.database,)).fetchall():
                    if row[0] != "idle":
                        self.counts[category(*row)] += 1
