"""Colours from documents (DOT's ``color``/``fillcolor``, ...) as safe SVG paint values.

A value from a document never reaches an SVG attribute as it was written: it is read
into ``#rrggbb`` (with an opacity when the document gave an alpha), or refused. Accepted:
``#rgb``, ``#rrggbb``, ``#rrggbbaa``, the 148 CSS Color 4 names (which include
Graphviz's X11 names without a number), X11's ``grey0``..``grey100``/``gray0``..``gray100``,
Graphviz's HSV triples (``"0.650 0.700 0.700"``, comma or space separated) and
``/scheme/name`` (the name is looked up). A colour list (``red:blue``, ``red;0.3:blue``)
gives its first colour.

>>> [read_colour(name).hex for name in ("Red", "#AbC", "grey50")]
['#ff0000', '#aabbcc', '#7f7f7f']
>>> read_colour("0.000 1.000 1.000").hex, read_colour("#ff000080").opacity
('#ff0000', 0.5)
>>> read_colour('red" onload="alert(1)') is None
True
"""

from __future__ import annotations

import colorsys
import re
from dataclasses import dataclass

_HEX = re.compile(r"#([0-9a-f]{3}|[0-9a-f]{6}|[0-9a-f]{8})")
_NUMBER = r"(?:\d+(?:\.\d*)?|\.\d+)"
_HSV = re.compile(rf"({_NUMBER})[ ,]+({_NUMBER})[ ,]+({_NUMBER})")
_GREY = re.compile(r"gr[ae]y(\d{1,3})")

_NAMED_TEXT = """
aliceblue=f0f8ff antiquewhite=faebd7 aqua=00ffff aquamarine=7fffd4 azure=f0ffff
beige=f5f5dc bisque=ffe4c4 black=000000 blanchedalmond=ffebcd blue=0000ff
blueviolet=8a2be2 brown=a52a2a burlywood=deb887 cadetblue=5f9ea0 chartreuse=7fff00
chocolate=d2691e coral=ff7f50 cornflowerblue=6495ed cornsilk=fff8dc crimson=dc143c
cyan=00ffff darkblue=00008b darkcyan=008b8b darkgoldenrod=b8860b darkgray=a9a9a9
darkgreen=006400 darkgrey=a9a9a9 darkkhaki=bdb76b darkmagenta=8b008b
darkolivegreen=556b2f darkorange=ff8c00 darkorchid=9932cc darkred=8b0000
darksalmon=e9967a darkseagreen=8fbc8f darkslateblue=483d8b darkslategray=2f4f4f
darkslategrey=2f4f4f darkturquoise=00ced1 darkviolet=9400d3 deeppink=ff1493
deepskyblue=00bfff dimgray=696969 dimgrey=696969 dodgerblue=1e90ff firebrick=b22222
floralwhite=fffaf0 forestgreen=228b22 fuchsia=ff00ff gainsboro=dcdcdc
ghostwhite=f8f8ff gold=ffd700 goldenrod=daa520 gray=808080 grey=808080 green=008000
greenyellow=adff2f honeydew=f0fff0 hotpink=ff69b4 indianred=cd5c5c indigo=4b0082
ivory=fffff0 khaki=f0e68c lavender=e6e6fa lavenderblush=fff0f5 lawngreen=7cfc00
lemonchiffon=fffacd lightblue=add8e6 lightcoral=f08080 lightcyan=e0ffff
lightgoldenrodyellow=fafad2 lightgray=d3d3d3 lightgreen=90ee90 lightgrey=d3d3d3
lightpink=ffb6c1 lightsalmon=ffa07a lightseagreen=20b2aa lightskyblue=87cefa
lightslategray=778899 lightslategrey=778899 lightsteelblue=b0c4de lightyellow=ffffe0
lime=00ff00 limegreen=32cd32 linen=faf0e6 magenta=ff00ff maroon=800000
mediumaquamarine=66cdaa mediumblue=0000cd mediumorchid=ba55d3 mediumpurple=9370db
mediumseagreen=3cb371 mediumslateblue=7b68ee mediumspringgreen=00fa9a
mediumturquoise=48d1cc mediumvioletred=c71585 midnightblue=191970 mintcream=f5fffa
mistyrose=ffe4e1 moccasin=ffe4b5 navajowhite=ffdead navy=000080 oldlace=fdf5e6
olive=808000 olivedrab=6b8e23 orange=ffa500 orangered=ff4500 orchid=da70d6
palegoldenrod=eee8aa palegreen=98fb98 paleturquoise=afeeee palevioletred=db7093
papayawhip=ffefd5 peachpuff=ffdab9 peru=cd853f pink=ffc0cb plum=dda0dd
powderblue=b0e0e6 purple=800080 rebeccapurple=663399 red=ff0000 rosybrown=bc8f8f
royalblue=4169e1 saddlebrown=8b4513 salmon=fa8072 sandybrown=f4a460 seagreen=2e8b57
seashell=fff5ee sienna=a0522d silver=c0c0c0 skyblue=87ceeb slateblue=6a5acd
slategray=708090 slategrey=708090 snow=fffafa springgreen=00ff7f steelblue=4682b4
tan=d2b48c teal=008080 thistle=d8bfd8 tomato=ff6347 turquoise=40e0d0 violet=ee82ee
wheat=f5deb3 white=ffffff whitesmoke=f5f5f5 yellow=ffff00 yellowgreen=9acd32
"""
NAMED: dict[str, str] = dict(item.split("=", 1) for item in _NAMED_TEXT.split())
"""The SVG 1.1 / CSS Color 3 keywords and their values."""

TRANSPARENT = frozenset({"transparent", "none", "invis"})


@dataclass(frozen=True, slots=True)
class Colour:
    """A validated colour: ``#rrggbb`` (lower case) and an opacity from 0 to 1."""

    hex: str
    opacity: float = 1.0


def read_colour(value: str | None) -> Colour | None:
    """The colour ``value`` names, or ``None`` when it names none we can show safely
    (``transparent`` is ``None`` too: nothing is painted)."""
    if not value:
        return None
    text = value.split(":")[0].split(";")[0].strip().lower()
    if text.startswith("/"):
        text = text.rsplit("/", 1)[-1]
    if text in TRANSPARENT:
        return None
    if (match := _HEX.fullmatch(text)) is not None:
        return _from_hex(match.group(1))
    if text in NAMED:
        return Colour("#" + NAMED[text])
    if (grey := _GREY.fullmatch(text)) is not None and int(grey.group(1)) <= 100:
        level = int(grey.group(1)) * 255 // 100
        return Colour(f"#{level:02x}{level:02x}{level:02x}")
    if (hsv := _HSV.fullmatch(text)) is not None:
        h, s, v = (min(1.0, float(part)) for part in hsv.groups())
        r, g, b = colorsys.hsv_to_rgb(h, s, v)
        return Colour("#" + "".join(f"{round(c * 255):02x}" for c in (r, g, b)))
    return None


def _from_hex(digits: str) -> Colour:
    if len(digits) == 3:
        digits = "".join(d * 2 for d in digits)
    opacity = round(int(digits[6:8], 16) / 255, 2) if len(digits) == 8 else 1.0
    return Colour("#" + digits[:6], opacity)
