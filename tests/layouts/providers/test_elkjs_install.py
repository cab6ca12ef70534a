"""``npm ci`` runs exactly once per install folder, however many callers race for it.

Installs are counted twice, independently: by the provider's install log and by an
``npm`` stand-in on ``PATH`` that appends a line to a counter file and then runs the real
npm. Each test installs into a fresh copy of tools/elk-layout (the npm cache makes that
take about a second).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from layouts.errors import ProviderUnavailableError
from layouts.graph import Edge, Graph, Node
from layouts.options import LayoutOptions
from layouts.providers.elkjs import ElkjsProvider
from layouts.providers.elkjs_install import (
    INSTALL_LOG,
    LOCK_FILE,
    MARKER,
    default_install_dir,
    ensure_installed,
    is_installed,
)

pytestmark = pytest.mark.skipif(shutil.which("node") is None or shutil.which("npm") is None,
                                reason="Node.js or npm not found; apt-get install nodejs npm")

GRAPH = Graph((Node("a", 80, 40), Node("b", 80, 40)), (Edge("e", "a", "b"),))
REPOSITORY = Path(__file__).resolve().parents[3]


@pytest.fixture
def fresh(tmp_path: Path) -> Path:
    folder = tmp_path / "elk-layout"
    folder.mkdir()
    for name in ("package.json", "package-lock.json", "layout.js"):
        shutil.copy(default_install_dir() / name, folder / name)
    return folder


@pytest.fixture
def npm_counter(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Put an ``npm`` on PATH that counts its runs in the returned file."""
    real_npm = shutil.which("npm")
    assert real_npm is not None
    shims, counter = tmp_path / "shims", tmp_path / "npm-runs"
    shims.mkdir()
    shim = shims / "npm"
    shim.write_text(f'#!/bin/sh\necho "$*" >> "{counter}"\nexec "{real_npm}" "$@"\n')
    shim.chmod(0o755)
    monkeypatch.setenv("PATH", f"{shims}{os.pathsep}{os.environ['PATH']}")
    return counter


def runs(counter: Path) -> int:
    return len(counter.read_text().splitlines()) if counter.exists() else 0


def installs(folder: Path) -> int:
    log = folder / INSTALL_LOG
    return len(log.read_text().splitlines()) if log.exists() else 0


def test_eight_threads_install_once(fresh: Path, npm_counter: Path) -> None:
    # Worker mode: the eight calls share two node processes, which keeps this test light.
    elk = ElkjsProvider(install_dir=fresh, mode="worker", workers=2)
    options = LayoutOptions(time_budget=120)  # generous: only the install count matters
    start = threading.Barrier(8)
    results: list[float] = []
    errors: list[BaseException] = []

    def call() -> None:
        start.wait()
        try:
            results.append(elk.layout(GRAPH, options).node("b").y)
        except BaseException as error:  # collected and asserted below
            errors.append(error)

    threads = [threading.Thread(target=call) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    try:
        assert errors == []
        assert len(results) == 8
        assert runs(npm_counter) == 1 and installs(fresh) == 1
        elk.layout(GRAPH, options)  # a later call finds the install complete
        assert runs(npm_counter) == 1 and installs(fresh) == 1
    finally:
        elk.close()


CHILD = """
import sys, time
from pathlib import Path
from layouts.graph import Edge, Graph, Node
from layouts.options import LayoutOptions
from layouts.providers.elkjs import ElkjsProvider
folder, go = Path(sys.argv[1]), Path(sys.argv[2])
while not go.exists():
    time.sleep(0.005)
graph = Graph((Node("a", 80, 40), Node("b", 80, 40)), (Edge("e", "a", "b"),))
options = LayoutOptions(time_budget=120)
print(ElkjsProvider(install_dir=folder).layout(graph, options).node("a").width)
"""


def test_two_processes_install_once(fresh: Path, npm_counter: Path, tmp_path: Path) -> None:
    go = tmp_path / "go"
    children = [subprocess.Popen([sys.executable, "-c", CHILD, str(fresh), str(go)],
                                 cwd=REPOSITORY, stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE) for _ in range(2)]
    time.sleep(0.3)  # both interpreters import while the go file is absent
    go.touch()
    outputs = [child.communicate(timeout=120) for child in children]
    assert [child.returncode for child in children] == [0, 0], outputs
    assert [out.strip() for out, _ in outputs] == [b"80", b"80"]
    assert runs(npm_counter) == 1 and installs(fresh) == 1


def test_changed_lock_file_installs_again(fresh: Path, npm_counter: Path) -> None:
    ensure_installed(fresh)
    ensure_installed(fresh)
    assert runs(npm_counter) == 1 and is_installed(fresh)
    lock = fresh / "package-lock.json"
    lock.write_text(lock.read_text() + "\n")  # same packages, different bytes and hash
    assert not is_installed(fresh)
    ensure_installed(fresh)
    assert runs(npm_counter) == 2 and installs(fresh) == 2 and is_installed(fresh)


def test_failing_npm_ci_reports_its_output_and_marks_nothing(fresh: Path) -> None:
    package = fresh / "package.json"
    package.write_text(package.read_text().replace('"elkjs": "0.12.1"', '"elkjs": "0.11.0"'))
    with pytest.raises(ProviderUnavailableError, match=r"npm ci in .* failed with exit code"
                       ) as caught:
        ElkjsProvider(install_dir=fresh).layout(GRAPH, LayoutOptions())
    assert "in sync" in str(caught.value)  # npm's own words about package.json vs the lock
    assert not (fresh / MARKER).exists() and installs(fresh) == 0


def test_unreachable_registry_is_a_clear_error(fresh: Path, tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("npm_config_registry", "http://127.0.0.1:9/")  # nothing listens
    monkeypatch.setenv("npm_config_cache", str(tmp_path / "empty-cache"))
    monkeypatch.setenv("npm_config_fetch_retries", "0")
    with pytest.raises(ProviderUnavailableError, match="ECONNREFUSED") as caught:
        ensure_installed(fresh)
    assert "npm registry is reachable" in str(caught.value)
    assert not is_installed(fresh)


def test_missing_script_is_named(fresh: Path) -> None:
    (fresh / "layout.js").unlink()
    elk = ElkjsProvider(install_dir=fresh)
    assert not elk.availability().available
    assert "layout.js" in elk.availability().reason
    with pytest.raises(ProviderUnavailableError, match=r"layout\.js not found in"):
        elk.layout(GRAPH, LayoutOptions())


def test_install_folder_comes_from_the_environment(fresh: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WFR_ELK_DIR", str(fresh))
    assert ElkjsProvider().install_dir == fresh.resolve()


def test_unwritable_lock_file_is_a_clear_error(fresh: Path) -> None:
    (fresh / LOCK_FILE).mkdir()  # opening the lock file now fails, even for root
    with pytest.raises(ProviderUnavailableError, match="cannot install elkjs in"):
        ensure_installed(fresh)
