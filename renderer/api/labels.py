"""Bounded Prometheus label values: user-supplied names cannot grow the series count.

Every distinct label value is a new time series, so values that come from users (tenant
and workflow names, raw paths) go through a :class:`BoundedLabel`: it cleans each value
to a short printable string and lets only the first ``limit`` distinct values through;
later ones are all counted as ``_other``.

>>> tenants = BoundedLabel(limit=2, max_length=8)
>>> [tenants(t) for t in ("acme", "globex", "acme", "initech", " big\\ncorp inc. ")]
['acme', 'globex', 'acme', '_other', '_other']
>>> clean_label(" big\\ncorp inc. ", 8), clean_label("", 8)
('big_corp', '_empty')
"""

from __future__ import annotations

import threading

OTHER = "_other"
"""The value every label value beyond the bound is counted as."""

EMPTY = "_empty"
"""The value an empty (or all-blank) label value is counted as."""

DEFAULT_MAX_LENGTH = 64


def clean_label(value: object, max_length: int = DEFAULT_MAX_LENGTH) -> str:
    """``value`` as a label value: stripped, each whitespace run or unprintable character
    made ``_``, cut to ``max_length`` characters; ``_empty`` when nothing is left."""
    text = str(value).strip()
    cleaned, last_blank = [], False
    for char in text:
        blank = char.isspace() or not char.isprintable()
        if not (blank and last_blank):
            cleaned.append("_" if blank else char)
        last_blank = blank
    return "".join(cleaned)[:max_length] or EMPTY


class BoundedLabel:
    """Maps user-supplied values to at most ``limit`` distinct cleaned label values (plus
    ``_other``). Thread-safe: the first ``limit`` values seen keep their slot for the
    life of the object."""

    def __init__(self, limit: int = 200, max_length: int = DEFAULT_MAX_LENGTH) -> None:
        if limit < 0 or max_length < 1:
            raise ValueError("BoundedLabel needs limit >= 0 and max_length >= 1")
        self.limit, self.max_length = limit, max_length
        self._seen: set[str] = set()
        self._lock = threading.Lock()

    def __call__(self, value: object) -> str:
        label = clean_label(value, self.max_length)
        with self._lock:
            if label in self._seen:
                return label
            if len(self._seen) < self.limit:
                self._seen.add(label)
                return label
        return OTHER

    def __len__(self) -> int:
        """How many distinct values hold a slot."""
        with self._lock:
            return len(self._seen)
