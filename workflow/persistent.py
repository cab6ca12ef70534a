"""Persistent collections for the parts of a run that grow with it: step runs, edge
decisions and processed event keys.

A transition changes a few step runs of a run that may have thousands. With plain dicts
and frozensets every event copied them whole, so applying an event cost time in
proportion to the run. These collections are immutable and share structure: a new
version with one key set or removed costs O(log n) (a hash array mapped trie: Bagwell,
"Ideal Hash Trees", 2001; the ``immutables`` package is CPython's own HAMT, the one
behind :mod:`contextvars`), and the old version stays valid.

:class:`OrderedMap` iterates in insertion order as a dict does (a key set again keeps its
place; one removed and added again goes last), so runs serialize the same way as before.
It compares equal to any mapping with the same items, and :class:`KeySet` to any set.

>>> steps = OrderedMap({"b": 1, "a": 2})
>>> later = steps.apply({"c": 3, "b": 4}, removed=("a",))
>>> list(steps.items()), list(later.items()), later == {"b": 4, "c": 3}
([('b', 1), ('a', 2)], [('b', 4), ('c', 3)], True)
>>> keys = KeySet(["x"]).add("y")
>>> sorted(keys), "y" in keys, keys == {"x", "y"}
(['x', 'y'], True, True)
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Iterator, Mapping, Sequence, Set
from typing import Any, Generic, TypeVar, overload

import immutables

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")
T = TypeVar("T", bound=Hashable)

_MISSING: Any = object()


class OrderedMap(Mapping[K, V], Generic[K, V]):
    """An immutable mapping in insertion order whose :meth:`apply` returns a new version
    in O(log n) per changed key."""

    __slots__ = ("_entries", "_next", "_order")

    _entries: immutables.Map[K, tuple[int, V]]  # key -> (place, value)
    _next: int  # the place of the next new key
    _order: tuple[K, ...] | None  # keys by place, computed on the first iteration

    def __init__(self, items: Mapping[K, V] | Iterable[tuple[K, V]] = ()) -> None:
        pairs = items.items() if isinstance(items, Mapping) else items
        empty: immutables.Map[K, tuple[int, V]] = immutables.Map()
        self._entries, self._next = _with_pairs(empty, 0, pairs, ())
        self._order = None

    @classmethod
    def _made(cls, entries: immutables.Map[K, tuple[int, V]], next_place: int
              ) -> OrderedMap[K, V]:
        made = cls.__new__(cls)
        made._entries, made._next, made._order = entries, next_place, None
        return made

    def apply(self, changes: Mapping[K, V], removed: Iterable[K] = ()) -> OrderedMap[K, V]:
        """A new version: ``removed`` keys dropped, then ``changes`` set (in their order)."""
        entries, next_place = _with_pairs(self._entries, self._next, changes.items(), removed)
        return OrderedMap._made(entries, next_place)

    def place(self, key: K) -> int:
        """Where ``key`` stands in the insertion order (larger: added later)."""
        return self._entries[key][0]

    def __getitem__(self, key: K) -> V:
        return self._entries[key][1]

    def get(self, key: K, default: Any = None) -> Any:
        entry = self._entries.get(key, _MISSING)
        return default if entry is _MISSING else entry[1]

    def __contains__(self, key: object) -> bool:
        return key in self._entries

    def __len__(self) -> int:
        return len(self._entries)

    def __iter__(self) -> Iterator[K]:
        if self._order is None:
            ordered = sorted(self._entries.items(), key=lambda item: item[1][0])
            self._order = tuple(key for key, _ in ordered)
        return iter(self._order)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, OrderedMap) and other._entries is self._entries:
            return True
        if not isinstance(other, Mapping) or len(other) != len(self):
            return NotImplemented if not isinstance(other, Mapping) else False
        return all(other.get(key, _MISSING) == value
                   for key, (_, value) in self._entries.items())

    __hash__ = None  # type: ignore[assignment]  # a mapping, like dict

    def __repr__(self) -> str:
        return f"OrderedMap({dict(self.items())!r})"


def _with_pairs(entries: immutables.Map[K, tuple[int, V]], next_place: int,
                pairs: Iterable[tuple[K, V]], removed: Iterable[K]
                ) -> tuple[immutables.Map[K, tuple[int, V]], int]:
    with entries.mutate() as changing:
        for key in removed:
            changing.pop(key, None)
        for key, value in pairs:
            entry = changing.get(key, _MISSING)
            if entry is _MISSING:
                changing[key] = (next_place, value)
                next_place += 1
            else:
                changing[key] = (entry[0], value)
        made = changing.finish()
    return made, next_place


class KeySet(Set[T], Generic[T]):
    """An immutable set whose :meth:`add` returns a new version in O(log n); iterates in
    sorted order (so it serializes the same way in every process)."""

    __slots__ = ("_keys",)

    _keys: immutables.Map[T, bool]

    def __init__(self, items: Iterable[T] = ()) -> None:
        empty: immutables.Map[T, bool] = immutables.Map()
        with empty.mutate() as changing:
            for item in items:
                changing[item] = True
            self._keys = changing.finish()

    def add(self, item: T) -> KeySet[T]:
        """A new version with ``item`` in it (this one if it already was)."""
        if item in self._keys:
            return self
        made = KeySet.__new__(KeySet)
        made._keys = self._keys.set(item, True)
        return made

    def __contains__(self, item: object) -> bool:
        return item in self._keys

    def __len__(self) -> int:
        return len(self._keys)

    def __iter__(self) -> Iterator[T]:
        return iter(sorted(self._keys))  # type: ignore[type-var]  # keys are text

    def __repr__(self) -> str:
        return f"KeySet({list(self)!r})"

    __hash__ = Set._hash  # hashable like a frozenset


class AppendOnly(Sequence[T], Generic[T]):
    """An immutable sequence whose :meth:`extend` returns a new version in O(log n) per
    item (a completion order, which only ever grows at its end).

    >>> done = AppendOnly(["a"]).extend(["b", "c"])
    >>> list(done), done[-1], done[0:2], done == ("a", "b", "c")
    (['a', 'b', 'c'], 'c', ('a', 'b'), True)
    """

    __slots__ = ("_items", "_length")

    _items: immutables.Map[int, T]
    _length: int

    def __init__(self, items: Iterable[T] = ()) -> None:
        empty: immutables.Map[int, T] = immutables.Map()
        self._items, self._length = _appended(empty, 0, items)

    def extend(self, items: Iterable[T]) -> AppendOnly[T]:
        """A new version with ``items`` added at the end."""
        made = AppendOnly.__new__(AppendOnly)
        made._items, made._length = _appended(self._items, self._length, items)
        return made

    def __len__(self) -> int:
        return self._length

    @overload
    def __getitem__(self, index: int) -> T: ...

    @overload
    def __getitem__(self, index: slice) -> tuple[T, ...]: ...

    def __getitem__(self, index: int | slice) -> T | tuple[T, ...]:
        if isinstance(index, slice):
            return tuple(self._items[i] for i in range(*index.indices(self._length)))
        position = index + self._length if index < 0 else index
        if not 0 <= position < self._length:
            raise IndexError(index)
        return self._items[position]

    def __iter__(self) -> Iterator[T]:
        items = self._items
        return (items[i] for i in range(self._length))

    def __eq__(self, other: object) -> bool:
        if isinstance(other, AppendOnly) and other._items is self._items:
            return True
        if not isinstance(other, Sequence) or isinstance(other, str | bytes):
            return NotImplemented
        return len(other) == self._length and all(a == b for a, b in zip(self, other, strict=True))

    def __hash__(self) -> int:
        return hash(tuple(self))

    def __repr__(self) -> str:
        return f"AppendOnly({list(self)!r})"


def _appended(items: immutables.Map[int, T], length: int, more: Iterable[T]
              ) -> tuple[immutables.Map[int, T], int]:
    with items.mutate() as changing:
        for item in more:
            changing[length] = item
            length += 1
        made = changing.finish()
    return made, length
