"""One layout, one ``node`` process: the per-call mode of the elkjs provider.

Each call writes one JSON input file into a fresh temporary folder, runs
``node layout.js input.json output.json``, reads one JSON output file, and removes the
folder whatever happens. Past the timeout the node process (and only it) is killed and
:class:`LayoutTimeoutError` raised; a failing or crashing script, or output that is not
JSON, is a :class:`ProviderFailedError` naming the exit code and the end of stderr.

>>> describe_exit(1), describe_exit(-9)
('exit code 1', 'killed by signal 9 (SIGKILL)')
"""

from __future__ import annotations

import json
import signal
import subprocess
import tempfile
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from layouts.errors import LayoutTimeoutError, ProviderFailedError

ENGINE = "elkjs"
STDERR_TAIL_CHARACTERS = 2000


@dataclass(frozen=True, slots=True)
class ElkAnswer:
    """ELK's laid-out graph, the seconds spent inside ``elk.layout`` and the wall-clock
    seconds of the whole exchange with node (start-up included in per-call mode)."""

    graph: Mapping[str, Any]
    layout_seconds: float
    exchange_seconds: float


def describe_exit(returncode: int) -> str:
    """``exit code N`` or ``killed by signal N (NAME)`` for a negative return code."""
    if returncode >= 0:
        return f"exit code {returncode}"
    try:
        name = signal.Signals(-returncode).name
    except ValueError:
        name = "unknown signal"
    return f"killed by signal {-returncode} ({name})"


def stderr_tail(stderr: bytes | str) -> str:
    """The last characters of a process's stderr, stripped, or ``(empty stderr)``."""
    text = stderr.decode("utf-8", "replace") if isinstance(stderr, bytes) else stderr
    text = text.strip()
    return text[-STDERR_TAIL_CHARACTERS:] if text else "(empty stderr)"


def answer_from(data: object, exchange_seconds: float, origin: str) -> ElkAnswer:
    """Read ``{"graph": {...}, "layoutMilliseconds": T}`` already parsed from JSON;
    :class:`ProviderFailedError` naming ``origin`` when it is not that."""
    graph = data.get("graph") if isinstance(data, dict) else None
    millis = data.get("layoutMilliseconds") if isinstance(data, dict) else None
    if not isinstance(graph, dict) or not isinstance(millis, int | float):
        raise ProviderFailedError(f"elkjs {origin} lacks 'graph' or 'layoutMilliseconds': "
                                  f"{str(data)[:200]}")
    return ElkAnswer(graph, float(millis) / 1000.0, exchange_seconds)


def parse_answer(text: str, exchange_seconds: float, origin: str) -> ElkAnswer:
    """:func:`answer_from` of JSON ``text``; invalid JSON is a :class:`ProviderFailedError`."""
    try:
        data = json.loads(text)
    except ValueError as error:
        raise ProviderFailedError(f"elkjs {origin} is not valid JSON ({error}): "
                                  f"{text[:200]!r}") from None
    return answer_from(data, exchange_seconds, origin)


def _stop(process: subprocess.Popen[bytes]) -> bytes:
    """Kill ``process`` if it still runs, reap it, and return what it wrote to stderr."""
    if process.poll() is None:
        process.kill()
    _, stderr = process.communicate()
    return stderr or b""


def _run_node(command: list[str], folder: str, timeout: float) -> tuple[int, bytes]:
    try:
        process = subprocess.Popen(command, cwd=folder, stdin=subprocess.DEVNULL,
                                   stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    except OSError as error:
        raise ProviderFailedError(f"cannot start node for elkjs: {error}") from None
    try:
        _, stderr = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        _stop(process)
        raise LayoutTimeoutError(ENGINE, timeout) from None
    finally:
        if process.poll() is None:  # interrupted (e.g. KeyboardInterrupt): never leave it
            _stop(process)
    return process.returncode, stderr


def run_per_call(elk_graph: Mapping[str, Any], *, node: str, script: Path,
                 timeout: float) -> ElkAnswer:
    """Lay out ``elk_graph`` with one ``node`` process running ``script``."""
    with tempfile.TemporaryDirectory(prefix="wfr-elk-") as folder:
        input_path = Path(folder) / "input.json"
        output_path = Path(folder) / "output.json"
        input_path.write_text(json.dumps(elk_graph), encoding="utf-8")
        started = time.perf_counter()
        returncode, stderr = _run_node(
            [node, str(script), str(input_path), str(output_path)], folder, timeout)
        exchange_seconds = time.perf_counter() - started
        if returncode != 0:
            raise ProviderFailedError(f"elkjs layout script failed ({describe_exit(returncode)}):"
                                      f" {stderr_tail(stderr)}")
        try:
            text = output_path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as error:
            raise ProviderFailedError(f"elkjs layout script wrote no readable output ({error});"
                                      f" stderr: {stderr_tail(stderr)}") from None
        try:
            return parse_answer(text, exchange_seconds, "output file")
        except ProviderFailedError as error:
            raise ProviderFailedError(f"{error} (node {describe_exit(returncode)}; stderr: "
                                      f"{stderr_tail(stderr)})") from None
