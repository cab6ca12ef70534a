import pytest

from layouts.errors import InvalidOptionError
from layouts.options import (
    OPTION_TABLE,
    Direction,
    Effort,
    LayoutOptions,
    options_json_schema,
    parse_direction,
)


@pytest.mark.parametrize(
    ("alias", "expected"),
    [("TB", Direction.TOP_TO_BOTTOM), ("down", Direction.TOP_TO_BOTTOM),
     ("TopToBottom", Direction.TOP_TO_BOTTOM), ("LR", Direction.LEFT_TO_RIGHT),
     ("RIGHT", Direction.LEFT_TO_RIGHT), ("lefttoright", Direction.LEFT_TO_RIGHT)],
)
def test_direction_aliases(alias: str, expected: Direction) -> None:
    assert parse_direction(alias) is expected


def test_defaults_match_the_declared_table() -> None:
    defaults = LayoutOptions()
    for spec in OPTION_TABLE:
        assert getattr(defaults, spec.name) == spec.default, spec.name
    assert defaults.clearance == 12.0


def test_from_mapping_accepts_camel_and_kebab_names() -> None:
    opts = LayoutOptions.from_mapping(
        {"nodeSpacing": "30", "layer-spacing": 80, "effort": "BEST", "timeBudget": 2}
    )
    assert (opts.node_spacing, opts.layer_spacing, opts.effort, opts.time_budget) == (
        30.0, 80.0, Effort.BEST, 2.0)


@pytest.mark.parametrize(
    ("values", "option"),
    [({"direction": "sideways"}, "direction"), ({"effort": "max"}, "effort"),
     ({"node_spacing": -1}, "node_spacing"), ({"time_budget": "nan"}, "time_budget"),
     ({"seed": 1.5}, "seed"), ({"bogus": 1}, "bogus"), ({"clearance": True}, "clearance")],
)
def test_bad_values_name_the_option(values: dict[str, object], option: str) -> None:
    with pytest.raises(InvalidOptionError) as info:
        LayoutOptions.from_mapping(values)
    assert info.value.option == option
    assert option in str(info.value)


def test_with_changes_validates_and_keeps_the_rest() -> None:
    base = LayoutOptions(node_spacing=33)
    changed = base.with_changes(direction="LR")
    assert changed.direction is Direction.LEFT_TO_RIGHT
    assert changed.node_spacing == 33
    assert base.direction is Direction.TOP_TO_BOTTOM
    with pytest.raises(InvalidOptionError):
        base.with_changes(direction="sideways")


def test_schema_is_generated_from_the_table() -> None:
    schema = options_json_schema()
    assert set(schema["properties"]) == {spec.name for spec in OPTION_TABLE}
    assert schema["properties"]["effort"]["enum"] == ["draft", "balanced", "best"]
    assert schema["properties"]["clearance"]["default"] == 12.0
