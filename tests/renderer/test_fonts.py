"""Font metrics: expected widths are read straight from the TTF with fontTools here,
independently of renderer.fonts."""

from __future__ import annotations

from pathlib import Path

import pytest
from fontTools.ttLib import TTFont

from renderer.fonts import FontError, load_metrics, measure_text

REGULAR = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
BOLD = "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf"


def _font_facts(path: str) -> tuple[TTFont, int]:
    font = TTFont(path)
    return font, int(font["head"].unitsPerEm)


def _advance(font: TTFont, char: str) -> int:
    glyph = font.getBestCmap()[ord(char)]
    return int(font["hmtx"][glyph][0])


def _kern(font: TTFont, left: str, right: str) -> int:
    cmap = font.getBestCmap()
    return int(font["kern"].kernTables[0].kernTable.get((cmap[ord(left)], cmap[ord(right)]), 0))


def test_width_of_av_is_advances_plus_kerning_scaled() -> None:
    font, units_per_em = _font_facts(REGULAR)
    a, v, kern = _advance(font, "A"), _advance(font, "V"), _kern(font, "A", "V")
    assert kern < 0  # DejaVu kerns the AV pair tighter
    width, _ = measure_text("AV", 12)
    assert width == pytest.approx((a + v + kern) * 12 / units_per_em)


def test_width_without_kerning_pairs_is_plain_sum() -> None:
    font, units_per_em = _font_facts(REGULAR)
    assert _kern(font, "H", "I") == 0
    expected = (_advance(font, "H") + _advance(font, "I")) * 20 / units_per_em
    assert measure_text("HI", 20)[0] == pytest.approx(expected)


def test_bold_uses_the_bold_font() -> None:
    font, units_per_em = _font_facts(BOLD)
    assert measure_text("m", 10, bold=True)[0] == pytest.approx(
        _advance(font, "m") * 10 / units_per_em)
    assert measure_text("m", 10, bold=True)[0] > measure_text("m", 10)[0]


def test_height_is_hhea_line_height_per_line() -> None:
    font, units_per_em = _font_facts(REGULAR)
    hhea = font["hhea"]
    line = (hhea.ascent - hhea.descent + hhea.lineGap) * 12 / units_per_em
    assert measure_text("x", 12)[1] == pytest.approx(line)
    assert measure_text("x\ny\nz", 12)[1] == pytest.approx(3 * line)


def test_multi_line_width_is_widest_line() -> None:
    assert measure_text("ab\nabcd\nc", 12)[0] == pytest.approx(measure_text("abcd", 12)[0])


def test_empty_text_has_zero_width_and_one_line() -> None:
    assert measure_text("", 12) == (0.0, measure_text("x", 12)[1])


def test_unmapped_character_uses_notdef_advance() -> None:
    font, units_per_em = _font_facts(REGULAR)
    notdef = int(font["hmtx"][font.getGlyphOrder()[0]][0])
    assert measure_text("\U000e0001", 10)[0] == pytest.approx(notdef * 10 / units_per_em)


def test_missing_font_names_package(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("WFR_FONT", str(tmp_path / "absent.ttf"))
    with pytest.raises(FontError, match="fonts-dejavu-core") as caught:
        measure_text("x", 12)
    assert "apt-get install fonts-dejavu-core" in str(caught.value)


def test_unreadable_font_is_a_font_error(tmp_path: Path) -> None:
    bogus = tmp_path / "bogus.ttf"
    bogus.write_bytes(b"not a font")
    with pytest.raises(FontError, match="not a readable TrueType font"):
        load_metrics(str(bogus))


def test_env_var_points_at_another_font(monkeypatch: pytest.MonkeyPatch) -> None:
    mono = "/usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf"
    font, units_per_em = _font_facts(mono)
    monkeypatch.setenv("WFR_FONT", mono)
    # a monospaced font: "i" and "W" have the same advance
    assert measure_text("iW", 10)[0] == pytest.approx(2 * _advance(font, "W") * 10 / units_per_em)
