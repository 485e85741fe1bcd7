"""benchmarks/zoo/isolated.py: one measurement per fresh process, and a run that fails or runs
out of time is reported and skipped rather than ending the whole measurement."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks" / "zoo"))

from isolated import result_of  # noqa: E402

SCRIPT = """
import json, sys, time
if sys.argv[2] == "ok":
    print("a line of its own output")
    print("RESULT " + json.dumps({"run": sys.argv[3]}))
elif sys.argv[2] == "slow":
    time.sleep(30)
else:
    raise SystemExit("it broke")
"""


def test_a_run_gives_its_result_and_a_broken_or_slow_one_none(tmp_path, capsys):
    script = tmp_path / "measure.py"
    script.write_text(SCRIPT)
    assert result_of(str(script), ["ok", "resnet"], "resnet") == {"run": "resnet"}
    assert result_of(str(script), ["broken"], "broken run") is None
    assert result_of(str(script), ["slow"], "slow run", timeout=1) is None
    out = capsys.readouterr().out
    assert '{"run": "resnet"}' in out
    assert "--- broken run failed:" in out and "it broke" in out
    assert "--- slow run took over 1 s: not measured" in out
