"""The compound and port bench's contract column: port sides are checked on the result
in its own direction, so a north port drawn on the top face of a BottomToTop layout is not
reported as a violation (mirroring the result to its base direction puts it on the
bottom face, which is where the port-side check must not look)."""

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

from layouts.api import layout
from layouts.options import Direction
from layouts.port_corpus import every_side

ROOT = Path(__file__).resolve().parents[2]


def _load() -> ModuleType:
    spec = importlib.util.spec_from_file_location("compound_bench",
                                                  ROOT / "bench" / "compound.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules["compound_bench"] = module
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("direction", list(Direction))
def test_layered_port_graph_shows_no_violation_in_any_direction(direction: Direction) -> None:
    bench = _load()
    graph = every_side()
    result = layout(graph, engine="layered", direction=direction)
    assert bench._violations(graph, result, direction) == {}
