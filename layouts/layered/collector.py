"""The cyclic garbage collector paused while a layout runs.

A layout allocates hundreds of thousands of short-lived containers (tuples, lists,
dicts): at 1,000 nodes CPython's collector starts over a dozen full collections during
one layout, each walking every tracked object of the process, about a sixth of the
layout's time. Nearly all of them are freed by reference counting as soon as a step is
done (a layout of 1,000 nodes leaves about 2,000 objects in reference cycles, of the
millions it allocates), so those collections find almost nothing to free: pausing the
collector for the layout saves their time, and the few cycles left are collected once
it runs again. The
collector is enabled again when the outermost layout ends, also when it raises, and
only if it was enabled before; concurrent layouts in threads share one pause (a depth
count under a lock), so the last one out enables it. The collector's own thresholds
and counts are left alone.

>>> import gc
>>> with paused():
...     gc.isenabled()
False
>>> gc.isenabled()
True
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["paused"]

_lock = threading.Lock()
_depth = 0
_was_enabled = False


@contextmanager
def paused() -> Iterator[None]:
    """Run the block with the cyclic garbage collector disabled (see the module)."""
    global _depth, _was_enabled
    with _lock:
        if _depth == 0:
            _was_enabled = gc.isenabled()
            gc.disable()
        _depth += 1
    try:
        yield
    finally:
        with _lock:
            _depth -= 1
            if _depth == 0 and _was_enabled:
                gc.enable()
