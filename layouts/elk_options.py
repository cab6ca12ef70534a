"""ELK's layout options (``layoutOptions`` of ELK JSON) against our option table.

:data:`ELK_OPTION_TABLE` is the one declaration of which ELK option means which of our
options (:data:`layouts.options.OPTION_TABLE`) and with which values. ELK accepts an
option by its full id (``org.eclipse.elk.spacing.nodeNode``), with the ``elk.`` prefix,
or by any unique suffix (``spacing.nodeNode``); :func:`elk_option` finds the entry for
each spelling. The Eclipse Layout Kernel reference names and defines every option:
https://eclipse.dev/elk/reference/options.html

- :func:`document_option_values` turns a document's options into our option values (the
  caller lets query/CLI options win over them);
- :func:`unhonoured` lists, for an engine that does not read ELK's names, each option of a
  graph it cannot honour, one warning line each (the elkjs provider passes every option
  through unchanged and needs none).

>>> elk_option("org.eclipse.elk.direction").ours, elk_option("spacing.nodeNode").ours
('direction', 'node_spacing')
>>> document_option_values((("elk.direction", "UP"), ("elk.spacing.nodeNode", 25)))
{'direction': 'BottomToTop', 'node_spacing': 25.0}
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass

from layouts.graph import EngineOptions, Graph, OptionValue

PREFIXES = ("org.eclipse.elk.", "elk.")

ELK_DIRECTION_VALUES: Mapping[str, str] = {
    "DOWN": "TopToBottom", "RIGHT": "LeftToRight", "UP": "BottomToTop", "LEFT": "RightToLeft",
}


def _direction(value: OptionValue) -> str | None:
    return ELK_DIRECTION_VALUES.get(str(value).strip().upper())  # UNDEFINED: none


def _number(value: OptionValue) -> float | None:
    try:
        return float(value)
    except ValueError:
        return None


def _seed(value: OptionValue) -> int | None:
    """ELK's seed ``s`` (0: from the clock, not reproducible) is our ``s - 1``; see
    :func:`layouts.providers.elkjs_options.elk_layout_options`."""
    number = _number(value)
    return int(number) - 1 if number is not None and number >= 1 else None


def _thoroughness(value: OptionValue) -> str | None:
    """``elk.layered.thoroughness`` as our effort: ELK's default 7 is balanced."""
    number = _number(value)
    if number is None:
        return None
    return "draft" if number <= 1 else "balanced" if number <= 7 else "best"


@dataclass(frozen=True, slots=True)
class ElkOption:
    """One ELK option: its id without prefix, the option of ours it sets (``None``: none),
    how its value reads as ours (``None`` when the value has no equivalent), and, for
    strategy options, the values each of our engines honours by name."""

    elk_id: str
    ours: str | None = None
    read: Callable[[OptionValue], object | None] | None = None
    honoured_values: Mapping[str, frozenset[str]] | None = None
    in_model: bool = False
    """Read into the graph model itself (port sides, orders, constraints), so every engine
    that lays out that feature honours it wherever it is set."""


_ALL = ("layered", "graphviz", "grandalf")

ELK_OPTION_TABLE: tuple[ElkOption, ...] = (
    ElkOption("direction", "direction", _direction),
    ElkOption("spacing.nodeNode", "node_spacing", _number),
    ElkOption("layered.spacing.nodeNodeBetweenLayers", "layer_spacing", _number),
    ElkOption("spacing.edgeEdge", "edge_spacing", _number),
    ElkOption("layered.spacing.edgeEdgeBetweenLayers", "edge_spacing", _number),
    ElkOption("spacing.edgeNode", "clearance", _number),
    ElkOption("layered.spacing.edgeNodeBetweenLayers", "clearance", _number),
    ElkOption("randomSeed", "seed", _seed),
    ElkOption("layered.thoroughness", "effort", _thoroughness),
    # algorithm and strategies: honoured where the engine does the same thing
    ElkOption("algorithm", honoured_values={
        name: frozenset({"layered", "org.eclipse.elk.layered"}) for name in _ALL}),
    ElkOption("edgeRouting", honoured_values={
        "layered": frozenset({"ORTHOGONAL"}), "graphviz": frozenset({"POLYLINE"}),
        "grandalf": frozenset({"POLYLINE"})}),
    ElkOption("layered.nodePlacement.strategy", honoured_values={
        "layered": frozenset({"BRANDES_KOEPF"}), "graphviz": frozenset({"NETWORK_SIMPLEX"})}),
    ElkOption("layered.cycleBreaking.strategy", honoured_values={
        "layered": frozenset({"GREEDY"}), "graphviz": frozenset({"DEPTH_FIRST"})}),
    ElkOption("layered.layering.strategy", honoured_values={
        "layered": frozenset({"NETWORK_SIMPLEX"}), "graphviz": frozenset({"NETWORK_SIMPLEX"})}),
    ElkOption("hierarchyHandling", honoured_values={
        "graphviz": frozenset({"INCLUDE_CHILDREN"})}),  # dot lays clusters out together
    ElkOption("padding"),
    ElkOption("portConstraints", in_model=True),
    ElkOption("port.side", in_model=True),
    ElkOption("port.index", in_model=True),
)


def strip_prefix(key: str) -> str:
    """``key`` without ``org.eclipse.elk.`` or ``elk.``.

    >>> strip_prefix("org.eclipse.elk.layered.thoroughness"), strip_prefix("elk.direction")
    ('layered.thoroughness', 'direction')
    """
    for prefix in PREFIXES:
        if key.startswith(prefix):
            return key[len(prefix):]
    return key


def elk_option(key: str) -> ElkOption | None:
    """The table entry ELK would read ``key`` as (full id, ``elk.`` id or unique suffix,
    as ELK's JSON importer accepts them), ``None`` when we have none."""
    short = strip_prefix(key)
    matches = [o for o in ELK_OPTION_TABLE if o.elk_id == short or o.elk_id.endswith("." + short)]
    exact = [o for o in matches if o.elk_id == short]
    found = exact or matches
    return found[0] if len(found) == 1 or exact else None


def same_option(a: str, b: str) -> bool:
    """Whether two spellings name the same ELK option (``elk.direction``, ``direction``).

    >>> same_option("org.eclipse.elk.direction", "direction"), same_option("a.b", "c")
    (True, False)
    """
    sa, sb = strip_prefix(a), strip_prefix(b)
    return sa == sb or sa.endswith("." + sb) or sb.endswith("." + sa)


def document_option_values(options: EngineOptions) -> dict[str, object]:
    """Our option values (snake_case names, validated later by the table) for the ELK
    options of a document's root that have one; later keys win, as in a JSON object."""
    values: dict[str, object] = {}
    for key, value in options:
        entry = elk_option(key)
        if entry is None or entry.ours is None or entry.read is None:
            continue
        ours = entry.read(value)
        if ours is not None:
            values[entry.ours] = ours
    return values


def _where_options(graph: Graph) -> Iterator[tuple[str, EngineOptions]]:
    yield "the graph", graph.layout_options
    for node in graph.all_nodes():
        yield f"node '{node.id}'", node.layout_options
        for port in node.ports:
            yield f"port '{port.id}'", port.layout_options
    for edge in graph.edges:
        yield f"edge '{edge.id}'", edge.layout_options


WRITER_OPTIONS = ("elk.json.shapeCoords", "elk.json.edgeCoords")
"""ELK options for the ELK JSON writer, not for an engine: which coordinate system the
output uses (:mod:`renderer.elk_write` honours them for every engine; the elkjs
provider keeps them from elkjs, whose answer it reads in ELK's default systems)."""


def is_writer_option(key: str) -> bool:
    """Whether ``key`` is one of :data:`WRITER_OPTIONS`, in any spelling.

    >>> is_writer_option("org.eclipse.elk.json.edgeCoords"), is_writer_option("elk.direction")
    (True, False)
    """
    return any(same_option(key, name) for name in WRITER_OPTIONS)


PROVIDER_HINT_PREFIXES = ("graphviz.",)
"""Option names that are hints for one provider (the DOT reader's record shapes and
port names for graphviz): other engines draw the same graph without them, so they are
never reported as not honoured."""


def unhonoured(graph: Graph, engine: str) -> tuple[str, ...]:
    """One warning per ELK option of ``graph`` that ``engine`` (which does not read ELK's
    names) cannot honour: root options without an equivalent in our table or with a value
    the engine does not follow, and every option on a node, port or edge (our engines take
    options for the whole graph only) except those read into the model (port sides,
    orders and constraints, which engines without ports refuse as a whole).

    >>> from layouts.graph import Node
    >>> g = Graph((Node("a", 9, 9),), layout_options=(("elk.direction", "UP"),
    ...     ("elk.edgeRouting", "SPLINES"), ("elk.layered.compaction.postCompaction", "X")))
    >>> for line in unhonoured(g, "layered"):
    ...     print(line)
    the graph: option elk.edgeRouting=SPLINES is not honoured by engine 'layered'
    the graph: option elk.layered.compaction.postCompaction=X is not honoured by engine 'layered'
    """
    lines = []
    for where, options in _where_options(graph):
        for key, value in dict(options).items():  # a repeated key: the last one counts
            if key.startswith(PROVIDER_HINT_PREFIXES) or is_writer_option(key):
                continue
            entry = elk_option(key)
            if entry is not None and entry.in_model:
                continue
            if where == "the graph" and _honoured_at_root(key, value, engine):
                continue
            lines.append(f"{where}: option {key}={value} is not honoured by engine '{engine}'")
    return tuple(lines)


def _honoured_at_root(key: str, value: OptionValue, engine: str) -> bool:
    entry = elk_option(key)
    if entry is None:
        return False
    if entry.ours is not None:
        return entry.read is not None and entry.read(value) is not None
    if entry.honoured_values is not None:
        return str(value).strip() in entry.honoured_values.get(engine, frozenset())
    return False
