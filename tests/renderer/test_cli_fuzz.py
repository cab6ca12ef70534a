"""Fuzzing ``wfr render``: random files and flags give exit code 0, or 2 with one line on
stderr naming the problem; never 1 (an internal error) and never a traceback.

Output on stderr is captured at the file-descriptor level (``capfd``), so anything the
layout worker process prints counts too.
"""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from layouts.options import OPTION_TABLE
from renderer.cli import main

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "fixtures"
FUZZ = settings(max_examples=50, deadline=None, derandomize=True,
                suppress_health_check=[HealthCheck.function_scoped_fixture,
                                       HealthCheck.too_slow, HealthCheck.data_too_large])


def run_cli(capfd: pytest.CaptureFixture[str], args: list[str]) -> tuple[int, str]:
    capfd.readouterr()  # drop what earlier examples left
    code = main(args)
    return code, capfd.readouterr().err


def assert_cli_rule(code: int, err: str) -> None:
    """Exit 0, or 2 with one line naming the problem (usage errors included)."""
    assert "Traceback" not in err, err
    assert code in {0, 2}, err
    if code == 0:
        return
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(("wfr render: ", "wfr: ")), err
    assert len(lines[0]) > len("wfr render: ") and "internal error" not in err


# -- strategies -------------------------------------------------------------------------

SCALARS = st.one_of(st.none(), st.booleans(), st.integers(-(10**20), 10**20),
                    st.floats(allow_nan=True, allow_infinity=True), st.text(max_size=10),
                    st.sampled_from([1e308, 10**400, -0.0]))
VALUES = st.recursive(SCALARS, lambda inner: st.one_of(
    st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=6), inner, max_size=3)),
    max_leaves=8)
NODE = st.fixed_dictionaries({}, optional={"id": st.sampled_from(["a", "b"]) | VALUES,
                                           "width": st.floats(1, 300) | VALUES,
                                           "height": st.floats(1, 300) | VALUES,
                                           "shape": VALUES, "label": VALUES})
EDGE = st.fixed_dictionaries({}, optional={"source": st.sampled_from(["a", "b"]) | VALUES,
                                           "target": st.sampled_from(["a", "b"]) | VALUES,
                                           "label": VALUES, "loopBack": VALUES})
DOCUMENTS = st.one_of(
    st.fixed_dictionaries({"nodes": st.lists(NODE, max_size=3)},
                          optional={"edges": st.lists(EDGE, max_size=3)}),
    st.fixed_dictionaries({"children": st.lists(NODE, max_size=3)},
                          optional={"edges": st.lists(EDGE, max_size=3)}),
    st.fixed_dictionaries({"workflow": VALUES, "steps": st.lists(VALUES, max_size=3)}),
    VALUES)


@st.composite
def file_bytes(draw: st.DrawFn) -> bytes:
    """Random bytes, a cut or garbled fixture, or a JSON document (NaN tokens included)."""
    kind = draw(st.sampled_from(["bytes", "fixture", "document"]))
    if kind == "bytes":
        return draw(st.binary(max_size=200))
    if kind == "document":
        return json.dumps(draw(DOCUMENTS)).encode("utf-8")
    data = draw(st.sampled_from([p.read_bytes() for p in sorted(FIXTURES.iterdir())]))
    start = draw(st.integers(0, len(data)))
    end = draw(st.integers(start, min(len(data), start + 30)))
    return data[:start] + draw(st.binary(max_size=10)) + data[end:]


OPTION_FLAGS = [f"--{spec.name.replace('_', '-')}" for spec in OPTION_TABLE]
FLAG_VALUES = st.one_of(st.text(max_size=8), st.sampled_from(
    ["1", "0", "-1", "nan", "inf", "1e400", "9" * 30, "best", "LR", "draft", "0.5"]))
FLAGS = st.lists(st.tuples(st.sampled_from([*OPTION_FLAGS, "--format", "--engine", "--zoom"]),
                           FLAG_VALUES), max_size=3)


@FUZZ
@given(data=file_bytes(), suffix=st.sampled_from([".yaml", ".json", ".dot", ".gv", ".txt", ""]),
       output=st.sampled_from(["out.svg", "out.json", "out.elk", "out.dot", "out.png", "out",
                               "missing/out.svg", "."]),
       flags=FLAGS)
def test_random_files_and_flags(
    capfd: pytest.CaptureFixture[str], tmp_path_factory: pytest.TempPathFactory,
    data: bytes, suffix: str, output: str, flags: list[tuple[str, str]],
) -> None:
    folder = tmp_path_factory.mktemp("cli-fuzz")
    source = folder / f"input{suffix}"
    source.write_bytes(data)
    args = ["render", str(source), "-o", str(folder / output), "--engine", "layered",
            "--time-budget", "2"]
    for flag, value in flags:
        args += [flag, value] if flag != "--engine" else [flag, value or "grandalf"]
    code, err = run_cli(capfd, args)
    assert_cli_rule(code, err)


DEEP = 100_000


@pytest.mark.parametrize(("name", "text", "named"), [
    ("deep.json", "[" * DEEP, "nested too deeply"),
    ("deep-objects.json", '{"a": ' * DEEP + "1" + "}" * DEEP, "nested too deeply"),
    ("deep.yaml", "a: " + "[" * DEEP, "nested too deeply"),
    ("deep-block.yaml", "".join("  " * i + "a:\n" for i in range(1000)), "nested too deeply"),
    ("huge-int.json", '{"nodes": [{"id": "a", "width": ' + "9" * 5000 + ', "height": 1}]}',
     "cannot be read"),
    ("huge-size.json", '{"nodes": [{"id": "a", "width": 1e308, "height": 1}]}', "node 'a'"),
    ("surrogate.json", '{"nodes": [{"id": "\\udfff", "width": 1, "height": 1}]}', "surrogate"),
    ("date.yaml", "workflow: w\nsteps: [{id: c, kind: Condition, expression: 2020-01-01}]\n",
     "step 'c'"),
])
def test_inputs_that_once_failed_exit_2_with_one_line(
    capfd: pytest.CaptureFixture[str], tmp_path: Path, name: str, text: str, named: str
) -> None:
    source = tmp_path / name
    source.write_text(text, encoding="utf-8", errors="surrogatepass")
    code, err = run_cli(capfd, ["render", str(source), "--format", "elk",
                                "-o", str(tmp_path / "out.json")])
    assert code == 2
    assert err.count("\n") == 1 and err.startswith(f"wfr render: {source}: ")
    assert named in err


def test_stdin_input(capfd: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
                     tmp_path: Path) -> None:
    stdin = io.TextIOWrapper(io.BytesIO(b"[" * DEEP))
    monkeypatch.setattr(sys, "stdin", stdin)
    code, err = run_cli(capfd, ["render", "-", "-o", str(tmp_path / "out.svg")])
    assert code == 2 and err == "wfr render: <stdin>: input is nested too deeply to read\n"


@pytest.mark.parametrize("text", ["[" * DEEP, "a: " + "{b: " * DEEP])
def test_a_real_process_prints_one_line_for_deep_nesting(tmp_path: Path, text: str) -> None:
    """In a separate interpreter: nothing else (a worker's traceback, a crash) reaches
    stderr, and the process ends normally with exit code 2."""
    source = tmp_path / "deep.yaml"
    source.write_text(text)
    done = subprocess.run([sys.executable, "-m", "renderer.cli", "render", str(source)],
                          capture_output=True, text=True, timeout=60, cwd=ROOT, check=False)
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr.count("\n") == 1 and "nested too deeply" in done.stderr
