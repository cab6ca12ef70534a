"""Label room in placement: a labelled edge's first dummy keeps its label's width free on
its right, so the label fits beside the dummy's vertical (:mod:`layouts.layered.label_room`)."""

from __future__ import annotations

from pathlib import Path

from layouts.layered.label_room import label_room
from layouts.layered.labels import LABEL_GAP
from layouts.layered.pipeline import prepare
from layouts.options import LayoutOptions
from renderer import corpus

SKIP_HUB = Path(__file__).parent / "label_graphs" / "skip-hub.gv"


def test_only_the_first_dummy_of_a_labelled_forward_edge_gets_room() -> None:
    stages = prepare(corpus.file_graph(SKIP_HUB), LayoutOptions())
    proper = stages.proper
    room = label_room(proper, 12)
    labelled = [e for e in proper.chain_edges if e.label_width > 0]
    # four labelled edges, Hub -> Left/Centre/Right (twice), each skipping Mid's layer
    assert len(labelled) == 4 and all(len(e.chain) == 1 for e in labelled)
    assert room == {proper.index[e.chain[0]]: e.label_width + 2 * LABEL_GAP + 1
                    for e in labelled}
    assert not any(proper.index[e.chain[0]] in room for e in proper.chain_edges
                   if e.label_width <= 0 and e.chain)


def test_placement_keeps_the_room_free_right_of_each_labelled_dummy() -> None:
    stages = prepare(corpus.file_graph(SKIP_HUB), LayoutOptions())
    placement = stages.placement
    checked = 0
    for edge in (e for e in placement.edges if e.label_width > 0):
        dummy = placement.nodes[edge.chain[0]]
        layer = placement.layers[dummy.layer]
        if dummy.order + 1 == len(layer):
            continue
        right = placement.nodes[layer[dummy.order + 1]]
        # the dummy is a point at its x; the next box starts at right.x
        assert right.x - dummy.x >= edge.label_width + 2 * LABEL_GAP + 1 - 1e-9
        checked += 1
    assert checked >= 3      # of four labelled dummies in one layer, all but the last
