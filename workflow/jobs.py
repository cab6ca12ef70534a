"""Singleton jobs of the workers sharing a store: each pass runs in one worker at a time.

:func:`every` starts a daemon thread that, every ``seconds``, takes the job's singleton
lock (:func:`workflow.stores.singleton`: a PostgreSQL advisory lock, so one worker among
all those of the database; always granted on other stores) and runs the pass if it got
it. The reconciler and retention run this way in ``wfr worker``.

>>> import threading
>>> from workflow.store import MemoryStore
>>> done, stop = threading.Event(), threading.Event()
>>> thread = every(MemoryStore(), "doc", 0.01, done.set, stop)
>>> done.wait(5.0)
True
>>> stop.set(); thread.join(5.0); thread.is_alive()
False
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

LOGGER = logging.getLogger(__name__)


def every(store: object, job: str, seconds: float, run_pass: Callable[[], None],
          stop: threading.Event) -> threading.Thread:
    """Run ``run_pass`` every ``seconds`` as the singleton ``job`` until ``stop`` is set."""
    from workflow.stores import singleton

    def loop() -> None:
        while not stop.wait(seconds):
            try:
                with singleton(store, job) as held:
                    if held:
                        run_pass()
            except Exception:  # the store failed; try again next time
                LOGGER.exception("%s: the pass failed", job)

    thread = threading.Thread(target=loop, name=job, daemon=True)
    thread.start()
    return thread
