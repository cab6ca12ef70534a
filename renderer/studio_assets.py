"""The browser libraries the Studio serves, installed from the npm registry.

They are pinned by ``tools/studio-assets/package-lock.json`` and installed once with
``npm ci`` (``make`` does it, as for elkjs; ``python -m renderer.studio_assets``), never
committed. :data:`ASSETS` names every file the Studio may serve, so a request can only
reach those.

>>> sorted(ASSETS)
['svg-pan-zoom.min.js']
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from pathlib import Path

from layouts.npm_folder import NpmFolder

FOLDER_VARIABLE = "WFR_STUDIO_ASSETS_DIR"
ASSETS: Mapping[str, Path] = {
    "svg-pan-zoom.min.js": Path("node_modules/svg-pan-zoom/dist/svg-pan-zoom.min.js"),
}


class StudioAssetsError(RuntimeError):
    """The Studio's browser libraries are not installed; the message says how to."""

    def __init__(self, problem: str, fix: str) -> None:
        super().__init__(f"Studio assets: {problem}; {fix}")


def assets_dir() -> Path:
    """``$WFR_STUDIO_ASSETS_DIR`` when set, else ``tools/studio-assets`` of this repository."""
    configured = os.environ.get(FOLDER_VARIABLE)
    if configured:
        return Path(configured).resolve()
    return (Path(__file__).resolve().parents[1] / "tools" / "studio-assets").resolve()


def assets_folder(path: Path | None = None) -> NpmFolder:
    """The install folder of the Studio's assets."""
    return NpmFolder(path or assets_dir(), ("package.json", "package-lock.json"),
                     "the Studio's browser libraries", StudioAssetsError,
                     f"restore tools/studio-assets from the repository or set {FOLDER_VARIABLE}")


def asset_path(name: str, folder: Path | None = None) -> Path:
    """The installed file of asset ``name`` (installing the folder on first use).

    Raises :class:`KeyError` for a name not in :data:`ASSETS` and
    :class:`StudioAssetsError` when the install is missing and cannot be made.
    """
    relative = ASSETS[name]
    install = assets_folder(folder)
    install.ensure_installed()
    path = install.path / relative
    if not path.is_file():
        raise StudioAssetsError(f"{relative} is missing from {install.path}",
                                "run `make test` or `python -m renderer.studio_assets`")
    return path


def main() -> int:
    """Install the assets, as ``make`` does; print the error and return 1 on failure."""
    install = assets_folder()
    try:
        install.ensure_installed()
    except StudioAssetsError as error:
        print(error, file=sys.stderr)
        return 1
    print(f"Studio assets installed in {install.path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
