""":meth:`WorkerPool.render_async`: a render from an event loop without a thread hop, the
same answers and errors as :meth:`WorkerPool.render`, and a worker replaced when its
caller's task is cancelled mid-job (the stale answer must never reach the next job).

The slow test engine lives in a module written to a temporary folder on ``sys.path``, so
the worker processes (which get the caller's ``sys.path``) can import it by name.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from typing import Any

import anyio
import anyio.to_thread
import pytest

from layouts.options import LayoutOptions
from renderer.isolation import LOOP_SEND_BYTES, JobCancelledError, WorkerPool
from renderer.isolation_worker import RenderJob

PROVIDER_SOURCE = '''
import time
from layouts.registry import Availability
from layouts.result import Diagnostics, LayoutResult, NodeBox

class NapProvider:
    """One box per node in a row; a first node named "nap" sleeps 2 s first."""
    name = "test-async-nap"
    def availability(self):
        return Availability(True)
    def layout(self, graph, options):
        if graph.nodes[0].id == "nap":
            time.sleep(2)
        boxes = tuple(NodeBox(n.id, 100.0 * i, 0, n.width, n.height)
                      for i, n in enumerate(graph.nodes))
        return LayoutResult(boxes, (), 100.0 * len(boxes), 40.0,
                            Diagnostics("test-async-nap", "draft", "TopToBottom"))
'''
ENGINE = "test-async-nap"


@pytest.fixture(scope="module")
def pool(tmp_path_factory: pytest.TempPathFactory,
         provider_module: Callable[..., AbstractContextManager[None]]) -> Iterator[WorkerPool]:
    with provider_module(tmp_path_factory.mktemp("providers"), "wfr_async_providers",
                         PROVIDER_SOURCE, {ENGINE: "NapProvider"}), WorkerPool(size=1) as started:
        yield started


def job(first: str, padding: int = 0) -> RenderJob:
    """A JSON render of the graph ``first``, ``b``; ``padding`` spaces enlarge the body."""
    graph = {"nodes": [{"id": first, "width": 80, "height": 40},
                       {"id": "b", "width": 80, "height": 40}]}
    return RenderJob((json.dumps(graph) + " " * padding).encode(), None, "json", ENGINE,
                     LayoutOptions())


def node_ids(output: bytes) -> list[str]:
    return [node["id"] for node in json.loads(output)["nodes"]]


def no_threads(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """Record every ``anyio.to_thread.run_sync`` call (and still make it)."""
    calls: list[Any] = []
    real = anyio.to_thread.run_sync

    async def recording(function: Any, *args: Any, **kwargs: Any) -> Any:
        calls.append(function)
        return await real(function, *args, **kwargs)

    monkeypatch.setattr(anyio.to_thread, "run_sync", recording)
    return calls


def test_a_small_job_is_answered_without_a_thread(pool: WorkerPool,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    threads = no_threads(monkeypatch)
    output = anyio.run(pool.render_async, job("a"))
    assert node_ids(output.output) == ["a", "b"] and threads == []


@pytest.mark.parametrize("backend_options", [{}, {"use_uvloop": True}], ids=["asyncio", "uvloop"])
def test_a_large_answer_arrives_whole_on_either_loop(pool: WorkerPool,
                                                    backend_options: dict[str, bool]) -> None:
    # 400 nodes with 100-character ids: a body of ~50 KB (under the loop limit) and an
    # answer of over 400 * 100 bytes, more than one read of the socket gives (uvloop made
    # the socket non-blocking, and Connection.recv then failed on the partial answer)
    nodes = [{"id": f"{i:0100d}", "width": 80, "height": 40} for i in range(400)]
    body = json.dumps({"nodes": nodes}).encode()
    big = RenderJob(body, None, "json", ENGINE, LayoutOptions())
    assert len(body) <= LOOP_SEND_BYTES
    for _ in range(3):  # the socket stays usable for the next job
        output = anyio.run(pool.render_async, big, backend_options=backend_options)
        assert len(node_ids(output.output)) == 400


def test_a_body_over_the_loop_limit_goes_through_a_thread(
        pool: WorkerPool, monkeypatch: pytest.MonkeyPatch) -> None:
    threads = no_threads(monkeypatch)
    output = anyio.run(pool.render_async, job("a", padding=LOOP_SEND_BYTES))
    assert node_ids(output.output) == ["a", "b"] and threads == [pool.render]


def test_a_cancelled_event_stops_the_job_and_replaces_its_worker(pool: WorkerPool) -> None:
    cancelled = threading.Event()

    async def cancel_soon() -> list[int]:
        await pool.render_async(job("a"))  # a ready worker: the job goes the loop's way
        before = pool.pids()
        threading.Timer(0.3, cancelled.set).start()
        with pytest.raises(JobCancelledError, match="cancelled by its caller"):
            await pool.render_async(job("nap"), cancelled)
        return before

    before = anyio.run(cancel_soon)
    assert pool.pids() != before


def test_a_task_cancelled_mid_job_never_hands_its_answer_to_the_next(pool: WorkerPool) -> None:
    async def give_up_then_render() -> tuple[list[int], bytes]:
        await pool.render_async(job("a"))  # a ready worker: the job goes the loop's way
        before = pool.pids()
        with anyio.move_on_after(0.3):  # the nap job answers after 2 s: given up before
            await pool.render_async(job("nap"))
        return before, (await pool.render_async(job("next"))).output

    before, output = anyio.run(give_up_then_render)
    assert node_ids(output) == ["next", "b"]
    assert pool.pids() != before  # the worker with the stale answer was replaced
