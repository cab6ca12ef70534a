import argparse
from pathlib import Path

from workflow.cli import register_commands

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"


def run_cli(argv):
    parser = argparse.ArgumentParser(prog="wfr")
    register_commands(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(argv)
    return args.func(args)


def test_validate_passes_a_valid_fixture(capsys):
    assert run_cli(["validate", str(FIXTURES / "document-processing.yaml")]) == 0
    assert "warning: step 'archive'" in capsys.readouterr().out


def test_validate_strict_turns_warnings_into_errors(capsys):
    assert run_cli(["validate", "--strict", str(FIXTURES / "document-processing.yaml")]) == 2


def test_validate_reports_errors_and_exits_2(tmp_path, capsys):
    bad = tmp_path / "bad.yaml"
    bad.write_text("workflow: w\nsteps: [{id: a, kind: Robot}]\nedges: [{from: a, to: z}]\n")
    assert run_cli(["validate", str(bad)]) == 2
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("error: step 'a': unknown kind 'Robot'")
    assert out[1] == "error: edge 'a->z': target 'z' is not a step"


def test_validate_unreadable_file_is_one_line_on_stderr(tmp_path, capsys):
    assert run_cli(["validate", str(tmp_path / "none.yaml")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "cannot read" in err
