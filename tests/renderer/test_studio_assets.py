"""The Studio's pan/zoom library comes from the npm registry, pinned and installed once."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from renderer.studio_assets import ASSETS, StudioAssetsError, asset_path, assets_dir

pytestmark = pytest.mark.skipif(shutil.which("npm") is None,
                                reason="npm not found; apt-get install nodejs npm")


def test_the_pinned_svg_pan_zoom_is_installed_and_served_from_node_modules():
    path = asset_path("svg-pan-zoom.min.js")
    assert path.is_relative_to(assets_dir() / "node_modules")
    lock = json.loads((assets_dir() / "package-lock.json").read_text())
    installed = json.loads((path.parents[1] / "package.json").read_text())
    assert installed["version"] == lock["packages"]["node_modules/svg-pan-zoom"]["version"]
    assert path.read_bytes().lstrip().startswith(b"//")  # a minified script with its banner


def test_only_declared_assets_can_be_asked_for():
    assert set(ASSETS) == {"svg-pan-zoom.min.js"}
    with pytest.raises(KeyError):
        asset_path("../../../etc/passwd")


def test_a_folder_without_its_lock_file_names_what_is_missing(tmp_path: Path):
    (tmp_path / "package.json").write_text("{}")
    with pytest.raises(StudioAssetsError, match=r"package-lock\.json not found"):
        asset_path("svg-pan-zoom.min.js", folder=tmp_path)
