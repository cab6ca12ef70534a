"""How many DOT files of a folder render with each engine, and why the others do not.

Meant for Graphviz's own example graphs (Debian's graphviz-doc package ships them under
/usr/share/doc/graphviz/examples; they are read in place, never copied into the repo):

    python tools/dot_examples.py /usr/share/doc/graphviz --engines layered,graphviz,elkjs

Every file is read and laid out as ``wfr render`` does (a worker process under a time
limit) and written as SVG; the table counts successes per engine and the problems by
their first words. ``--json FILE`` keeps the per-file outcome.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

from layouts.options import LayoutOptions
from renderer.isolation import WorkerPool
from renderer.render import classify_error, render_timed
from renderer.writers import OutputFormat

SUFFIXES = (".gv", ".dot", ".gv.gz", ".dot.gz")


def dot_files(folder: Path) -> list[Path]:
    """Every DOT file under ``folder``, sorted by path."""
    return sorted(p for p in folder.rglob("*") if p.is_file()
                  and p.name.lower().endswith(SUFFIXES))


def outcome(path: Path, engine: str, pool: WorkerPool, seconds: float) -> str:
    """``ok``, or the problem's message (a bug's exception type)."""
    options = LayoutOptions(time_budget=seconds)
    try:
        render_timed(path.read_bytes(), filename=path.name, fmt=OutputFormat.SVG,
                     engine=engine, options=options, runner=pool.run,
                     given_options=frozenset({"time_budget"}))
    except Exception as error:  # every failure is counted, a bug as its type
        problem = classify_error(error)
        return problem.message if problem is not None else f"BUG {type(error).__name__}"
    return "ok"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("folder", type=Path)
    parser.add_argument("--engines", default="layered,graphviz,elkjs,grandalf")
    parser.add_argument("--seconds", type=float, default=20.0, help="time budget per layout")
    parser.add_argument("--json", type=Path, help="write every file's outcome here")
    args = parser.parse_args(argv)
    files = dot_files(args.folder)
    engines = args.engines.split(",")
    results: dict[str, dict[str, str]] = {}
    pool = WorkerPool(size=1)
    pool.start()
    try:
        for path in files:
            name = str(path.relative_to(args.folder))
            results[name] = {e: outcome(path, e, pool, args.seconds) for e in engines}
            print(name, " ".join(f"{e}={v[:60]}" for e, v in results[name].items()),
                  file=sys.stderr)
    finally:
        pool.close()
    print(f"{len(files)} DOT files under {args.folder}")
    for engine in engines:
        ok = sum(1 for r in results.values() if r[engine] == "ok")
        problems = Counter(" ".join(r[engine].split()[:6]) for r in results.values()
                           if r[engine] != "ok")
        print(f"{engine}: {ok}/{len(files)} render; " +
              "; ".join(f"{n} x {p}" for p, n in problems.most_common(5)))
    if args.json:
        args.json.write_text(json.dumps(results, indent=1, sort_keys=True))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
