"""A folder of pinned npm packages, installed once with ``npm ci``.

A folder holds ``package.json`` and ``package-lock.json`` (plus what its user needs, e.g.
elkjs's ``layout.js``). :meth:`NpmFolder.ensure_installed` is idempotent and safe under
concurrency: a thread lock per folder inside the process and an ``fcntl.flock`` on
``.wfr-install.lock`` across processes guard one ``npm ci``. A completed install is
recognised by the marker ``node_modules/.wfr-installed`` holding the SHA-256 of
``package-lock.json`` (written only after ``npm ci`` succeeds, and removed by the next
``npm ci``), so a changed lock file re-installs. Every install appends one line to
``.wfr-install.log``. Failures are raised through the folder's ``error`` factory, so each
user reports them in its own terms (the elkjs provider as an unavailable engine).

>>> from pathlib import Path
>>> folder = NpmFolder(Path("/nonexistent"), ("package.json",), "demo", RuntimeError)
>>> folder.is_installed(), folder.missing_files()
(False, ['package.json'])
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import re
import shutil
import subprocess
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

LOCK_FILE = ".wfr-install.lock"
INSTALL_LOG = ".wfr-install.log"
MARKER = Path("node_modules") / ".wfr-installed"
NPM_MISSING = ("npm not found", "apt-get install npm")
NPM_COMMAND = ("ci", "--no-audit", "--no-fund", "--prefer-offline")
NPM_TIMEOUT_SECONDS = 600.0
OUTPUT_TAIL_LINES = 15
RETRY_HINT = "check that the npm registry is reachable, then retry"

_STACK_FRAME = re.compile(r"^\s*(npm (error|ERR!))?\s+at\s")
_folder_locks: dict[Path, threading.Lock] = {}
_folder_locks_guard = threading.Lock()

ErrorFactory = Callable[[str, str], Exception]
"""(what is wrong, how to fix it) -> the exception to raise."""


def npm_present() -> bool:
    """Whether ``npm`` is on the ``PATH`` (needed only to install)."""
    return shutil.which("npm") is not None


def tail(text: str) -> str:
    """The last lines of npm's output, without blank lines, stack-trace frames and the
    usage text npm appends to some errors; the "complete log" pointer is kept."""
    lines = [line.rstrip() for line in text.splitlines()
             if line.strip() not in {"", "npm error", "npm ERR!"} and not _STACK_FRAME.match(line)]
    usage = next((i for i, line in enumerate(lines) if line.endswith(" Usage:")), len(lines))
    kept = lines[:usage][-OUTPUT_TAIL_LINES:]
    log_line = [line for line in lines[usage:] if "complete log" in line]
    return " | ".join(kept + log_line) or "(no output)"


@dataclass(frozen=True, slots=True)
class NpmFolder:
    """One install folder: its path, the files it must hold, what it installs (for
    messages) and how its failures are raised."""

    path: Path
    required: tuple[str, ...]
    what: str
    error: ErrorFactory
    fix_missing: str = "restore the folder from the repository"

    def missing_files(self) -> list[str]:
        """The required files absent from the folder."""
        return [name for name in self.required if not (self.path / name).is_file()]

    def lock_hash(self) -> str:
        """SHA-256 (hex) of ``package-lock.json``: the content of a completed install's
        marker."""
        return hashlib.sha256((self.path / "package-lock.json").read_bytes()).hexdigest()

    def is_installed(self) -> bool:
        """Whether ``npm ci`` completed in the folder for its current lock file."""
        try:
            marker = (self.path / MARKER).read_text(encoding="utf-8").strip()
            return marker == self.lock_hash()
        except OSError:
            return False

    def ensure_installed(self) -> None:
        """Install exactly once; a completed install is skipped (the fast path only reads
        the marker). Raises through ``error`` naming a missing file, a missing ``npm``, or
        ``npm ci``'s failure with the last lines of its output."""
        if self.is_installed():
            return
        absent = self.missing_files()
        if absent:
            raise self.error(f"{', '.join(absent)} not found in {self.path}", self.fix_missing)
        with _folder_lock(self.path):
            if self.is_installed():
                return
            try:
                self._install_locked()
            except OSError as error:  # e.g. a read-only install folder
                raise self.error(f"cannot install {self.what} in {self.path}: {error}",
                                 "make the folder writable") from None

    def _install_locked(self) -> None:
        """Run ``npm ci`` unless another process finished it while we waited for the lock."""
        with open(self.path / LOCK_FILE, "a", encoding="utf-8") as lock:
            fcntl.flock(lock.fileno(), fcntl.LOCK_EX)
            try:
                if self.is_installed():
                    return
                self._run_npm_ci()
                expected = self.lock_hash()
                marker = self.path / MARKER
                partial = marker.with_suffix(".partial")
                partial.write_text(expected + "\n", encoding="utf-8")
                partial.replace(marker)
                with open(self.path / INSTALL_LOG, "a", encoding="utf-8") as log:
                    log.write(f"npm ci pid={os.getpid()} lock={expected}\n")
            finally:
                fcntl.flock(lock.fileno(), fcntl.LOCK_UN)

    def _run_npm_ci(self) -> None:
        npm = shutil.which("npm")
        if npm is None:
            raise self.error(*NPM_MISSING)
        try:
            done = subprocess.run([npm, *NPM_COMMAND], cwd=self.path, stdin=subprocess.DEVNULL,
                                  stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                  timeout=NPM_TIMEOUT_SECONDS, check=False)
        except subprocess.TimeoutExpired as expired:
            output = (expired.output or b"").decode("utf-8", "replace")
            raise self.error(f"npm ci in {self.path} did not finish in "
                             f"{NPM_TIMEOUT_SECONDS:g} s: {tail(output)}", RETRY_HINT) from None
        if done.returncode != 0:
            output = done.stdout.decode("utf-8", "replace")
            raise self.error(f"npm ci in {self.path} failed with exit code {done.returncode}: "
                             f"{tail(output)}", RETRY_HINT)


def _folder_lock(path: Path) -> threading.Lock:
    with _folder_locks_guard:
        return _folder_locks.setdefault(path, threading.Lock())
