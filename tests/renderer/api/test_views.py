"""The record views' time text against the standard library's own reading of a timestamp."""

from __future__ import annotations

import datetime

from hypothesis import given
from hypothesis import strategies as st

from renderer.api.views import iso_time

FIRST = datetime.datetime(1, 1, 1, tzinfo=datetime.UTC).timestamp()
LAST = datetime.datetime(9999, 12, 31, 23, 59, 58, tzinfo=datetime.UTC).timestamp()


def reference(seconds: float) -> str:
    """What ``datetime`` makes of the timestamp, cut to milliseconds."""
    moment = datetime.datetime.fromtimestamp(seconds, tz=datetime.UTC)
    return (f"{moment.year:04d}-{moment.month:02d}-{moment.day:02d}T{moment.hour:02d}:"
            f"{moment.minute:02d}:{moment.second:02d}.{moment.microsecond // 1000:03d}Z")


@given(st.floats(min_value=FIRST, max_value=LAST))
def test_iso_time_reads_a_timestamp_as_datetime_does(seconds: float) -> None:
    assert iso_time(seconds) == reference(seconds)


@given(st.integers(min_value=0, max_value=4_000_000_000), st.integers(0, 999_999))
def test_iso_time_rounds_microseconds_as_datetime_does(second: int, micros: int) -> None:
    # a fraction near a rounding edge (x.9999995 rounds up into the next second)
    seconds = second + micros / 1e6 + 5e-7
    assert iso_time(seconds) == reference(seconds)


def test_none_stays_none() -> None:
    assert iso_time(None) is None
