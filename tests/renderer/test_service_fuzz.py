"""Fuzzing POST /api/render: whatever the body and the query, the answer is a status the
product allows (never 500 or 502), and every 4xx carries ``{"error": "<message>"}``.

Bodies: random bytes, truncated or garbled fixtures, JSON shaped like our graph JSON, ELK
JSON and the workflow DSL with values of wrong types, huge numbers, NaN/Infinity tokens,
lone surrogates, deep nesting and YAML anchors. Each regression test names the input that
once gave a 500 or a 502.
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Iterator
from pathlib import Path

import httpx
import jsonschema
import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from layouts.options import OPTION_TABLE
from renderer.isolation import WorkerPool
from renderer.openapi import openapi_document
from renderer.service import create_app

with warnings.catch_warnings():
    # starlette 1.x prefers the httpx2 package; the httpx it falls back to works the same.
    warnings.filterwarnings("ignore", message="Using `httpx` with `starlette.testclient`")
    from starlette.testclient import TestClient

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
ALLOWED = {200, 400, 413, 415, 422, 503, 504}
"""What bad input may get: never 500 (a bug) nor 502 (a crashed engine)."""
FAST = {"engine": "layered", "timeBudget": "2", "effort": "draft"}
FUZZ = settings(max_examples=60, deadline=None, derandomize=True,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@pytest.fixture(scope="module")
def client() -> Iterator[TestClient]:
    with TestClient(create_app(pool=WorkerPool(size=1))) as started:
        yield started


def post(client: TestClient, body: bytes | str, query: dict[str, str] | None = None,
         content_type: str = "application/yaml") -> httpx.Response:
    response: httpx.Response = client.post(
        "/api/render", params=FAST if query is None else query, content=body,
        headers={"content-type": content_type})
    return response


def assert_allowed(response: httpx.Response) -> None:
    """The product's rule: an allowed status; a 4xx names the problem in a JSON body."""
    assert response.status_code in ALLOWED, response.text[:300]
    if response.status_code >= 400:
        assert response.headers["content-type"].startswith("application/json")
        message = response.json()["error"]
        assert isinstance(message, str) and message.strip()
        assert "internal error" not in message


# -- strategies -------------------------------------------------------------------------

NUMBERS = st.one_of(
    st.integers(min_value=-(10**30), max_value=10**30),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([0, -1, 1e-324, 5e-324, 1e308, 10**400, 2**63]),
)
SCALARS = st.one_of(st.none(), st.booleans(), NUMBERS, st.text(max_size=12))
VALUES = st.recursive(SCALARS, lambda inner: st.one_of(
    st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=6), inner, max_size=3)),
    max_leaves=8)
IDS = st.one_of(st.sampled_from(["a", "b", "c"]), VALUES)


def objects(fields: dict[str, st.SearchStrategy[object]]) -> st.SearchStrategy[object]:
    """Objects with some of ``fields`` (each a right or a wrong value), or any value."""
    picked = st.fixed_dictionaries({}, optional={k: st.one_of(v, VALUES)
                                                 for k, v in fields.items()})
    return st.one_of(picked, picked, VALUES)


SIZES = st.floats(min_value=1, max_value=200)
GRAPH_NODE = objects({"id": IDS, "width": SIZES, "height": SIZES,
                      "shape": st.sampled_from(["rect", "diamond", "circle", "hexagon"]),
                      "label": st.text(max_size=8)})
GRAPH_EDGE = objects({"id": IDS, "source": IDS, "target": IDS, "label": st.text(max_size=8),
                      "loopBack": st.booleans(), "labelWidth": SIZES, "labelHeight": SIZES})
GRAPHS = st.fixed_dictionaries({"nodes": st.lists(GRAPH_NODE, max_size=5)},
                               optional={"edges": st.lists(GRAPH_EDGE, max_size=6)})
ELK_NODE = objects({"id": IDS, "width": SIZES, "height": SIZES, "children": VALUES,
                    "labels": st.lists(objects({"text": st.text(max_size=8)}), max_size=2)})
ELK_EDGE = objects({"id": IDS, "sources": st.lists(IDS, max_size=2),
                    "targets": st.lists(IDS, max_size=2), "loopBack": st.booleans()})
ELK_GRAPHS = st.fixed_dictionaries({"children": st.lists(ELK_NODE, max_size=5)},
                                   optional={"edges": st.lists(ELK_EDGE, max_size=6),
                                             "id": IDS})
KINDS = st.sampled_from(["Agent", "Tool", "Human", "Condition", "Timer", "SubWorkflow",
                         "Fanout", "Join", "Compensation", "Plain", "Nope"])
DSL_STEP = objects({"id": IDS, "kind": KINDS, "expression": VALUES, "quorum": NUMBERS,
                    "delayMinutes": NUMBERS, "maxAttempts": NUMBERS, "label": VALUES})
DSL_EDGE = objects({"from": IDS, "to": IDS, "guard": VALUES, "isLoopBack": VALUES,
                    "id": IDS})
DEFINITIONS = st.fixed_dictionaries(
    {"workflow": st.one_of(st.just("w"), VALUES), "steps": st.lists(DSL_STEP, max_size=5)},
    optional={"edges": st.lists(DSL_EDGE, max_size=6), "version": VALUES})


def as_json(document: object) -> str:
    """JSON text; Python's NaN/Infinity tokens stay in, as a careless client sends them."""
    return json.dumps(document, allow_nan=True)


def fixture_bytes() -> list[bytes]:
    return [p.read_bytes() for p in sorted(FIXTURES.iterdir()) if p.is_file()]


@st.composite
def garbled_fixtures(draw: st.DrawFn) -> bytes:
    """A fixture cut short, or with a slice replaced by random bytes."""
    data = draw(st.sampled_from(fixture_bytes()))
    start = draw(st.integers(0, len(data)))
    if draw(st.booleans()):
        return data[:start]
    end = draw(st.integers(start, min(len(data), start + 40)))
    return data[:start] + draw(st.binary(max_size=20)) + data[end:]


# -- fuzz tests -------------------------------------------------------------------------

@FUZZ
@given(body=st.one_of(st.binary(max_size=300), garbled_fixtures()))
def test_random_and_garbled_bytes(client: TestClient, body: bytes) -> None:
    assert_allowed(post(client, body))


@FUZZ
@given(document=st.one_of(GRAPHS, ELK_GRAPHS, DEFINITIONS),
       fmt=st.sampled_from(["svg", "json", "elk", "dot"]))
def test_documents_shaped_like_ours_with_wrong_types(
    client: TestClient, document: object, fmt: str
) -> None:
    for body in (as_json(document), _yaml_or_json(document)):
        assert_allowed(post(client, body, {**FAST, "format": fmt}))


def _yaml_or_json(document: object) -> str:
    try:
        return yaml.safe_dump(document, allow_unicode=True)
    except (yaml.YAMLError, UnicodeEncodeError):
        return as_json(document)


OPTION_NAMES = [spec.name for spec in OPTION_TABLE] + ["timeBudget", "nodeSpacing",
                                                       "format", "engine", "zoom", ""]


@FUZZ
@given(query=st.dictionaries(st.sampled_from(OPTION_NAMES) | st.text(max_size=6),
                             st.text(max_size=12) | st.sampled_from(
                                 ["nan", "inf", "-1", "1e400", "0.001", "9" * 50]),
                             max_size=4))
def test_random_query_strings(client: TestClient, query: dict[str, str]) -> None:
    graph = {"nodes": [{"id": "a", "width": 80, "height": 40}]}  # one node: any budget is plenty
    assert_allowed(post(client, json.dumps(graph), {"engine": "layered", **query}))


@settings(max_examples=25, deadline=None, derandomize=True)
@given(depth=st.integers(2, 6), fanout=st.integers(2, 12))
def test_yaml_anchor_bombs(client: TestClient, depth: int, fanout: int) -> None:
    """Each level repeats the previous anchor ``fanout`` times: fanout**depth values."""
    lines = ["l0: &l0 [" + ", ".join(["x"] * fanout) + "]"]
    for level in range(1, depth + 1):
        refs = ", ".join([f"*l{level - 1}"] * fanout)
        lines.append(f"l{level}: &l{level} [{refs}]")
    response = post(client, "\n".join(lines) + "\n")
    assert_allowed(response)
    assert response.status_code == 400  # no 'workflow', 'children' or 'nodes': unrecognised
    if fanout ** (depth + 1) > 1_000_000:  # the reader's INPUT_LIMITS.max_values
        assert "expands to more than" in response.json()["error"]


DOT_ATTRIBUTES = st.sampled_from(["width", "height", "shape", "label", "id", "loopBack"])
DOT_VALUES = st.text(max_size=8) | st.sampled_from(
    ["1e308", "-1", "0", "nan", "1e-300", "diamond", "point", "\\N\\G\\n", "true", "9" * 30])
DOT_NAMES = st.sampled_from(["a", "b", '""', '"x y"']) | st.text(max_size=4).map(json.dumps)


@st.composite
def dot_texts(draw: st.DrawFn) -> str:
    """DOT with random names and attribute values, sometimes with random text inserted."""
    def attributes() -> str:
        pairs = draw(st.lists(st.tuples(DOT_ATTRIBUTES, DOT_VALUES), max_size=3))
        return ", ".join(f"{k}={json.dumps(v)}" for k, v in pairs)

    names = draw(st.lists(DOT_NAMES, min_size=1, max_size=4))
    statements = [f"{n} [{attributes()}];" for n in names]
    statements += [f"{draw(st.sampled_from(names))} -> {draw(st.sampled_from(names))} "
                   f"[{attributes()}];" for _ in range(draw(st.integers(0, 4)))]
    text = f"{draw(st.sampled_from(['digraph', 'graph', 'strict digraph']))} G {{ " \
        + " ".join(statements) + " }"
    cut = draw(st.integers(0, len(text)))
    return text[:cut] + draw(st.text(max_size=4)) + text[cut:] if draw(st.booleans()) else text


@FUZZ
@given(text=dot_texts(), fmt=st.sampled_from(["svg", "json", "elk", "dot"]))
def test_random_dot(client: TestClient, text: str, fmt: str) -> None:
    assert_allowed(post(client, text.encode("utf-8", "surrogatepass"), {**FAST, "format": fmt},
                        content_type="text/vnd.graphviz"))


# -- deep nesting and the inputs that once failed ---------------------------------------

DEEP = 100_000
"""Levels of nesting, far past Python's recursion limit (1000)."""


@pytest.mark.parametrize("body", [
    "[" * DEEP,
    "[" * DEEP + "]" * DEEP,
    '{"a": ' * DEEP + "1" + "}" * DEEP,
    '{"nodes": ' + "[" * DEEP,
    "a: " + "[" * DEEP,
    "a: " + "{b: " * DEEP,
    "".join("  " * i + "a:\n" for i in range(1000)),  # block mappings: 1 MB of indents
    "".join("- " * DEEP),  # block sequences on one line
], ids=["json-open", "json-closed", "json-objects", "graph-nodes", "yaml-flow", "yaml-maps",
        "yaml-block", "yaml-dashes"])
def test_deep_nesting_is_a_400_and_the_server_keeps_serving(client: TestClient,
                                                            body: str) -> None:
    response = post(client, body)
    assert response.status_code in {400, 413}
    assert "nested too deeply" in response.json()["error"] or response.status_code == 413
    assert client.get("/healthz").status_code == 200
    ok = post(client, json.dumps({"nodes": [{"id": "a", "width": 80, "height": 40}]}))
    assert ok.status_code == 200


NODE_A = '{"id": "a", "width": 80, "height": 40}'


@pytest.mark.parametrize(("body", "status", "named"), [
    # 5000 digits: json.loads raised ValueError (int string conversion limit): was 500
    ('{"nodes": [{"id": "a", "width": ' + "9" * 5000 + ', "height": 1}]}', 400,
     "cannot be read"),
    # 400 digits: float() raised OverflowError in the size check: was 500
    ('{"nodes": [{"id": "a", "width": ' + "9" * 400 + ', "height": 1}]}', 422, "node 'a'"),
    ('{"nodes": [' + NODE_A + '], "edges": [{"source": "a", "target": "a", "labelWidth": '
     + "9" * 400 + "}]}", 422, "label size"),
    ('{"children": [{"id": "a", "width": ' + "9" * 400 + "}]}", 400, "node 'a'"),
    # finite but huge sizes overflowed to inf/NaN inside the engines: was 502 (layered)
    ('{"nodes": [{"id": "a", "width": 1e308, "height": 1e308}, {"id": "b", "width": 1e308,'
     ' "height": 1e308}], "edges": [{"source": "a", "target": "b"}]}', 422, "node 'a'"),
    ('{"nodes": [' + NODE_A + '], "edges": [{"source": "a", "target": "a", '
     '"labelWidth": 1e308}]}', 422, "label size"),
    # a lone surrogate could not be encoded by the ELK writer: was 500 with format=elk
    ('{"nodes": [{"id": "\\ud800", "width": 80, "height": 40}]}', 400, "surrogate"),
    # labels that are objects or null were drawn as "{}" / "None" (schema: scalars only)
    ('{"nodes": [{"id": "a", "width": 80, "height": 40, "label": {}}]}', 422, "label"),
    ('{"nodes": [{"id": "a", "width": 80, "height": 40, "label": null}]}', 422, "label"),
    ('{"nodes": [' + NODE_A + '], "edges": [{"source": "a", "target": "a", '
     '"loopBack": "no"}]}', 422, "loopBack"),
    # YAML values Python cannot build (ValueError outside YAMLError): was 500
    ("workflow: 2020-13-01\nsteps: []\n", 400, "month"),
    ("workflow: w\nsteps: [{id: a, kind: Timer, delayMinutes: !!float abc}]\n", 400, "abc"),
    # expressions json.dumps cannot write (dates, mixed keys, bytes): was 500
    ("workflow: w\nsteps: [{id: c, kind: Condition, expression: 2020-01-01}]\n", 400,
     "step 'c'"),
    ("workflow: w\nsteps: [{id: c, kind: Condition, expression: {1: x, a: y}}]\n", 400,
     "step 'c'"),
    ("workflow: w\nsteps: [{id: a, kind: Tool}, {id: b, kind: Tool}]\n"
     "edges: [{from: a, to: b, guard: !!binary aGVsbG8=}]\n", 400, "guard"),
    # 2000 open brackets: PyYAML's scanner is quadratic in them (6 s for a 2 kB body); now
    # refused before parsing, which the message shows
    ("a: " + "[" * 2000, 400, "more than 400 open brackets"),
    # a chain of 300 anchors, each a list holding the previous one, is 300 levels deep
    # although the parser saw 2: json.dumps of the expression recursed past the limit: 500
    ("workflow: w\nsteps:\n" + "".join(
        f" - {{id: s{i}, kind: Condition, expression: &a{i} [*a{i - 1}]}}\n" if i else
        " - {id: s0, kind: Condition, expression: &a0 [1]}\n" for i in range(300)), 400,
     "more than 200 levels"),
    ('{"nodes": [{"id": "a", "width": 1, "height": 1, "label": ' + "[" * 900 + "]" * 900
     + "}]}", 400, "more than 200 levels"),
    # a node named "": pygraphviz failed with TypeError on its missing name: was 500
    ('digraph { a -> "" }', 400, 'empty name'),
    # a guard nested 900 deep: guard_label recursed past the limit: was 500
    ("workflow: w\nsteps: [{id: a, kind: Condition}, {id: b, kind: Tool}]\nedges: [{from: a,"
     " to: b, guard: '" + '{"!": ' * 900 + "true" + "}" * 900 + "'}]\n", 400,
     "nested too deeply"),
])
@pytest.mark.parametrize("fmt", ["svg", "elk"])
def test_inputs_that_once_failed(client: TestClient, body: str, status: int, named: str,
                                 fmt: str) -> None:
    response = post(client, body, {**FAST, "format": fmt})
    assert response.status_code == status, response.text[:300]
    assert named in response.json()["error"]


def test_elk_output_matches_the_openapi_document(client: TestClient) -> None:
    """format=elk is application/json too; the document's 200 schema must describe it
    (it described only LayoutResult, which forbids ELK's keys)."""
    document = openapi_document()
    content = document["paths"]["/api/render"]["post"]["responses"]["200"]["content"]
    schema = {**content["application/json"]["schema"],
              "components": document["components"]}
    body = json.dumps({"nodes": [{"id": "a", "width": 80, "height": 40},
                                 {"id": "b", "width": 80, "height": 40}],
                       "edges": [{"source": "a", "target": "b", "label": "go"}]})
    for fmt in ("elk", "json"):
        response = post(client, body, {**FAST, "format": fmt})
        assert response.status_code == 200
        jsonschema.validate(response.json(), schema)
    with pytest.raises(jsonschema.ValidationError):  # the schema is not a catch-all
        jsonschema.validate({"children": []}, schema)


@pytest.mark.parametrize(("method", "path", "allowed"), [
    ("TRACE", "/healthz", {"GET", "HEAD"}),
    ("GET", "/api/render", {"POST"}),
    ("DELETE", "/openapi.json", {"GET", "HEAD"}),
])
def test_a_wrong_method_gets_405_with_an_allow_header(
    client: TestClient, method: str, path: str, allowed: set[str]
) -> None:
    """Schemathesis found 405s without ``Allow`` (RFC 9110 requires it): the service's
    error handler dropped Starlette's headers."""
    response = client.request(method, path)
    assert response.status_code == 405
    assert {m.strip() for m in response.headers["allow"].split(",")} == allowed
    assert response.json()["error"]
