#!/usr/bin/env python3
"""How many edge labels of the layered engine sit astray: nearer another route than
their own (the defect model's ``label-astray``, :mod:`layouts.layered.contracts.labels`).

    python bench/label_astray.py /tmp/real-graphs/graphviz-doc /tmp/real-graphs/pydot
    python bench/label_astray.py --effort best --direction LeftToRight FOLDER...

One line per graph with an astray label (its name, astray/labelled), then the total over
every graph of the folders (the corpus of ``bench/compare.py --real``,
:func:`renderer.corpus.real_corpus`). The time budget is large (``--time-budget``), so
the count does not depend on the machine's speed.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from layouts.api import layout
from layouts.layered.contracts import check_labels_nearest
from layouts.options import Direction, Effort, LayoutOptions
from renderer.corpus import real_corpus


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="label_astray.py")
    parser.add_argument("folders", nargs="+", type=Path)
    parser.add_argument("--effort", type=Effort, default=Effort.BALANCED)
    parser.add_argument("--direction", type=Direction, default=Direction.TOP_TO_BOTTOM)
    parser.add_argument("--time-budget", type=float, default=60.0)
    args = parser.parse_args(argv)
    options = LayoutOptions(effort=args.effort, direction=args.direction,
                            time_budget=args.time_budget)
    astray = labelled = graphs = 0
    for name, diagram in real_corpus(args.folders).diagrams:
        count = sum(1 for e in diagram.graph.edges if e.label)
        if not count:
            continue
        result = layout(diagram.graph, engine="layered", options=options)
        wrong = len(check_labels_nearest(result.edges))
        graphs += 1
        labelled += count
        astray += wrong
        if wrong:
            print(f"{name}: {wrong}/{count}")
    print(f"total: {astray} of {labelled} labels astray in {graphs} graphs")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
