"""`python -m bottleneck_lab`: exit codes, the one-line error, the JSON contract of DESIGN.md,
--help/--version, and that analysing a trace never imports torch."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from bottleneck_lab import __version__
from bottleneck_lab.commands.cli import main
from bottleneck_lab.trace.synth import TraceBuilder, training_trace

REPO = Path(__file__).resolve().parents[2]

# The contract (DESIGN.md, schema bottleneck-lab/diagnosis/1): keys may be added, never renamed.
SCHEMA = "bottleneck-lab/diagnosis/1"
TRACE_KEYS = {"path", "ranks", "device", "has_gpu", "events"}
SUMMARY_KEYS = {
    "steps",
    "step_time_us",
    "gpu_busy_pct",
    "flops_per_step",
    "achieved_tflops",
    "peak_tflops",
    "peak_source",
    "mfu_pct",
    "peak_memory_bytes",
}
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
SEVERITIES = {"info", "low", "medium", "high"}
KINDS = {
    "fusion",
    "data_loading",
    "host_bound",
    "gpu_idle",
    "small_batch",
    "launch_overhead",
    "sync_stall",
    "precision",
    "memcpy",
    "activation_memory",
    "recompute",
    "memory_capacity",
    "communication",
}


def run_cli(*args: str | Path, code: str | None = None) -> subprocess.CompletedProcess:
    """`python -m bottleneck_lab ARGS` (or `python -c CODE`) with this checkout importable."""
    env = {k: v for k, v in os.environ.items() if k != "BOTTLENECK_LAB_DEBUG"}
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(REPO), os.environ.get("PYTHONPATH")) if p)
    cmd = [sys.executable, "-c", code] if code else [sys.executable, "-m", "bottleneck_lab"]
    return subprocess.run(
        [*cmd, *map(str, args)], capture_output=True, text=True, env=env, timeout=120, cwd=REPO
    )


def assert_one_line_error(proc: subprocess.CompletedProcess, names: str | Path) -> None:
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stdout + proc.stderr
    assert proc.stdout == ""
    assert len(proc.stderr.splitlines()) == 1, proc.stderr
    assert str(names) in proc.stderr


def assert_diagnosis_json(doc: dict) -> None:
    assert doc["schema"] == SCHEMA
    assert TRACE_KEYS <= doc["trace"].keys()
    assert SUMMARY_KEYS <= doc["summary"].keys()
    assert isinstance(doc["trace"]["ranks"], list) and all(
        type(r) is int for r in doc["trace"]["ranks"]
    )
    assert isinstance(doc["trace"]["has_gpu"], bool) and type(doc["trace"]["events"]) is int
    device = doc["trace"]["device"]
    assert device is None or "name" in device
    assert isinstance(doc["findings"], list)
    for f in doc["findings"]:
        assert FINDING_KEYS <= f.keys()
        assert f["severity"] in SEVERITIES and f["kind"] in KINDS
        assert isinstance(f["evidence"], dict) and isinstance(f["fix"], str)


@pytest.fixture(scope="module")
def trace_file(tmp_path_factory) -> Path:
    return training_trace(steps=4).write(tmp_path_factory.mktemp("cli") / "train.json.gz")


# --- unusable input and arguments ---------------------------------------------------------------


def test_unusable_input_exits_2_with_one_line_naming_the_file(unusable):
    assert_one_line_error(run_cli("analyze", unusable.path), unusable.path)


def test_unwritable_output_file_exits_2(trace_file, tmp_path):
    out = tmp_path / "no" / "such" / "dir" / "report.json"
    assert_one_line_error(run_cli("analyze", trace_file, "-o", out), out)


def test_analyze_without_a_path_exits_2():
    proc = run_cli("analyze")
    assert proc.returncode == 2 and len(proc.stderr.splitlines()) == 1
    assert "Traceback" not in proc.stderr


def test_unknown_format_is_a_usage_error(trace_file):
    proc = run_cli("analyze", trace_file, "--format", "pdf")
    assert proc.returncode == 2 and "Traceback" not in proc.stderr and "--format" in proc.stderr


# --- analysing ----------------------------------------------------------------------------------


@pytest.mark.parametrize("fmt", ["text", "markdown", "json"])
def test_analyze_each_format(trace_file, fmt):
    proc = run_cli("analyze", trace_file, "--format", fmt)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() and "Traceback" not in proc.stderr
    if fmt == "json":
        doc = json.loads(proc.stdout)
        assert_diagnosis_json(doc)
        assert doc["trace"]["ranks"] == [0] and doc["trace"]["has_gpu"] is True
        assert doc["summary"]["steps"] == 4
        assert doc["trace"]["device"]["name"] == "NVIDIA A100-SXM4-80GB"


def test_output_file(trace_file, tmp_path):
    out = tmp_path / "d.json"
    proc = run_cli("analyze", trace_file, "--format", "json", "-o", out)
    assert proc.returncode == 0 and proc.stdout == ""
    assert_diagnosis_json(json.loads(out.read_text()))


def test_directory_of_rank_traces(tmp_path):
    for rank in (1, 0):
        training_trace(rank=rank, world_size=2).write(tmp_path / f"rank{rank}.json", compact=True)
    out = tmp_path / "d.json"
    assert main(["analyze", str(tmp_path), "--format", "json", "-o", str(out)]) == 0
    doc = json.loads(out.read_text())
    assert_diagnosis_json(doc)
    assert doc["trace"]["ranks"] == [0, 1]


def test_cpu_only_trace(tmp_path):
    b = TraceBuilder(gpus=[])
    b.step(1, 0, 100)
    b.cpu_op("aten::add", 10, 20)
    out = tmp_path / "d.json"
    assert (
        main(["analyze", str(b.write(tmp_path / "cpu.json")), "--format", "json", "-o", str(out)])
        == 0
    )
    doc = json.loads(out.read_text())
    assert_diagnosis_json(doc)
    assert doc["trace"]["has_gpu"] is False and doc["trace"]["device"] is None
    assert doc["summary"]["gpu_busy_pct"] is None


def test_external_trace_json_has_the_contract_keys(external_trace_dir, tmp_path, capsys):
    out = tmp_path / "d.json"
    rc = main(["analyze", str(external_trace_dir.path), "--format", "json", "-o", str(out)])
    err = capsys.readouterr().err
    if not external_trace_dir.is_trace:
        assert rc == 2 and len(err.splitlines()) == 1 and str(external_trace_dir.path) in err
        return
    assert rc == 0, err
    doc = json.loads(out.read_text())
    assert_diagnosis_json(doc)
    assert doc["trace"]["events"] > 0 and doc["summary"]["steps"] >= 1


# --- process-level promises ---------------------------------------------------------------------


NO_TORCH = """
import sys
from bottleneck_lab.commands.cli import main
from bottleneck_lab.analyze import diagnose
from bottleneck_lab.report import render
from bottleneck_lab.trace import load_trace
path, out = sys.argv[1:]
assert main(["analyze", path, "--format", "json", "-o", out]) == 0
for fmt in ("text", "markdown", "json"):
    render(diagnose(load_trace(path)), fmt)
loaded = sorted(m for m in sys.modules if m == "torch" or m.startswith("torch."))
print("torch modules:", loaded)
sys.exit(1 if loaded else 0)
"""


def test_analysing_a_trace_does_not_import_torch(trace_file, tmp_path):
    proc = run_cli(trace_file, tmp_path / "d.json", code=NO_TORCH)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "torch modules: []" in proc.stdout


def test_help_works_and_stays_light():
    code = (
        "import sys\nfrom bottleneck_lab.commands.cli import main\ntry:\n    main(['--help'])\n"
        "except SystemExit as e:\n    assert e.code == 0\n"
        "print('heavy:', sorted(m for m in ('pandas', 'numpy', 'torch') if m in sys.modules))"
    )
    light = run_cli(code=code)
    assert light.returncode == 0 and "heavy: []" in light.stdout
    proc = run_cli("--help")
    assert proc.returncode == 0 and "analyze" in proc.stdout and "examples" in proc.stdout
    sub = run_cli("analyze", "--help")
    assert sub.returncode == 0 and "--format" in sub.stdout


def test_version():
    proc = run_cli("--version")
    assert proc.returncode == 0
    assert proc.stdout.strip() == f"bottleneck-lab {__version__}"
