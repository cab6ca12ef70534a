"""Crossings of the layered engine at every effort next to dot's, summed over seeds of the
workflow generator, with mean seconds per layout: the crossing target of the layered
engine (no more than dot's at 100 and 200 nodes), measured on more than one seed.

    python bench/crossings_by_seed.py --sizes 100,200,500,1000 --seeds 1-5
"""

from __future__ import annotations

import argparse
import time

from layouts.api import layout
from layouts.quality import measure
from renderer.corpus import generated_graph

CELLS = (("layered", "draft"), ("layered", "balanced"), ("layered", "best"),
         ("graphviz", "balanced"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="100,200")
    parser.add_argument("--seeds", default="1-5", help="first-last, inclusive")
    args = parser.parse_args()
    first, last = (int(part) for part in args.seeds.split("-"))
    seeds = range(first, last + 1)
    print("| nodes | " + " | ".join(f"{e} {f}" for e, f in CELLS) + " |")
    print("|---" * (len(CELLS) + 1) + "|")
    for size in (int(s) for s in args.sizes.split(",")):
        cells = []
        for engine, effort in CELLS:
            crossings, seconds = 0, 0.0
            for seed in seeds:
                started = time.perf_counter()
                result = layout(generated_graph(size, seed), engine=engine, effort=effort)
                seconds += time.perf_counter() - started
                crossings += measure(result).crossings
            cells.append(f"{crossings} ({seconds / len(seeds):.2f} s)")
        print(f"| {size} | " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    main()
