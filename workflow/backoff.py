"""Exponential backoff with deterministic jitter, for step retries and queue redeliveries.

The delay before try ``n + 1`` after ``n`` failed ones is ``min(cap, base * 2**(n-1))``
stretched by up to ``jitter`` of itself (the "full jitter" family of Brooker,
"Exponential Backoff And Jitter", AWS Architecture Blog, 2015). The jitter is a hash of a
seed (a run and attempt id, a queue row id), not a random draw, so a transition stays a
pure function and tests are reproducible, while different runs still spread out.

>>> [round(exponential_backoff("s", n, base=1.0, cap=8.0, jitter=0.0), 1) for n in range(1, 7)]
[1.0, 2.0, 4.0, 8.0, 8.0, 8.0]
>>> 8.0 <= exponential_backoff("s", 10_000, base=1.0, cap=8.0, jitter=0.25) < 10.0
True
"""

from __future__ import annotations

import hashlib

from workflow.config import DEFAULTS


def jitter_fraction(seed: str) -> float:
    """A number in [0, 1) that depends only on ``seed``.

    >>> jitter_fraction("a") == jitter_fraction("a"), 0.0 <= jitter_fraction("b") < 1.0
    (True, True)
    """
    digest = hashlib.sha256(seed.encode("utf-8", "surrogatepass")).digest()
    return int.from_bytes(digest[:4], "big") / 2**32


def exponential_backoff(seed: str, failures: int, *, base: float, cap: float,
                        jitter: float) -> float:
    """Seconds to wait after ``failures`` (1-based) failed tries; at most ``cap * (1 +
    jitter)`` however many failures (no overflow at any count)."""
    doublings = min(max(failures - 1, 0), 64)
    delay = min(cap, base * 2.0 ** doublings)
    return delay * (1.0 + jitter * jitter_fraction(f"{seed}#{failures}"))


def delivery_backoff(signal_id: str, failures: int) -> float:
    """Seconds before a queue row whose delivery failed ``failures`` times is due again.

    >>> 0.5 <= delivery_backoff("r:start", 1) < 0.625, delivery_backoff("r:start", 99) < 37.5
    (True, True)
    """
    return exponential_backoff(signal_id, failures, base=DEFAULTS.delivery_backoff_seconds,
                               cap=DEFAULTS.delivery_backoff_max_seconds,
                               jitter=DEFAULTS.retry_jitter_fraction)


def conflict_pause(signal_id: str, attempts: int) -> float:
    """Seconds before a row whose run another writer kept changing is applied again: short
    (the run moved on, so there is new work at once), jittered so racing pumps part.

    >>> 0.01 <= conflict_pause("r:start", 3) < 0.05
    True
    """
    return 0.01 + 0.04 * jitter_fraction(f"{signal_id}@{attempts}")
