#!/usr/bin/env python3
"""Compound nodes in the layered engine (issue 14): timings and a comparison with elkjs.

    python bench/compound.py                       # both parts
    python bench/compound.py --timings --nodes 500 --compounds 50 --runs 3
    python bench/compound.py --compare
    python bench/compound.py --compare --ports     # the port graphs instead
    python bench/compound.py --compare --direction LeftToRight
    python bench/compound.py --timings --ports --nodes 500

``--timings`` lays out one seeded nested graph (:func:`layouts.compound_corpus.
generated_compound`: ``--nodes`` leaves in ``--compounds`` compound nodes, up to four
levels deep) ``--runs`` times at each effort through ``layouts.api.layout`` (validation
included) and prints the median wall seconds, whether the time budget ran out, the
slowest steps, and the compound contract violations of the last run.

``--compare`` lays out the sample compound graphs (:data:`layouts.compound_corpus.
SAMPLES`) with layered, elkjs and graphviz (those that can run here) and prints, per
graph and engine, edge crossings and drawing area (:func:`layouts.quality.measure`), and
the compound contract violations by kind (:mod:`layouts.layered.contracts.hierarchy`),
with the ratios layered/elkjs and layered/graphviz (and a note where an engine crosses
less than layered only with edge ends off their ports); row ``elkjs=`` is elkjs with our
spacings on every compound node, not just the root (:data:`ELK_SPACINGS`). The issue's
target is the plain ``elkjs`` row (its defaults inside compounds, as layered now uses:
:data:`layouts.layered.hierarchy.passes.COMPOUND_NODE_SPACING`), so ``elkjs=`` spaces
compound interiors wider than layered does. With
``--ports`` it compares the port graphs (:data:`layouts.port_corpus.SAMPLES`) instead,
with the flat (or compound) contracts plus the port ones (:mod:`layouts.layered.contracts.ports`).
``--direction`` lays every engine out in that direction (TopToBottom by default); the
contracts are checked in its base frame (:func:`layouts.mirror.mirror_result`).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from layouts.api import layout
from layouts.compound_corpus import SAMPLES, generated_compound
from layouts.errors import LayoutError
from layouts.graph import Graph, GraphFeature, Node
from layouts.layered.contracts import check_layout, check_port_sides_and_order
from layouts.layered.contracts.hierarchy import check_compound_layout
from layouts.layered.contracts.violations import ViolationKind
from layouts.mirror import base_direction, mirror_result
from layouts.options import Direction, Effort, LayoutOptions
from layouts.port_corpus import SAMPLES as PORT_SAMPLES
from layouts.port_corpus import generated_ports
from layouts.providers.elkjs_options import elk_layout_options
from layouts.quality import measure
from layouts.registry import get_provider


def _violations(graph: Graph, result: object,
                direction: Direction = Direction.TOP_TO_BOTTOM) -> Counter[str]:
    from layouts.result import LayoutResult

    assert isinstance(result, LayoutResult)
    sides = check_port_sides_and_order(graph, result)   # on the result in its own direction
    result = mirror_result(result, direction)
    options = LayoutOptions(direction=base_direction(direction))
    if GraphFeature.COMPOUND not in graph.features():
        return Counter(v.kind.value for v in [*check_layout(graph, result, options), *sides])
    found = check_compound_layout(graph, result, options)
    if GraphFeature.PORTS in graph.features():
        found += sides
    return Counter(v.kind.value for v in found)


def timings(nodes: int, compounds: int, runs: int, budget: float, ports: bool = False) -> None:
    graph = generated_ports(nodes, seed=1) if ports else generated_compound(nodes, compounds,
                                                                           seed=1)
    edges = len(graph.edges)
    what = (f"{sum(len(n.ports) for n in graph.nodes)} ports" if ports
            else f"{compounds} compound nodes")
    print(f"load average {os.getloadavg()[0]:.2f}; {nodes} leaves, {what}, {edges} edges; "
          f"time budget {budget:g} s; median of {runs} runs")
    print(f"{'effort':<9} {'median s':>9} {'exhausted':>9}  slowest steps (last run)")
    for effort in Effort:
        seconds = []
        result = None
        for _ in range(runs):
            start = time.perf_counter()
            result = layout(graph, engine="layered", effort=effort, time_budget=budget)
            seconds.append(time.perf_counter() - start)
        assert result is not None
        steps = sorted(result.diagnostics.phases, key=lambda p: -p[1])[:3]
        shown = ", ".join(f"{name} {s:.2f}" for name, s in steps)
        print(f"{effort.value:<9} {statistics.median(seconds):>9.2f} "
              f"{result.diagnostics.budget_exhausted!s:>9}  {shown}")
        found = _violations(graph, result)
        print(f"{'':<9} contract violations: {dict(found) or 'none'}")


ELK_SPACINGS = tuple((key, value) for key, value in elk_layout_options(LayoutOptions()).items()
                     if "spacing" in key.lower())
"""Our spacing options as ELK options: ELK reads spacings per graph element (a compound
node's children are spaced by the compound's own options, ELK's defaults when it sets
none), so elkjs given them on the root alone spaces the layers inside every compound
20 px apart where layered keeps 60; row ``elkjs=`` sets them on every compound too."""


def spaced(graph: Graph) -> Graph:
    """``graph`` with :data:`ELK_SPACINGS` on every compound node that sets none of its own
    (for the ``elkjs=`` row: the same spacings at every level for both engines)."""
    def node(n: Node) -> Node:
        if not n.children:
            return n
        own = {key for key, _ in n.layout_options}
        extra = tuple(item for item in ELK_SPACINGS if item[0] not in own)
        return replace(n, layout_options=n.layout_options + extra,
                       children=tuple(node(c) for c in n.children))
    return replace(graph, nodes=tuple(node(n) for n in graph.nodes))


def compare(samples: Mapping[str, Callable[[], Graph]],
            direction: Direction = Direction.TOP_TO_BOTTOM) -> None:
    engines = ["layered"]
    for name in ("elkjs", "graphviz"):
        status = get_provider(name).availability()
        if status.available:
            engines.append(name)
        else:
            print(f"{name} unavailable ({status.reason})")
    if "elkjs" in engines:
        engines.insert(2, "elkjs=")
    print(f"{'graph':<16} {'engine':<8} {'crossings':>9} {'area':>11} {'seconds':>8}  "
          "contract violations")
    for name, build in samples.items():
        graph = build()
        row: dict[str, tuple[int, float]] = {}
        broken: dict[str, Counter[str]] = {}
        for engine in engines:
            start = time.perf_counter()
            try:
                result = (layout(spaced(graph), engine="elkjs", direction=direction)
                          if engine == "elkjs=" else
                          layout(graph, engine=engine, direction=direction))
            except LayoutError as error:
                print(f"{name:<16} {engine:<8} failed: {error}")
                continue
            seconds = time.perf_counter() - start
            quality = measure(result)
            row[engine] = (quality.crossings, quality.area)
            broken[engine] = _violations(graph, result, direction)
            print(f"{name:<16} {engine:<8} {quality.crossings:>9} {quality.area:>11.0f} "
                  f"{seconds:>8.2f}  {dict(broken[engine]) or 'none'}")
        for other in ("elkjs", "elkjs=", "graphviz"):
            if "layered" in row and other in row:
                (lc, la), (oc, oa) = row["layered"], row[other]
                print(f"{'':<16} layered/{other}: crossings {lc}/{oc}, area {la / oa:.2f}x")
                if (off := broken[other][ViolationKind.OFF_PORT.value]) and oc < lc:
                    print(f"{'':<16} {other} crosses less with {off} edge ends off their "
                          "ports (off-port), which layered keeps on theirs")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="compound.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("--timings", action="store_true", help="only the timings")
    parser.add_argument("--compare", action="store_true", help="only the elkjs comparison")
    parser.add_argument("--ports", action="store_true",
                        help="the port graphs instead of the compound ones (--timings: "
                             "a generated port graph of --nodes nodes)")
    parser.add_argument("--nodes", type=int, default=500)
    parser.add_argument("--compounds", type=int, default=50)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--budget", type=float, default=10.0)
    parser.add_argument("--direction", type=Direction, default=Direction.TOP_TO_BOTTOM,
                        choices=list(Direction), help="--compare: the layout direction")
    args = parser.parse_args(argv)
    both = not args.timings and not args.compare
    if args.timings or both:
        timings(args.nodes, args.compounds, args.runs, args.budget, args.ports)
    if args.compare or both:
        compare(PORT_SAMPLES if args.ports else SAMPLES, args.direction)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
