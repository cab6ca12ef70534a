"""Placeholder replaced below."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from layouts.layered.model import Deadline
from layouts.options import LayoutOptions
from layouts.result import EdgeRoute, NodeBox


def repair_routes(routes: Sequence[EdgeRoute], boxes: Mapping[str, NodeBox],
                  options: LayoutOptions, deadline: Deadline) -> list[EdgeRoute]:
    return list(routes)
