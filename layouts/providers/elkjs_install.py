"""Finding Node.js and installing elkjs once, with ``npm ci``, in the elk-layout folder.

The install folder (``tools/elk-layout`` of this repository, or ``WFR_ELK_DIR``, or a
folder given to the provider) holds ``package.json``, ``package-lock.json`` and
``layout.js``. :func:`ensure_installed` is idempotent and safe under concurrency: a thread
lock per folder inside the process and an ``fcntl.flock`` on ``.wfr-install.lock`` across
processes guard one ``npm ci``. A completed install is recognised by the marker
``node_modules/.wfr-installed`` holding the SHA-256 of ``package-lock.json`` (written only
after ``npm ci`` succeeds, and removed by the next ``npm ci``), so a changed lock file
re-installs. Every install appends one line to ``.wfr-install.log``.

>>> folder = default_install_dir()
>>> (folder / SCRIPT_NAME).name
'layout.js'
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import re
import shutil
import subprocess
import sys
import threading
from pathlib import Path

from layouts.errors import ProviderUnavailableError

ENGINE = "elkjs"
SCRIPT_NAME = "layout.js"
REQUIRED_FILES = ("package.json", "package-lock.json", SCRIPT_NAME)
LOCK_FILE = ".wfr-install.lock"
INSTALL_LOG = ".wfr-install.log"
MARKER = Path("node_modules") / ".wfr-installed"
INSTALL_DIR_VARIABLE = "WFR_ELK_DIR"
NODE_MISSING = ("Node.js (node) not found", "apt-get install nodejs npm")
NPM_MISSING = ("npm not found", "apt-get install npm")
NPM_COMMAND = ("ci", "--no-audit", "--no-fund", "--prefer-offline")
NPM_TIMEOUT_SECONDS = 600.0
OUTPUT_TAIL_LINES = 15

_STACK_FRAME = re.compile(r"^\s*(npm (error|ERR!))?\s+at\s")
_folder_locks: dict[Path, threading.Lock] = {}
_folder_locks_guard = threading.Lock()


def default_install_dir() -> Path:
    """``$WFR_ELK_DIR`` when set, else ``tools/elk-layout`` of this repository."""
    configured = os.environ.get(INSTALL_DIR_VARIABLE)
    if configured:
        return Path(configured).resolve()
    return (Path(__file__).resolve().parents[2] / "tools" / "elk-layout").resolve()


def find_node(node: str = "node") -> str | None:
    """Path of the ``node`` executable (or of ``node`` given as a path), ``None`` if absent."""
    return shutil.which(node)


def npm_present() -> bool:
    """Whether ``npm`` is on the ``PATH`` (needed only to install)."""
    return shutil.which("npm") is not None


def missing_files(install_dir: Path) -> list[str]:
    """The required elk-layout files absent from ``install_dir``."""
    return [name for name in REQUIRED_FILES if not (install_dir / name).is_file()]


def lock_hash(install_dir: Path) -> str:
    """SHA-256 (hex) of ``package-lock.json``: the content of a completed install's marker."""
    return hashlib.sha256((install_dir / "package-lock.json").read_bytes()).hexdigest()


def is_installed(install_dir: Path) -> bool:
    """Whether ``npm ci`` completed in ``install_dir`` for its current lock file."""
    marker = install_dir / MARKER
    try:
        return marker.read_text(encoding="utf-8").strip() == lock_hash(install_dir)
    except OSError:
        return False


def _folder_lock(install_dir: Path) -> threading.Lock:
    with _folder_locks_guard:
        return _folder_locks.setdefault(install_dir, threading.Lock())


def _tail(text: str) -> str:
    """The last lines of npm's output, without blank lines, stack-trace frames and the
    usage text npm appends to some errors; the "complete log" pointer is kept."""
    lines = [line.rstrip() for line in text.splitlines()
             if line.strip() not in {"", "npm error", "npm ERR!"} and not _STACK_FRAME.match(line)]
    usage = next((i for i, line in enumerate(lines) if line.endswith(" Usage:")), len(lines))
    kept = lines[:usage][-OUTPUT_TAIL_LINES:]
    log_line = [line for line in lines[usage:] if "complete log" in line]
    return " | ".join(kept + log_line) or "(no output)"


def _run_npm_ci(install_dir: Path) -> None:
    npm = shutil.which("npm")
    if npm is None:
        raise ProviderUnavailableError(ENGINE, *NPM_MISSING)
    command = [npm, *NPM_COMMAND]
    try:
        done = subprocess.run(command, cwd=install_dir, stdin=subprocess.DEVNULL,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              timeout=NPM_TIMEOUT_SECONDS, check=False)
    except subprocess.TimeoutExpired as expired:
        output = (expired.output or b"").decode("utf-8", "replace")
        raise ProviderUnavailableError(
            ENGINE, f"npm ci in {install_dir} did not finish in {NPM_TIMEOUT_SECONDS:g} s: "
            f"{_tail(output)}", "check that the npm registry is reachable, then retry") from None
    if done.returncode != 0:
        output = done.stdout.decode("utf-8", "replace")
        raise ProviderUnavailableError(
            ENGINE, f"npm ci in {install_dir} failed with exit code {done.returncode}: "
            f"{_tail(output)}", "check that the npm registry is reachable, then retry")


def _install_locked(install_dir: Path) -> None:
    """Run ``npm ci`` unless another process finished it while we waited for the lock."""
    with open(install_dir / LOCK_FILE, "a", encoding="utf-8") as lock:
        fcntl.flock(lock.fileno(), fcntl.LOCK_EX)
        try:
            if is_installed(install_dir):
                return
            _run_npm_ci(install_dir)
            expected = lock_hash(install_dir)
            marker = install_dir / MARKER
            partial = marker.with_suffix(".partial")
            partial.write_text(expected + "\n", encoding="utf-8")
            partial.replace(marker)
            with open(install_dir / INSTALL_LOG, "a", encoding="utf-8") as log:
                log.write(f"npm ci pid={os.getpid()} lock={expected}\n")
        finally:
            fcntl.flock(lock.fileno(), fcntl.LOCK_UN)


def ensure_installed(install_dir: Path) -> None:
    """Install elkjs in ``install_dir`` exactly once; a completed install is skipped.

    Raises :class:`ProviderUnavailableError` naming a missing file, a missing ``npm``, or
    ``npm ci``'s failure with the last lines of its output. Never installs per call:
    the fast path only reads the marker.
    """
    if is_installed(install_dir):
        return
    absent = missing_files(install_dir)
    if absent:
        raise ProviderUnavailableError(
            ENGINE, f"{', '.join(absent)} not found in {install_dir}",
            f"restore tools/elk-layout from the repository or set {INSTALL_DIR_VARIABLE}")
    with _folder_lock(install_dir):
        if is_installed(install_dir):
            return
        try:
            _install_locked(install_dir)
        except OSError as error:  # e.g. a read-only install folder
            raise ProviderUnavailableError(
                ENGINE, f"cannot install elkjs in {install_dir}: {error}",
                f"make the folder writable or set {INSTALL_DIR_VARIABLE} to a writable copy"
            ) from None


def main() -> int:
    """Install elkjs in the default folder, as ``make test`` does:
    ``python -m layouts.providers.elkjs_install``. Prints the error and returns 1 on failure."""
    folder = default_install_dir()
    try:
        ensure_installed(folder)
    except ProviderUnavailableError as error:
        print(error, file=sys.stderr)
        return 1
    print(f"elkjs installed in {folder}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
