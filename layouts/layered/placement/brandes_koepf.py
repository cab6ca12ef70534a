"""Horizontal coordinates by Brandes and Koepf (2001), "Fast and simple horizontal
coordinate assignment", GD 2001, LNCS 2265, with the two-pass compaction of dagre's
implementation (a second pass moves blocks into unused space, the kind of fix
Brandes, Walter and Zink (2020), "Erratum: Fast and simple horizontal coordinate
assignment", discuss).

Four alignments (up/down x left/right) each align every node with a median neighbour into
vertical blocks, avoiding type-1 conflicts (a segment crossing an inner segment between two
dummies, so dummy chains stay straight), then compact the blocks with the given
separations. Before the medians, every alignment aligns the priority segments of
:mod:`.priority` (the main chains, through the middle of fans), and avoids every segment
that crosses one or shares an end with one, so those chains are straight in all four.
The four are aligned to the narrowest and balanced by the average of the two median
candidates per node; a final sweep restores any separation that averaging broke.

>>> layers = ((0,), (1, 2))
>>> up = [[], [0], [0]]
>>> down = [[1, 2], [], []]
>>> x = horizontal_coordinates(layers, up, down, lambda a, b: 10.0)
>>> x[0] == (x[1] + x[2]) / 2, x[2] - x[1]
(True, 10.0)
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from itertools import pairwise

from layouts.layered.graph import layer_positions
from layouts.layered.placement.ports import Ports
from layouts.layered.placement.priority import blocked_segments, priority_segments

Separation = Callable[[int, int], float]
"""Smallest centre distance between two neighbours of one layer (left, right)."""


def type1_conflicts(layers: Sequence[Sequence[int]], up: Sequence[Sequence[int]],
                    is_dummy: Sequence[bool], pos: Sequence[int]) -> set[tuple[int, int]]:
    """Segments ``(upper, lower)`` that cross an inner (dummy-dummy) segment."""
    conflicts: set[tuple[int, int]] = set()
    for i in range(1, len(layers)):
        layer = layers[i]
        previous_length = len(layers[i - 1])
        k0 = 0
        scan = 0
        for j, v in enumerate(layer):
            w = next((u for u in up[v] if is_dummy[u]), -1) if is_dummy[v] else -1
            if w == -1 and j != len(layer) - 1:
                continue
            k1 = pos[w] if w != -1 else previous_length
            for scan_node in layer[scan:j + 1]:
                for u in up[scan_node]:
                    if (pos[u] < k0 or k1 < pos[u]) and not (is_dummy[u] and is_dummy[scan_node]):
                        conflicts.add((u, scan_node))
            scan = j + 1
            k0 = k1
    return conflicts


def _vertical_alignment(layers: Sequence[Sequence[int]], neighbours: Sequence[Sequence[int]],
                        conflicts: set[tuple[int, int]], forced: Mapping[int, int],
                        node_count: int, upward: bool, ports: Ports | None
                        ) -> tuple[list[int], list[float]]:
    """Root of each node's block when aligning with median ``neighbours`` (each node's
    neighbours in the order of ``layers``: see :func:`_ordered`) or with the ``forced``
    one, a priority segment's other end, and each node's x shift from its root that puts
    the aligned segments' ports one above the other (all 0 without ports)."""
    shift = [0.0] * node_count
    root = list(range(node_count))
    pos = layer_positions(layers, node_count)
    forced_get = forced.get
    for layer in layers:
        previous = -1
        for v in layer:
            partner = forced_get(v)
            if partner is not None:
                medians: Sequence[int] = (partner,)
            else:
                medians = neighbours[v]
                count = len(medians)
                if not count:
                    continue
                if count > 2:
                    medians = medians[(count - 1) // 2:count // 2 + 1]
            for w in medians:     # the first median that may align does; then v is done
                if previous >= pos[w]:
                    continue
                pair = (w, v) if upward else (v, w)
                if pair not in conflicts:
                    root[v] = root[w]
                    previous = pos[w]
                    if ports is not None:
                        step = ports.bottom[pair] - ports.top[pair]
                        shift[v] = shift[w] + (step if upward else -step)
                    break
    return root, shift


def _ordered(neighbours: Sequence[Sequence[int]], pos: Sequence[int]
             ) -> tuple[list[list[int]], list[list[int]]]:
    """Each node's ``neighbours`` by layer position, and the same reversed (their order
    in the layers read right to left); positions within a layer are distinct, so
    reversing the sorted list is sorting by the mirrored positions.

    >>> _ordered([[2, 1], []], [0, 0, 1])
    ([[1, 2], []], [[2, 1], []])
    """
    ordered = [sorted(ws, key=pos.__getitem__) if len(ws) > 1 else list(ws)
               for ws in neighbours]
    return ordered, [ws[::-1] for ws in ordered]


def _compact(layers: Sequence[Sequence[int]], root: Sequence[int],
             gaps: Sequence[Sequence[float]], shift: Sequence[float]) -> dict[int, float]:
    """Block coordinates (a node sits at its root's plus its ``shift``): longest path
    from the left, then blocks pulled right into unused space (dagre's two passes).
    ``gaps[r][j]``: the separation between nodes ``j`` and ``j + 1`` of layer ``r``."""
    edges: dict[int, dict[int, float]] = {}
    incoming: dict[int, list[int]] = {}
    for layer, layer_gaps in zip(layers, gaps, strict=True):
        for j in range(len(layer) - 1):
            left, right = layer[j], layer[j + 1]
            a, b = root[left], root[right]
            gap = layer_gaps[j] + shift[left] - shift[right]
            targets = edges.get(a)
            if targets is None:
                targets = edges[a] = {}
            old = targets.get(b)
            if old is None:
                targets[b] = gap
                if b in incoming:
                    incoming[b].append(a)
                else:
                    incoming[b] = [a]
            elif gap > old:
                targets[b] = gap
    blocks = sorted({root[v] for layer in layers for v in layer})
    order = _topological(blocks, edges, incoming)
    x: dict[int, float] = {}
    for b in order:
        value = 0.0
        first = True
        for a in incoming.get(b, ()):
            reach = x[a] + edges[a][b]
            if first or reach > value:
                value, first = reach, False
        x[b] = value
    for b in reversed(order):
        successors = edges.get(b)
        if successors:
            room = math.inf
            for c, d in successors.items():
                if x[c] - d < room:
                    room = x[c] - d
            if room > x[b]:
                x[b] = room
    return x


def _topological(blocks: list[int], edges: dict[int, dict[int, float]],
                 incoming: dict[int, list[int]]) -> list[int]:
    pending = {b: len(incoming.get(b, ())) for b in blocks}
    ready = [b for b in blocks if pending[b] == 0]
    order: list[int] = []
    while ready:
        b = ready.pop()
        order.append(b)
        for c in edges.get(b, {}):
            pending[c] -= 1
            if pending[c] == 0:
                ready.append(c)
    return order


def horizontal_coordinates(layers: Sequence[Sequence[int]], up: Sequence[Sequence[int]],
                           down: Sequence[Sequence[int]], separation: Separation,
                           is_dummy: Sequence[bool] | None = None,
                           widths: Sequence[float] | None = None) -> list[float]:
    """Centre x per node (index), balanced over the four alignments."""
    candidates = alignments(layers, up, down, separation, is_dummy, widths)
    return balance(candidates, layers, separation) if candidates else []


def balance(candidates: list[list[float]], layers: Sequence[Sequence[int]],
            separation: Separation) -> list[float]:
    """Per node, the mean of the two middle values of the four alignments; then any
    separation the averaging broke is restored left to right."""
    balanced = [(middle[1] + middle[2]) / 2 for middle in
                map(sorted, zip(*candidates, strict=True))]
    _restore_separation(layers, balanced, separation)
    return balanced


def alignments(layers: Sequence[Sequence[int]], up: Sequence[Sequence[int]],
               down: Sequence[Sequence[int]], separation: Separation,
               is_dummy: Sequence[bool] | None = None,
               widths: Sequence[float] | None = None,
               ports: Ports | None = None) -> list[list[float]]:
    """Centre x per node of the four alignments (up-left, up-right, down-left,
    down-right), shifted onto the narrowest one; empty for an empty graph. With
    ``ports``, aligned segments are straight between their port offsets rather than
    between node centres (the "inner shift" of ELK's Brandes-Koepf)."""
    node_count = max((v for layer in layers for v in layer), default=-1) + 1
    if node_count == 0:
        return []
    dummy = is_dummy if is_dummy is not None else [False] * node_count
    width = widths if widths is not None else [0.0] * node_count
    pos = layer_positions(layers, node_count)
    conflicts = type1_conflicts(layers, up, dummy, pos)
    priority = priority_segments(layers, up, down, dummy) - conflicts
    conflicts |= blocked_segments(layers, up, priority, pos)
    forced_up = {v: u for u, v in priority}
    forced_down = {u: v for u, v in priority}
    ordered = {True: _ordered(up, pos), False: _ordered(down, pos)}
    gaps = [[separation(layer[j], layer[j + 1]) for j in range(len(layer) - 1)]
            for layer in layers]
    candidates: list[list[float]] = []
    for upward in (True, False):
        vertical = list(layers) if upward else list(reversed(layers))
        vertical_gaps = gaps if upward else gaps[::-1]
        for leftward in (True, False):
            adjusted = vertical if leftward else [list(reversed(layer)) for layer in vertical]
            root, shift = _vertical_alignment(adjusted, ordered[upward][not leftward],
                                              conflicts,
                                              forced_up if upward else forced_down,
                                              node_count, upward, ports)
            # read right to left, a layer's neighbours and their gaps come reversed
            sep = vertical_gaps if leftward else [g[::-1] for g in vertical_gaps]
            if leftward:
                block_x = _compact(adjusted, root, sep, shift)
                candidates.append([block_x[r] + s if r in block_x else 0.0
                                   for r, s in zip(root, shift, strict=True)])
            else:
                block_x = _compact(adjusted, root, sep, [-value for value in shift])
                candidates.append([-block_x[r] + s if r in block_x else 0.0
                                   for r, s in zip(root, shift, strict=True)])
    _align_to_narrowest(candidates, width, layers)
    return candidates


def _align_to_narrowest(candidates: list[list[float]], width: Sequence[float],
                        layers: Sequence[Sequence[int]]) -> None:
    nodes = [v for layer in layers for v in layer]
    spans = []
    for xs in candidates:
        low, high = math.inf, -math.inf
        for v in nodes:
            x, half = xs[v], width[v] / 2
            if x - half < low:
                low = x - half
            if x + half > high:
                high = x + half
        spans.append(high - low)
    narrowest = min(range(4), key=lambda i: (spans[i], i))
    low = min(candidates[narrowest][v] for v in nodes)
    high = max(candidates[narrowest][v] for v in nodes)
    for i, c in enumerate(candidates):
        if i == narrowest:
            continue
        values = [c[v] for v in nodes]
        delta = low - min(values) if i % 2 == 0 else high - max(values)
        candidates[i] = [value + delta for value in c]


def _restore_separation(layers: Sequence[Sequence[int]], x: list[float],
                        separation: Separation) -> None:
    for layer in layers:
        for left, right in pairwise(layer):
            x[right] = max(x[right], x[left] + separation(left, right))
