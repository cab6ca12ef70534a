"""One long-lived ``node layout.js --worker`` process speaking line-delimited JSON.

A request is one line ``{"id": N, "graph": {...}}``; the answer is one line with the same
``id``. Reads and writes wait with ``select`` against the call's deadline, so a hung
worker can never block the caller; stderr is drained by a thread that keeps its last
lines for error messages.

>>> WorkerBroken("exit code 1").args
('exit code 1',)
"""

from __future__ import annotations

import collections
import json
import os
import select
import subprocess
import threading
import time
from collections.abc import Mapping
from pathlib import Path
from typing import IO, Any

from layouts.errors import ProviderFailedError
from layouts.providers.elkjs_runner import describe_exit, stderr_tail

STDERR_LINES_KEPT = 20
READ_CHUNK = 1 << 16
STOP_GRACE_SECONDS = 1.0


class WorkerBroken(Exception):
    """The worker crashed, closed its output or answered something unreadable."""


class WorkerTimedOut(Exception):
    """The worker did not answer before the deadline."""


def _drain(stream: IO[bytes], kept: collections.deque[str]) -> None:
    for raw in iter(stream.readline, b""):
        kept.append(raw.decode("utf-8", "replace").rstrip())
    stream.close()


class ElkWorker:
    """A started worker process; not thread-safe (the pool hands it to one caller)."""

    def __init__(self, node: str, script: Path) -> None:
        try:
            self._process = subprocess.Popen(
                [node, str(script), "--worker"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                stderr=subprocess.PIPE, bufsize=0)
        except OSError as error:
            raise ProviderFailedError(f"cannot start an elkjs worker: {error}") from None
        assert self._process.stdin and self._process.stdout and self._process.stderr
        self._stdin, self._stdout = self._process.stdin.fileno(), self._process.stdout.fileno()
        os.set_blocking(self._stdin, False)
        self._buffer = bytearray()
        self._next_id = 0
        self._stderr: collections.deque[str] = collections.deque(maxlen=STDERR_LINES_KEPT)
        self._drainer = threading.Thread(target=_drain, args=(self._process.stderr, self._stderr),
                                         name=f"elkjs-worker-{self.pid}-stderr", daemon=True)
        self._drainer.start()

    @property
    def pid(self) -> int:
        return self._process.pid

    def alive(self) -> bool:
        """Whether the process is still running."""
        return self._process.poll() is None

    def _broken(self, what: str, *, kill: bool = True) -> WorkerBroken:
        self.stop(kill=kill)
        stderr = "\n".join(self._stderr)
        return WorkerBroken(f"{what} ({describe_exit(self._process.returncode)}); stderr: "
                            f"{stderr_tail(stderr)}")

    def _write(self, data: bytes, deadline: float) -> None:
        view = memoryview(data)
        while view:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise WorkerTimedOut
            _, writable, _ = select.select([], [self._stdin], [], remaining)
            if not writable:
                continue
            try:
                view = view[os.write(self._stdin, view):]
            except BlockingIOError:
                continue
            except (BrokenPipeError, ConnectionResetError):
                raise self._broken("worker closed its input", kill=False) from None

    def _read_line(self, deadline: float) -> bytes:
        while (end := self._buffer.find(b"\n")) < 0:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise WorkerTimedOut
            readable, _, _ = select.select([self._stdout], [], [], remaining)
            if not readable:
                continue
            chunk = os.read(self._stdout, READ_CHUNK)
            if not chunk:
                raise self._broken("worker exited before answering", kill=False)
            self._buffer.extend(chunk)
        line = bytes(self._buffer[:end])
        del self._buffer[: end + 1]
        return line

    def request(self, graph: Mapping[str, Any], timeout: float) -> dict[str, Any]:
        """Send one graph and return the parsed answer; raises :class:`WorkerTimedOut`
        or :class:`WorkerBroken` (the caller then stops the worker)."""
        deadline = time.monotonic() + timeout
        self._next_id += 1
        line = json.dumps({"id": self._next_id, "graph": graph}) + "\n"
        self._write(line.encode("utf-8"), deadline)
        raw = self._read_line(deadline)
        try:
            reply = json.loads(raw)
        except ValueError:
            raise self._broken(f"worker answered invalid JSON {raw[:200]!r}") from None
        if not isinstance(reply, dict) or reply.get("id") != self._next_id:
            raise self._broken(f"worker answered out of turn: {raw[:200]!r}")
        return reply

    def stop(self, *, kill: bool = False) -> None:
        """End the worker: close its input and give it a moment to exit (or, with
        ``kill``, kill it at once); a worker that does not exit is killed. Always reaped."""
        process = self._process
        if process.poll() is None and kill:
            process.kill()
        for stream in (process.stdin, process.stdout):
            try:
                if stream:
                    stream.close()
            except OSError:
                pass
        try:
            process.wait(STOP_GRACE_SECONDS)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        self._drainer.join(STOP_GRACE_SECONDS)
