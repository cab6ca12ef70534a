"""The query of a drawing request, read once for every endpoint that draws: ``format``,
``engine`` and the layout options (every other name, checked by the options table).

>>> fmt, engine, options = drawing_query({"format": "json", "direction": "LR"})
>>> fmt.value, engine, options.direction.value
('json', 'layered', 'LeftToRight')
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from layouts.options import LayoutOptions
from layouts.registry import DEFAULT_ENGINE
from renderer.web import RequestProblem
from renderer.writers import OutputFormat

RESERVED_QUERY_NAMES = ("format", "engine")


def parse_format(value: str, formats: Sequence[OutputFormat] = tuple(OutputFormat)
                 ) -> OutputFormat:
    """The output format named by ``value`` if it is one of ``formats``;
    :class:`RequestProblem` 400 otherwise.

    >>> parse_format("elk")
    <OutputFormat.ELK: 'elk'>
    >>> parse_format("dot", (OutputFormat.SVG, OutputFormat.JSON))
    Traceback (most recent call last):
    ...
    renderer.web.RequestProblem: format 'dot' is not one of svg, json
    """
    try:
        found = OutputFormat(value)
    except ValueError:
        found = None
    if found is None or found not in formats:
        choices = ", ".join(f.value for f in formats)
        raise RequestProblem(400, f"format {value!r} is not one of {choices}")
    return found


def render_query(query: Mapping[str, str]) -> tuple[str, LayoutOptions]:
    """Engine and options from the query: every name but ``format`` and ``engine`` is a
    layout option (camelCase, snake_case or kebab-case, validated by the options table).

    >>> engine, options = render_query({"engine": "graphviz", "timeBudget": "2.5"})
    >>> engine, options.time_budget
    ('graphviz', 2.5)
    """
    values = {k: v for k, v in query.items() if k not in RESERVED_QUERY_NAMES}
    return query.get("engine") or DEFAULT_ENGINE, LayoutOptions.from_mapping(values)


def drawing_query(query: Mapping[str, str], formats: Sequence[OutputFormat] = tuple(OutputFormat)
                  ) -> tuple[OutputFormat, str, LayoutOptions]:
    """Format (``svg`` when absent), engine and options of a drawing request."""
    fmt = parse_format(query.get("format", OutputFormat.SVG.value), formats)
    engine, options = render_query(query)
    return fmt, engine, options
