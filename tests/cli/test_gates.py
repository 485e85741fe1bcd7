"""CI gates: `analyze --fail-on SEVERITY` and `compare --fail-if-slower PCT` exit 3 when the gate
fails, still writing the report; 0 when it passes; 2 for input they cannot judge."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from bottleneck_lab.commands.cli import EXIT_GATE, main
from bottleneck_lab.trace.synth import TraceBuilder

TRACES = Path(__file__).resolve().parents[2] / "traces" / "h100"


def trace(demo: str, variant: str) -> str:
    p = TRACES / demo / f"{variant}.json.gz"
    if not p.is_file():
        pytest.skip(f"{p} not shipped")
    return str(p)


def severities(path: str, tmp_path: Path) -> set[str]:
    out = tmp_path / "d.json"
    assert main(["analyze", path, "--format", "json", "-o", str(out)]) == 0
    return {f["severity"] for f in json.loads(out.read_text())["findings"]}


@pytest.mark.parametrize(
    ("demo", "variant", "fail_on", "rc"),
    [
        ("sync", "bad", "high", 3),  # sync-stall is high
        ("launch_overhead", "fixed", "low", 0),  # nothing above info
        # fusion low only (compiled around its attention, a norm ends each chain; compiling the
        # loss measured 29.5% faster on this run)
        ("precision", "fixed", "medium", 0),
        ("precision", "fixed", "low", 3),
        ("launch_overhead", "bad", "low", 3),  # launch-overhead high, host-bound low
        ("launch_overhead", "fixed", "medium", 0),
    ],
)
def test_fail_on_exits_3_only_at_or_above_the_severity(
    demo, variant, fail_on, rc, tmp_path, capsys
):
    path = trace(demo, variant)
    order = ["low", "medium", "high"]
    worst = severities(path, tmp_path) - {"info"}
    expected = 3 if any(order.index(s) >= order.index(fail_on) for s in worst) else 0
    assert expected == rc  # the table above agrees with the findings themselves
    capsys.readouterr()
    out = tmp_path / "report.txt"
    assert main(["analyze", path, "--fail-on", fail_on, "-o", str(out)]) == rc
    assert out.read_text().startswith(
        "bottleneck-lab diagnosis"
    )  # the report is written either way
    err = capsys.readouterr().err
    if rc == EXIT_GATE:
        assert len(err.splitlines()) == 1 and f"--fail-on {fail_on}" in err and path in err
    else:
        assert err == ""


def test_fail_on_a_tiny_trace_as_a_subprocess(tmp_path):
    # One step whose GPU sits idle behind a queued kernel: a gpu-idle finding of some severity.
    b = TraceBuilder()
    b.step(1, 0, 1000)
    b.op_with_kernel(
        "aten::mm", 10, 8, kernel="gemm", kernel_ts=20, kernel_dur=100, grid=(216, 1, 1)
    )
    b.op_with_kernel(
        "aten::mm", 20, 8, kernel="gemm", kernel_ts=700, kernel_dur=290, grid=(216, 1, 1)
    )
    path = b.write(tmp_path / "t.json")
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "bottleneck_lab",
            "analyze",
            str(path),
            "--fail-on",
            "low",
            "--format",
            "json",
        ],
        capture_output=True,
        text=True,
    )
    doc = json.loads(r.stdout)  # the report still goes to stdout
    assert any(f["severity"] in ("low", "medium", "high") for f in doc["findings"])
    assert r.returncode == 3 and "Traceback" not in r.stderr and len(r.stderr.splitlines()) == 1


def test_fail_on_rejects_info_and_junk():
    for bad in ("info", "critical"):
        r = subprocess.run(
            [sys.executable, "-m", "bottleneck_lab", "analyze", "x.json", "--fail-on", bad],
            capture_output=True,
            text=True,
        )
        assert r.returncode == 2 and len(r.stderr.splitlines()) == 1 and "--fail-on" in r.stderr


@pytest.mark.parametrize(
    ("before", "after", "pct", "rc"),
    [
        (
            ("checkpointing", "bad"),
            ("checkpointing", "fixed"),
            10,
            3,
        ),  # 59.0 -> 71.7 ms: 21.7% slower
        (("checkpointing", "bad"), ("checkpointing", "fixed"), 25, 0),
        (("sync", "bad"), ("sync", "fixed"), 0, 0),  # faster
        (("sync", "fixed"), ("sync", "bad"), 50, 3),  # 11.3 -> 19.5 ms: 73% slower
    ],
)
def test_fail_if_slower(before, after, pct, rc, tmp_path, capsys):
    b, a = trace(*before), trace(*after)
    out = tmp_path / "c.json"
    assert (
        main(["compare", b, a, "--fail-if-slower", str(pct), "--format", "json", "-o", str(out)])
        == rc
    )
    doc = json.loads(out.read_text())  # written either way
    row = next(r for r in doc["rows"] if r["label"].startswith("median step time"))
    slower_pct = 100 * (row["after"] - row["before"]) / row["before"]
    assert (slower_pct > pct) == (rc == 3)
    err = capsys.readouterr().err
    assert (f"{slower_pct:.1f}% slower" in err) == (rc == 3)


def test_fail_if_slower_rejects_a_negative_percentage(capsys):
    assert main(["compare", "a.json", "b.json", "--fail-if-slower", "-5"]) == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and "--fail-if-slower" in err


def test_exit_codes_are_in_the_help_and_readme():
    r = subprocess.run(
        [sys.executable, "-m", "bottleneck_lab", "analyze", "--help"],
        capture_output=True,
        text=True,
    )
    assert "exit codes:" in r.stdout and "3  a gate failed" in r.stdout and "--fail-on" in r.stdout
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    assert "--fail-on" in readme and "--fail-if-slower" in readme and "3 a CI gate failed" in readme
