"""`bottleneck-lab compare BEFORE AFTER` on real demo pairs and on bad input."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from bottleneck_lab.commands.cli import main

TRACES = Path(__file__).resolve().parents[2] / "traces" / "h100"


def pair(demo: str) -> tuple[str, str]:
    d = TRACES / demo
    if not (d / "bad.json.gz").is_file():
        pytest.skip(f"{d} not shipped")
    return str(d / "bad.json.gz"), str(d / "fixed.json.gz")


def test_checkpointing_pair_reports_memory_saved_against_the_measured_peaks(tmp_path, capsys):
    bad, fixed = pair("checkpointing")
    out = tmp_path / "c.json"
    assert main(["compare", bad, fixed, "--format", "json", "-o", str(out)]) == 0
    doc = json.loads(out.read_text())
    assert doc["schema"] == "bottleneck-lab/compare/1"
    ckpt = doc["checkpointing"]
    assert ckpt["checkpointed"] == "after"
    metas = [
        json.loads(Path(p.replace(".json.gz", ".meta.json")).read_text()) for p in (bad, fixed)
    ]
    measured = (
        metas[0]["max_memory_allocated_profiled_bytes"]
        - metas[1]["max_memory_allocated_profiled_bytes"]
    )
    assert ckpt["saved_bytes"] == pytest.approx(measured, rel=0.02)
    assert ckpt["recompute_us_per_step"] > 0
    assert [n["code"] for n in doc["new"]] == ["recompute"]


def test_sync_pair_shows_the_stall_gone_and_a_faster_step(capsys):
    bad, fixed = pair("sync")
    assert main(["compare", bad, fixed]) == 0
    text = capsys.readouterr().out
    assert "sync-stall" in text.split("gone after:")[1].split("New after")[0]
    rows = {
        line.split("  ")[1].strip(): line
        for line in text.splitlines()
        if "median step time" in line
    }
    assert rows


def test_missing_trace_is_one_line_and_exit_2(tmp_path):
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "bottleneck_lab",
            "compare",
            str(tmp_path / "nope.json"),
            str(tmp_path / "nope2.json"),
        ],
        capture_output=True,
        text=True,
    )
    assert r.returncode == 2
    assert r.stderr.count("\n") == 1 and "nope.json" in r.stderr and "Traceback" not in r.stderr


def test_compare_cells_carry_units_and_the_peak_mfu_is_of(tmp_path, capsys):
    # A ResNet-50 moved from FP32 (TF32) to BF16: faster, yet a lower MFU, because MFU is
    # against each run's own peak; the table shows that peak beside it, and every cell its unit.
    d = Path(__file__).resolve().parents[2] / "traces" / "zoo" / "resnet50_precision"
    if not (d / "bad.json.gz").is_file():
        pytest.skip(f"{d} not shipped")
    out = tmp_path / "c.json"
    args = ["compare", str(d / "bad.json.gz"), str(d / "fixed.json.gz")]
    assert main([*args, "--format", "json", "-o", str(out)]) == 0
    rows = {r["field"]: r for r in json.loads(out.read_text())["rows"]}
    assert rows["step_time_us"]["ratio"] < 1 and rows["mfu_pct"]["ratio"] < 1
    assert rows["peak_tflops"]["after"] > 3 * rows["peak_tflops"]["before"]
    assert main(args) == 0
    lines = {ln.split("  ")[1].strip(): ln for ln in capsys.readouterr().out.splitlines()[4:11]}
    assert lines["median step time"].count(" ms") == 2
    assert lines["peak memory"].count(" GiB") == 2 and "TFLOP" in lines["FLOPs per step"]
    assert lines["MFU"].count("%") == 2 and "peak TFLOP/s (MFU is of this)" in lines
