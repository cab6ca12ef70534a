"""The guarded document reading of :mod:`workflow.documents`: its one-walk check of a tree
(no YAML alias) must refuse exactly what the exact count refuses, and skipping the
surrogate walk must never let a lone surrogate through."""

from __future__ import annotations

import pytest

from workflow.documents import (
    DocumentError,
    DocumentLimits,
    check_document,
    may_hold_surrogates,
    parse_document,
)

LIMITS = DocumentLimits(max_bytes=10_000, max_values=6, max_depth=3)


def nested(levels: int) -> object:
    """``levels`` lists inside each other around one value: ``[[[1]]]`` for 3."""
    value: object = 1
    for _ in range(levels):
        value = [value]
    return value


def test_a_tree_at_the_depth_limit_passes_and_one_level_more_is_refused() -> None:
    check_document(nested(3), limits=LIMITS)  # 3 levels of lists: max_depth 3
    with pytest.raises(DocumentError, match="more than 3 levels"):
        check_document(nested(4), limits=LIMITS)


def test_a_tree_at_the_value_limit_passes_and_one_value_more_is_refused() -> None:
    # {"a": [1, 2], "b": [3, 4]}: 2 keys' values + 2 + 2 list items = 6 values
    check_document({"a": [1, 2], "b": [3, 4]}, limits=LIMITS)
    with pytest.raises(DocumentError, match="expands to more than 6 values"):
        check_document({"a": [1, 2], "b": [3, 4, 5]}, limits=LIMITS)


def test_shared_parts_are_counted_as_often_as_they_are_reached() -> None:
    # "b" holds the 3-item list twice: 2 + 2 * 3 = 8 values expanded, over 6, although
    # only 2 + 3 = 5 distinct values exist
    shared = [1, 2, 3]
    with pytest.raises(DocumentError, match="expands to more than 6 values"):
        check_document({"a": shared, "b": shared}, limits=LIMITS)


def test_a_yaml_anchor_used_twice_is_counted_expanded() -> None:
    text = "a: &x [1, 2, 3]\nb: *x\n"
    with pytest.raises(DocumentError, match="expands to more than 6 values"):
        parse_document(text, limits=LIMITS)


@pytest.mark.parametrize("text", [
    '{"id": "\\ud800"}',   # a JSON escape
    'id: "\\ud800"',       # a YAML double-quoted escape (libyaml refuses it itself)
    'id: "\\U0000dfff"',   # YAML's 8-digit escape
    '{"id": "\ud800"}',    # the surrogate itself in the text (str input)
])
def test_a_lone_surrogate_is_refused_however_it_is_written(text: str) -> None:
    assert may_hold_surrogates(text)
    with pytest.raises(DocumentError, match=r"lone surrogate|invalid Unicode"):
        parse_document(text)


def test_text_without_escapes_or_surrogates_skips_the_walk() -> None:
    assert not may_hold_surrogates('{"id": "café ⋈"}')
    assert parse_document('{"id": "café ⋈"}') == {"id": "café ⋈"}


TRICKY_YAML = [
    "a: plain\nb: 'quoted'\nc: \"double\"\nd: |\n  block\ne: >\n  folded\n",
    "n: [1, 0x1f, 0o17, 1_000, 1:30, -2, .5, 1e3, .inf, .nan, ~, null, yes, No, true]",
    "s: [!!str 1, !!str true, '1', \"0x10\", !!str ~, '']",
    "base: &b {x: 1, y: two}\nuse: {<<: *b, y: three}\nlist: [&s shared, *s, *s]",
    "d: 2020-01-02\nt: 2001-12-14t21:59:43.10-05:00\nbin: !!binary aGVsbG8=",
    "? long key\n: value\nset: !!set {a, b}\nomap: !!omap [{a: 1}, {b: 2}]",
    "self: &r [1, *r]",
    "",
]


@pytest.mark.parametrize("text", TRICKY_YAML)
def test_the_loader_reads_what_pyyamls_pure_python_safe_loader_reads(text: str) -> None:
    import math

    import yaml

    from workflow.documents import SAFE_LOADER

    def same(a: object, b: object, seen: set[int]) -> bool:  # NaN-aware, cycle-safe equality
        if id(a) in seen:
            return True
        if isinstance(a, float) and isinstance(b, float) and math.isnan(a):
            return math.isnan(b)
        if isinstance(a, list | tuple) and type(a) is type(b):
            seen.add(id(a))
            return len(a) == len(b) and all(same(x, y, seen) for x, y in zip(a, b, strict=True))
        if isinstance(a, dict) and isinstance(b, dict):
            seen.add(id(a))
            return list(a) == list(b) and all(same(a[k], b[k], seen) for k in a)
        return type(a) is type(b) and a == b

    ours, reference = (yaml.load(text, Loader=SAFE_LOADER), yaml.load(text, Loader=yaml.SafeLoader))
    assert same(ours, reference, set())


def test_an_aliased_string_is_one_object_as_pyyaml_makes_it() -> None:
    import yaml

    from workflow.documents import SAFE_LOADER

    values = yaml.load("[&s shared, *s]", Loader=SAFE_LOADER)
    assert values == ["shared", "shared"] and values[0] is values[1]
