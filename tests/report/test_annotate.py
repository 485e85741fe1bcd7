"""`analyze --annotate OUT`: the original trace plus a "bottleneck-lab" process with one slice per
idle gap named by its cause, each finding's evidence spans, and GPU busy % and memory counters.

Perfetto's trace processor cannot run here (the PyPI `perfetto` package downloads its binary at
run time; README, Reports, lists what was tried), so the annotated file is
read back with our own loader (the analysis must not change) and with a JSON decoder (the added
tracks and counters must be there and agree with the Diagnosis)."""

from __future__ import annotations

import gzip
import json
from collections import Counter
from pathlib import Path

import pytest

import bottleneck_lab
from bottleneck_lab.commands.cli import main
from bottleneck_lab.report.annotate import FINDING_TID0, PID, TID_GAPS
from bottleneck_lab.report.format import OWNER_LABELS
from bottleneck_lab.trace import load_frame
from bottleneck_lab.trace.synth import training_trace, write_text

TRACES = Path(__file__).resolve().parents[2] / "traces" / "h100"


def real(demo: str, variant: str = "bad") -> str:
    p = TRACES / demo / f"{variant}.json.gz"
    if not p.is_file():
        pytest.skip(f"{p} not shipped")
    return str(p)


def read_json(path: Path):
    data = path.read_bytes()
    return json.loads(gzip.decompress(data) if path.name.endswith(".gz") else data)


def added(doc) -> list[dict]:
    events = doc["traceEvents"] if isinstance(doc, dict) else doc
    return [e for e in events if e.get("pid") == PID]


@pytest.mark.parametrize("demo", ["sync", "checkpointing"])
def test_annotated_real_trace(demo, tmp_path):
    src = real(demo)
    out = tmp_path / "annotated.json.gz"
    assert main(["analyze", src, "--annotate", str(out), "-o", str(tmp_path / "r.txt")]) == 0
    d = bottleneck_lab.analyze(src)
    original, annotated = read_json(Path(src)), read_json(out)
    n = len(original["traceEvents"])
    # The original events and metadata are all there, unchanged.
    assert annotated["traceEvents"][:n] == original["traceEvents"]
    assert {k: v for k, v in annotated.items() if k != "traceEvents"} == {
        k: v for k, v in original.items() if k != "traceEvents"
    }
    mine = added(annotated)
    assert len(mine) == len(annotated["traceEvents"]) - n
    names = {
        (e.get("tid"), e["args"]["name"])
        for e in mine
        if e["ph"] == "M" and e["name"].endswith("_name")
    }
    assert (None, "bottleneck-lab") in names and (TID_GAPS, "GPU idle gaps, by cause") in names
    for i, f in enumerate(d.findings, 1):
        assert (FINDING_TID0 + i, f"finding {i}: {f.code} ({f.severity})") in names

    # One slice per idle gap, named by its cause, adding up to the idle time per cause.
    tl = d.summary.extra["timeline"]
    gaps = [e for e in mine if e["ph"] == "X" and e["tid"] == TID_GAPS]
    assert len(gaps) == sum(len(s["gaps"]) for s in tl["steps"])
    assert all(s["gaps_omitted"] == 0 for s in tl["steps"])
    by_cause = Counter()
    for e in gaps:
        assert e["name"] == f"idle: {OWNER_LABELS[e['args']['cause']]}"
        by_cause[e["args"]["cause"]] += e["dur"]
    want = Counter()
    for s in tl["steps"]:
        want.update(s["idle_us_by_owner"])
    assert by_cause.keys() == want.keys()
    for cause, us in want.items():
        assert by_cause[cause] == pytest.approx(us, rel=1e-6, abs=0.01)
    # The slices sit inside the steps, on the trace's own clock.
    steps = load_frame(src).steps
    assert min(e["ts"] for e in gaps) >= steps["ts"].min() - 0.01
    assert max(e["ts"] + e["dur"] for e in gaps) <= steps["end"].max() + 0.01

    # Counters: GPU busy % per window of each step, and the memory curve.
    busy = [e for e in mine if e["ph"] == "C" and e["name"] == "GPU busy %"]
    assert len(busy) == sum(len(s["busy_pct_windows"]) for s in tl["steps"]) + 1
    assert all(0 <= e["args"]["busy %"] <= 100 for e in busy)
    mem = [e for e in mine if e["ph"] == "C" and e["name"].startswith("memory")]
    assert len(mem) == len(d.summary.extra["memory_curve"]["points"])
    peak = max(e["args"]["allocated"] for e in mem)
    assert peak == pytest.approx(d.summary.peak_memory_bytes / 2**20, rel=1e-3)

    # Our loader reads the annotated file and finds exactly the same diagnosis.
    again = bottleneck_lab.analyze(out)
    assert [f.code for f in again.findings] == [f.code for f in d.findings]
    assert again.summary.step_time_us == d.summary.step_time_us
    assert again.summary.gpu_busy_pct == d.summary.gpu_busy_pct


def test_sync_stall_spans_are_the_evidence(tmp_path):
    src = real("sync")
    out = tmp_path / "a.json"
    assert main(["analyze", src, "--annotate", str(out), "-o", str(tmp_path / "r.txt")]) == 0
    d = bottleneck_lab.analyze(src)
    rank = [f.code for f in d.findings].index("sync-stall") + 1
    spans = [
        e for e in added(read_json(out)) if e.get("tid") == FINDING_TID0 + rank and e["ph"] == "X"
    ]
    calls = d.findings[rank - 1].evidence["longest_calls"]
    got = {(round(e["ts"], 3), e["dur"]) for e in spans if e["name"] == "sync-stall: longest_calls"}
    assert got == {(round(c["ts"], 3), c["blocked_us"]) for c in calls}


@pytest.mark.parametrize("form", ["object", "array", "nan"])
def test_tiny_traces_in_every_form(form, tmp_path):
    b = training_trace(steps=3)
    doc = b.to_dict()
    if form == "array":
        src = write_text(tmp_path / "t.json", json.dumps(doc["traceEvents"]))
    elif form == "nan":  # profilers write NaN; the annotated file is valid JSON all the same
        text = json.dumps(doc).replace('"traceName": "tracegen.json"', '"traceName": NaN')
        src = write_text(tmp_path / "t.json", text)
    else:
        src = b.write(tmp_path / "t.json")
    out = tmp_path / "out.json"
    assert main(["analyze", str(src), "--annotate", str(out), "-o", str(tmp_path / "r.txt")]) == 0
    annotated = json.loads(out.read_text())  # strict JSON: no NaN left
    assert isinstance(annotated, list if form == "array" else dict)
    mine = added(annotated)
    assert any(e["ph"] == "M" and e["args"].get("name") == "bottleneck-lab" for e in mine)
    assert any(e["ph"] == "C" and e["name"] == "GPU busy %" for e in mine)
    d = bottleneck_lab.analyze(src)
    assert [f.code for f in bottleneck_lab.analyze(out).findings] == [f.code for f in d.findings]


def test_unwritable_annotate_path_is_one_line_exit_2(tmp_path, capsys):
    src = training_trace(steps=2).write(tmp_path / "t.json")
    bad = tmp_path / "no" / "dir" / "a.json.gz"
    assert main(["analyze", str(src), "--annotate", str(bad), "-o", str(tmp_path / "r.txt")]) == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and str(bad) in err
