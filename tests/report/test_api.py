"""The notebook API: `bottleneck_lab.analyze(path, **options) -> Diagnosis`, findings_frame()
and _repr_html_(), on real traces and tiny ones."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

import bottleneck_lab
from bottleneck_lab import TraceError
from bottleneck_lab.commands.cli import main
from bottleneck_lab.diagnosis import Diagnosis
from bottleneck_lab.trace.synth import training_trace

REPO = Path(__file__).resolve().parents[2]
LOADER_BAD = REPO / "traces" / "h100" / "dataloader" / "bad.json.gz"  # diagnosed data-loading, high


def real(path: Path) -> str:
    if not path.is_file():
        pytest.skip(f"{path} not shipped")
    return str(path)


def run_python(code: str) -> subprocess.CompletedProcess:
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(p for p in (str(REPO), os.environ.get("PYTHONPATH")) if p),
    }
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=REPO, timeout=120
    )


def test_importing_the_package_stays_light():
    r = run_python(
        "import sys, bottleneck_lab\n"
        "print(sorted(m for m in ('pandas', 'numpy', 'torch', 'jinja2') if m in sys.modules))"
    )
    assert r.returncode == 0 and r.stdout.strip() == "[]", r.stdout + r.stderr


@pytest.mark.parametrize("first", ["function", "module"])
def test_analyze_works_whichever_spelling_was_imported_first(first):
    path = real(LOADER_BAD)
    pre = "from bottleneck_lab.analyze import diagnose\n" if first == "module" else ""
    r = run_python(
        pre + "import sys, bottleneck_lab\nfrom bottleneck_lab import analyze\n"
        f"d = analyze({path!r})\nd2 = bottleneck_lab.analyze({path!r})\n"
        "assert callable(bottleneck_lab.analyze.diagnose)\n"
        "print(type(d).__name__, d.verdict.code, d2.verdict.code)\n"
        "print('torch' in sys.modules)"
    )
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["Diagnosis", "data-loading", "data-loading", "False"]


def test_analyze_matches_the_cli_json(tmp_path):
    path = real(LOADER_BAD)
    d = bottleneck_lab.analyze(path)
    assert isinstance(d, Diagnosis)
    out = tmp_path / "d.json"
    assert main(["analyze", path, "--format", "json", "-o", str(out)]) == 0
    doc = json.loads(out.read_text())
    assert [f["code"] for f in doc["findings"]] == [f.code for f in d.findings]
    assert doc["summary"]["step_time_us"] == d.summary.step_time_us


def test_overrides_in_every_form_and_bad_ones(tmp_path):
    path = training_trace(steps=3).write(tmp_path / "t.json.gz")
    base = bottleneck_lab.analyze(path)
    forms = [
        {"gpu-idle.min_share_pct": 100.0},
        {"gpu-idle": {"min_share_pct": 100.0}},
        ["gpu-idle.min_share_pct=100"],
    ]
    results = [bottleneck_lab.analyze(path, f) for f in forms]
    assert len({tuple(f.code for f in r.findings) for r in results}) == 1
    assert all("gpu-idle" not in {f.code for f in r.findings} for r in results)
    assert base.summary.step_time_us == results[0].summary.step_time_us
    with pytest.raises(ValueError, match="unknown detector"):
        bottleneck_lab.analyze(path, {"no-such.x": 1})
    with pytest.raises(ValueError, match="positive"):
        bottleneck_lab.analyze(path, peak_tflops=-1)
    with pytest.raises(TraceError, match="no such"):
        bottleneck_lab.analyze(tmp_path / "missing.json")


def test_findings_frame_on_a_real_trace():
    d = bottleneck_lab.analyze(real(LOADER_BAD))
    df = d.findings_frame()
    assert isinstance(df, pd.DataFrame)
    assert list(df.columns) == [
        "code",
        "kind",
        "severity",
        "title",
        "time_lost_us_per_step",
        "share_pct",
        "fix",
    ]
    assert list(df["code"]) == [f.code for f in d.findings]
    assert df.loc[0, "code"] == "data-loading" and df.loc[0, "severity"] == "high"
    assert df["time_lost_us_per_step"].dtype == "float64"
    # severity is ordered: filtering "medium or worse" is one comparison
    serious = df[df["severity"] >= "medium"]
    assert list(serious["code"]) == [f.code for f in d.at_or_above("medium")]
    assert df["share_pct"].iloc[0] == pytest.approx(d.findings[0].share_pct)


def test_findings_frame_without_findings_has_the_columns(tmp_path):
    d = bottleneck_lab.analyze(
        training_trace(steps=2).write(tmp_path / "t.json"),
        [f"{c}.min_share_pct=1000" for c in ("gpu-idle", "host-bound", "launch-overhead")],
    )
    d.findings = []
    df = d.findings_frame()
    assert df.empty and "severity" in df.columns and "fix" in df.columns


def test_repr_html_is_the_html_report_as_a_fragment():
    d = bottleneck_lab.analyze(real(LOADER_BAD))
    html = d._repr_html_()
    assert html.lstrip().startswith('<div class="blab">') and "<html" not in html
    assert 'id="verdict"' in html and 'data-code="data-loading"' in html and "<svg" in html
    assert "<script" not in html
