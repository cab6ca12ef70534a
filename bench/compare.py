#!/usr/bin/env python3
"""Comparative benchmark: the same graphs laid out by every available engine in one run.

    python bench/compare.py                       # fixtures + generated 50/100/200 nodes
    python bench/compare.py --sizes 100,200,500,1000 --html bench/results/side-by-side.html
    python tools/fetch_real_graphs.py --cache /tmp/real-graphs
    python bench/compare.py --engines layered,graphviz,elkjs --sizes 50,100,200,500,1000 \
        --seeds 1-5 --real /tmp/real-graphs/* --runs 1 --shuffles 0

Writes a Markdown table and a JSON file (default ``bench/results/compare.{md,json}``) with,
per engine and graph: median seconds over ``--runs`` runs, crossings, bends, total edge
length, area, edge-node intrusions, minimum clearance, and failures or timeouts. It also fits
the exponent ``k`` of ``seconds ~ n^k`` over the generated sizes per engine, and reports the
spread of crossings over ``--shuffles`` seeded shuffles of the input order of nodes and edges.
``--html`` draws each layout to SVG, engines in columns, for a person to compare.

``--real DIR...`` adds every graph file under the folders (see
:func:`renderer.corpus.real_corpus`; ``tools/fetch_real_graphs.py`` fetches public ones),
``--seeds 1-5`` lays out each generated size once per seed. The Markdown then opens with
the *totals* per engine and corpus (fixtures, generated, real, all) over the graphs every
engine drew: crossings, total edge length, total area, bends, intrusions, endpoints off the
outline, flow violations and clearance violations. Every engine gets the same graph, so
identical node sizes. A flow violation (engine-neutral, unlike the layered contract
checker, which knows which edges it reversed) is an edge whose target lies wholly after
its source in the layout direction but whose route steps back against it somewhere.
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
from layouts.options import Direction, LayoutOptions, parse_direction, parse_effort
from layouts.permute import shuffle_graph
from layouts.quality import measure
from layouts.result import LayoutResult, NodeBox
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
    parser.add_argument("--seeds", help="generator seeds, e.g. 1-5 or 1,3 (overrides --seed)")
    parser.add_argument("--real", nargs="+", type=Path, default=[], metavar="DIR",
                        help="folders of real graphs (DOT, BPMN) to add")
    parser.add_argument("--real-max-nodes", type=int, default=1000)
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
    parser.add_argument("--reference", default="graphviz",
                        help="engine the 'worst graphs' tables compare every other one with")
    return parser.parse_args(argv)


def selected_engines(arg: str | None) -> list[str]:
    """Engine names, each optionally ``engine:effort`` (``elkjs:best``: that engine at
    another effort than ``--effort``, as its own column)."""
    available = [row.name for row in engines() if row.available]
    if not arg:
        return available
    wanted = [name.strip() for name in arg.split(",") if name.strip()]
    for name in wanted:
        if ":" in name:
            parse_effort(name.split(":", 1)[1])
    unknown = [name for name in wanted if name.split(":", 1)[0] not in available]
    if unknown:
        raise ValueError(f"engines not available here: {', '.join(unknown)}")
    return wanted


def engine_options(name: str, options: LayoutOptions) -> tuple[str, LayoutOptions]:
    """The engine and options of an ``--engines`` entry.

    >>> engine_options("elkjs:best", LayoutOptions())[1].effort.value
    'best'
    """
    engine, _, effort = name.partition(":")
    return engine, options.with_changes(effort=parse_effort(effort)) if effort else options


def parse_seeds(text: str) -> list[int]:
    """Seeds from ``1-5`` or ``1,3,7`` (or a mix).

    >>> parse_seeds("1-3,7")
    [1, 2, 3, 7]
    """
    seeds: list[int] = []
    for part in (p.strip() for p in text.split(",")):
        if not part:
            continue
        low, _, high = part.partition("-")
        seeds += range(int(low), int(high or low) + 1)
    if not seeds:
        raise ValueError(f"no seeds in {text!r}")
    return seeds


def corpus_diagrams(sizes: list[int], seeds: list[int], real: list[Path] | None = None,
                    real_max_nodes: int = 1000) -> list[tuple[str, Diagram]]:
    """Fixtures (named by stem), generated graphs (``generated-N`` for one seed,
    ``generated-N-sS`` for several) and real graphs (``real:folder/file``)."""
    items = [(path.stem, corpus.file_diagram(path)) for path in corpus.fixture_paths()]
    for n in sizes:
        for seed in seeds:
            name = f"generated-{n}" if len(seeds) == 1 else f"generated-{n}-s{seed}"
            items.append((name, corpus.generated_diagram(n, seed)))
    if real:
        found = corpus.real_corpus(real, real_max_nodes)
        for name, reason in found.skipped:
            print(f"real graph left out: {name}: {reason}", file=sys.stderr)
        items += [(f"real:{name}", diagram) for name, diagram in found.diagrams]
    return items


def group_of(graph: str) -> str:
    """The corpus a graph name belongs to.

    >>> group_of("real:pydot/a.dot"), group_of("generated-50-s2"), group_of("repository-assessment")
    ('real', 'generated', 'fixtures')
    """
    if graph.startswith("real:"):
        return "real"
    return "generated" if graph.startswith("generated") else "fixtures"


def flow_violations(result: LayoutResult, direction: Direction) -> int:
    """Edges drawn forward (the target's box wholly after the source's in the layout
    direction) whose route steps against that direction somewhere (by more than 0.5 px).

    >>> from layouts.result import Diagnostics, EdgeRoute, Point
    >>> boxes = (NodeBox("a", 0, 0, 10, 10), NodeBox("b", 0, 40, 10, 10))
    >>> back = EdgeRoute("e", "a", "b", (Point(5, 10), Point(5, 5), Point(5, 40)))
    >>> r = LayoutResult(boxes, (back,), 10, 50, Diagnostics("demo", "draft", "TopToBottom"))
    >>> flow_violations(r, Direction.TOP_TO_BOTTOM)
    1
    """
    horizontal = direction is Direction.LEFT_TO_RIGHT
    boxes = {n.id: n for n in result.nodes}

    def span(box: NodeBox) -> tuple[float, float]:
        return (box.x, box.x + box.width) if horizontal else (box.y, box.y + box.height)

    count = 0
    for route in result.edges:
        source, target = span(boxes[route.source]), span(boxes[route.target])
        if route.source == route.target or target[0] < source[1]:
            continue
        steps = ((b.x - a.x) if horizontal else (b.y - a.y)
                 for a, b in zip(route.points, route.points[1:], strict=False))
        count += any(step < -0.5 for step in steps)
    return count


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


def measure_cell(name: str, diagram: Diagram, label: str, options: LayoutOptions,
                 args: argparse.Namespace, shuffle_sizes: set[int]) -> Cell:
    cell = Cell(label, name, len(diagram.graph.nodes))
    engine, options = engine_options(label, options)
    try:
        cell.seconds, result = timed_layout(diagram, engine, options, args.runs)
        cell.metrics = measure(result, clearance=options.clearance).to_dict()
        cell.metrics["flowViolations"] = flow_violations(result, options.direction)
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


def markdown(cells: list[Cell], engine_names: list[str], options: LayoutOptions,
             reference: str = "graphviz") -> str:
    lines = [f"Effort {options.effort.value}, direction {options.direction.value}.", "",
             "## Totals", "", totals(cells, engine_names),
             *(worst_graphs(cells, engine, reference, metric)
               for engine in engine_names if reference in engine_names and engine != reference
               for metric in ("crossings", "bends")),
             "## Per graph", "",
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


TOTAL_COLUMNS = (
    ("crossings", ("crossings",)),
    ("total edge length", ("totalEdgeLength",)),
    ("total area", ("area",)),
    ("bends", ("bends",)),
    ("intrusions", ("edgeNodeIntrusions", "ownEndIntrusions")),
    ("endpoints off outline", ("endpointsOffOutline",)),
    ("flow violations", ("flowViolations",)),
    ("clearance violations", ("clearanceViolations",)),
)
"""The totals table's columns: a heading and the metrics summed into it."""


def totals(cells: list[Cell], engine_names: list[str]) -> str:
    """Per corpus (and all together), per engine, the sum of every :data:`TOTAL_COLUMNS`
    metric over the graphs that every engine drew (a graph any engine failed on is left
    out of every engine's total, and counted)."""
    drawn: dict[str, dict[str, dict[str, Any]]] = {}
    for c in cells:
        if c.metrics:
            drawn.setdefault(c.graph, {})[c.engine] = c.metrics
    graphs = list(dict.fromkeys(c.graph for c in cells))
    common = [g for g in graphs if all(e in drawn.get(g, {}) for e in engine_names)]
    lines = ["| corpus | graphs | engine | " + " | ".join(h for h, _ in TOTAL_COLUMNS) + " |",
             "|---" * (3 + len(TOTAL_COLUMNS)) + "|"]
    for group in ("fixtures", "generated", "real", "all"):
        members = [g for g in common if group in ("all", group_of(g))]
        if not members:
            continue
        for engine in engine_names:
            sums = [sum(float(drawn[g][engine].get(k) or 0) for g in members for k in keys)
                    for _, keys in TOTAL_COLUMNS]
            lines.append(f"| {group} | {len(members)} | {engine} | "
                         + " | ".join(_total(h, v) for (h, _), v in
                                      zip(TOTAL_COLUMNS, sums, strict=True)) + " |")
    left_out = [g for g in graphs if g not in common]
    note = (f"Left out (not drawn by every engine): {len(left_out)}: {', '.join(left_out)}."
            if left_out else "Every engine drew every graph.")
    return "\n".join(lines) + "\n\n" + note + "\n"


def worst_graphs(cells: list[Cell], engine: str, reference: str, metric: str,
                 count: int = 10) -> str:
    """The ``count`` graphs where ``engine`` exceeds ``reference`` most in ``metric``
    (graphs both drew), with the sum of the excesses over every graph where it has one:
    where a total's excess comes from.

    >>> cells = [Cell("a", "g1", 5, metrics={"crossings": 7}),
    ...          Cell("b", "g1", 5, metrics={"crossings": 2}),
    ...          Cell("a", "g2", 5, metrics={"crossings": 1}),
    ...          Cell("b", "g2", 5, metrics={"crossings": 3})]
    >>> print(worst_graphs(cells, "a", "b", "crossings"))
    ### Worst graphs: a over b in crossings
    <BLANKLINE>
    Excess summed over the 1 graphs where a has more: 5.
    <BLANKLINE>
    | graph | nodes | a | b | excess |
    |---|---|---|---|---|
    | g1 | 5 | 7 | 2 | 5 |
    <BLANKLINE>
    """
    by_key = {(c.graph, c.engine): c for c in cells if c.metrics}
    rows = []
    for graph in dict.fromkeys(c.graph for c in cells):
        mine, theirs = by_key.get((graph, engine)), by_key.get((graph, reference))
        if mine and theirs:
            excess = float(mine.metrics.get(metric) or 0) - float(theirs.metrics.get(metric) or 0)
            if excess > 0:
                rows.append((-excess, graph, mine, theirs))
    rows.sort(key=lambda row: (row[0], row[1]))
    lines = [f"### Worst graphs: {engine} over {reference} in {metric}", "",
             f"Excess summed over the {len(rows)} graphs where {engine} has more: "
             f"{_total(metric, -sum(row[0] for row in rows))}.", "",
             f"| graph | nodes | {engine} | {reference} | excess |", "|---|---|---|---|---|"]
    lines += [f"| {graph} | {mine.nodes} | {_round(mine.metrics.get(metric))} "
              f"| {_round(theirs.metrics.get(metric))} | {_total(metric, -minus)} |"
              for minus, graph, mine, theirs in rows[:count]]
    return "\n".join(lines) + "\n"


def _total(heading: str, value: float) -> str:
    """Lengths in thousands of px, areas in millions of px², counts as they are.

    >>> _total("total area", 92_400_000.0), _total("total edge length", 571_200.0)
    ('92.4M px²', '571k px')
    """
    if heading == "total area":
        return f"{value / 1e6:.1f}M px²"
    if heading == "total edge length":
        return f"{value / 1e3:.0f}k px"
    return f"{value:.0f}"


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
        seeds = parse_seeds(args.seeds) if args.seeds else [args.seed]
        missing = [str(folder) for folder in args.real if not folder.is_dir()]
        if missing:
            raise ValueError(f"--real: not a folder: {', '.join(missing)}")
    except (ValueError, LayoutError) as exc:
        sys.stderr.write(f"compare.py: {exc}\n")
        return 2
    cells = []
    for name, diagram in corpus_diagrams(sizes, seeds, args.real, args.real_max_nodes):
        for engine in engine_names:
            cell = measure_cell(name, diagram, engine, options, args, shuffle_sizes)
            print(f"{name:<28} {engine:<10} {cell.seconds or 0:.4f} s "
                  f"crossings {cell.metrics.get('crossings', '-')} {cell.error or ''}",
                  flush=True)
            cells.append(cell)
    table = markdown(cells, engine_names, options, args.reference)
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
    print(totals(cells, engine_names))
    return 0


if __name__ == "__main__":
    sys.exit(main())
