"""The SVG builder (renderer/svg_element.py) on its own: attribute rules, escaping and
the shapes' attributes, with expected text written out by hand from the SVG/XML rules.
(``test_svg.py`` checks whole drawings against svgwrite's bytes.)"""

from __future__ import annotations

import xml.etree.ElementTree as ET

from renderer.svg_element import SvgDrawing, SvgElement, escape_attribute, escape_text


def test_attributes_are_sorted_and_none_and_empty_values_left_out() -> None:
    element = SvgElement("rect", {"y": "2", "x": 1, "fill": None, "id": "", "class": "a"})
    assert element.tostring() == '<rect class="a" x="1" y="2" />'


def test_keyword_names_lose_a_trailing_underscore_and_use_hyphens() -> None:
    drawing = SvgDrawing()
    group = drawing.g(class_="edge", stroke_width="1.5", marker_end="url(#m)")
    assert group.attribs == {"class": "edge", "stroke-width": "1.5", "marker-end": "url(#m)"}
    group["data_kept"] = "x"  # item assignment keeps the name as given
    assert "data_kept" in group.attribs


def test_every_character_xml_attributes_need_is_escaped_and_the_text_round_trips() -> None:
    value = 'a&b<c>d"e\tf\ng\rh'
    assert escape_attribute(value) == "a&amp;b&lt;c&gt;d&quot;e&#09;f&#10;g&#13;h"
    assert escape_text("<&>\"'") == "&lt;&amp;&gt;\"'"
    element = SvgElement("text", {"data-x": value}, text="1 < 2 & 3")
    parsed = ET.fromstring(element.tostring())
    assert parsed.get("data-x") == value and parsed.text == "1 < 2 & 3"


def test_shapes_name_their_geometry_as_svg_does() -> None:
    drawing = SvgDrawing()
    assert drawing.rect(insert=("1", "2"), size=("3", "4"), rx="5").attribs == {
        "x": "1", "y": "2", "width": "3", "height": "4", "rx": "5"}
    assert drawing.circle(center=("1", "2"), r="3").attribs == {"cx": "1", "cy": "2", "r": "3"}
    assert drawing.ellipse(center=("1", "2"), r=("3", "4")).attribs == {
        "cx": "1", "cy": "2", "rx": "3", "ry": "4"}
    assert drawing.polygon([("0", "0"), ("10", "5")]).attribs == {"points": "0,0 10,5"}
    assert drawing.marker(insert=(10, 5), size=(9.0, 9.0), orient="auto").tostring() == (
        '<marker markerHeight="9.0" markerWidth="9.0" orient="auto" refX="10" refY="5" />')


def test_text_and_tspans_and_style_content() -> None:
    drawing = SvgDrawing()
    text = drawing.text("one", insert=("5", "7"), font_size="12")
    text.add(drawing.tspan("two", x=["5"], dy=["14"]))
    assert text.tostring() == ('<text font-size="12" x="5" y="7">one'
                               '<tspan dy="14" x="5">two</tspan></text>')
    assert drawing.text("", insert=("0", "0")).tostring() == '<text x="0" y="0" />'
    assert drawing.style("a > b { }").tostring() == (
        '<style type="text/css"><![CDATA[a > b { }]]></style>')


def test_the_root_has_namespaces_title_first_then_defs() -> None:
    drawing = SvgDrawing(size=("20", "10"), viewBox="0 0 20 10")
    drawing.add(drawing.rect(id="background"))
    drawing.set_desc(title="a & b")
    root = ET.fromstring(drawing.tostring())
    ns = "{http://www.w3.org/2000/svg}"
    assert [child.tag for child in root] == [f"{ns}title", f"{ns}defs", f"{ns}rect"]
    assert root[0].text == "a & b"
    assert (root.get("width"), root.get("height"), root.get("viewBox")) == ("20", "10",
                                                                           "0 0 20 10")
    assert root.get("version") == "1.1" and root.get("baseProfile") == "full"
