"""The text report of one small fixed trace against its golden copy, and every scenario through
every renderer.

To regenerate the golden file after an intended change to the report, run

    BOTTLENECK_LAB_REGOLD=1 PYTHONPATH=. python3 -m pytest tests/detectors/test_report.py

and read the diff of tests/detectors/golden/ before committing it.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

import scenarios as sc
from bottleneck_lab.diagnosis import SCHEMA
from bottleneck_lab.report import render
from scenarios import SCENARIOS, diagnosed

GOLDEN = Path(__file__).parent / "golden"


def check_golden(name: str, text: str) -> None:
    path = GOLDEN / name
    if os.environ.get("BOTTLENECK_LAB_REGOLD"):
        path.write_text(text, encoding="utf-8")
    assert path.read_text(encoding="utf-8") == text, f"{path} differs: see the regenerate note above"


def test_text_report_of_the_mixed_trace_is_golden():
    # The path is given, so the report does not show the temporary file the trace was read from.
    d = sc.diagnose_trace(sc.mixed(n_steps=2), path="mixed.json")
    check_golden("mixed.txt", render(d, "text"))


FINDING_KEYS = {"code", "kind", "severity", "title", "time_lost_us_per_step", "share_pct",
                "evidence", "fix", "efficiency"}


@pytest.mark.parametrize("code", SCENARIOS)
def test_every_renderer_handles_every_scenario(code):
    d = diagnosed(code, True)
    text = render(d, "text")
    assert text.startswith("bottleneck-lab diagnosis\n") and d.verdict.title in text
    assert render(d, "markdown").startswith("# bottleneck-lab diagnosis")
    doc = json.loads(render(d, "json"))
    assert doc["schema"] == SCHEMA
    assert [f["code"] for f in doc["findings"]] == [f.code for f in d.findings]
    assert all(set(f) == FINDING_KEYS for f in doc["findings"])
