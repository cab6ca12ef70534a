"""Graphs with ports for tests and benchmarks: ports on every side, mixed port
constraints (free, fixed side, fixed order, fixed position), bundles of edges at one
port, ports against the flow, a cycle through ports, ports on a compound node's border,
and a seeded generator.

>>> g = every_side()
>>> g.validate()
>>> sorted({p.side.value for n in g.nodes for p in n.ports})
['east', 'north', 'south', 'west']
>>> big = generated_ports(40, seed=3)
>>> len(big.nodes), sum(len(n.ports) for n in big.nodes) > 0
(40, True)
"""

from __future__ import annotations

import random
from collections.abc import Callable

from layouts.graph import Edge, Graph, Node, Port, PortConstraints, PortSide, Shape

SIDES = (PortSide.NORTH, PortSide.EAST, PortSide.SOUTH, PortSide.WEST)


def _box(node_id: str, width: float = 100, height: float = 40, **kw: object) -> Node:
    return Node(node_id, width, height, label=node_id, **kw)  # type: ignore[arg-type]


def every_side() -> Graph:
    """A hub with a port on every side, each used both ways: edges leave and enter it
    at its north, east, south and west ports, to and from nodes above and below."""
    hub = _box("hub", 120, 60, ports=tuple(Port(f"h{s.value[0]}", s) for s in SIDES),
               port_constraints=PortConstraints.FIXED_SIDE)
    nodes = (_box("top"), hub, _box("left"), _box("down"), _box("right"), _box("feed"))
    edges = (Edge("t_n", "top", "hub", target_port="hn"),
             Edge("e_r", "hub", "right", source_port="he"),
             Edge("s_d", "hub", "down", source_port="hs"),
             Edge("w_l", "hub", "left", source_port="hw"),
             Edge("f_e", "top", "hub", target_port="he"),
             Edge("n_out", "hub", "feed", source_port="hn"),
             Edge("s_in", "feed", "hub", target_port="hs"))
    return Graph(nodes, edges)


def mixed_constraints() -> Graph:
    """One node per constraint: free ports, fixed side, fixed order (against the order
    the edges would take), fixed positions; a bundle of three edges at one port; a
    diamond and a circle with ports."""
    free = _box("free", ports=(Port("f_out"), Port("f_in"), Port("f_idle")),
                port_constraints=PortConstraints.FREE)
    order = _box("order", 140, 40, ports=(
        Port("o0", PortSide.SOUTH, 0), Port("o1", PortSide.SOUTH, 1),
        Port("o2", PortSide.SOUTH, 2), Port("oe", PortSide.EAST, 3)),
        port_constraints=PortConstraints.FIXED_ORDER)
    fixed = _box("fixed", 100, 40, ports=(Port("x_s", PortSide.SOUTH, x=20, y=40),
                                          Port("x_e", PortSide.EAST, x=100, y=10)),
                 port_constraints=PortConstraints.FIXED_POS)
    gate = Node("gate", 60, 60, Shape.DIAMOND, "gate", ports=(Port("g_s", PortSide.SOUTH),))
    ring = Node("ring", 50, 50, Shape.CIRCLE, "ring", ports=(Port("r_n", PortSide.NORTH),))
    nodes = (free, order, _box("a"), _box("b"), _box("c"), fixed, gate, ring, _box("end"))
    edges = (Edge("free_order", "free", "order", source_port="f_out"),
             Edge("o0a", "order", "a", source_port="o0"), Edge("o1b", "order", "b",
                                                              source_port="o1"),
             Edge("o2c", "order", "c", source_port="o2"),
             Edge("oe_fixed", "order", "fixed", source_port="oe"),
             Edge("a_gate", "a", "gate"), Edge("gate_ring", "gate", "ring",
                                               source_port="g_s", target_port="r_n"),
             Edge("fx1", "fixed", "end", source_port="x_s"),
             Edge("fx2", "fixed", "ring", source_port="x_s"),
             Edge("fx3", "fixed", "c", source_port="x_s"),
             Edge("fe", "fixed", "end", source_port="x_e"),
             Edge("back", "end", "free", target_port="f_in"))
    return Graph(nodes, edges)


def bundles() -> Graph:
    """Fan-outs and fan-ins through one port each, one of them on a side face."""
    src = _box("src", 140, 40, ports=(Port("out", PortSide.SOUTH), Port("side", PortSide.EAST)))
    sink = _box("sink", 140, 40, ports=(Port("in", PortSide.NORTH),))
    mids = tuple(_box(f"m{i}", 60, 30) for i in range(4))
    edges = (*(Edge(f"fan{i}", "src", f"m{i}", source_port="out") for i in range(3)),
             Edge("side0", "src", "m3", source_port="side"),
             Edge("side1", "src", "sink", source_port="side"),
             *(Edge(f"join{i}", f"m{i}", "sink", target_port="in") for i in range(4)))
    return Graph((src, *mids, sink), edges)


def port_group() -> Graph:
    """Ports on a compound node's border for edges from outside, and on a child."""
    inner = Node("inner", 20, 20, label="Inner", children=(
        _box("i1", 60, 30, ports=(Port("i1e", PortSide.EAST),)), _box("i2", 60, 30)),
        ports=(Port("gin", PortSide.NORTH), Port("gout", PortSide.SOUTH),
               Port("gside", PortSide.WEST)))
    nodes = (_box("before"), inner, _box("after"), _box("aside"))
    edges = (Edge("to_group", "before", "inner", target_port="gin"),
             Edge("from_group", "inner", "after", source_port="gout"),
             Edge("side_group", "inner", "aside", source_port="gside"),
             Edge("inside", "i1", "i2", source_port="i1e"),
             Edge("out_of", "i2", "after"))
    return Graph(nodes, edges)


def generated_ports(node_count: int, seed: int = 1, edges_per_node: float = 1.4) -> Graph:
    """A seeded random DAG-ish graph (a few back edges) whose nodes have ports on random
    sides under random constraints; edges pick a port of their end or the node itself."""
    rng = random.Random(seed)
    constraints = (PortConstraints.UNDEFINED, PortConstraints.FREE,
                   PortConstraints.FIXED_SIDE, PortConstraints.FIXED_ORDER)
    nodes: list[Node] = []
    for i in range(node_count):
        count = rng.choice((0, 0, 1, 2, 3))
        ports = tuple(Port(f"n{i}p{k}", rng.choice((*SIDES, PortSide.FREE)), k)
                      for k in range(count))
        nodes.append(_box(f"n{i}", rng.choice((60, 80, 120)), rng.choice((30, 40)),
                          ports=ports, port_constraints=rng.choice(constraints)))
    edges: list[Edge] = []
    for k in range(round(node_count * edges_per_node)):
        a, b = rng.sample(range(node_count), 2)
        if a > b and rng.random() < 0.85:
            a, b = b, a
        source, target = nodes[a], nodes[b]
        sp = rng.choice(source.ports).id if source.ports and rng.random() < 0.7 else None
        tp = rng.choice(target.ports).id if target.ports and rng.random() < 0.7 else None
        edges.append(Edge(f"e{k}", source.id, target.id, source_port=sp, target_port=tp))
    return Graph(tuple(nodes), tuple(edges))


SAMPLES: dict[str, Callable[[], Graph]] = {
    "every-side": every_side,
    "mixed-constraints": mixed_constraints,
    "bundles": bundles,
    "port-group": port_group,
    "generated-40": lambda: generated_ports(40, seed=3),
}
"""The port graphs by name, for the contract tests and ``bench/compound.py --compare``."""
