"""Worker processes under a hard time limit: results, typed errors, kills, clean shutdown.

The test provider lives in a module written to a temporary folder on ``sys.path``, so the
worker processes (which get the caller's ``sys.path``) can import it by name.
"""

from __future__ import annotations

import os
import signal
import threading
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from pathlib import Path

import pytest

from layouts import registry
from layouts.errors import (
    InvalidGraphError,
    LayoutTimeoutError,
    ProviderFailedError,
    ProviderUnavailableError,
    UnknownEngineError,
)
from layouts.graph import Graph, Node
from layouts.options import LayoutOptions
from renderer.isolation import (
    GRACE_SECONDS,
    PoolClosedError,
    WorkerPool,
    layout_isolated,
    time_limit,
)
from renderer.isolation_worker import describe_error, rebuild_error

PROVIDER_SOURCE = '''
import os, pathlib, time
from layouts.errors import InvalidGraphError, ProviderUnavailableError
from layouts.registry import Availability
from layouts.result import Diagnostics, LayoutResult, NodeBox

class StackProvider:
    """Stacks nodes top to bottom 10 px apart; the first node's id picks a misbehaviour."""
    name = "test-stack"
    def availability(self):
        return Availability(True)
    def layout(self, graph, options):
        first = graph.nodes[0]
        if first.id == "sleep":
            pathlib.Path(first.label).write_text(str(os.getpid()))
            time.sleep(30)
        if first.id == "exit":
            os._exit(7)
        if first.id == "invalid":
            raise InvalidGraphError("node 'invalid' is wrong", offending_id="invalid")
        if first.id == "unavailable":
            raise ProviderUnavailableError("test-stack", "libstack", "pip install stack")
        if first.id == "bug":
            raise ZeroDivisionError("boom")
        boxes, y = [], 0.0
        for node in graph.nodes:
            boxes.append(NodeBox(node.id, 0, y, node.width, node.height))
            y += node.height + 10
        diagnostics = Diagnostics("test-stack", options.effort.value, options.direction.value,
                                  notes=(str(os.getpid()),))
        return LayoutResult(tuple(boxes), (), max(n.width for n in graph.nodes), y - 10,
                            diagnostics)
'''

ENGINE = "test-stack"


@pytest.fixture(scope="module", autouse=True)
def stack_provider(tmp_path_factory: pytest.TempPathFactory,
                   provider_module: Callable[..., AbstractContextManager[None]]) -> Iterator[None]:
    with provider_module(tmp_path_factory.mktemp("providers"),
                         "wfr_isolation_providers", PROVIDER_SOURCE,
                         {ENGINE: "StackProvider"}):
        yield


@pytest.fixture
def pool() -> Iterator[WorkerPool]:
    with WorkerPool(size=1) as started:
        yield started


@pytest.fixture
def pool_of_two() -> Iterator[WorkerPool]:
    with WorkerPool(size=2) as started:
        yield started


def graph_of(*node_ids: str, label: str = "") -> Graph:
    return Graph(tuple(Node(n, 80, 40, label=label) for n in node_ids))


def is_running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def test_errors_cross_the_process_boundary_as_the_same_class() -> None:
    sent = ProviderUnavailableError("elkjs", "node", "apt-get install nodejs")
    back = rebuild_error(describe_error(sent, "elkjs"))
    assert type(back) is ProviderUnavailableError and str(back) == str(sent)
    assert (back.engine, back.missing, back.install_hint) == ("elkjs", "node",
                                                              "apt-get install nodejs")
    bug = rebuild_error(describe_error(ValueError("bad"), "layered"))
    assert type(bug) is ProviderFailedError
    assert str(bug) == "layout engine 'layered' failed: ValueError: bad"
    forged = rebuild_error({"module": "os", "qualname": "system", "message": "x",
                            "attributes": {}})
    assert type(forged) is ProviderFailedError  # only LayoutError classes are rebuilt


def test_time_limit_is_budget_plus_grace() -> None:
    assert time_limit(LayoutOptions(time_budget=1.5)) == 1.5 + GRACE_SECONDS


def test_a_job_runs_in_a_worker_and_returns_its_layout(pool: WorkerPool) -> None:
    graph = Graph((Node("a", 80, 40), Node("b", 60, 20)))
    result = pool.run(graph, ENGINE, LayoutOptions())
    # b sits under a: a's height 40 + the provider's gap 10 = 50; total 40 + 10 + 20 = 70.
    assert [(n.id, n.y) for n in result.nodes] == [("a", 0), ("b", 50)]
    assert result.height == 70
    worker_pid = int(result.diagnostics.notes[0])
    assert worker_pid != os.getpid()
    assert worker_pid in pool.pids()


def test_typed_errors_come_back_with_their_message_and_attributes(pool: WorkerPool) -> None:
    pids_before = pool.pids()
    with pytest.raises(InvalidGraphError, match="node 'invalid' is wrong") as invalid:
        pool.run(graph_of("invalid"), ENGINE, LayoutOptions())
    assert invalid.value.offending_id == "invalid"
    with pytest.raises(ProviderUnavailableError) as unavailable:
        pool.run(graph_of("unavailable"), ENGINE, LayoutOptions())
    assert str(unavailable.value) == (
        "layout engine 'test-stack' is unavailable: libstack (pip install stack)")
    assert (unavailable.value.engine, unavailable.value.missing) == ("test-stack", "libstack")
    with pytest.raises(UnknownEngineError, match="'no-such-engine'"):
        pool.run(graph_of("a"), "no-such-engine", LayoutOptions())
    with pytest.raises(ProviderFailedError, match="ZeroDivisionError: boom"):
        pool.run(graph_of("bug"), ENGINE, LayoutOptions())
    assert pool.pids() == pids_before  # a failed job does not cost its worker


def test_a_job_past_its_limit_kills_only_its_worker(
    pool_of_two: WorkerPool, tmp_path: Path
) -> None:
    pool = pool_of_two
    marker = tmp_path / "sleeping-worker.pid"
    pids_before = pool.pids()
    with pytest.raises(LayoutTimeoutError) as timeout:
        pool.run(graph_of("sleep", label=str(marker)), ENGINE, LayoutOptions(time_budget=0.1))
    assert timeout.value.seconds == 0.1 + GRACE_SECONDS
    assert "exceeded its time limit" in str(timeout.value)
    killed = int(marker.read_text())
    assert killed in pids_before and not is_running(killed)
    survivor = next(pid for pid in pids_before if pid != killed)
    assert survivor in pool.pids() and len(pool.pids()) == 2
    assert pool.run(graph_of("a"), ENGINE, LayoutOptions()).nodes[0].id == "a"


def test_a_dead_worker_reports_its_exit_code_and_is_replaced(pool: WorkerPool) -> None:
    (before,) = pool.pids()
    with pytest.raises(ProviderFailedError, match="exit code 7"):
        pool.run(graph_of("exit"), ENGINE, LayoutOptions())
    assert len(pool.pids()) == 1 and pool.pids() != [before]
    assert pool.run(graph_of("a"), ENGINE, LayoutOptions()).nodes[0].id == "a"


def test_a_worker_killed_while_idle_is_replaced_before_the_next_job(pool: WorkerPool) -> None:
    (victim,) = pool.pids()
    os.kill(victim, signal.SIGKILL)
    os.waitid(os.P_PID, victim, os.WEXITED | os.WNOWAIT)  # dead, not yet reaped
    result = pool.run(graph_of("a"), ENGINE, LayoutOptions())
    assert int(result.diagnostics.notes[0]) != victim
    assert victim not in pool.pids() and not is_running(victim)


def test_jobs_from_many_threads_all_get_their_own_result(pool_of_two: WorkerPool) -> None:
    pool = pool_of_two
    results: dict[int, str] = {}

    def job(index: int) -> None:
        result = pool.run(graph_of(f"n{index}", "tail"), ENGINE, LayoutOptions())
        results[index] = result.nodes[0].id

    threads = [threading.Thread(target=job, args=(i,)) for i in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert results == {i: f"n{i}" for i in range(6)}


def test_close_leaves_no_worker_processes() -> None:
    pool = WorkerPool(size=2)
    pool.start()
    pids = pool.pids()
    assert len(pids) == 2 and all(is_running(pid) for pid in pids)
    pool.close()
    assert not any(is_running(pid) for pid in pids)
    assert pool.pids() == [] and not pool.started
    with pytest.raises(PoolClosedError):
        pool.run(graph_of("a"), ENGINE, LayoutOptions())


def test_a_pool_started_without_waiting_waits_at_its_first_job() -> None:
    pool = WorkerPool(size=1)
    pool.start(wait=False)
    try:
        (pid,) = pool.pids()
        result = pool.run(graph_of("a"), ENGINE, LayoutOptions())
        assert int(result.diagnostics.notes[0]) == pid
    finally:
        pool.close()
    assert not is_running(pid)


def test_one_shot_layout_uses_a_fresh_process_that_is_gone_after() -> None:
    result = layout_isolated(graph_of("a", "b"), ENGINE, LayoutOptions())
    worker_pid = int(result.diagnostics.notes[0])
    assert worker_pid != os.getpid() and not is_running(worker_pid)
    assert [n.y for n in result.nodes] == [0, 50]  # 40 high + 10 gap


def test_providers_that_cannot_be_pickled_stay_behind() -> None:
    registry.register("test-lambda", lambda: registry.get_provider(ENGINE))
    try:
        with WorkerPool(size=1) as pool:
            with pytest.raises(UnknownEngineError, match="'test-lambda'"):
                pool.run(graph_of("a"), "test-lambda", LayoutOptions())
            assert pool.run(graph_of("a"), ENGINE, LayoutOptions()).nodes[0].id == "a"
    finally:
        registry.unregister("test-lambda")
