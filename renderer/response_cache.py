"""Rendered responses by input: a bounded in-memory LRU and the ETag of each request.

A render is a pure function of its input bytes, the file name (which helps detect the
format), the output format, the engine and the layout options, and rendering is
deterministic (same input and options, same bytes), so :func:`response_key` hashes exactly
those, with the package version (an upgrade may draw differently). The key is also the
response's ETag: a client that sends it back in ``If-None-Match`` gets 304 without any work.
Entries are bounded by count and by total bytes; the least recently used go first.

>>> from layouts.options import LayoutOptions
>>> key = response_key(b"digraph { a }", None, "svg", "layered", LayoutOptions())
>>> key == response_key(b"digraph { a }", None, "svg", "layered", LayoutOptions(seed=2))
False
>>> cache = ResponseCache(max_entries=2, max_bytes=100)
>>> for name in "abc":
...     cache.put(name, CachedRender(name.encode()))
>>> cache.get("a"), cache.get("c"), len(cache)
(None, CachedRender(output=b'c', warnings=()), 2)
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections import OrderedDict
from dataclasses import dataclass

from layouts.options import LayoutOptions
from renderer.layout_cache import PACKAGE_VERSION

MAX_ENTRIES = 256
MAX_BYTES = 8 * 1024 * 1024


@dataclass(frozen=True, slots=True)
class CachedRender:
    """A rendered response's body and the layout warnings it answered with."""

    output: bytes
    warnings: tuple[str, ...] = ()

    @property
    def size(self) -> int:
        return len(self.output) + sum(len(w) for w in self.warnings)


def response_key(data: bytes, filename: str | None, fmt: str, engine: str,
                 options: LayoutOptions, given: frozenset[str] = frozenset()) -> str:
    """SHA-256 (hex, 32 digits) of everything a rendered response depends on: ``given``
    names the options the caller set, which win over a document's own."""
    header = json.dumps({"package": PACKAGE_VERSION, "filename": filename, "format": fmt,
                         "engine": engine, "options": options.to_dict(),
                         "given": sorted(given)},
                        sort_keys=True, separators=(",", ":"))
    digest = hashlib.sha256(header.encode("utf-8"))
    digest.update(b"\0")
    digest.update(data)
    return digest.hexdigest()[:32]


def etag_of(key: str) -> str:
    """The strong ETag of a response key.

    >>> etag_of("ab12")
    '"ab12"'
    """
    return f'"{key}"'


def matches(if_none_match: str | None, etag: str) -> bool:
    """Whether an ``If-None-Match`` header names ``etag`` (or is ``*``); weak tags match
    as well (RFC 9110's weak comparison, which If-None-Match uses).

    >>> matches('W/"x", "ab"', '"ab"'), matches('"x"', '"ab"'), matches("*", '"ab"')
    (True, False, True)
    """
    if not if_none_match:
        return False
    tags = [tag.strip().removeprefix("W/") for tag in if_none_match.split(",")]
    return "*" in tags or etag in tags


class ResponseCache:
    """Response bytes by key, the most recent ``max_entries`` within ``max_bytes``;
    thread-safe."""

    def __init__(self, max_entries: int = MAX_ENTRIES, max_bytes: int = MAX_BYTES) -> None:
        self.max_entries = max_entries
        self.max_bytes = max_bytes
        self._entries: OrderedDict[str, CachedRender] = OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()

    def __len__(self) -> int:
        with self._lock:
            return len(self._entries)

    def get(self, key: str) -> CachedRender | None:
        """The render stored under ``key`` (now the most recently used), or ``None``."""
        with self._lock:
            found = self._entries.get(key)
            if found is not None:
                self._entries.move_to_end(key)
            return found

    def put(self, key: str, value: CachedRender) -> None:
        """Keep ``value`` (one larger than ``max_bytes`` is not kept)."""
        if value.size > self.max_bytes:
            return
        with self._lock:
            old = self._entries.pop(key, None)
            self._bytes -= old.size if old is not None else 0
            self._entries[key] = value
            self._bytes += value.size
            while len(self._entries) > self.max_entries or self._bytes > self.max_bytes:
                _, dropped = self._entries.popitem(last=False)
                self._bytes -= dropped.size
