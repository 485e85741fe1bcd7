"""The command line around the detectors, run as a user runs it: `python -m bottleneck_lab`."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
import scenarios as sc
from conftest import REPO

from bottleneck_lab.detectors import REGISTRY


def python(*args: str) -> subprocess.CompletedProcess:
    path = os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))
    return subprocess.run(
        [sys.executable, *map(str, args)],
        env={**os.environ, "PYTHONPATH": path},
        capture_output=True,
        text=True,
        timeout=60,
    )


def cli(*args: str) -> subprocess.CompletedProcess:
    return python("-m", "bottleneck_lab", *args)


@pytest.fixture(scope="module")
def gpu_idle_trace(tmp_path_factory):
    """The gpu-idle bad trace: one 300 µs gap per step, 33.3% of the step."""
    return sc.gpu_idle(True).write(tmp_path_factory.mktemp("cli") / "gpu_idle.json.gz")


def codes(result: subprocess.CompletedProcess) -> list[str]:
    assert result.returncode == 0, result.stderr
    return [f["code"] for f in json.loads(result.stdout)["findings"]]


def test_set_changes_a_threshold(gpu_idle_trace):
    assert "gpu-idle" in codes(cli("analyze", gpu_idle_trace, "--format", "json"))
    assert "gpu-idle" not in codes(
        cli("analyze", gpu_idle_trace, "--format", "json", "--set", "gpu-idle.min_share_pct=50")
    )


@pytest.mark.parametrize(
    ("setting", "says"),
    [
        ("nope.x=1", "unknown detector 'nope'"),
        ("gpu-idle.nope=1", "gpu-idle has no field 'nope'"),
        ("gpu-idle.min_share_pct=lots", "not a float"),
    ],
)
def test_bad_set_is_exit_2_with_one_line(gpu_idle_trace, setting, says):
    r = cli("analyze", gpu_idle_trace, "--set", setting)
    assert r.returncode == 2 and r.stdout == ""
    assert (
        r.stderr.count("\n") == 1 and r.stderr.startswith("bottleneck-lab: ") and says in r.stderr
    )


def test_explain_prints_the_detectors_docstring():
    r = cli("explain", "sync-stall")
    assert r.returncode == 0
    # the docstring, then the detector's positive example (tests/detectors/test_examples.py)
    assert r.stdout.startswith(
        f"sync-stall (sync_stall)\n\n{REGISTRY['sync-stall'].doc}\n\nExample: example(bad=True)"
    )
    assert r.stdout.count("Symptom:") == 1 and "cudaStreamSynchronize" in r.stdout


def test_explain_unknown_code_is_exit_2():
    r = cli("explain", "slowness")
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "sync-stall" in r.stderr


def test_list_detectors_lists_every_code_with_its_kind():
    r = cli("analyze", "--list-detectors")
    assert r.returncode == 0
    rows = [line.split() for line in r.stdout.splitlines()]
    # and the straggler finding, which the cross-rank reduce makes
    assert [row[0] for row in rows] == [*REGISTRY, "straggler"]
    assert [row[1] for row in rows] == [det.kind for det in REGISTRY.values()] + ["communication"]


def test_analyzing_does_not_import_torch(gpu_idle_trace):
    code = (
        "import sys; from bottleneck_lab.commands.cli import main; "
        f"rc = main(['analyze', {str(gpu_idle_trace)!r}, '-o', '/dev/null']); "
        "assert rc == 0 and 'torch' not in sys.modules, sorted(m for m in sys.modules if 'torch' in m)"
    )
    r = python("-c", code)
    assert r.returncode == 0, r.stderr
