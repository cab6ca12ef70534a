#!/usr/bin/env python3
"""Stress harness: lay out one graph many times in one process and report speed and quality.

    python tools/stress.py --iterations 5 --effort best --direction TopToBottom

prints, per iteration, the seconds per phase (for engines that report phases) and in total,
then the median, min and max, the peak memory, whether every iteration gave byte-identical
layout JSON, and the quality metrics of the last layout. Any iteration over
``--max-seconds`` (the regression guard) exits 1 naming the iteration; a watchdog also ends
the process with exit 1 if an iteration hangs past that limit. Bad input exits 2 with one line.

    python tools/stress.py --targets

measures the layered engine's speed targets instead (issue 16), each case in a fresh process
of this harness after one untimed warm-up layout: the reference graph at every effort (15
iterations) and a generated graph of 1000 nodes (3 iterations). It prints one table: median
seconds against the target, peak memory against 200 MB, byte-identical output, crossings,
bends, edge length and area; then the median CPU time of this process per layout
(``time.process_time``: on a machine shared with other work, the wall-clock median also
counts the time a layout waited for a CPU) and the median time outside the named phases
(the entry point's checks and the hand-over between steps).
``--targets-nodes`` and ``--targets-iterations`` shrink it (the tests use them).
"""

from __future__ import annotations

import argparse
import cProfile
import hashlib
import io
import json
import os
import pstats
import resource
import statistics
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from layouts.api import layout
from layouts.errors import LayoutError
from layouts.graph import Graph
from layouts.options import LayoutOptions, parse_direction, parse_effort
from layouts.quality import measure
from layouts.result import LayoutResult
from renderer import corpus

WATCHDOG_GRACE_SECONDS = 5.0
TARGET_NODES = 1000
PEAK_MEMORY_TARGET_MB = 200.0


@dataclass(frozen=True)
class TargetCase:
    """One case of ``--targets``: a graph, an effort, how often, and the median to beat
    (``None``: measured, no target)."""

    nodes: int | None  # None: the reference graph
    effort: str
    iterations: int
    target_seconds: float | None


TARGET_CASES = (
    TargetCase(None, "draft", 15, 0.010),
    TargetCase(None, "balanced", 15, 0.010),
    TargetCase(None, "best", 15, 0.010),
    TargetCase(TARGET_NODES, "draft", 3, None),
    TargetCase(TARGET_NODES, "balanced", 3, 0.5),
    TargetCase(TARGET_NODES, "best", 3, 1.0),
)
"""Issue 16's speed targets: the reference graph under 10 ms at every effort; 1000 nodes under
0.5 s at balanced and under 1.0 s at best (and peak memory there under 200 MB)."""


@dataclass(frozen=True)
class Iteration:
    number: int
    seconds: float
    phases: tuple[tuple[str, float], ...]
    budget_exhausted: bool
    digest: str
    """SHA-256 of the layout's JSON without timings: equal digests, byte-identical layouts."""
    cpu_seconds: float = 0.0
    """CPU time of this process during the layout (``time.process_time``)."""

    @property
    def outside_phases(self) -> float:
        """Seconds of the layout not spent in a named phase."""
        return self.seconds - sum(seconds for _, seconds in self.phases)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="stress.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("--iterations", type=int, default=5)
    parser.add_argument("--engine", default="layered")
    source = parser.add_mutually_exclusive_group()
    source.add_argument("--graph", type=Path, help="a fixture, DSL, ELK JSON, graph JSON or DOT")
    source.add_argument("--generate", type=int, metavar="N",
                        help="a seeded workflow-like graph of N nodes")
    parser.add_argument("--seed", type=int, default=corpus.DEFAULT_SEED)
    parser.add_argument("--effort", default="best", help="Draft|Balanced|Best")
    parser.add_argument("--direction", default="TopToBottom",
                        help="TopToBottom|LeftToRight|BottomToTop|RightToLeft")
    parser.add_argument("--warmup", type=int, default=0, metavar="N",
                        help="untimed layouts first (imports and caches warm up)")
    parser.add_argument("--max-seconds", type=float, default=120.0)
    parser.add_argument("--json", type=Path, metavar="OUT", help="write the results as JSON")
    parser.add_argument("--profile", action="store_true", help="print cProfile's top functions")
    parser.add_argument("--targets", action="store_true",
                        help="measure the layered speed targets (reference, 1000 nodes)")
    parser.add_argument("--targets-nodes", type=int, default=TARGET_NODES,
                        help="node count of the large target graph (default 1000)")
    parser.add_argument("--targets-iterations", type=int, default=None,
                        help="iterations per target case (default 15 reference, 3 large)")
    return parser.parse_args(argv)


def load_graph(args: argparse.Namespace) -> tuple[str, Graph]:
    if args.generate is not None:
        if args.generate < 2:
            raise ValueError(f"--generate {args.generate}: a graph needs at least 2 nodes")
        return f"generated-{args.generate}-seed{args.seed}", corpus.generated_graph(
            args.generate, args.seed)
    path = args.graph or corpus.REFERENCE_FIXTURE
    return str(path), corpus.file_graph(path)


class Watchdog:
    """Ends the process with exit code 1 when one iteration runs past its limit, so a hung
    layout fails the harness instead of stalling it."""

    def __init__(self, limit: float, out: TextIO) -> None:
        self._limit, self._out = limit, out
        self._timer: threading.Timer | None = None

    def start(self, number: int) -> None:
        self._timer = threading.Timer(self._limit, self._fire, args=(number,))
        self._timer.daemon = True
        self._timer.start()

    def stop(self) -> None:
        if self._timer is not None:
            self._timer.cancel()

    def _fire(self, number: int) -> None:
        message = f"iteration {number} hung past {self._limit:g} s; giving up\n"
        self._out.write("\n" + message)
        self._out.flush()
        sys.__stderr__.write("stress.py: " + message)  # also when ``out`` is not a terminal
        os._exit(1)


def run_iterations(graph: Graph, args: argparse.Namespace, options: LayoutOptions,
                   out: TextIO) -> tuple[list[Iteration], LayoutResult]:
    interactive = out.isatty()
    watchdog = Watchdog(args.max_seconds + WATCHDOG_GRACE_SECONDS, out)
    iterations: list[Iteration] = []
    result: LayoutResult | None = None
    for _ in range(args.warmup):
        layout(graph, engine=args.engine, options=options)
    for number in range(1, args.iterations + 1):
        if interactive:
            out.write(f"\r[{number}/{args.iterations}] laying out ...")
            out.flush()
        watchdog.start(number)
        try:
            started, cpu_started = time.perf_counter(), time.process_time()
            result = layout(graph, engine=args.engine, options=options)
            seconds = time.perf_counter() - started
            cpu_seconds = time.process_time() - cpu_started
        finally:  # a layout that raises must not leave the timer to end the process later
            watchdog.stop()
        digest = hashlib.sha256(result.to_json().encode("utf-8")).hexdigest()
        iteration = Iteration(number, seconds, result.diagnostics.phases,
                              result.diagnostics.budget_exhausted, digest, cpu_seconds)
        iterations.append(iteration)
        out.write(("\r" if interactive else "") + format_iteration(iteration, args.iterations)
                  + "\n")
        out.flush()
    assert result is not None
    return iterations, result


def format_iteration(it: Iteration, total: int) -> str:
    phases = ", ".join(f"{name} {seconds:.4f}" for name, seconds in it.phases)
    flag = "  (budget exhausted)" if it.budget_exhausted else ""
    return (f"iteration {it.number}/{total}: {it.seconds:.4f} s"
            + (f"  [{phases}]" if phases else "") + flag)


def summarise(iterations: list[Iteration]) -> dict[str, Any]:
    totals = [it.seconds for it in iterations]
    names = [name for name, _ in iterations[0].phases]
    phase_medians = {
        name: statistics.median(dict(it.phases).get(name, 0.0) for it in iterations)
        for name in names
    }
    peak_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB on Linux
    return {"median": statistics.median(totals), "min": min(totals), "max": max(totals),
            "cpuMedian": statistics.median(it.cpu_seconds for it in iterations),
            "outsidePhasesMedian": statistics.median(it.outside_phases for it in iterations),
            "phaseMedians": phase_medians, "peakRssMb": peak_kb / 1024,
            "identical": len({it.digest for it in iterations}) == 1}


def print_report(label: str, args: argparse.Namespace, summary: dict[str, Any],
                 quality: dict[str, Any], out: TextIO) -> None:
    out.write(f"\n{label}: engine {args.engine}, effort {args.effort}, "
              f"direction {args.direction}\n")
    out.write(f"total seconds: median {summary['median']:.4f}, min {summary['min']:.4f}, "
              f"max {summary['max']:.4f}\n")
    out.write(f"CPU seconds of this process: median {summary['cpuMedian']:.4f}; outside "
              f"the phases: median {summary['outsidePhasesMedian']:.4f}\n")
    for name, seconds in summary["phaseMedians"].items():
        out.write(f"  {name:<24} median {seconds:.4f} s\n")
    out.write(f"peak resident memory of this process: {summary['peakRssMb']:.0f} MB\n")
    same = "yes" if summary["identical"] else "NO: the layouts differ"
    out.write(f"byte-identical layout JSON in every iteration: {same}\n")
    out.write("quality of the last layout:\n")
    for key in ("crossings", "bends", "edgeNodeIntrusions", "ownEndIntrusions", "minClearance",
                "clearanceViolations", "area", "totalEdgeLength", "nodeOverlaps",
                "sharedSegments", "nonOrthogonalSegments", "endpointsOffOutline",
                "labelOverlaps", "labelsAstray"):
        out.write(f"  {key:<24} {quality.get(key)}\n")


def verdict(value: float, target: float | None) -> str:
    """``met``/``missed`` against an upper bound; ``-`` without one.

    >>> verdict(0.009, 0.010), verdict(0.011, 0.010), verdict(5.0, None)
    ('met', 'missed', '-')
    """
    if target is None:
        return "-"
    return "met" if value < target else "missed"


def run_targets(args: argparse.Namespace, out: TextIO) -> int:
    """Each :data:`TARGET_CASES` case in a child process of this script, then the table;
    exit 1 when a child fails."""
    import subprocess
    import tempfile

    out.write("| graph | effort | median | target | speed | peak RSS MB | memory "
              "| identical | crossings | bends | edge length | area | CPU median "
              "| outside phases |\n")
    out.write("|---|---|---:|---:|---|---:|---|---|---:|---:|---:|---:|---:|---:|\n")
    for case in TARGET_CASES:
        nodes = None if case.nodes is None else args.targets_nodes
        iterations = args.targets_iterations or case.iterations
        with tempfile.TemporaryDirectory() as folder:
            report = Path(folder) / "case.json"
            command = [sys.executable, str(Path(__file__).resolve()), "--effort", case.effort,
                       "--iterations", str(iterations), "--warmup", "1", "--json", str(report),
                       "--max-seconds", str(args.max_seconds)]
            command += [] if nodes is None else ["--generate", str(nodes)]
            done = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                  text=True, check=False)
            if done.returncode != 0:
                sys.stderr.write(f"stress.py: target case {case.effort} "
                                 f"{nodes or 'reference'} failed: {done.stderr.strip()}\n")
                return 1
            data = json.loads(report.read_text(encoding="utf-8"))
        summary, quality = data["summary"], data["quality"]
        median, peak = summary["median"], summary["peakRssMb"]
        target = case.target_seconds
        memory = "-" if nodes is None else verdict(peak, PEAK_MEMORY_TARGET_MB)
        out.write(f"| {'reference' if nodes is None else f'generated-{nodes}'} "
                  f"| {case.effort} | {_seconds(median)} "
                  f"| {'-' if target is None else '< ' + _seconds(target)} "
                  f"| {verdict(median, target)} | {peak:.0f} | {memory} "
                  f"| {'yes' if summary['identical'] else 'NO'} | {quality['crossings']} "
                  f"| {quality['bends']} | {quality['totalEdgeLength']:.0f} "
                  f"| {quality['area']:.0f} | {_seconds(summary['cpuMedian'])} "
                  f"| {_seconds(summary['outsidePhasesMedian'])} |\n")
        out.flush()
    return 0


def _seconds(value: float) -> str:
    return f"{value * 1000:.1f} ms" if value < 1 else f"{value:.2f} s"


def main(argv: list[str] | None = None, out: TextIO = sys.stdout) -> int:
    try:
        args = parse_args(argv)
        if args.targets:
            if args.targets_nodes < 2 or (args.targets_iterations or 1) < 1:
                raise ValueError("--targets-nodes must be at least 2 and "
                                 "--targets-iterations at least 1")
            return run_targets(args, out)
        if args.iterations < 1:
            raise ValueError(f"--iterations {args.iterations}: must be at least 1")
        if args.warmup < 0:
            raise ValueError(f"--warmup {args.warmup}: must be 0 or more")
        if args.max_seconds <= 0:
            raise ValueError("--max-seconds must be positive")
        options = LayoutOptions(direction=parse_direction(args.direction),
                                effort=parse_effort(args.effort),
                                time_budget=min(args.max_seconds, 600.0))
        label, graph = load_graph(args)
    except (ValueError, LayoutError, OSError) as exc:
        sys.stderr.write(f"stress.py: {exc}\n")
        return 2
    profiler = cProfile.Profile() if args.profile else None
    try:
        if profiler:
            profiler.enable()
        iterations, result = run_iterations(graph, args, options, out)
    except LayoutError as exc:
        sys.stderr.write(f"stress.py: {exc}\n")
        return 2
    finally:
        if profiler:
            profiler.disable()
    summary = summarise(iterations)
    quality = measure(result, clearance=options.clearance).to_dict()
    print_report(label, args, summary, quality, out)
    if profiler:
        text = io.StringIO()
        pstats.Stats(profiler, stream=text).sort_stats("cumulative").print_stats(25)
        out.write(text.getvalue())
    if args.json:
        args.json.write_text(json.dumps({
            "graph": label, "engine": args.engine, "effort": options.effort.value,
            "direction": options.direction.value,
            "iterations": [{"seconds": it.seconds, "phases": dict(it.phases),
                            "budgetExhausted": it.budget_exhausted} for it in iterations],
            "summary": summary, "quality": quality,
        }, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    slow = [it for it in iterations if it.seconds > args.max_seconds]
    if slow:
        names = ", ".join(f"{it.number} ({it.seconds:.2f} s)" for it in slow)
        sys.stderr.write(f"stress.py: iterations over --max-seconds {args.max_seconds:g}: "
                         f"{names}\n")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
