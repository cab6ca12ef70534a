"""Layout options, declared once as data.

:data:`OPTION_TABLE` is the single declaration: validation (:meth:`LayoutOptions.from_mapping`),
the JSON Schema (:func:`options_json_schema`), the CLI flags and the docs all come from it.
Each provider maps these options to its own names in one function.

>>> opts = LayoutOptions.from_mapping({"direction": "LR", "effort": "Best"})
>>> opts.direction, opts.effort
(<Direction.LEFT_TO_RIGHT: 'LeftToRight'>, <Effort.BEST: 'best'>)
>>> opts.clearance
12.0
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, fields, replace
from enum import StrEnum
from typing import Any, TypeVar

from layouts.errors import InvalidOptionError

E = TypeVar("E", bound=StrEnum)


class Direction(StrEnum):
    """Main flow direction of the drawing."""

    TOP_TO_BOTTOM = "TopToBottom"
    LEFT_TO_RIGHT = "LeftToRight"
    BOTTOM_TO_TOP = "BottomToTop"
    RIGHT_TO_LEFT = "RightToLeft"


class Effort(StrEnum):
    """How much fixed, deterministic work an engine spends on quality."""

    DRAFT = "draft"
    BALANCED = "balanced"
    BEST = "best"


class LoopBackRoute(StrEnum):
    """How the layered engine draws loop-back (reversed) edges."""

    AUTO = "auto"
    OUTSIDE = "outside"


DIRECTION_ALIASES: Mapping[str, Direction] = {
    "toptobottom": Direction.TOP_TO_BOTTOM,
    "tb": Direction.TOP_TO_BOTTOM,
    "down": Direction.TOP_TO_BOTTOM,
    "lefttoright": Direction.LEFT_TO_RIGHT,
    "lr": Direction.LEFT_TO_RIGHT,
    "right": Direction.LEFT_TO_RIGHT,
    "bottomtotop": Direction.BOTTOM_TO_TOP,
    "bt": Direction.BOTTOM_TO_TOP,
    "up": Direction.BOTTOM_TO_TOP,
    "righttoleft": Direction.RIGHT_TO_LEFT,
    "rl": Direction.RIGHT_TO_LEFT,
    "left": Direction.RIGHT_TO_LEFT,
}


def parse_direction(value: object) -> Direction:
    """Accept ``TopToBottom|LeftToRight|BottomToTop|RightToLeft``, Graphviz's
    ``TB|LR|BT|RL`` and ELK's ``DOWN|RIGHT|UP|LEFT``, case-insensitively.

    >>> parse_direction("down"), parse_direction("UP").value
    (<Direction.TOP_TO_BOTTOM: 'TopToBottom'>, 'BottomToTop')
    """
    if isinstance(value, Direction):
        return value
    key = str(value).strip().lower().replace("_", "").replace("-", "")
    if key not in DIRECTION_ALIASES:
        raise InvalidOptionError(
            f"direction {value!r} is not one of TopToBottom, LeftToRight, BottomToTop, "
            "RightToLeft, TB, LR, BT, RL, DOWN, RIGHT, UP, LEFT",
            option="direction",
        )
    return DIRECTION_ALIASES[key]


def _lower_case_choice(kind: type[E], option: str, value: object) -> E:
    """``value`` as a member of the lower-case string enum ``kind``, case-insensitively;
    otherwise an :class:`InvalidOptionError` naming ``option`` and the choices."""
    if isinstance(value, kind):
        return value
    try:
        return kind(str(value).strip().lower())
    except ValueError:
        choices = ", ".join(member.value for member in kind)
        raise InvalidOptionError(f"{option} {value!r} is not one of {choices}",
                                 option=option) from None


def parse_effort(value: object) -> Effort:
    """Accept ``draft|balanced|best`` case-insensitively.

    >>> parse_effort("Best")
    <Effort.BEST: 'best'>
    """
    return _lower_case_choice(Effort, "effort", value)


def parse_loop_back_route(value: object) -> LoopBackRoute:
    """Accept ``auto|outside`` case-insensitively.

    >>> parse_loop_back_route("Outside")
    <LoopBackRoute.OUTSIDE: 'outside'>
    """
    return _lower_case_choice(LoopBackRoute, "loop_back_route", value)


@dataclass(frozen=True, slots=True)
class OptionSpec:
    """One declared option: its name, JSON type, default, bounds and meaning."""

    name: str
    json_type: str
    default: Any
    description: str
    choices: tuple[str, ...] = ()
    minimum: float | None = None
    maximum: float | None = None
    parse: Callable[[object], Any] | None = None


def _number(spec_name: str, minimum: float, maximum: float) -> Callable[[object], float]:
    def parse(value: object) -> float:
        if isinstance(value, bool):
            raise InvalidOptionError(f"{spec_name} must be a number", option=spec_name)
        try:
            number = float(value)  # type: ignore[arg-type]
        except (TypeError, ValueError):
            raise InvalidOptionError(
                f"{spec_name} {value!r} is not a number", option=spec_name
            ) from None
        if not math.isfinite(number) or not minimum <= number <= maximum:
            raise InvalidOptionError(
                f"{spec_name} {value!r} must be between {minimum:g} and {maximum:g}",
                option=spec_name,
            )
        return number

    return parse


def _integer(spec_name: str, minimum: int, maximum: int) -> Callable[[object], int]:
    def parse(value: object) -> int:
        if isinstance(value, bool):
            raise InvalidOptionError(f"{spec_name} must be an integer", option=spec_name)
        try:
            number = int(str(value), 10)
        except ValueError:
            raise InvalidOptionError(
                f"{spec_name} {value!r} is not an integer", option=spec_name
            ) from None
        if not minimum <= number <= maximum:
            raise InvalidOptionError(
                f"{spec_name} {value!r} must be between {minimum} and {maximum}",
                option=spec_name,
            )
        return number

    return parse


OPTION_TABLE: tuple[OptionSpec, ...] = (
    OptionSpec("direction", "string", Direction.TOP_TO_BOTTOM,
               "Main flow direction; aliases TB, LR, BT, RL and DOWN, RIGHT, UP, LEFT are "
               "accepted.",
               choices=tuple(d.value for d in Direction), parse=parse_direction),
    OptionSpec("effort", "string", Effort.BALANCED,
               "Amount of fixed, deterministic optimisation work.",
               choices=tuple(e.value for e in Effort), parse=parse_effort),
    OptionSpec("node_spacing", "number", 40.0,
               "Gap between neighbouring nodes of one layer, in px.",
               minimum=1.0, maximum=1000.0, parse=_number("node_spacing", 1.0, 1000.0)),
    OptionSpec("layer_spacing", "number", 60.0,
               "Gap between consecutive layers, in px.",
               minimum=1.0, maximum=1000.0, parse=_number("layer_spacing", 1.0, 1000.0)),
    OptionSpec("edge_spacing", "number", 12.0,
               "Gap between parallel edge segments, in px.",
               minimum=1.0, maximum=200.0, parse=_number("edge_spacing", 1.0, 200.0)),
    OptionSpec("clearance", "number", 12.0,
               "Smallest gap between an edge segment and a node it does not touch, in px.",
               minimum=0.0, maximum=200.0, parse=_number("clearance", 0.0, 200.0)),
    OptionSpec("time_budget", "number", 10.0,
               "Seconds an engine may spend; past it the engine returns its best layout so "
               "far (or fails with a timeout where it cannot stop early).",
               minimum=0.001, maximum=600.0, parse=_number("time_budget", 0.001, 600.0)),
    OptionSpec("seed", "integer", 0,
               "Seed of every randomised step, so layouts are reproducible.",
               minimum=0, maximum=2**31 - 1, parse=_integer("seed", 0, 2**31 - 1)),
    OptionSpec("loop_back_route", "string", LoopBackRoute.AUTO,
               "Layered engine: 'outside' draws every loop-back around the side of the "
               "drawing; 'auto' draws loop-backs up a lane between the columns where that "
               "saves crossings (two loop-backs whose layer ranges interleave), and beside "
               "the column of their loop where that is shorter, crosses no more and "
               "draws no wider.",
               choices=tuple(r.value for r in LoopBackRoute), parse=parse_loop_back_route),
    OptionSpec("aspect_ratio", "number", 1.6,
               "Layered engine: the width / height the drawing aims at when it packs "
               "disconnected components (each laid out on its own) into rows.",
               minimum=0.1, maximum=10.0, parse=_number("aspect_ratio", 0.1, 10.0)),
)

OPTION_SPECS: Mapping[str, OptionSpec] = {spec.name: spec for spec in OPTION_TABLE}


def camel_case(name: str) -> str:
    """The camelCase JSON spelling of a snake_case name.

    >>> camel_case("time_budget")
    'timeBudget'
    """
    head, *rest = name.split("_")
    return head + "".join(part.title() for part in rest)


_NAME_LOOKUP: Mapping[str, str] = {
    **{spec.name: spec.name for spec in OPTION_TABLE},
    **{camel_case(spec.name): spec.name for spec in OPTION_TABLE},
    **{spec.name.replace("_", "-"): spec.name for spec in OPTION_TABLE},
}


def given_names(values: Mapping[str, object]) -> frozenset[str]:
    """The table names of the options ``values`` sets (any spelling; ``None`` sets none).

    >>> sorted(given_names({"nodeSpacing": 3, "layer-spacing": 4, "seed": None, "x": 1}))
    ['layer_spacing', 'node_spacing']
    """
    return frozenset(_NAME_LOOKUP[name] for name, value in values.items()
                     if value is not None and name in _NAME_LOOKUP)


@dataclass(frozen=True, slots=True)
class LayoutOptions:
    """Validated layout options; build them with :meth:`from_mapping` or the constructor."""

    direction: Direction = Direction.TOP_TO_BOTTOM
    effort: Effort = Effort.BALANCED
    node_spacing: float = 40.0
    layer_spacing: float = 60.0
    edge_spacing: float = 12.0
    clearance: float = 12.0
    time_budget: float = 10.0
    seed: int = 0
    loop_back_route: LoopBackRoute = LoopBackRoute.AUTO
    aspect_ratio: float = 1.6

    @classmethod
    def from_mapping(cls, values: Mapping[str, object]) -> LayoutOptions:
        """Validate ``values`` (snake_case, camelCase or kebab-case names) against the table.

        >>> LayoutOptions.from_mapping({"nodeSpacing": 30}).node_spacing
        30.0
        """
        parsed: dict[str, Any] = {}
        for raw_name, value in values.items():
            name = _NAME_LOOKUP.get(raw_name)
            if name is None:
                known = ", ".join(spec.name for spec in OPTION_TABLE)
                raise InvalidOptionError(
                    f"unknown layout option {raw_name!r}; known options: {known}",
                    option=raw_name,
                )
            if value is None:
                continue
            parse = OPTION_SPECS[name].parse
            parsed[name] = parse(value) if parse else value
        return cls(**parsed)

    def with_changes(self, **changes: object) -> LayoutOptions:
        """A copy with some options changed and validated."""
        merged = {f.name: getattr(self, f.name) for f in fields(self)}
        merged.update(changes)
        return replace(self, **LayoutOptions.from_mapping(merged).to_dict_native())

    def to_dict_native(self) -> dict[str, Any]:
        """Field values as Python objects (enums kept)."""
        return {f.name: getattr(self, f.name) for f in fields(self)}

    def to_dict(self) -> dict[str, Any]:
        """Field values as JSON-ready values."""
        return {
            name: value.value if isinstance(value, StrEnum) else value
            for name, value in self.to_dict_native().items()
        }


def options_json_schema() -> dict[str, Any]:
    """JSON Schema of the layout options, generated from :data:`OPTION_TABLE`."""
    properties: dict[str, Any] = {}
    for spec in OPTION_TABLE:
        prop: dict[str, Any] = {"type": spec.json_type, "description": spec.description}
        default = spec.default.value if isinstance(spec.default, StrEnum) else spec.default
        prop["default"] = default
        if spec.choices:
            prop["enum"] = list(spec.choices)
        if spec.minimum is not None:
            prop["minimum"] = spec.minimum
        if spec.maximum is not None:
            prop["maximum"] = spec.maximum
        properties[spec.name] = prop
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "LayoutOptions",
        "type": "object",
        "properties": properties,
        "additionalProperties": False,
    }
