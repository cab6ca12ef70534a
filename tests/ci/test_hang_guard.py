"""The CI hang guard works: a test that hangs fails the run with a stack dump naming the
function it hung in, instead of stalling the lane (pytest-timeout, thread method, as in
the Makefile and .gitea/workflows/workflow-renderer.yml)."""

import subprocess
import sys
import textwrap
from pathlib import Path

SLEEPER = textwrap.dedent(
    """
    import time

    def deliberately_sleeping_function():
        time.sleep(60)

    def test_hangs():
        deliberately_sleeping_function()
    """
)


def test_a_hanging_test_fails_with_a_stack_dump(tmp_path: Path) -> None:
    (tmp_path / "test_sleeper.py").write_text(SLEEPER, encoding="utf-8")
    completed = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--rootdir", str(tmp_path),
         "-c", "/dev/null", "--timeout=2", "--timeout-method=thread", str(tmp_path)],
        capture_output=True, text=True, timeout=50, cwd=tmp_path,
    )
    output = completed.stdout + completed.stderr
    assert completed.returncode != 0, output
    assert "Timeout" in output
    assert "deliberately_sleeping_function" in output
