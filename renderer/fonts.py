"""Text measurement from a real font's metrics (DejaVu Sans by default).

Widths are the sum of the glyphs' advance widths (``hmtx``, looked up through the
``cmap``) plus pair kerning from the font's ``kern`` table, scaled by
``font_size / unitsPerEm``. The line height is ``(ascender - descender + lineGap)``
from ``hhea``, scaled the same way. Fonts and per-string widths are cached.

The font files come from Debian's ``fonts-dejavu-core``; the environment variable
``WFR_FONT`` (and ``WFR_FONT_BOLD``) may point at another TrueType file. The variables
are read at each measurement, or once for a whole drawing inside :func:`pinned_fonts`
(a drawing measures hundreds of texts, and reading the environment was a tenth of
writing an SVG).

>>> width, height = measure_text("Hello", 12)
>>> 25 < width < 35, round(height, 2)
(True, 13.97)
>>> measure_text("a\\nlonger line", 12)[1] == 2 * measure_text("a", 12)[1]
True
"""

from __future__ import annotations

import os
import struct
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from fontTools.ttLib import TTFont, TTLibError

DEJAVU_DIRECTORY = Path("/usr/share/fonts/truetype/dejavu")
FONT_FILES: dict[bool, Path] = {
    False: DEJAVU_DIRECTORY / "DejaVuSans.ttf",
    True: DEJAVU_DIRECTORY / "DejaVuSans-Bold.ttf",
}
FONT_ENVIRONMENT_VARIABLES: dict[bool, str] = {False: "WFR_FONT", True: "WFR_FONT_BOLD"}
INSTALL_HINT = "install Debian's fonts-dejavu-core (apt-get install fonts-dejavu-core)"


class FontError(RuntimeError):
    """The font file is missing or unreadable; the message names it and the fix."""


@dataclass(frozen=True, slots=True)
class FontMetrics:
    """The parts of a TrueType font that text measurement needs, in font units."""

    path: str
    units_per_em: int
    ascender: int
    descender: int
    line_gap: int
    advances: dict[int, int]
    missing_advance: int
    kerning: dict[tuple[int, int], int]

    @property
    def line_height_units(self) -> int:
        return self.ascender - self.descender + self.line_gap


_PINNED: ContextVar[tuple[Path, Path] | None] = ContextVar("pinned_fonts", default=None)
"""The (regular, bold) font files while :func:`pinned_fonts` is active."""
_PINNED_KEYS: ContextVar[tuple[str, str] | None] = ContextVar("pinned_font_keys",
                                                              default=None)
"""The same files as the strings the metric caches are keyed by (a drawing measures
hundreds of texts; converting the path each time was a tenth of the measuring)."""


def font_path(bold: bool = False) -> Path:
    """The TrueType file used for regular or bold text (``WFR_FONT``/``WFR_FONT_BOLD``
    override the DejaVu default; bold falls back to ``WFR_FONT`` when only it is set).

    >>> font_path().name
    'DejaVuSans.ttf'
    """
    pinned = _PINNED.get()
    if pinned is not None:
        return pinned[bold]
    return _font_from_environment(bold)


@contextmanager
def pinned_fonts() -> Iterator[None]:
    """Read the font choice (``WFR_FONT``, ``WFR_FONT_BOLD``) once and use it for every
    measurement inside the block (one drawing: sizes and text from one font); nested
    blocks keep the outer choice.

    >>> with pinned_fonts():
    ...     font_path(bold=True).name
    'DejaVuSans-Bold.ttf'
    """
    if _PINNED.get() is not None:
        yield
        return
    regular, bold = _font_from_environment(False), _font_from_environment(True)
    token = _PINNED.set((regular, bold))
    keys = _PINNED_KEYS.set((str(regular), str(bold)))
    try:
        yield
    finally:
        _PINNED_KEYS.reset(keys)
        _PINNED.reset(token)


def _font_key(bold: bool) -> str:
    """``str(font_path(bold))``, without the conversion inside :func:`pinned_fonts`."""
    keys = _PINNED_KEYS.get()
    return keys[bold] if keys is not None else str(font_path(bold))


def _font_from_environment(bold: bool) -> Path:
    override = os.environ.get(FONT_ENVIRONMENT_VARIABLES[bold])
    if not override and bold:
        override = os.environ.get(FONT_ENVIRONMENT_VARIABLES[False])
    return Path(override) if override else FONT_FILES[bold]


@lru_cache(maxsize=8)
def load_metrics(path: str) -> FontMetrics:
    """Read advance widths, kerning pairs and vertical metrics of the font at ``path``.

    >>> load_metrics(str(font_path())).units_per_em
    2048
    """
    if not Path(path).is_file():
        raise FontError(f"font file {path} not found: {INSTALL_HINT}, or set WFR_FONT "
                        "to a TrueType file")
    try:
        with open(path, "rb") as handle:
            return _read_metrics(path, TTFont(handle))
    except (TTLibError, KeyError, OSError, AssertionError, struct.error) as exc:
        raise FontError(f"font file {path} is not a readable TrueType font: {exc}") from None


def _read_metrics(path: str, font: TTFont) -> FontMetrics:
    hmtx = font["hmtx"].metrics
    cmap = font.getBestCmap() or {}
    hhea = font["hhea"]
    return FontMetrics(
        path=path,
        units_per_em=int(font["head"].unitsPerEm),
        ascender=int(hhea.ascent),
        descender=int(hhea.descent),
        line_gap=int(hhea.lineGap),
        advances={code: int(hmtx[name][0]) for code, name in cmap.items()},
        missing_advance=int(hmtx[font.getGlyphOrder()[0]][0]),
        kerning=_kerning_pairs(font, cmap),
    )


def _kerning_pairs(font: TTFont, cmap: dict[int, str]) -> dict[tuple[int, int], int]:
    """Format-0 ``kern`` pairs keyed by code points (GPOS kerning is not applied)."""
    if "kern" not in font:
        return {}
    by_glyph: dict[tuple[str, str], int] = {}
    for table in font["kern"].kernTables:
        if getattr(table, "format", None) == 0:
            by_glyph.update(table.kernTable)
    codes_by_glyph: dict[str, list[int]] = {}
    for code, name in cmap.items():
        codes_by_glyph.setdefault(name, []).append(code)
    pairs: dict[tuple[int, int], int] = {}
    for (left, right), value in by_glyph.items():
        for left_code in codes_by_glyph.get(left, ()):
            for right_code in codes_by_glyph.get(right, ()):
                pairs[(left_code, right_code)] = int(value)
    return pairs


@lru_cache(maxsize=4096)
def _line_width_units(line: str, path: str) -> int:
    metrics = load_metrics(path)
    total = 0
    previous: int | None = None
    for char in line:
        code = ord(char)
        total += metrics.advances.get(code, metrics.missing_advance)
        if previous is not None:
            total += metrics.kerning.get((previous, code), 0)
        previous = code
    return total


def measure_text(text: str, font_size: float, *, bold: bool = False) -> tuple[float, float]:
    """Width and height in px of ``text`` set in DejaVu Sans at ``font_size`` px.

    Multi-line text (``\\n``) measures as its widest line by ``n`` line heights. The
    empty string has width 0 and one line's height. Raises :class:`FontError` when
    the font file is missing.

    >>> measure_text("AV", 10)[0] < measure_text("A", 10)[0] + measure_text("V", 10)[0]
    True
    """
    return _measured(text, font_size, _font_key(bold))


@lru_cache(maxsize=4096)
def _measured(text: str, font_size: float, path: str) -> tuple[float, float]:
    """:func:`measure_text` in the font at ``path`` (cached: a drawing measures the same
    labels and the empty line again and again)."""
    metrics = load_metrics(path)
    scale = font_size / metrics.units_per_em
    lines = text.split("\n")
    widest = max(_line_width_units(line, path) for line in lines)
    return widest * scale, len(lines) * metrics.line_height_units * scale


def ascent(font_size: float, *, bold: bool = False) -> float:
    """Distance in px from the top of a line box (as measured by :func:`measure_text`)
    down to the baseline, for placing text by its line box.

    >>> round(ascent(2048), 1)
    1901.0
    """
    metrics = load_metrics(_font_key(bold))
    return metrics.ascender * font_size / metrics.units_per_em
