#!/usr/bin/env python3
"""Comparative benchmark: the same graphs laid out by every available engine in one run.

    python bench/compare.py                       # fixtures + generated 50/100/200 nodes
    python bench/compare.py --sizes 100,200,500,1000 --html bench/results/side-by-side.html

Writes a Markdown table and a JSON file (default ``bench/results/compare.{md,json}``) with,
per engine and graph: median seconds over ``--runs`` runs, crossings, bends, total edge
length, area, edge-node intrusions, minimum clearance, and failures or timeouts. It also fits
the exponent ``k`` of ``seconds ~ n^k`` over the generated sizes per engine, and reports the
spread of crossings over ``--shuffles`` seeded shuffles of the input order of nodes and edges.
``--html`` draws each layout to SVG, engines in columns, for a person to compare.
"""

from __future__ import annotations

import argparse
import html
import json
import math
import statistics
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from layouts.api import engines, layout
from layouts.errors import LayoutError, LayoutTimeoutError
from layouts.options import LayoutOptions, parse_direction, parse_effort
from layouts.permute import shuffle_graph
from layouts.quality import measure
from layouts.result import LayoutResult
from renderer import corpus
from renderer.diagram import Diagram
from renderer.svg import write_svg

RESULTS_DIR = Path(__file__).resolve().parent / "results"
METRIC_KEYS = ("crossings", "bends", "totalEdgeLength", "area", "edgeNodeIntrusions",
               "ownEndIntrusions", "minClearance")


@dataclass
class Cell:
    """One engine on one graph."""

    engine: str
    graph: str
    nodes: int
    seconds: float | None = None
    metrics: dict[str, Any] = field(default_factory=dict)
    error: str | None = None
    shuffle_crossings: list[int] = field(default_factory=list)
    svg: bytes | None = None


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="compare.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("--engines", help="comma-separated; default: every available engine")
    parser.add_argument("--sizes", default="50,100,200", help="generated graph sizes")
    parser.add_argument("--seed", type=int, default=corpus.DEFAULT_SEED)
    parser.add_argument("--runs", type=int, default=5, help="runs per cell; the median counts")
    parser.add_argument("--shuffles", type=int, default=10)
    parser.add_argument("--shuffle-sizes", default="100,200",
                        help="generated sizes whose input order is shuffled")
    parser.add_argument("--effort", default="balanced")
    parser.add_argument("--direction", default="TopToBottom")
    parser.add_argument("--time-budget", type=float, default=120.0)
    parser.add_argument("--out", type=Path, default=RESULTS_DIR / "compare",
                        help="output path without extension (.md and .json are written)")
    parser.add_argument("--html", type=Path, help="write a side-by-side SVG page here")
    return parser.parse_args(argv)


def selected_engines(arg: str | None) -> list[str]:
    available = [row.name for row in engines() if row.available]
    if not arg:
        return available
    wanted = [name.strip() for name in arg.split(",") if name.strip()]
    unknown = [name for name in wanted if name not in available]
    if unknown:
        raise ValueError(f"engines not available here: {', '.join(unknown)}")
    return wanted


def corpus_diagrams(sizes: list[int], seed: int) -> list[tuple[str, Diagram]]:
    items = [(path.stem, corpus.file_diagram(path)) for path in corpus.fixture_paths()]
    items += [(f"generated-{n}", corpus.generated_diagram(n, seed)) for n in sizes]
    return items


def timed_layout(diagram: Diagram, engine: str, options: LayoutOptions,
                 runs: int) -> tuple[float, LayoutResult]:
    times: list[float] = []
    result: LayoutResult | None = None
    for _ in range(runs):
        started = time.perf_counter()
        result = layout(diagram.graph, engine=engine, options=options)
        times.append(time.perf_counter() - started)
    assert result is not None
    return statistics.median(times), result


def measure_cell(name: str, diagram: Diagram, engine: str, options: LayoutOptions,
                 args: argparse.Namespace, shuffle_sizes: set[int]) -> Cell:
    cell = Cell(engine, name, len(diagram.graph.nodes))
    try:
        cell.seconds, result = timed_layout(diagram, engine, options, args.runs)
        cell.metrics = measure(result, clearance=options.clearance).to_dict()
        if result.diagnostics.budget_exhausted:
            cell.error = "budget exhausted"
        if args.html:
            cell.svg = write_svg(diagram, result)
        if cell.nodes in shuffle_sizes and name.startswith("generated"):
            for seed in range(args.shuffles):
                shuffled = layout(shuffle_graph(diagram.graph, seed), engine=engine,
                                  options=options)
                cell.shuffle_crossings.append(measure(shuffled).crossings)
    except LayoutTimeoutError as exc:
        cell.error = f"timeout: {exc}"
    except LayoutError as exc:
        cell.error = f"failed: {exc}"
    return cell


def fitted_exponent(cells: list[Cell]) -> float | None:
    """Least-squares slope of log(seconds) against log(nodes) over generated graphs."""
    points = [(math.log(c.nodes), math.log(c.seconds)) for c in cells
              if c.graph.startswith("generated") and c.seconds and c.error is None]
    if len(points) < 2:
        return None
    mean_x = statistics.fmean(x for x, _ in points)
    mean_y = statistics.fmean(y for _, y in points)
    sxx = sum((x - mean_x) ** 2 for x, _ in points)
    if sxx == 0:
        return None
    return sum((x - mean_x) * (y - mean_y) for x, y in points) / sxx


def shuffle_spread(crossings: list[int]) -> str:
    if not crossings:
        return ""
    low, high, mid = min(crossings), max(crossings), statistics.median(crossings)
    spread = 0.0 if mid == 0 else (high - low) / mid * 100
    return f"{low}-{high} ({spread:.0f}%)"


def markdown(cells: list[Cell], engine_names: list[str], options: LayoutOptions) -> str:
    lines = [f"Effort {options.effort.value}, direction {options.direction.value}.", "",
             "| graph | nodes | engine | seconds | crossings | bends | length | area "
             "| intrusions | min clearance | shuffled crossings | status |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for c in cells:
        m = c.metrics
        intrusions = (m.get("edgeNodeIntrusions", 0) or 0) + (m.get("ownEndIntrusions", 0) or 0)
        seconds = f"{c.seconds:.4f}" if c.seconds is not None else "-"
        lines.append(
            f"| {c.graph} | {c.nodes} | {c.engine} | {seconds} | {m.get('crossings', '-')} "
            f"| {m.get('bends', '-')} | {_round(m.get('totalEdgeLength'))} "
            f"| {_round(m.get('area'))} | {intrusions if m else '-'} "
            f"| {_round(m.get('minClearance'))} | {shuffle_spread(c.shuffle_crossings)} "
            f"| {c.error or 'ok'} |")
    lines += ["", "| engine | fitted exponent k (seconds ~ n^k) |", "|---|---|"]
    for engine in engine_names:
        k = fitted_exponent([c for c in cells if c.engine == engine])
        lines.append(f"| {engine} | {'-' if k is None else f'{k:.2f}'} |")
    return "\n".join(lines) + "\n"


def _round(value: object) -> str:
    if value is None:
        return "-"
    return f"{value:.0f}" if isinstance(value, float) else str(value)


def side_by_side(cells: list[Cell], engine_names: list[str]) -> str:
    graphs = list(dict.fromkeys(c.graph for c in cells))
    by_key = {(c.graph, c.engine): c for c in cells}
    rows = []
    for graph in graphs:
        tds = []
        for engine in engine_names:
            c = by_key.get((graph, engine))
            body = (c.svg.decode("utf-8") if c and c.svg
                    else f"<p>{html.escape(c.error or 'not run') if c else 'not run'}</p>")
            tds.append(f"<td><h3>{html.escape(engine)}</h3>{body}</td>")
        rows.append(f"<tr><th>{html.escape(graph)}</th>{''.join(tds)}</tr>")
    return ("<!doctype html><meta charset='utf-8'><title>layout comparison</title>"
            "<style>td{vertical-align:top}svg{max-width:600px;height:auto}</style>"
            f"<table>{''.join(rows)}</table>\n")


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    try:
        sizes = [int(s) for s in args.sizes.split(",") if s.strip()]
        shuffle_sizes = {int(s) for s in args.shuffle_sizes.split(",") if s.strip()}
        options = LayoutOptions(direction=parse_direction(args.direction),
                                effort=parse_effort(args.effort), time_budget=args.time_budget)
        engine_names = selected_engines(args.engines)
    except (ValueError, LayoutError) as exc:
        sys.stderr.write(f"compare.py: {exc}\n")
        return 2
    cells = []
    for name, diagram in corpus_diagrams(sizes, args.seed):
        for engine in engine_names:
            cell = measure_cell(name, diagram, engine, options, args, shuffle_sizes)
            print(f"{name:<28} {engine:<10} {cell.seconds or 0:.4f} s "
                  f"crossings {cell.metrics.get('crossings', '-')} {cell.error or ''}",
                  flush=True)
            cells.append(cell)
    table = markdown(cells, engine_names, options)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.with_suffix(".md").write_text(table, encoding="utf-8")
    args.out.with_suffix(".json").write_text(json.dumps({
        "options": options.to_dict(),
        "cells": [{"engine": c.engine, "graph": c.graph, "nodes": c.nodes, "seconds": c.seconds,
                   "metrics": c.metrics, "error": c.error,
                   "shuffleCrossings": c.shuffle_crossings} for c in cells],
        "exponents": {e: fitted_exponent([c for c in cells if c.engine == e])
                      for e in engine_names},
    }, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    if args.html:
        args.html.parent.mkdir(parents=True, exist_ok=True)
        args.html.write_text(side_by_side(cells, engine_names), encoding="utf-8")
    print(table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
