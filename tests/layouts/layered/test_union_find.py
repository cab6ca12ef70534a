"""The one-pass root finding of the two union-finds (layering's components, compaction's
units), held to networkx's connected components on random joins."""

from __future__ import annotations

import random

import networkx as nx
import pytest

from layouts.layered.compaction.scene import Kind, Scene
from layouts.layered.layering import components


def _random_pairs(seed: int, count: int) -> list[tuple[int, int]]:
    rng = random.Random(seed)
    return [(rng.randrange(count), rng.randrange(count)) for _ in range(count * 2 // 3)]


def _expected_members(count: int, pairs: list[tuple[int, int]]) -> list[set[int]]:
    g = nx.Graph()
    g.add_nodes_from(range(count))
    g.add_edges_from(pairs)
    return [set(c) for c in nx.connected_components(g)]


@pytest.mark.parametrize("seed", range(20))
def test_components_are_networkx_components_numbered_by_first_member(seed: int) -> None:
    count = 40
    pairs = _random_pairs(seed, count)
    numbers = components(count, pairs)
    expected = sorted(_expected_members(count, pairs), key=min)   # model order of first
    assert numbers == [next(i for i, c in enumerate(expected) if v in c)
                       for v in range(count)]


@pytest.mark.parametrize("seed", range(20))
def test_units_are_networkx_components_represented_by_their_smallest(seed: int) -> None:
    count = 40
    pairs = _random_pairs(seed, count)
    scene = Scene()
    for i in range(count):
        scene.add(Kind.RUN, i, i, 0, 1)
    for a, b in pairs[: len(pairs) // 2]:
        scene.join(a, b)
    scene.unit(count - 1)                  # a find between joins compresses some paths
    for a, b in pairs[len(pairs) // 2:]:
        scene.join(a, b)
    members = _expected_members(count, pairs)
    expected = [min(next(c for c in members if v in c)) for v in range(count)]
    assert scene.units() == expected
    assert [scene.unit(v) for v in range(count)] == expected   # still right afterwards
