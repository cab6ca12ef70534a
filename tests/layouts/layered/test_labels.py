"""Label rows: labels keep their x next to their edge and take the first free row."""

from __future__ import annotations

from itertools import combinations

from layouts.layered.labels import LabelRequest, LabelRows, arrange_labels, label_box


def boxes_overlap(a: tuple[float, float, float, float], b: tuple[float, float, float, float]
                  ) -> bool:
    return a[0] < b[0] + b[2] and b[0] < a[0] + a[2] and a[1] < b[1] + b[3] and b[1] < a[1] + a[3]


def test_labels_far_apart_share_the_first_row() -> None:
    rows = arrange_labels([LabelRequest(0, 1, 0, 40, 10), LabelRequest(1, 1, 100, 40, 10)],
                          gap=4)
    # 0 + 40 + 4 <= 100: same row, 4 px below the channel top; channel needs 4 + 10 + 4
    assert rows == LabelRows({0: 4.0, 1: 4.0}, {1: 18.0})


def test_overlapping_labels_stack_and_reuse_freed_rows() -> None:
    reqs = [LabelRequest(0, 2, 0, 50, 10), LabelRequest(1, 2, 20, 50, 10),
            LabelRequest(2, 2, 60, 50, 10)]
    rows = arrange_labels(reqs, gap=4)
    # 20 < 0 + 50 + 4: row 2 (y 4 + 14 = 18); 60 >= 54: back to row 1 (y 4)
    assert rows.offsets == {0: 4.0, 1: 18.0, 2: 4.0}
    assert rows.heights == {2: 4 + 2 * (10 + 4)}


def test_channels_are_arranged_independently() -> None:
    rows = arrange_labels([LabelRequest(0, 1, 0, 50, 10), LabelRequest(1, 3, 0, 50, 12)],
                          gap=4)
    assert rows.offsets == {0: 4.0, 1: 4.0}
    assert rows.heights == {1: 18.0, 3: 20.0}


def test_placed_label_boxes_never_overlap() -> None:
    reqs = [LabelRequest(k, 1, x, 45, 12) for k, x in enumerate([0, 10, 20, 30, 55, 70, 200])]
    rows = arrange_labels(reqs)
    placed = [label_box(r, 100.0, rows) for r in reqs]
    for a, b in combinations(placed, 2):
        assert not boxes_overlap((a.x, a.y, a.width, a.height), (b.x, b.y, b.width, b.height))
    assert all(box.x == r.x for box, r in zip(placed, reqs, strict=True))
    assert min(box.y for box in placed) == 100 + 4
