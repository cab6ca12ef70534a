"""Sizes and boxes of a DOT record label's fields, shared by the reader (node size) and
the SVG writer (field boxes and separators), so text always fits what was measured.

A group lays its children side by side when ``horizontal``, else stacked; each nested
group flips. Spare room is shared out in proportion to the natural sizes.

>>> from renderer.dot_labels import parse_record
>>> root = parse_record("a|b")
>>> w, h = natural_size(root, horizontal=True)
>>> boxes = [box for box, _ in field_boxes(root, Box(0, 0, 2 * w, h), True)]
>>> round(sum(b.width for b in boxes), 6) == round(2 * w, 6), boxes[1].x == boxes[0].width
(True, True)
"""

from __future__ import annotations

from layouts.result import Box
from renderer.dot_labels import RecordField
from renderer.fonts import measure_text
from renderer.styles import DOT_LABEL_TEXT

FIELD_PADDING_X = 8.0
FIELD_PADDING_Y = 4.0
"""Graphviz's default node margin (0.11 x 0.055 in) in px, around each field's text."""


def leaf_size(text: str) -> tuple[float, float]:
    """A leaf field: its text plus padding (an empty field keeps one line's height)."""
    width, height = measure_text(text or " ", DOT_LABEL_TEXT.size, bold=DOT_LABEL_TEXT.bold)
    return width + 2 * FIELD_PADDING_X, height + 2 * FIELD_PADDING_Y


def natural_size(field: RecordField, horizontal: bool) -> tuple[float, float]:
    """The smallest box that shows every field of ``field`` (a group or a leaf)."""
    if not field.children:
        return leaf_size(field.text)
    sizes = [natural_size(child, not horizontal) for child in field.children]
    if horizontal:
        return sum(w for w, _ in sizes), max(h for _, h in sizes)
    return max(w for w, _ in sizes), sum(h for _, h in sizes)


def field_boxes(field: RecordField, box: Box, horizontal: bool
                ) -> list[tuple[Box, RecordField]]:
    """Every leaf field with its box inside ``box``, in reading order."""
    if not field.children:
        return [(box, field)]
    sizes = [natural_size(child, not horizontal) for child in field.children]
    total = sum(w if horizontal else h for w, h in sizes) or 1.0
    span = box.width if horizontal else box.height
    out: list[tuple[Box, RecordField]] = []
    offset = 0.0
    for child, (w, h) in zip(field.children, sizes, strict=True):
        share = (w if horizontal else h) / total * span
        child_box = (Box(box.x + offset, box.y, share, box.height) if horizontal
                     else Box(box.x, box.y + offset, box.width, share))
        out += field_boxes(child, child_box, not horizontal)
        offset += share
    return out
