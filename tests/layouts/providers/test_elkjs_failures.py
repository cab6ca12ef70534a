"""Failure modes of the elkjs provider: each is a typed error, and afterwards no node
process of the install folder runs and no temporary file is left.

Crashes and hangs are produced by stand-in ``layout.js`` scripts in a folder whose install
marker is already written (so no ``npm ci`` runs); the real script's timeout uses a
budget far below Node's start-up time.
"""

from __future__ import annotations

import os
import shutil
import signal
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from layouts.errors import LayoutTimeoutError, ProviderFailedError
from layouts.graph import Edge, Graph, Node
from layouts.options import LayoutOptions
from layouts.providers.elkjs import ElkjsProvider
from layouts.providers.elkjs_install import (
    MARKER,
    default_install_dir,
    ensure_installed,
    lock_hash,
)
from layouts.providers.elkjs_options import to_elk_graph
from layouts.providers.elkjs_runner import run_per_call

pytestmark = pytest.mark.skipif(shutil.which("node") is None,
                                reason="Node.js (node) not found; apt-get install nodejs npm")

GRAPH = Graph((Node("a", 80, 40), Node("b", 80, 40)), (Edge("e", "a", "b"),))

WRITE_PID = "require('fs').writeFileSync(__dirname + '/pid', String(process.pid));\n"
SCRIPTS = {
    "hang": WRITE_PID + "setInterval(() => {}, 1000);\n",
    "garbage": "require('fs').writeFileSync(process.argv[3], 'not json {');\n"
               "process.stderr.write('wrote nonsense\\n');\n",
    "crash": "process.stderr.write('out of cheese\\n'); process.exit(3);\n",
    "worker-crash": "process.stdin.once('data', () => {\n"
                    "  process.stderr.write('worker fell over\\n'); process.exit(4); });\n",
    "worker-hang": WRITE_PID + "process.stdin.on('data', () => {});\n",
    "worker-garbage": "process.stdin.on('data', () => process.stdout.write('hello\\n'));\n",
}


def node_pids(folder: Path) -> list[int]:
    """Pids of running processes whose command line mentions ``folder`` (from /proc)."""
    pids = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            command = (entry / "cmdline").read_bytes().replace(b"\0", b" ")
        except OSError:
            continue
        if str(folder).encode() in command:
            pids.append(int(entry.name))
    return pids


def stand_in_folder(root: Path, script: str) -> Path:
    """A folder with the real package files, a stand-in layout.js and a completed marker."""
    folder = root / f"elk-{script}"
    folder.mkdir()
    for name in ("package.json", "package-lock.json"):
        shutil.copy(default_install_dir() / name, folder / name)
    (folder / "layout.js").write_text(SCRIPTS[script], encoding="utf-8")
    (folder / MARKER).parent.mkdir()
    (folder / MARKER).write_text(lock_hash(folder) + "\n", encoding="utf-8")
    return folder


@pytest.fixture
def private_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """Route tempfile into an empty folder, and check it is empty again afterwards."""
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    yield tmp_path
    assert list(scratch.iterdir()) == []


def wait_for_pid(folder: Path) -> int:
    for _ in range(1000):
        if (folder / "pid").exists() and (folder / "pid").read_text():
            return int((folder / "pid").read_text())
        time.sleep(0.01)
    raise AssertionError("the stand-in script never started")


def test_timeout_kills_node_and_raises(private_tmp: Path) -> None:
    folder = stand_in_folder(private_tmp, "hang")
    with pytest.raises(LayoutTimeoutError, match=r"exceeded its time limit of 0\.5 s"):
        ElkjsProvider(install_dir=folder).layout(GRAPH, LayoutOptions(time_budget=0.5))
    assert node_pids(folder) == []


def real_folder(root: Path) -> Path:
    """A folder with the real script, sharing the repository's installed node_modules."""
    ensure_installed(default_install_dir())
    folder = root / "elk-real"
    folder.mkdir()
    for name in ("package.json", "package-lock.json", "layout.js"):
        shutil.copy(default_install_dir() / name, folder / name)
    (folder / "node_modules").symlink_to(default_install_dir() / "node_modules")
    return folder


def test_real_script_past_a_tiny_budget_times_out(private_tmp: Path) -> None:
    folder = real_folder(private_tmp)
    # Node alone needs far more than 1 ms to start, so this budget always runs out.
    with pytest.raises(LayoutTimeoutError, match=r"time limit of 0\.001 s"):
        ElkjsProvider(install_dir=folder).layout(GRAPH, LayoutOptions(time_budget=0.001))
    assert node_pids(folder) == []


def test_a_graph_elk_rejects_is_a_typed_error_naming_elks_message(private_tmp: Path) -> None:
    folder = real_folder(private_tmp)
    elk_graph = to_elk_graph(GRAPH, LayoutOptions())
    elk_graph["edges"].append({"id": "bad", "sources": ["a"], "targets": ["missing"]})
    with pytest.raises(ProviderFailedError,
                       match=r"exit code 1\): ELK layout failed: .*does not exist: missing"):
        run_per_call(elk_graph, node="node", script=folder / "layout.js", timeout=60)
    assert node_pids(folder) == []


def test_killed_node_is_a_typed_error_naming_the_signal(private_tmp: Path) -> None:
    folder = stand_in_folder(private_tmp, "hang")
    killer = threading.Thread(target=lambda: os.kill(wait_for_pid(folder), signal.SIGKILL))
    killer.start()
    with pytest.raises(ProviderFailedError, match=r"killed by signal 9 \(SIGKILL\)"):
        ElkjsProvider(install_dir=folder).layout(GRAPH, LayoutOptions(time_budget=60))
    killer.join()
    assert node_pids(folder) == []


def test_crashing_script_reports_exit_code_and_stderr(private_tmp: Path) -> None:
    folder = stand_in_folder(private_tmp, "crash")
    with pytest.raises(ProviderFailedError, match=r"exit code 3\): out of cheese"):
        ElkjsProvider(install_dir=folder).layout(GRAPH, LayoutOptions())
    assert node_pids(folder) == []


def test_invalid_json_output_is_a_typed_error(private_tmp: Path) -> None:
    folder = stand_in_folder(private_tmp, "garbage")
    with pytest.raises(ProviderFailedError,
                       match=r"output file is not valid JSON.*exit code 0; stderr: wrote nonsense"):
        ElkjsProvider(install_dir=folder).layout(GRAPH, LayoutOptions())


def test_worker_crash_fails_the_call_and_the_worker_is_replaced(private_tmp: Path) -> None:
    folder = stand_in_folder(private_tmp, "worker-crash")
    elk = ElkjsProvider(install_dir=folder, mode="worker", workers=1)
    try:
        with pytest.raises(ProviderFailedError, match=r"exit code 4.*worker fell over"):
            elk.layout(GRAPH, LayoutOptions())
        assert elk.worker_pids() == ()
        with pytest.raises(ProviderFailedError, match="exit code 4"):  # a fresh worker ran
            elk.layout(GRAPH, LayoutOptions())
    finally:
        elk.close()
    assert node_pids(folder) == []


def test_hung_worker_is_killed_on_timeout_and_replaced(private_tmp: Path) -> None:
    folder = stand_in_folder(private_tmp, "worker-hang")
    elk = ElkjsProvider(install_dir=folder, mode="worker", workers=1)
    # 2 s: on a loaded machine node takes over 0.5 s to start and write its pid
    try:
        with pytest.raises(LayoutTimeoutError):
            elk.layout(GRAPH, LayoutOptions(time_budget=2.0))
        first = int((folder / "pid").read_text())
        assert first not in node_pids(folder) and elk.worker_pids() == ()
        (folder / "pid").unlink()
        with pytest.raises(LayoutTimeoutError):
            elk.layout(GRAPH, LayoutOptions(time_budget=2.0))
        assert wait_for_pid(folder) != first
    finally:
        elk.close()
    assert node_pids(folder) == []


def test_worker_answering_garbage_is_a_typed_error(private_tmp: Path) -> None:
    folder = stand_in_folder(private_tmp, "worker-garbage")
    elk = ElkjsProvider(install_dir=folder, mode="worker")
    try:
        with pytest.raises(ProviderFailedError, match="invalid JSON b'hello'"):
            elk.layout(GRAPH, LayoutOptions())
    finally:
        elk.close()
    assert node_pids(folder) == []


@pytest.mark.parametrize("mode", ["per-call", "worker"])
def test_node_that_cannot_start_is_a_typed_error(private_tmp: Path, mode: str) -> None:
    folder = stand_in_folder(private_tmp, "crash")
    broken_node = private_tmp / "node"
    broken_node.write_text("#!/nonexistent/interpreter\n")  # executable, but exec fails
    broken_node.chmod(0o755)
    elk = ElkjsProvider(install_dir=folder, mode=mode, node=str(broken_node))
    try:
        with pytest.raises(ProviderFailedError, match="cannot start"):
            elk.layout(GRAPH, LayoutOptions())
    finally:
        elk.close()
