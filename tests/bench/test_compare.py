"""bench/compare.py's real-graph corpus and totals table, on a folder of three small DOT
graphs made here (one a copy of another, one without edges). Never asserts on speed."""

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[2]


def _load() -> ModuleType:
    spec = importlib.util.spec_from_file_location("compare", ROOT / "bench" / "compare.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules["compare"] = module
    spec.loader.exec_module(module)
    return module


def test_totals_add_up_the_per_graph_metrics_of_every_corpus(tmp_path: Path) -> None:
    real = tmp_path / "real"
    real.mkdir()
    # a and b cross in model order (a->d, b->c): one crossing at most, none needed
    (real / "cross.gv").write_text("digraph { a -> d; b -> c; a -> c; }")
    (real / "copy.gv").write_text("digraph { a -> d; b -> c; a -> c; }")
    (real / "alone.gv").write_text("digraph { x; y; }")
    out = tmp_path / "cmp"
    compare = _load()
    assert compare.main(["--engines", "layered,layered:draft", "--sizes", "30",
                         "--seeds", "1-2", "--real", str(real), "--runs", "1",
                         "--shuffles", "0", "--out", str(out)]) == 0
    cells = json.loads(out.with_suffix(".json").read_text())["cells"]
    graphs = sorted({c["graph"] for c in cells})
    # 2 fixtures, one generated graph per seed, and the one real graph left after the
    # copy and the edgeless graph are dropped
    assert [g for g in graphs if g.startswith("generated")] == ["generated-30-s1",
                                                                "generated-30-s2"]
    assert [g for g in graphs if g.startswith("real:")] == ["real:real/copy.gv"]
    table = out.with_suffix(".md").read_text()
    rows = {tuple(c.strip() for c in line.split("|")[1:4]): line.split("|")
            for line in table.splitlines() if line.startswith("| all |")
            or line.startswith("| real |")}
    total = sum(c["metrics"]["crossings"] for c in cells if c["engine"] == "layered")
    assert rows[("all", str(len(graphs)), "layered")][4].strip() == str(total)
    bends = sum(c["metrics"]["bends"] for c in cells
                if c["engine"] == "layered:draft" and c["graph"].startswith("real:"))
    assert rows[("real", "1", "layered:draft")][7].strip() == str(bends)
    assert all(c["metrics"]["flowViolations"] == 0 for c in cells)


def test_worst_graphs_sum_the_excess_over_the_reference_engine(tmp_path: Path) -> None:
    out = tmp_path / "cmp"
    compare = _load()
    assert compare.main(["--engines", "layered:draft,layered", "--reference", "layered",
                         "--sizes", "30,60", "--seeds", "1", "--runs", "1",
                         "--shuffles", "0", "--out", str(out)]) == 0
    cells = json.loads(out.with_suffix(".json").read_text())["cells"]
    metrics = {(c["graph"], c["engine"]): c["metrics"] for c in cells}
    graphs = {c["graph"] for c in cells}
    excess = [metrics[g, "layered:draft"]["bends"] - metrics[g, "layered"]["bends"]
              for g in graphs]
    table = out.with_suffix(".md").read_text()
    heading = "### Worst graphs: layered:draft over layered in bends"
    assert heading in table
    summary = table.split(heading, 1)[1].split("\n")[2]
    positive = [e for e in excess if e > 0]
    assert summary == (f"Excess summed over the {len(positive)} graphs where layered:draft "
                       f"has more: {sum(positive)}.")
    assert "### Worst graphs: layered over" not in table
