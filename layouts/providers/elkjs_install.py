"""Finding Node.js and installing elkjs once, with ``npm ci``, in the elk-layout folder.

The install folder (``WFR_ELK_DIR``, or ``tools/elk-layout`` of a repository checkout, or,
in an installed package, a cache folder filled from the package data, or a folder given to
the provider) holds ``package.json``, ``package-lock.json`` and ``layout.js``;
:class:`layouts.npm_folder.NpmFolder` installs it exactly once, guarded
across threads and processes, and recognises a completed install by the SHA-256 of the
lock file in ``node_modules/.wfr-installed``. Every install appends one line to
``.wfr-install.log``.

>>> folder = default_install_dir()
>>> (folder / SCRIPT_NAME).name
'layout.js'
"""

from __future__ import annotations

import hashlib
import os
import shutil
import sys
import tempfile
from pathlib import Path

from layouts.errors import ProviderUnavailableError
from layouts.npm_folder import INSTALL_LOG, LOCK_FILE, MARKER, NPM_MISSING, NpmFolder, npm_present

__all__ = ["INSTALL_LOG", "LOCK_FILE", "MARKER", "NPM_MISSING", "ensure_installed",
           "is_installed", "lock_hash", "missing_files", "npm_present"]

ENGINE = "elkjs"
SCRIPT_NAME = "layout.js"
REQUIRED_FILES = ("package.json", "package-lock.json", SCRIPT_NAME)
INSTALL_DIR_VARIABLE = "WFR_ELK_DIR"
NODE_MISSING = ("Node.js (node) not found", "apt-get install nodejs npm")


PACKAGED_DIR = Path(__file__).resolve().parent / "elk_layout"
"""The elk-layout files shipped as package data (in the repository: links to
``tools/elk-layout``; in a wheel: copies)."""
CHECKOUT_DIR = Path(__file__).resolve().parents[2] / "tools" / "elk-layout"
CACHE_VARIABLE = "XDG_CACHE_HOME"


def default_install_dir() -> Path:
    """``$WFR_ELK_DIR`` when set; else ``tools/elk-layout`` of a repository checkout; else
    (an installed package) :func:`cache_install_dir`."""
    configured = os.environ.get(INSTALL_DIR_VARIABLE)
    if configured:
        return Path(configured).resolve()
    if all((CHECKOUT_DIR / name).is_file() for name in REQUIRED_FILES):
        return CHECKOUT_DIR.resolve()
    return cache_install_dir()


def _packaged_hash() -> str:
    digest = hashlib.sha256()
    for name in REQUIRED_FILES:
        digest.update(name.encode() + b"\0" + (PACKAGED_DIR / name).read_bytes() + b"\0")
    return digest.hexdigest()[:16]


def cache_install_dir() -> Path:
    """``$XDG_CACHE_HOME`` (default ``~/.cache``) ``/workflow-renderer/elk-layout-<hash>``,
    holding a copy of the packaged files (the hash covers them, so an upgrade gets a new
    folder and the same lock installs once). The copy is made atomically on first use;
    ``npm ci`` runs there later, on the first layout. When the package data is missing
    or the cache is not writable, the folder is returned as it is and the provider's
    availability names what is missing."""
    base = Path(os.environ.get(CACHE_VARIABLE) or Path.home() / ".cache")
    try:
        folder = base / "workflow-renderer" / f"elk-layout-{_packaged_hash()}"
    except OSError:
        return base / "workflow-renderer" / "elk-layout"
    if all((folder / name).is_file() for name in REQUIRED_FILES):
        return folder
    try:
        folder.parent.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=".elk-layout-", dir=folder.parent))
        for name in REQUIRED_FILES:
            shutil.copyfile(PACKAGED_DIR / name, staging / name)
        try:
            staging.rename(folder)
        except OSError:  # another process made it first
            shutil.rmtree(staging, ignore_errors=True)
    except OSError:
        pass
    return folder


def find_node(node: str = "node") -> str | None:
    """Path of the ``node`` executable (or of ``node`` given as a path), ``None`` if absent."""
    return shutil.which(node)


def _folder(install_dir: Path) -> NpmFolder:
    def unavailable(problem: str, fix: str) -> ProviderUnavailableError:
        return ProviderUnavailableError(ENGINE, problem, fix)

    return NpmFolder(install_dir, REQUIRED_FILES, ENGINE, unavailable,
                     f"restore tools/elk-layout from the repository or set "
                     f"{INSTALL_DIR_VARIABLE}")


def missing_files(install_dir: Path) -> list[str]:
    """The required elk-layout files absent from ``install_dir``."""
    return _folder(install_dir).missing_files()


def lock_hash(install_dir: Path) -> str:
    """SHA-256 (hex) of ``package-lock.json``: the content of a completed install's marker."""
    return _folder(install_dir).lock_hash()


def is_installed(install_dir: Path) -> bool:
    """Whether ``npm ci`` completed in ``install_dir`` for its current lock file."""
    return _folder(install_dir).is_installed()


def ensure_installed(install_dir: Path) -> None:
    """Install elkjs in ``install_dir`` exactly once; a completed install is skipped.

    Raises :class:`ProviderUnavailableError` naming a missing file, a missing ``npm``, or
    ``npm ci``'s failure with the last lines of its output. Never installs per call:
    the fast path only reads the marker.
    """
    _folder(install_dir).ensure_installed()


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
