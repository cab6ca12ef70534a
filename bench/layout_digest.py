#!/usr/bin/env python3
"""Digests of the layered engine's drawings, to show a refactoring changed no layout.

    python bench/layout_digest.py > before.txt      # on the old commit
    python bench/layout_digest.py > after.txt       # on the new one
    diff before.txt after.txt                       # empty: every drawing byte-identical

One line per case: the graph (each fixture, and the generated graphs of ``--sizes`` nodes
for every seed of ``--seeds``), the effort, the direction, then the SHA-256 of the layout's
JSON (:meth:`LayoutResult.to_json`, without timings) and of its SVG. The time budget is
large (``--time-budget``), so no case depends on the machine's speed.
"""

from __future__ import annotations

import argparse
import hashlib
import sys
from collections.abc import Iterator
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from layouts.api import layout
from layouts.options import Direction, Effort, LayoutOptions
from renderer import corpus
from renderer.diagram import Diagram
from renderer.svg import write_svg


def cases(sizes: list[int], seeds: list[int]) -> Iterator[tuple[str, Diagram]]:
    for path in corpus.fixture_paths():
        yield path.stem, corpus.file_diagram(path)
    for n in sizes:
        for seed in seeds:
            yield f"generated-{n}-seed{seed}", corpus.generated_diagram(n, seed)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="layout_digest.py",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="50,100,200,500")
    parser.add_argument("--seeds", default="1,2")
    parser.add_argument("--time-budget", type=float, default=600.0)
    args = parser.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",") if s.strip()]
    seeds = [int(s) for s in args.seeds.split(",") if s.strip()]
    for name, diagram in cases(sizes, seeds):
        for effort in Effort:
            for direction in (Direction.TOP_TO_BOTTOM, Direction.LEFT_TO_RIGHT):
                options = LayoutOptions(effort=effort, direction=direction,
                                        time_budget=args.time_budget)
                result = layout(diagram.graph, engine="layered", options=options)
                json_digest = hashlib.sha256(result.to_json().encode()).hexdigest()[:16]
                svg_digest = hashlib.sha256(write_svg(diagram, result)).hexdigest()[:16]
                print(f"{name} {effort.value} {direction.value} {json_digest} {svg_digest}",
                      flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
