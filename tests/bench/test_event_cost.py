"""bench/event_cost.py on PostgreSQL: a short chain runs to its end in a schema of its own
and the table gets one line per size. Never asserts on speed."""

import importlib.util
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _load():
    spec = importlib.util.spec_from_file_location("event_cost", ROOT / "bench" / "event_cost.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["event_cost"] = module
    spec.loader.exec_module(module)
    return module


def test_the_postgres_mode_runs_each_chain_to_its_end(pg_server, capsys, tmp_path):
    event_cost = _load()
    out = tmp_path / "cost.json"
    assert event_cost.main(["--store", "postgres", "--db", pg_server.url, "--sizes", "2,3",
                            "--json", str(out)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("steps  events") and len(lines) == 3
    import json

    results = json.loads(out.read_text())
    # a chain of N Tool steps takes N + 1 events (Start, then one outcome per step)
    assert [(r["steps"], r["events"], r["state"]) for r in results] == [
        (2, 3, "Completed"), (3, 4, "Completed")]
    assert all(r["last_tenth_wall_ms"] > 0 for r in results)
