"""The lane trial's measure from placement centres
(:func:`layouts.layered.loopbacks.lane_drawing.measure_centres`) is the measure of the
built placement (:func:`measure`), to the last bit, so the trial decides as it did when
it built both placements: on the fixtures and generated graphs, with corridors only and
with lanes."""

from __future__ import annotations

import pytest

from layouts.graph import Graph
from layouts.layered import placement
from layouts.layered.loopbacks.lane_drawing import measure, measure_centres
from layouts.layered.pipeline import prepare
from layouts.options import Effort, LayoutOptions, LoopBackRoute
from renderer import corpus


def graphs() -> list[tuple[str, Graph]]:
    found = [(path.stem, corpus.file_diagram(path).graph) for path in corpus.fixture_paths()]
    return found + [(f"generated-{n}-{seed}", corpus.generated_graph(n, seed))
                    for n, seed in ((50, 1), (120, 2), (200, 3))]


@pytest.mark.parametrize("route", [LoopBackRoute.OUTSIDE, LoopBackRoute.AUTO])
def test_centres_measure_as_the_built_placement(route: LoopBackRoute) -> None:
    options = LayoutOptions(effort=Effort.DRAFT, loop_back_route=route)
    measured = 0
    for name, graph in graphs():
        stages = prepare(graph, options)
        if not stages.proper.nodes:
            continue
        centre = placement.centres(stages.proper, stages.order, options)
        built = placement.placed(stages.proper, stages.order, options, centre)
        assert built == placement.run(stages.proper, stages.order, options), name
        assert measure_centres(stages.proper, stages.order, centre, options) \
            == measure(stages.proper, built, options), name
        measured += 1
    assert measured >= 4
