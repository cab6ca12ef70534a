"""A small JSONLogic evaluator (https://jsonlogic.com), used for Condition steps and edge guards.

Rules are data: a mapping with one operator key whose value is the argument list. Only
recorded outputs and run variables are visible (through ``var``); nothing here calls out.

>>> evaluate({">=": [{"var": "analyse.confidence"}, 0.8]}, {"analyse": {"confidence": 0.9}})
True
>>> evaluate({"if": [{"<": [{"var": "n"}, 2]}, "small", "big"]}, {"n": 5})
'big'
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any


class JsonLogicError(ValueError):
    """A rule is not valid JSONLogic; the message names the problem."""


def parse_rule(text: str) -> object:
    """Parse a rule written as JSON text and check it; raise :class:`JsonLogicError`.

    >>> parse_rule('{"var": "a.b"}')
    {'var': 'a.b'}
    """
    try:
        rule = json.loads(text)
    except json.JSONDecodeError as exc:
        raise JsonLogicError(f"not JSON: {exc.msg} at column {exc.colno}") from None
    check_rule(rule)
    return rule


def check_rule(rule: object) -> None:
    """Raise :class:`JsonLogicError` unless every operator in ``rule`` is known."""
    if isinstance(rule, list):
        for item in rule:
            check_rule(item)
        return
    if not isinstance(rule, dict):
        return
    if len(rule) != 1:
        raise JsonLogicError(f"an operation has exactly one operator key, not {sorted(rule)}")
    (operator, arguments), = rule.items()
    if operator not in OPERATORS and operator not in _LAZY:
        raise JsonLogicError(f"unknown operator {operator!r}")
    check_rule(arguments)


def truthy(value: object) -> bool:
    """JSONLogic truthiness: ``0``, ``""``, ``[]``, ``null`` and ``false`` are false.

    >>> [truthy(v) for v in (0, "", [], None, "0", [0])]
    [False, False, False, False, True, True]
    """
    if isinstance(value, list):
        return len(value) > 0
    return bool(value)


def evaluate(rule: object, data: object) -> Any:
    """Evaluate ``rule`` against ``data``; raise :class:`JsonLogicError` on bad rules."""
    if isinstance(rule, list):
        return [evaluate(item, data) for item in rule]
    if not isinstance(rule, dict):
        return rule
    if len(rule) != 1:
        raise JsonLogicError(f"an operation has exactly one operator key, not {sorted(rule)}")
    (operator, raw), = rule.items()
    arguments = raw if isinstance(raw, list) else [raw]
    lazy = _LAZY.get(operator)
    if lazy is not None:
        return lazy(arguments, data)
    function = OPERATORS.get(operator)
    if function is None:
        raise JsonLogicError(f"unknown operator {operator!r}")
    values = [evaluate(argument, data) for argument in arguments]
    if operator == "var":
        return _var(values, data)
    if operator in ("missing", "missing_some"):
        return _missing(operator, values, data)
    try:
        return function(*values)
    except (TypeError, ValueError, ZeroDivisionError) as exc:
        raise JsonLogicError(f"{operator}: {exc}") from None


_ABSENT = object()


def _lookup(data: object, path: object) -> object:
    if path is None or path == "":
        return data
    current = data
    for part in str(path).split("."):
        if isinstance(current, Mapping) and part in current:
            current = current[part]
        elif isinstance(current, Sequence) and not isinstance(current, str) and part.isdigit():
            index = int(part)
            if index >= len(current):
                return _ABSENT
            current = current[index]
        else:
            return _ABSENT
    return current


def _var(values: list[Any], data: object) -> object:
    path = values[0] if values else None
    found = _lookup(data, path)
    if found is _ABSENT:
        return values[1] if len(values) > 1 else None
    return found


def _missing(operator: str, values: list[Any], data: object) -> list[Any]:
    if operator == "missing_some":
        need, keys = int(values[0]), list(values[1])
        absent = [k for k in keys if _lookup(data, k) in (_ABSENT, None, "")]
        return [] if len(keys) - len(absent) >= need else absent
    keys = values[0] if len(values) == 1 and isinstance(values[0], list) else values
    return [k for k in keys if _lookup(data, k) in (_ABSENT, None, "")]


def _number(value: object) -> float:
    if isinstance(value, bool):
        return 1.0 if value else 0.0
    if isinstance(value, int | float):
        return float(value)
    if value is None:
        return 0.0
    if isinstance(value, str):
        try:
            return float(value) if value.strip() else 0.0
        except ValueError:
            return math.nan
    raise TypeError(f"cannot use {value!r} as a number")


def _tidy(number: float) -> float | int:
    return int(number) if number.is_integer() and abs(number) < 2**53 else number


def _loose_equal(a: object, b: object) -> bool:
    if a is None or b is None:
        return a is None and b is None
    if type(a) is type(b):
        return a == b
    if isinstance(a, list | dict) or isinstance(b, list | dict):
        return a is b
    return _number(a) == _number(b)


def _strict_equal(a: object, b: object) -> bool:
    numeric = (int, float)
    same_number = isinstance(a, numeric) and isinstance(b, numeric)
    bools = isinstance(a, bool) or isinstance(b, bool)
    if same_number and not bools:
        return a == b
    return type(a) is type(b) and a == b


def _compare(test: Callable[[float, float], bool]) -> Callable[..., bool]:
    def compare(*values: object) -> bool:
        if len(values) == 3:
            return compare(values[0], values[1]) and compare(values[1], values[2])
        a, b = values[0], values[1]
        if isinstance(a, str) and isinstance(b, str):
            return _string_test(test, a, b)
        return test(_number(a), _number(b))

    return compare


def _string_test(test: Callable[[float, float], bool], a: str, b: str) -> bool:
    return test(-1.0 if a < b else (1.0 if a > b else 0.0), 0.0)


def _minus(*values: object) -> float | int:
    if len(values) == 1:
        return _tidy(-_number(values[0]))
    return _tidy(_number(values[0]) - _number(values[1]))


def _in(needle: object, haystack: object) -> bool:
    if isinstance(haystack, str):
        return str(needle) in haystack
    if isinstance(haystack, list):
        return needle in haystack
    return False


def _text(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _substr(text: object, start: object, length: object = None) -> str:
    source, begin = _text(text), int(_number(start))
    tail = source[begin:]
    if length is None:
        return tail
    return tail[: int(_number(length))]


def _merge(*values: object) -> list[object]:
    merged: list[object] = []
    for value in values:
        merged.extend(value if isinstance(value, list) else [value])
    return merged


OPERATORS: Mapping[str, Callable[..., Any]] = {
    "var": lambda *v: None,
    "missing": lambda *v: None,
    "missing_some": lambda *v: None,
    "==": _loose_equal,
    "!=": lambda a, b: not _loose_equal(a, b),
    "===": _strict_equal,
    "!==": lambda a, b: not _strict_equal(a, b),
    "!": lambda *v: not truthy(v[0] if v else None),
    "!!": lambda *v: truthy(v[0] if v else None),
    ">": _compare(lambda a, b: a > b),
    ">=": _compare(lambda a, b: a >= b),
    "<": _compare(lambda a, b: a < b),
    "<=": _compare(lambda a, b: a <= b),
    "+": lambda *v: _tidy(sum(_number(x) for x in v)),
    "*": lambda *v: _tidy(math.prod(_number(x) for x in v)),
    "-": _minus,
    "/": lambda a, b: _tidy(_number(a) / _number(b)),
    "%": lambda a, b: _tidy(math.fmod(_number(a), _number(b))),
    "min": lambda *v: _tidy(min(_number(x) for x in v)) if v else None,
    "max": lambda *v: _tidy(max(_number(x) for x in v)) if v else None,
    "cat": lambda *v: "".join(_text(x) for x in v),
    "substr": _substr,
    "in": _in,
    "merge": _merge,
}


def _if(arguments: list[Any], data: object) -> Any:
    for index in range(0, len(arguments) - 1, 2):
        if truthy(evaluate(arguments[index], data)):
            return evaluate(arguments[index + 1], data)
    return evaluate(arguments[-1], data) if len(arguments) % 2 == 1 else None


def _and(arguments: list[Any], data: object) -> Any:
    value: Any = None
    for argument in arguments:
        value = evaluate(argument, data)
        if not truthy(value):
            return value
    return value


def _or(arguments: list[Any], data: object) -> Any:
    value: Any = None
    for argument in arguments:
        value = evaluate(argument, data)
        if truthy(value):
            return value
    return value


_LAZY: Mapping[str, Callable[[list[Any], object], Any]] = {
    "if": _if, "?:": _if, "and": _and, "or": _or,
}
