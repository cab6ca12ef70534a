"""Layouts in separate worker processes under a hard time limit.

A slow or hung provider, even one stuck in C code, cannot stall the caller: each job runs
in a long-lived worker process (a fresh interpreter started with :mod:`subprocess`, so no
threads or locks leak in from the caller, and jobs travel as pickles over a socket pair,
framed by :class:`multiprocessing.connection.Connection`), the caller waits at most
``options.time_budget + GRACE_SECONDS``, and a job past that limit gets its worker killed
(only that worker) and replaced.

Errors come back typed: an error of our packages raised in the worker is rebuilt in the
caller as the same class with the same message and attributes; a job past its limit raises
:class:`LayoutTimeoutError`; a worker that dies raises :class:`ProviderFailedError` with its
exit code; a job that runs out of the worker's memory limit (``memory_limit_mb``, applied
as ``RLIMIT_AS``) raises :class:`WorkerMemoryError`, and a job whose caller gave up
(``cancelled`` set) raises :class:`JobCancelledError`. In every case but a typed error
from the job itself, the worker is killed and replaced.

:meth:`WorkerPool.render` runs a whole render (read, check, lay out, write) in a worker, and
:meth:`WorkerPool.render_async` does the same from an event loop without a thread;
:meth:`WorkerPool.stuck` finds workers that hang (busy past their hard limit, or idle and
not answering a ping), for ``/readyz``.

>>> from layouts.graph import Graph, Node, Edge
>>> graph = Graph((Node("a", 80, 40), Node("b", 80, 40)), (Edge("e", "a", "b"),))
>>> with WorkerPool(size=1) as pool:
...     result = pool.run(graph, "graphviz", LayoutOptions())
>>> result.node("a").y < result.node("b").y
True
"""

from __future__ import annotations

import logging
import os
import pickle
import queue
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from types import TracebackType
from typing import Any

import anyio

from layouts.errors import LayoutTimeoutError, ProviderFailedError
from layouts.graph import Graph
from layouts.options import LayoutOptions
from layouts.registry import ProviderFactory, runtime_registrations
from layouts.result import LayoutResult
from renderer.isolation_worker import (
    WORKER_NICENESS,
    Job,
    LayoutJob,
    PingJob,
    RenderJob,
    RenderOutput,
    WorkerMemoryError,
    WorkerSetup,
    rebuild_error,
)

LOGGER = logging.getLogger(__name__)

GRACE_SECONDS = 2.0
"""Seconds a job may run past ``options.time_budget`` (process hand-off, imports) before
its worker is killed."""

STARTUP_SECONDS = 60.0
"""Seconds a new worker may take to import the layout packages and report ready."""

STOP_SECONDS = 10.0
"""Seconds to wait for a killed worker to exit."""

DEFAULT_POOL_SIZE = 2

DEFAULT_MEMORY_LIMIT_MB = 1024
"""The address-space limit of each worker of the service's pool (elkjs's Node.js, which
inherits it, needs about 800 MiB of address space just to start)."""

PING_SECONDS = 2.0
"""How long an idle worker may take to answer a ping before it counts as stuck."""

STUCK_SLACK_SECONDS = 5.0
"""How long past its hard limit a busy worker may go unkilled before it counts as stuck."""

CANCEL_POLL_SECONDS = 0.05
"""How often a waiting caller looks whether its job was cancelled."""

LOOP_SEND_BYTES = 64 * 1024
"""Jobs with bodies up to this size are written to their worker from the event loop by
:meth:`WorkerPool.render_async`; larger ones go through a thread (writing megabytes to a
socket the worker drains would hold the loop)."""


def time_limit(options: LayoutOptions) -> float:
    """The hard limit of one job in seconds: the budget plus :data:`GRACE_SECONDS`.

    >>> time_limit(LayoutOptions(time_budget=1.5))
    3.5
    """
    return options.time_budget + GRACE_SECONDS


class PoolClosedError(ProviderFailedError):
    """The worker pool was closed (or never started) when a job was submitted."""


class WorkerDiedError(ProviderFailedError):
    """A worker died during a job (crashed, killed, or ran out of memory in C code, which
    exits instead of raising); it was replaced."""


class JobCancelledError(ProviderFailedError):
    """The caller gave up on a job (its client went away); its worker was replaced."""


_BOOTSTRAP = (
    f"import os; os.nice({WORKER_NICENESS}); "
    "import sys; from multiprocessing.connection import Connection; "
    "connection = Connection(int(sys.argv[1])); sys.path[:] = connection.recv(); "
    "from renderer.isolation_worker import serve; serve(connection)"
)
"""The worker's command: lower its CPU priority (before the imports, which take a CPU
second), take the caller's ``sys.path``, then serve jobs."""


@dataclass(slots=True)
class _Worker:
    """One worker process and the caller's end of its socket."""

    process: subprocess.Popen[bytes]
    connection: Connection
    ready: bool = False
    usable: bool = True
    busy_until: float | None = None
    """While a job runs: the monotonic time by which it must be answered or killed."""
    started_at: float = field(default_factory=time.monotonic)

    @property
    def pid(self) -> int:
        return self.process.pid

    def wait_ready(self) -> None:
        """Block until the worker reported ready; :class:`ProviderFailedError` if it died."""
        if self.ready:
            return
        if not self.connection.poll(STARTUP_SECONDS):
            self.stop()
            raise ProviderFailedError(f"layout worker did not start within {STARTUP_SECONDS:g} s")
        _receive(self, engine="")
        self.ready = True

    def stop(self) -> None:
        """Kill the process (if still running), reap it and close the socket."""
        self.usable = False
        if self.process.poll() is None:
            self.process.kill()
        try:
            self.process.wait(STOP_SECONDS)
        except subprocess.TimeoutExpired:  # stuck in the kernel; the OS reaps it later
            LOGGER.warning("layout worker %d did not exit after SIGKILL", self.pid)
        self.connection.close()


def _start_worker(setup: WorkerSetup) -> _Worker:
    """Start one worker; its stdout goes to our stderr so it can never corrupt our output."""
    ours, theirs = socket.socketpair()
    with ours, theirs:
        process = subprocess.Popen(
            [sys.executable, "-c", _BOOTSTRAP, str(theirs.fileno())],
            pass_fds=(theirs.fileno(),), stdin=subprocess.DEVNULL, stdout=2,
        )
        connection = Connection(ours.detach())
    connection.send(list(sys.path))
    connection.send(setup)
    return _Worker(process, connection)


def _wait_answer(connection: Connection, limit: float,
                 cancelled: threading.Event | None) -> bool | None:
    """Whether an answer arrived within ``limit`` seconds; ``None`` when ``cancelled``
    was set first."""
    if cancelled is None:
        return connection.poll(limit)
    deadline = time.monotonic() + limit
    while not cancelled.is_set():
        left = deadline - time.monotonic()
        if connection.poll(max(0.0, min(left, CANCEL_POLL_SECONDS))):
            return True
        if left <= 0:
            return False
    return None


async def _wait_answer_async(connection: Connection, limit: float,
                             cancelled: threading.Event | None) -> bool | None:
    """:func:`_wait_answer` on the event loop: the worker's socket is awaited, not polled
    from a thread."""
    deadline = time.monotonic() + limit
    try:
        while cancelled is None or not cancelled.is_set():
            if connection.poll(0):
                return True
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            with anyio.move_on_after(min(left, CANCEL_POLL_SECONDS)):
                await anyio.wait_readable(connection.fileno())
        return None
    finally:
        # uvloop (libuv) makes a socket it watches non-blocking, and Connection.recv
        # then fails on an answer that arrives in parts: make it blocking again
        os.set_blocking(connection.fileno(), True)


def _receive(worker: _Worker, *, engine: str) -> Any:
    """Read one reply; a dead worker becomes :class:`ProviderFailedError` with its exit code."""
    try:
        kind, payload = worker.connection.recv()
    except (EOFError, OSError):
        worker.stop()
        code = worker.process.returncode
        if not engine:
            raise ProviderFailedError(
                f"layout worker for start-up died with exit code {code}") from None
        raise WorkerDiedError(f"layout worker for engine '{engine}' died with exit code "
                              f"{code} (it is replaced; a graph too large for its memory "
                              "limit can do this)") from None
    if kind == "error":
        raise rebuild_error(payload)
    return payload


class WorkerPool:
    """A fixed number of long-lived layout workers, each running one job at a time.

    Thread-safe: :meth:`run` may be called from many threads; callers beyond ``size``
    wait for a free worker. Every worker registers ``extra_providers`` (by default the
    providers registered with :func:`layouts.registry.register` in this process when the
    pool starts), so both sides know the same engines; factories that cannot be pickled
    by reference (lambdas, local classes) stay behind. ``warm`` workers render a small
    workflow and settle their heap before they report ready
    (:func:`renderer.isolation_worker.warm_up`): the service's, not a one-shot CLI's.
    """

    def __init__(
        self, size: int = DEFAULT_POOL_SIZE, *,
        extra_providers: Mapping[str, ProviderFactory] | None = None,
        memory_limit_mb: int | None = None, warm: bool = False,
    ) -> None:
        if size < 1:
            raise ValueError(f"pool size {size} must be at least 1")
        if memory_limit_mb is not None and memory_limit_mb < 1:
            raise ValueError(f"memory limit {memory_limit_mb} MiB must be at least 1")
        self.size = size
        self.memory_limit_mb = memory_limit_mb
        self.warm = warm
        self._extra = None if extra_providers is None else dict(extra_providers)
        self._idle: queue.Queue[_Worker] = queue.Queue()
        self._all: dict[int, _Worker] = {}
        self._lock = threading.Lock()
        self._started = False
        self._closed = False

    @property
    def started(self) -> bool:
        """True between :meth:`start` and :meth:`close`."""
        return self._started and not self._closed

    def pids(self) -> list[int]:
        """Process ids of the current workers (for monitoring and tests)."""
        with self._lock:
            return sorted(self._all)

    def starting(self) -> list[int]:
        """Process ids of the workers that have not reported ready yet."""
        with self._lock:
            return sorted(pid for pid, worker in self._all.items() if not worker.ready)

    def start(self, *, wait: bool = True) -> None:
        """Start the workers (idempotent). With ``wait``, block until each is ready; without,
        the first job on a worker waits for it (so start-up overlaps the caller's work)."""
        with self._lock:
            if self._started:
                return
            self._started = True
            if self._extra is None:
                self._extra = _picklable(runtime_registrations())
            workers = [self._spawn_locked() for _ in range(self.size)]
        try:
            for worker in workers:
                if wait:
                    worker.wait_ready()
                self._idle.put(worker)
        except ProviderFailedError:
            self.close()
            raise

    def _spawn_locked(self) -> _Worker:
        worker = _start_worker(WorkerSetup(self._extra or {}, self.memory_limit_mb, self.warm))
        self._all[worker.pid] = worker
        return worker

    def run(self, graph: Graph, engine: str, options: LayoutOptions) -> LayoutResult:
        """Lay out ``graph`` in a worker under :func:`time_limit`; see the module doc."""
        result: LayoutResult = self.submit(LayoutJob(graph, engine, options), options)
        return result

    def render(self, job: RenderJob,
               cancelled: threading.Event | None = None) -> RenderOutput:
        """A whole render (read, check, lay out, write) done in a worker under
        :func:`time_limit` of the job's options; ``cancelled`` set gives up on it."""
        output: RenderOutput = self.submit(job, job.options, cancelled)
        return output

    async def render_async(self, job: RenderJob,
                           cancelled: threading.Event | None = None) -> RenderOutput:
        """:meth:`render` for a caller on an event loop (anyio): the job is written to an
        idle, ready worker and its answer awaited on the worker's socket, so no thread
        stands between the loop and the worker (a thread hop cost 0.25 ms at the median
        and 4 ms at the 90th percentile, waiting for the interpreter lock). Without such a
        worker, or for a body over :data:`LOOP_SEND_BYTES`, the job goes through
        :meth:`render` in a thread. If the calling task is cancelled meanwhile, the
        worker is replaced (its answer must not reach the next job)."""
        worker = self._idle_ready() if len(job.data) <= LOOP_SEND_BYTES else None
        if worker is None:
            threaded: RenderOutput = await anyio.to_thread.run_sync(self.render, job, cancelled)
            return threaded
        try:
            output: RenderOutput = await self._run_async(worker, job, time_limit(job.options),
                                                         cancelled)
            return output
        finally:
            self._give_back(worker)

    def _idle_ready(self) -> _Worker | None:
        """An idle worker that is ready and alive, without waiting; ``None`` if there is
        none at hand (it stays in the queue for a thread to wait on)."""
        if not self.started:
            raise PoolClosedError("layout worker pool is not running")
        try:
            worker = self._idle.get_nowait()
        except queue.Empty:
            return None
        if worker.ready and worker.usable and worker.process.poll() is None:
            return worker
        self._idle.put(worker)
        return None

    async def _run_async(self, worker: _Worker, job: Job, limit: float,
                         cancelled: threading.Event | None) -> Any:
        if self._closed:
            raise PoolClosedError("layout worker pool is closed")
        worker.busy_until = time.monotonic() + limit
        try:
            worker.connection.send(job)
            answered = await _wait_answer_async(worker.connection, limit, cancelled)
        except OSError:  # the worker is gone; _receive reports how it ended
            answered = True
        except BaseException:  # the caller's task was cancelled with the job under way
            worker.stop()
            raise
        finally:
            worker.busy_until = None
        return self._conclude(worker, job, answered, limit)

    def submit(self, job: Job, options: LayoutOptions,
               cancelled: threading.Event | None = None) -> Any:
        """Run ``job`` on a free worker under :func:`time_limit` of ``options``."""
        if not self.started:
            raise PoolClosedError("layout worker pool is not running")
        worker = self._take_idle()
        if worker.process.poll() is not None:  # died while idle (e.g. killed from outside)
            worker = self._replace(worker)
        try:
            return self._run_on(worker, job, time_limit(options), cancelled)
        finally:
            self._give_back(worker)

    def _give_back(self, worker: _Worker) -> None:
        if worker.usable:
            self._idle.put(worker)
        else:
            self._idle.put(self._replace(worker))

    def _take_idle(self) -> _Worker:
        while True:
            try:
                return self._idle.get(timeout=0.5)
            except queue.Empty:
                if self._closed:
                    raise PoolClosedError("layout worker pool is closed") from None

    def _run_on(self, worker: _Worker, job: Job, limit: float,
                cancelled: threading.Event | None) -> Any:
        if self._closed:
            raise PoolClosedError("layout worker pool is closed")
        worker.wait_ready()
        worker.busy_until = time.monotonic() + limit
        try:
            worker.connection.send(job)
            answered = _wait_answer(worker.connection, limit, cancelled)
        except OSError:  # the worker is gone; _receive reports how it ended
            answered = True
        finally:
            worker.busy_until = None
        return self._conclude(worker, job, answered, limit)

    def _conclude(self, worker: _Worker, job: Job, answered: bool | None, limit: float) -> Any:
        """The job's answer, or the error for a cancelled (``None``) or timed-out
        (``False``) job, whose worker is stopped."""
        if answered is None:
            worker.stop()
            raise JobCancelledError(f"the {job.engine} job was cancelled by its caller")
        if not answered:
            worker.stop()
            raise LayoutTimeoutError(job.engine, limit)
        try:
            return _receive(worker, engine=job.engine)
        except WorkerMemoryError:
            worker.stop()  # it exits after answering; start its successor now
            raise

    def stuck(self) -> list[str]:
        """Why workers hang, one line each (``[]``: none does): a busy worker more than
        :data:`STUCK_SLACK_SECONDS` past its hard limit (it should have been killed), or
        an idle worker that does not answer a ping within :data:`PING_SECONDS` (it is
        replaced), or one that has not started within :data:`STARTUP_SECONDS`."""
        now = time.monotonic()
        with self._lock:
            workers = list(self._all.values())
        problems = [f"layout worker {w.pid} is {now - w.busy_until:.0f} s past its time limit"
                    for w in workers
                    if w.busy_until is not None and now > w.busy_until + STUCK_SLACK_SECONDS]
        return problems + self._ping_idle()

    def _ping_idle(self) -> list[str]:
        problems = []
        for _ in range(self.size):
            try:
                worker = self._idle.get_nowait()
            except queue.Empty:
                break
            try:
                if not worker.ready and worker.connection.poll(0):
                    worker.wait_ready()  # its ready message is waiting: take it
                if worker.ready and worker.usable:
                    self._run_on(worker, PingJob(), PING_SECONDS, None)
                elif time.monotonic() - worker.started_at > STARTUP_SECONDS:
                    problems.append(f"layout worker {worker.pid} has not started within "
                                    f"{STARTUP_SECONDS:g} s")
            except (LayoutTimeoutError, ProviderFailedError) as error:
                problems.append(f"layout worker {worker.pid} does not answer: {error}")
            finally:
                self._give_back(worker)
        return problems

    def _replace(self, worker: _Worker) -> _Worker:
        """Stop ``worker`` and start its successor (not yet ready; jobs wait for that)."""
        worker.stop()
        with self._lock:
            self._all.pop(worker.pid, None)
            if self._closed:
                return worker  # unusable: the next job on it fails as closed
            return self._spawn_locked()

    def close(self) -> None:
        """Kill every worker and reap it; jobs in flight fail with ProviderFailedError."""
        with self._lock:
            self._closed = True
            workers = list(self._all.values())
            self._all.clear()
        for worker in workers:
            worker.stop()

    def __enter__(self) -> WorkerPool:
        self.start()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.close()


def _picklable(factories: Mapping[str, ProviderFactory]) -> dict[str, ProviderFactory]:
    kept = {}
    for name, factory in factories.items():
        try:
            pickle.dumps(factory)
        except (pickle.PicklingError, AttributeError, TypeError):
            LOGGER.info("provider %r cannot be sent to layout workers; not pickleable", name)
            continue
        kept[name] = factory
    return kept


def layout_isolated(
    graph: Graph, engine: str, options: LayoutOptions, *,
    extra_providers: Mapping[str, ProviderFactory] | None = None,
) -> LayoutResult:
    """One layout in a fresh worker process under :func:`time_limit` (for the CLI).

    >>> from layouts.graph import Graph, Node
    >>> layout_isolated(Graph((Node("a", 80, 40),)), "graphviz", LayoutOptions()).width > 0
    True
    """
    with WorkerPool(size=1, extra_providers=extra_providers) as pool:
        return pool.run(graph, engine, options)
