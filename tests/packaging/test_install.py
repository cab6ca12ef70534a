"""A non-editable install into a fresh virtual environment gives a working ``wfr``.

The working tree (its tracked files) is copied, built into a wheel without build
isolation, and installed with ``--no-deps`` into a new venv; the new venv sees the
project's dependencies through a ``.pth`` line naming the development venv's
site-packages, so the test needs no package index. It then runs from a folder outside the
repository, with an empty cache folder: ``from layouts import layout`` must come from the
installed wheel, ``wfr engines`` must list every engine whose system dependency is here,
and an elkjs layout must install the pinned elkjs from the packaged lock into the cache.
Slow (a wheel build and an ``npm ci``), so ``explicit``.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.explicit


def _run(command: list[str], cwd: Path, env: dict[str, str]) -> str:
    done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=600, check=False)
    assert done.returncode == 0, f"{command}: {done.stdout}\n{done.stderr}"
    return done.stdout


def _copy_tracked(target: Path) -> None:
    listed = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True,
                            check=True).stdout.decode().split("\0")
    for name in filter(None, listed):
        source = ROOT / name
        destination = target / name
        destination.parent.mkdir(parents=True, exist_ok=True)
        if source.is_symlink():
            destination.symlink_to(source.readlink())
        elif source.is_file():
            shutil.copy2(source, destination)


def test_non_editable_install_works(tmp_path: Path) -> None:
    source = tmp_path / "src"
    _copy_tracked(source)
    env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": str(Path.home()),
           "XDG_CACHE_HOME": str(tmp_path / "cache")}
    _run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
          "-w", str(tmp_path / "dist"), str(source)], tmp_path, env)
    wheel = next((tmp_path / "dist").glob("workflow_renderer-*.whl"))
    venv = tmp_path / "venv"
    _run([sys.executable, "-m", "venv", str(venv)], tmp_path, env)
    site = next(venv.glob("lib/python*/site-packages"))
    (site / "dev-dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    _run([str(venv / "bin" / "pip"), "install", "--no-deps", "--no-index", str(wheel)],
         tmp_path, env)
    work = tmp_path / "elsewhere"
    work.mkdir()
    python = str(venv / "bin" / "python")
    where = _run([python, "-c", "import layouts; from layouts import layout; "
                  "print(layouts.__file__)"], work, env)
    assert where.strip().startswith(str(site)), where
    listed = _run([str(venv / "bin" / "wfr"), "engines"], work, env)
    for engine in ("layered", "graphviz", "elkjs", "grandalf"):
        assert engine in listed
    assert "unavailable" not in listed.lower() or shutil.which("dot") is None, listed
    for engine in ("elkjs", "graphviz", "layered"):
        out = work / f"{engine}.json"
        _run([str(venv / "bin" / "wfr"), "render", str(ROOT / "fixtures" /
              "document-processing.yaml"), "--engine", engine, "-o", str(out)], work, env)
        assert json.loads(out.read_text())["diagnostics"]["engine"] == engine
    installed = list((tmp_path / "cache" / "workflow-renderer").glob(
        "elk-layout-*/node_modules/.wfr-installed"))
    assert len(installed) == 1, "elkjs was not installed into the cache folder"
    lock = (installed[0].parents[1] / "package-lock.json").read_bytes()
    assert lock == (ROOT / "tools" / "elk-layout" / "package-lock.json").read_bytes()
