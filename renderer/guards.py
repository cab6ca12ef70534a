"""Readable short forms of JSONLogic guards, for edge labels.

Common operators print as infix expressions; anything else prints as compact JSON.
Guards that are not JSON (``else``, ``compensate``) print as written. Long labels are
cut at :data:`MAX_LABEL_LENGTH` characters with an ellipsis.

>>> guard_label('{"==": [{"var": "classify.type"}, "invoice"]}')
'classify.type == "invoice"'
>>> guard_label("else"), guard_label("true")
('else', 'true')
>>> guard_label('{"and": [{">=": [{"var": "x"}, 0.9]}, {"!": {"var": "y"}}]}')
'x >= 0.9 and not y'
"""

from __future__ import annotations

import json
from collections.abc import Mapping

MAX_LABEL_LENGTH = 48

INFIX_OPERATORS: Mapping[str, str] = {
    "==": "==", "===": "==", "!=": "!=", "!==": "!=",
    "<": "<", "<=": "<=", ">": ">", ">=": ">=",
    "in": "in", "+": "+", "-": "-", "*": "*", "/": "/", "%": "%",
}
JOINING_OPERATORS: Mapping[str, str] = {"and": " and ", "or": " or "}


def guard_label(guard: str | None) -> str | None:
    """The short, readable form of a guard (``None`` stays ``None``).

    >>> guard_label('{"in": [{"var": "status"}, ["ok", "done"]]}')
    'status in ["ok","done"]'
    """
    if guard is None:
        return None
    try:
        parsed = json.loads(guard)
    except (json.JSONDecodeError, RecursionError):
        return _shorten(guard.strip())
    return _shorten(_expression(parsed, top=True))


def _shorten(text: str) -> str:
    one_line = " ".join(text.split())
    if len(one_line) <= MAX_LABEL_LENGTH:
        return one_line
    return one_line[: MAX_LABEL_LENGTH - 1] + "…"


def _expression(value: object, *, top: bool = False) -> str:
    if isinstance(value, Mapping) and len(value) == 1:
        operator, arguments = next(iter(value.items()))
        text = _operation(str(operator), arguments)
        if text is not None:
            needs_parentheses = operator in JOINING_OPERATORS and not top
            return f"({text})" if needs_parentheses else text
    if isinstance(value, str) and top:
        return value
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def _operation(operator: str, arguments: object) -> str | None:
    items = list(arguments) if isinstance(arguments, list) else [arguments]
    if operator == "var" and items and isinstance(items[0], str | int):
        return str(items[0])
    if operator == "!" and len(items) == 1:
        return "not " + _expression(items[0])
    if operator == "!!" and len(items) == 1:
        return "bool " + _expression(items[0])
    if operator in INFIX_OPERATORS and len(items) == 2:
        left, right = (_expression(item) for item in items)
        return f"{left} {INFIX_OPERATORS[operator]} {right}"
    if operator in JOINING_OPERATORS and items:
        return JOINING_OPERATORS[operator].join(_expression(item) for item in items)
    return None
