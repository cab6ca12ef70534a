"""The ``wfr`` command line: outputs, formats, option flags and one-line errors."""

from __future__ import annotations

import argparse
import io
import json
import subprocess
import sys
import xml.etree.ElementTree as ElementTree
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from pathlib import Path

import pytest

from layouts.options import OPTION_TABLE
from renderer import cli
from renderer.cli import main

ROOT = Path(__file__).resolve().parents[2]
FIXTURE = ROOT / "fixtures" / "document-processing.yaml"
WFR = ROOT / ".venv" / "bin" / "wfr"
GRAPH = {
    "nodes": [{"id": "a", "width": 80, "height": 40}, {"id": "b", "width": 80, "height": 40}],
    "edges": [{"id": "ab", "source": "a", "target": "b"}],
}

PROVIDER_SOURCE = '''
import os, time
from layouts.registry import Availability

class SlowProvider:
    name = "test-cli-slow"
    def availability(self):
        return Availability(True)
    def layout(self, graph, options):
        time.sleep(30)

class MissingProvider:
    name = "test-cli-missing"
    def availability(self):
        return Availability(False, "libmissing not found; pip install libmissing")
    def layout(self, graph, options):
        raise AssertionError("an unavailable provider must not be called")

class CrashingProvider:
    name = "test-cli-crash"
    def availability(self):
        return Availability(True)
    def layout(self, graph, options):
        os._exit(3)
'''
TEST_ENGINES = {"test-cli-slow": "SlowProvider", "test-cli-missing": "MissingProvider",
                "test-cli-crash": "CrashingProvider"}


@pytest.fixture(scope="module")
def test_engines(tmp_path_factory: pytest.TempPathFactory,
                 provider_module: Callable[..., AbstractContextManager[None]]) -> Iterator[None]:
    """Misbehaving providers, importable by the worker processes (registered, then undone)."""
    with provider_module(tmp_path_factory.mktemp("providers"), "wfr_cli_providers",
                         PROVIDER_SOURCE, TEST_ENGINES):
        yield


@pytest.fixture
def graph_file(tmp_path: Path) -> Path:
    path = tmp_path / "graph.json"
    path.write_text(json.dumps(GRAPH))
    return path


def one_error_line(capsys: pytest.CaptureFixture[str]) -> str:
    """The stderr of the last command, which must be exactly one line."""
    err = capsys.readouterr().err
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert "Traceback" not in err
    return lines[0]


def test_render_writes_svg_named_by_the_output_extension(tmp_path: Path) -> None:
    out = tmp_path / "drawing.svg"
    assert main(["render", str(FIXTURE), "-o", str(out), "--engine", "graphviz"]) == 0
    root = ElementTree.fromstring(out.read_bytes())
    assert root.tag == "{http://www.w3.org/2000/svg}svg"


@pytest.mark.parametrize(("name", "fmt_check"), [
    ("out.json", lambda text: "diagnostics" in json.loads(text)),
    ("out.elk.json", lambda text: "children" in json.loads(text)),
    ("out.dot", lambda text: text.lstrip().startswith(("digraph", "strict digraph"))),
])
def test_the_output_extension_picks_the_format(
    tmp_path: Path, graph_file: Path, name: str, fmt_check: object
) -> None:
    out = tmp_path / name
    assert main(["render", str(graph_file), "-o", str(out), "--engine", "graphviz"]) == 0
    assert callable(fmt_check) and fmt_check(out.read_text())


def test_stdin_to_stdout_with_option_flags(
    monkeypatch: pytest.MonkeyPatch, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(json.dumps(GRAPH).encode())))
    code = main(["render", "-", "--format", "json", "--engine", "graphviz",
                 "--direction", "LR", "--effort", "draft"])
    assert code == 0
    result = json.loads(capsysbinary.readouterr().out)
    assert result["diagnostics"]["direction"] == "LeftToRight"
    assert result["diagnostics"]["effort"] == "draft"
    a, b = (next(n for n in result["nodes"] if n["id"] == i) for i in ("a", "b"))
    assert b["x"] > a["x"]  # left to right: the edge a -> b points right


def test_every_option_in_the_table_has_a_flag() -> None:
    parser = cli.build_parser()
    commands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    render = commands.choices["render"]
    flags = {flag for action in render._actions for flag in action.option_strings}
    for spec in OPTION_TABLE:
        assert "--" + spec.name.replace("_", "-") in flags


def test_timings_go_to_stderr(graph_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["render", str(graph_file), "--engine", "graphviz", "--timings"]) == 0
    captured = capsys.readouterr()
    assert captured.out.startswith("<?xml")
    assert [line.split()[0] for line in captured.err.splitlines()[:3]] == [
        "read", "layout", "write"]


@pytest.mark.parametrize(("arguments", "named"), [
    (["render", "no/such/file.yaml"], "no/such/file.yaml"),
    (["render", "{graph}", "--engine", "no-such-engine"], "no-such-engine"),
    (["render", "{graph}", "--effort", "max"], "effort"),
    (["render", "{graph}", "--time-budget", "0"], "time_budget"),
    (["render", "{graph}", "--node-spacing", "wide"], "node_spacing"),
    (["render", "{graph}", "-o", "{tmp}/out.png"], ".png"),
    (["render", "{garbage}"], "garbage.txt: "),
    (["render", "{dangling}", "--engine", "graphviz"], "to-nowhere"),
])
def test_bad_input_exits_2_with_one_line_naming_the_problem(
    tmp_path: Path, graph_file: Path, capsys: pytest.CaptureFixture[str],
    arguments: list[str], named: str,
) -> None:
    garbage = tmp_path / "garbage.txt"
    garbage.write_text("this is : not [ a graph {")
    dangling = tmp_path / "dangling.json"
    dangling.write_text(json.dumps({
        "nodes": [{"id": "a", "width": 10, "height": 10}],
        "edges": [{"id": "to-nowhere", "source": "a", "target": "zz"}]}))
    paths = {"graph": graph_file, "tmp": tmp_path, "garbage": garbage, "dangling": dangling}
    argv = [a.format(**paths) for a in arguments]
    assert main(argv) == 2
    line = one_error_line(capsys)
    assert line.startswith("wfr render: ")
    assert named in line


def test_content_errors_name_the_input_file(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"{not json")))
    assert main(["render", "-"]) == 2
    assert one_error_line(capsys).startswith("wfr render: <stdin>: ")


def test_a_closed_output_pipe_ends_quietly(
    monkeypatch: pytest.MonkeyPatch, graph_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    def closed_pipe(data: bytes, output: str) -> None:
        raise BrokenPipeError(32, "Broken pipe")

    monkeypatch.setattr(cli, "_write_output", closed_pipe)
    assert main(["render", str(graph_file), "--engine", "graphviz"]) == 128 + 13  # SIGPIPE
    assert capsys.readouterr().err == ""


def test_unavailable_provider_exits_2_naming_what_is_missing(
    test_engines: None, graph_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["render", str(graph_file), "--engine", "test-cli-missing"]) == 2
    line = one_error_line(capsys)
    assert "libmissing" in line and "pip install libmissing" in line


def test_a_layout_past_its_time_limit_exits_2(
    test_engines: None, graph_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["render", str(graph_file), "--engine", "test-cli-slow", "--time-budget", "0.1"])
    assert code == 2
    assert "exceeded its time limit" in one_error_line(capsys)


def test_a_crashing_provider_is_an_internal_error(
    test_engines: None, graph_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["render", str(graph_file), "--engine", "test-cli-crash"]) == 1
    assert "exit code 3" in one_error_line(capsys)


def test_a_bug_exits_1_with_one_line(
    monkeypatch: pytest.MonkeyPatch, graph_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    def broken(*args: object, **kwargs: object) -> object:
        raise KeyError("unexpected")

    monkeypatch.setattr(cli, "render_timed", broken)
    assert main(["render", str(graph_file)]) == 1
    assert one_error_line(capsys) == ("wfr render: unexpected KeyError: 'unexpected' (a bug in "
                                      "wfr: please report it with the command and its input)")


def test_argparse_errors_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["render"]) == 2
    assert main(["render", "x", "--format", "png"]) == 2
    assert "invalid choice" in capsys.readouterr().err


def test_engines_lists_each_provider_and_why_it_is_unavailable(
    test_engines: None, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["engines"]) == 0
    rows = {line.split()[0]: line for line in capsys.readouterr().out.splitlines()}
    assert rows["graphviz"].split()[1] == "available"
    assert "unavailable: libmissing not found; pip install libmissing" in rows["test-cli-missing"]


def test_schema_prints_the_json_schema(capsys: pytest.CaptureFixture[str]) -> None:
    from layouts.schemas import all_schemas

    for name in ("graph", "options", "result"):
        assert main(["schema", name]) == 0
        assert json.loads(capsys.readouterr().out) == all_schemas()[name]


def test_schema_dispatch_prints_what_an_executor_receives(
        capsys: pytest.CaptureFixture[str]) -> None:
    from workflow.executors import dispatch_payload_schema

    assert main(["schema", "dispatch"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed == dispatch_payload_schema() and printed["title"] == "DispatchPayload"


def test_workflow_commands_are_registered() -> None:
    args = cli.build_parser().parse_args(["validate", str(FIXTURE)])
    assert args.command == "validate" and callable(args.func)


def test_the_installed_script_writes_the_same_bytes_as_main(
    capsysbinary: pytest.CaptureFixture[bytes],
) -> None:
    assert main(["render", str(FIXTURE), "--engine", "graphviz"]) == 0
    from_main = capsysbinary.readouterr().out
    completed = subprocess.run([str(WFR), "render", str(FIXTURE), "--engine", "graphviz"],
                               capture_output=True, timeout=60, check=False)
    assert completed.returncode == 0, completed.stderr
    assert completed.stdout == from_main


@pytest.mark.parametrize("argv", [["render"], ["frob"], ["render", "x.yaml", "--zoom"],
                                  ["render", "x.yaml", "--effort"]])
def test_usage_errors_are_one_line(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1, err
    assert err.startswith("wfr") and "--help" in err
