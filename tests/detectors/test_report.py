"""The text report of one small fixed trace against its golden copy, and every scenario through
every renderer.

To regenerate the golden file after an intended change to the report, run

    BOTTLENECK_LAB_REGOLD=1 PYTHONPATH=. python3 -m pytest tests/detectors/test_report.py

and read the diff of tests/detectors/golden/ before committing it.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest
import scenarios as sc
from scenarios import SCENARIOS, diagnosed

from bottleneck_lab.diagnosis import SCHEMA
from bottleneck_lab.report import render

GOLDEN = Path(__file__).parent / "golden"


def check_golden(name: str, text: str) -> None:
    path = GOLDEN / name
    if os.environ.get("BOTTLENECK_LAB_REGOLD"):
        path.write_text(text, encoding="utf-8")
    assert path.read_text(encoding="utf-8") == text, (
        f"{path} differs: see the regenerate note above"
    )


def test_text_report_of_the_mixed_trace_is_golden():
    # The path is given, so the report does not show the temporary file the trace was read from.
    d = sc.diagnose_trace(sc.mixed(n_steps=2), path="mixed.json")
    check_golden("mixed.txt", render(d, "text"))


def test_verbose_text_report_of_the_mixed_trace_is_golden():
    d = sc.diagnose_trace(sc.mixed(n_steps=2), path="mixed.json")
    text = render(d, "text", verbose=True)
    check_golden("mixed-verbose.txt", text)
    concise = render(d, "text")
    # Verbose adds the evidence; the concise form has none of it.
    assert "largest_gaps:" in text and "largest_gaps:" not in concise
    assert "calls_by_origin: aten::_local_scalar_dense <- aten::item" in text


def test_text_reports_fit_100_columns_and_colour_only_when_asked():
    d = sc.diagnose_trace(sc.mixed(n_steps=2), path="mixed.json")
    for verbose in (False, True):
        plain = render(d, "text", verbose=verbose)
        assert max(map(len, plain.splitlines())) <= 100
        assert "\033[" not in plain
        coloured = render(d, "text", verbose=verbose, color=True)
        assert "\033[1;33mMEDIUM" in coloured  # severities are coloured
        strip = re.sub(r"\033\[[0-9;]*m", "", coloured)
        assert strip == plain  # colour changes nothing but the escape codes


FINDING_KEYS = {
    "code",
    "kind",
    "severity",
    "title",
    "time_lost_us_per_step",
    "share_pct",
    "evidence",
    "fix",
    "efficiency",
}


@pytest.mark.parametrize("code", SCENARIOS)
def test_every_renderer_handles_every_scenario(code):
    d = diagnosed(code, True)
    text = render(d, "text")
    assert text.startswith("bottleneck-lab diagnosis\n") and d.verdict.title in " ".join(
        text.split()
    )
    assert render(d, "markdown").startswith("# bottleneck-lab diagnosis")
    doc = json.loads(render(d, "json"))
    assert doc["schema"] == SCHEMA
    assert [f["code"] for f in doc["findings"]] == [f.code for f in d.findings]
    assert all(set(f) == FINDING_KEYS for f in doc["findings"])
