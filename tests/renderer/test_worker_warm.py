"""A warm layout worker (the service's) renders a small workflow and settles its heap
before it reports ready; a plain one (the CLI's one-shot worker) does neither.

The probe job lives in a module written to a temporary folder on ``sys.path``, so the
worker (which gets the caller's ``sys.path``) can import it by name.
"""

from __future__ import annotations

import gc
import sys
from pathlib import Path
from typing import Any

import pytest

from layouts.options import LayoutOptions
from renderer.isolation import WorkerPool
from renderer.isolation_worker import GC_THRESHOLDS

PROBE_SOURCE = '''
import gc, sys
from dataclasses import dataclass

@dataclass(frozen=True)
class HeapProbe:
    """What the worker holds before its first real job."""
    engine: str = ""
    def run(self):
        fonts = sys.modules.get("renderer.fonts")
        return {"frozen": gc.get_freeze_count(), "thresholds": gc.get_threshold(),
                "pipeline": "renderer.render" in sys.modules,
                "fonts_read": 0 if fonts is None else fonts.load_metrics.cache_info().currsize}
'''


def probe(folder: Path, monkeypatch: pytest.MonkeyPatch, *, warm: bool) -> dict[str, Any]:
    (folder / "wfr_heap_probe.py").write_text(PROBE_SOURCE)
    monkeypatch.syspath_prepend(str(folder))
    job = __import__("wfr_heap_probe").HeapProbe()
    with WorkerPool(size=1, warm=warm) as pool:
        answer: dict[str, Any] = pool.submit(job, LayoutOptions())
    sys.modules.pop("wfr_heap_probe", None)
    return answer


def test_a_warm_worker_has_drawn_once_and_frozen_its_heap(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    answer = probe(tmp_path, monkeypatch, warm=True)
    assert answer["pipeline"]  # read -> lay out -> write imported before the first job
    assert answer["fonts_read"] == 2  # titles are bold, subtitles regular: both fonts read
    assert answer["frozen"] > 1000  # every module's objects: thousands, never walked again
    assert answer["thresholds"] == GC_THRESHOLDS


def test_a_plain_worker_keeps_pythons_collector_and_draws_nothing(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    answer = probe(tmp_path, monkeypatch, warm=False)
    assert not answer["pipeline"] and answer["fonts_read"] == 0
    assert answer["frozen"] == 0
    assert answer["thresholds"] == gc.get_threshold()  # this process's, Python's default
