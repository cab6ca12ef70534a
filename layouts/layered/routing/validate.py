"""Check a :class:`~layouts.layered.model.Placement` before routing it, so bad input gets
a typed error that names the problem instead of a crash deep inside routing.

>>> from layouts.layered.model import ChainEdge, Placement
>>> bad = Placement({}, (), (ChainEdge("e", "a", "b", "a", "b", (), False, False),), 40, 60)
>>> try:
...     validate_placement(bad)
... except RoutingInputError as error:
...     print(error)
edge 'e' names node 'a', which is not placed
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping

from layouts.errors import LayoutError
from layouts.layered.model import ChainEdge, PlacedNode, Placement


class RoutingInputError(LayoutError, ValueError):
    """The placement handed to routing is inconsistent; the message names what."""


def _check_nodes(placement: Placement) -> None:
    listed: set[str] = set()
    for layer_index, layer in enumerate(placement.layers):
        for _order, node_id in enumerate(layer):
            node = placement.nodes.get(node_id)
            if node is None:
                raise RoutingInputError(f"layer {layer_index} lists unknown node '{node_id}'")
            if node.layer != layer_index or node_id in listed:
                raise RoutingInputError(f"node '{node_id}' is listed in the wrong layer or twice")
            listed.add(node_id)
            values = (node.x, node.y, node.width, node.height)
            if not all(math.isfinite(v) for v in values) or node.width < 0 or node.height < 0:
                raise RoutingInputError(f"node '{node_id}' has a non-finite or negative box")
    missing = sorted(set(placement.nodes) - listed)
    if missing:
        raise RoutingInputError(f"node '{missing[0]}' is in no layer")


def _check_edges(placement: Placement) -> None:
    nodes = placement.nodes
    for edge in placement.edges:
        for node_id in (edge.upper, edge.lower, *edge.chain):
            if node_id not in nodes:
                raise RoutingInputError(
                    f"edge '{edge.id}' names node '{node_id}', which is not placed")
        if {edge.source, edge.target} != {edge.upper, edge.lower}:
            raise RoutingInputError(f"edge '{edge.id}' has ends that differ from upper/lower")
        if edge.upper == edge.lower:
            continue
        if (edge.source, edge.target) != ((edge.lower, edge.upper) if edge.reversed
                                          else (edge.upper, edge.lower)):
            raise RoutingInputError(
                f"edge '{edge.id}': source/target do not match upper/lower and 'reversed'")
        if edge.lane:
            _check_lane(edge, nodes)
            continue
        layers = [nodes[n].layer for n in (edge.upper, *edge.chain, edge.lower)]
        if any(b != a + 1 for a, b in itertools.pairwise(layers)):
            if edge.reversed and nodes[edge.upper].layer < nodes[edge.lower].layer:
                continue  # a reversed edge ignores its chain: it runs in a corridor
            raise RoutingInputError(
                f"edge '{edge.id}' does not step down one layer at a time: layers {layers}")


def _check_lane(edge: ChainEdge, nodes: Mapping[str, PlacedNode]) -> None:
    """A lane steps down one layer at a time from the upper node's layer to the lower's."""
    layers = [nodes[n].layer for n in edge.chain]
    expected = list(range(nodes[edge.upper].layer, nodes[edge.lower].layer + 1))
    if not edge.reversed or layers != expected:
        raise RoutingInputError(
            f"edge '{edge.id}': its lane covers layers {layers}, not {expected}")


def validate_placement(placement: Placement) -> None:
    """Raise :class:`RoutingInputError` on the first inconsistency found."""
    _check_edges(placement)
    _check_nodes(placement)
