#!/usr/bin/env python3
"""Loop-back benchmark: how long the loop-backs are, and what they cost, per engine.

    python bench/loopbacks.py --engines layered,graphviz,elkjs --out bench/results/loopbacks
    python bench/loopbacks.py --engines layered --baseline bench/results/loopbacks.json

The graphs are the fixtures and the generated graphs of ``--sizes`` nodes for every seed of
``--seeds`` (default 50-1000 nodes, seeds 1-5), every engine given the same node sizes.
Per engine it totals: the length of the loop-back routes (edges drawn as loop-backs,
``EdgeRoute.loop_back``), the total edge length, crossings, area and bends
(:func:`layouts.quality.measure`, as ``bench/compare.py`` measures them), and for the
layered engine (only: the other engines' routes are not held to them) the route contract
violations of :func:`layouts.layered.contracts.check_layout` by kind (intrusions,
clearance, against-flow, ...) and the endpoints off the outline. ``--baseline`` is the
JSON of an earlier run: the table then shows both runs' totals and the change, and lists
the graphs whose loop-back length, crossings or area grew most.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from layouts.api import layout
from layouts.errors import LayoutError
from layouts.layered.contracts import check_layout
from layouts.options import LayoutOptions, parse_effort, parse_loop_back_route
from layouts.quality import measure
from layouts.result import LayoutResult
from renderer import corpus
from renderer.diagram import Diagram

RESULTS_DIR = Path(__file__).resolve().parent / "results"
TOTALS = ("loopBackLength", "totalEdgeLength", "crossings", "area", "bends")


def graphs(sizes: list[int], seeds: list[int]) -> list[tuple[str, Diagram]]:
    items = [(path.stem, corpus.file_diagram(path)) for path in corpus.fixture_paths()]
    items += [(f"generated-{n}-s{seed}", corpus.generated_diagram(n, seed))
              for n in sizes for seed in seeds]
    return items


def loop_back_length(result: LayoutResult) -> float:
    """Total polyline length of the routes drawn as loop-backs."""
    return sum(math.dist((a.x, a.y), (b.x, b.y))
               for route in result.edges if route.loop_back
               for a, b in zip(route.points, route.points[1:], strict=False))


def cell(diagram: Diagram, engine: str, options: LayoutOptions) -> dict[str, Any]:
    try:
        result = layout(diagram.graph, engine=engine, options=options)
    except LayoutError as exc:
        return {"error": str(exc)}
    metrics = measure(result, clearance=options.clearance)
    row: dict[str, Any] = {
        "loopBackLength": round(loop_back_length(result), 1),
        "totalEdgeLength": round(metrics.total_edge_length, 1),
        "crossings": metrics.crossings,
        "area": round(metrics.area),
        "bends": metrics.bends,
        "loopBacks": sum(1 for r in result.edges if r.loop_back),
    }
    if engine == "layered":
        kinds = Counter(v.kind.value for v in check_layout(diagram.graph, result, options))
        row["contracts"] = dict(sorted(kinds.items()))
        row["endpointsOffOutline"] = metrics.endpoints_off_outline
    return row


def totals(cells: dict[str, dict[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {key: sum(c.get(key, 0) for c in cells.values()) for key in TOTALS}
    out["errors"] = sum(1 for c in cells.values() if "error" in c)
    contracts: Counter[str] = Counter()
    for c in cells.values():
        contracts.update(c.get("contracts", {}))
        if c.get("endpointsOffOutline"):
            contracts["endpoints-off-outline"] += c["endpointsOffOutline"]
    out["contracts"] = dict(sorted(contracts.items()))
    return out


def table(runs: dict[str, dict[str, Any]], baseline: dict[str, Any] | None) -> str:
    lines = ["| engine | run | loop-back length | total edge length | crossings | area | bends "
             "| contract violations | errors |", "|---|---|---|---|---|---|---|---|---|"]

    def row(engine: str, label: str, t: dict[str, Any]) -> str:
        contracts = (", ".join(f"{k} {v}" for k, v in t["contracts"].items()) or "0"
                     if engine == "layered" else "not checked")
        return (f"| {engine} | {label} | {t['loopBackLength']:.0f} | {t['totalEdgeLength']:.0f} "
                f"| {t['crossings']} | {t['area'] / 1e6:.2f}M | {t['bends']} | {contracts} "
                f"| {t['errors']} |")

    for engine, data in runs.items():
        now = totals(data)
        before = baseline.get(engine) if baseline else None
        if before is not None:
            was = totals({g: c for g, c in before.items() if g in data})
            lines.append(row(engine, "baseline", was))
            lines.append(row(engine, "this run", now))
            change = " | ".join(f"{_pct(now[k], was[k])}" for k in TOTALS)
            lines.append(f"| {engine} | change | {change} | | |")
        else:
            lines.append(row(engine, "this run", now))
    return "\n".join(lines) + "\n"


def worst(runs: dict[str, dict[str, Any]], baseline: dict[str, Any], count: int = 5) -> str:
    data, before = runs.get("layered", {}), baseline.get("layered", {})
    lines = []
    for key in ("loopBackLength", "crossings", "area"):
        grown = sorted(((data[g][key] - before[g][key], g) for g in data
                        if g in before and "error" not in data[g] and "error" not in before[g]),
                       reverse=True)[:count]
        lines.append(f"most grown {key}: " + ", ".join(
            f"{g} {before[g][key]} -> {data[g][key]}" for d, g in grown if d > 0))
    return "\n".join(lines) + "\n"


def _pct(now: float, was: float) -> str:
    return "-" if not was else f"{(now - was) / was * 100:+.1f}%"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="loopbacks.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("--engines", default="layered,graphviz,elkjs")
    parser.add_argument("--sizes", default="50,100,200,500,1000")
    parser.add_argument("--seeds", default="1,2,3,4,5")
    parser.add_argument("--effort", default="balanced")
    parser.add_argument("--loop-back-route", default="auto")
    parser.add_argument("--time-budget", type=float, default=120.0)
    parser.add_argument("--baseline", type=Path, help="JSON of an earlier run to compare with")
    parser.add_argument("--out", type=Path, default=RESULTS_DIR / "loopbacks",
                        help="output path without extension (.md and .json are written)")
    args = parser.parse_args(argv)
    try:
        options = LayoutOptions(effort=parse_effort(args.effort), time_budget=args.time_budget,
                                loop_back_route=parse_loop_back_route(args.loop_back_route))
    except (ValueError, LayoutError) as exc:
        sys.stderr.write(f"loopbacks.py: {exc}\n")
        return 2
    sizes = [int(s) for s in args.sizes.split(",") if s.strip()]
    seeds = [int(s) for s in args.seeds.split(",") if s.strip()]
    engine_names = [e.strip() for e in args.engines.split(",") if e.strip()]
    runs: dict[str, dict[str, Any]] = {engine: {} for engine in engine_names}
    for name, diagram in graphs(sizes, seeds):
        for engine in engine_names:
            runs[engine][name] = cell(diagram, engine, options)
            print(f"{name:<24} {engine:<9} {runs[engine][name]}", file=sys.stderr, flush=True)
    baseline = json.loads(args.baseline.read_text(encoding="utf-8")) if args.baseline else None
    text = table(runs, baseline) + ("\n" + worst(runs, baseline) if baseline else "")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.with_suffix(".json").write_text(json.dumps(runs, indent=1, sort_keys=True) + "\n",
                                             encoding="utf-8")
    args.out.with_suffix(".md").write_text(text, encoding="utf-8")
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
