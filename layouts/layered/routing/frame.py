"""Sub-step 5 of routing: the vertical frame, once tracks and label rows are known.

Channel ``c`` is the band above layer ``c`` (channel 0 lies above the first layer and
channel ``L`` below the last). A channel holds, from its top: its top label rows, then its
tracks, ``edge_spacing`` apart, at least ``clearance`` from the layers above and below
(and from the label rows), then its bottom label rows.
An inner channel is at least ``layer_spacing`` high and centres its tracks; the outer
channels take only the room their tracks and labels need. Each layer keeps its nodes'
vertical offsets from the placement; whole layers move down, never apart from each other.

>>> f = vertical_frame(layer_heights=(40.0, 40.0), tracks={1: 1}, labels={},
...                    layer_spacing=60, edge_spacing=12, clearance=12)
>>> f.layer_tops, f.channel_tops, f.track_starts[1]   # 1 track: 12 + 0 + 12 = 24 < 60
((0.0, 100.0), (0.0, 40.0, 140.0), 70.0)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Frame:
    """Tops of layers and channels, the y of track 0 of each channel, total height."""

    layer_tops: tuple[float, ...]
    channel_tops: tuple[float, ...]
    track_starts: tuple[float, ...]
    height: float

    def channel_bottom(self, channel: int) -> float:
        """The bottom of ``channel``: the top of the layer below it, or the drawing's end."""
        return self.layer_tops[channel] if channel < len(self.layer_tops) else self.height


def _channel_height(inner: bool, tracks: int, label_height: float, layer_spacing: float,
                    edge_spacing: float, clearance: float, bottom_labels: float = 0.0
                    ) -> tuple[float, float]:
    """Height of a channel and the offset of its track 0 below the channel's top."""
    labels = label_height + bottom_labels
    need = labels + 2 * clearance + (tracks - 1) * edge_spacing if tracks else labels
    height = max(layer_spacing, need) if inner else need
    return height, label_height + clearance + (height - need) / 2


def vertical_frame(layer_heights: Sequence[float], tracks: Mapping[int, int],
                   labels: Mapping[int, float], layer_spacing: float, edge_spacing: float,
                   clearance: float, bottom_labels: Mapping[int, float] | None = None
                   ) -> Frame:
    """Stack channels and layers top to bottom; see the module example."""
    count = len(layer_heights)
    layer_tops: list[float] = []
    channel_tops: list[float] = []
    starts: list[float] = []
    y = 0.0
    for channel in range(count + 1):
        inner = 0 < channel < count
        height, start = _channel_height(inner, tracks.get(channel, 0), labels.get(channel, 0.0),
                                        layer_spacing, edge_spacing, clearance,
                                        (bottom_labels or {}).get(channel, 0.0))
        channel_tops.append(y)
        starts.append(y + start)
        y += height
        if channel < count:
            layer_tops.append(y)
            y += layer_heights[channel]
    return Frame(tuple(layer_tops), tuple(channel_tops), tuple(starts), y)
