"""The shipped H100 demo traces (traces/h100/<demo>/{bad,fixed}.json.gz): present, small, valid,
with GPU activity and complete sidecars, and each pair meets its target (judged from the
sidecars by bottleneck_lab.demos.compare). Skips a demo whose traces are absent."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from bottleneck_lab import demos

TRACES = Path(__file__).resolve().parents[2] / "traces" / "h100"
MAX_TRACE_BYTES = 5 * 10**6


def pair(name: str) -> dict[str, tuple[Path, dict]]:
    out = {}
    for variant in demos.VARIANTS:
        path = TRACES / name / f"{variant}.json.gz"
        if not path.is_file():
            pytest.skip(f"{path} not captured")
        out[variant] = (path, demos.load_meta(path))
    return out


@pytest.mark.parametrize("name", demos.DEMOS)
def test_traces_are_small_valid_and_from_the_gpu(name):
    for variant, (path, meta) in pair(name).items():
        assert path.stat().st_size < MAX_TRACE_BYTES
        assert meta["trace_bytes"] == path.stat().st_size
        with gzip.open(path, "rt") as fh:
            events = json.load(fh)["traceEvents"]
        cats = {e.get("cat") for e in events}
        assert {"kernel", "cuda_runtime", "cpu_op"} <= cats, (variant, cats)
        if not meta["config"].get("cuda_graph"):  # a graph replay allocates nothing
            assert any(e.get("name") == "[memory]" for e in events)
        assert (
            len({e["name"] for e in events if str(e.get("name", "")).startswith("ProfilerStep#")})
            == 3
        )


@pytest.mark.parametrize("name", demos.DEMOS)
def test_sidecars_have_gpu_ground_truth(name):
    for variant, (_, meta) in pair(name).items():
        assert (meta["demo"], meta["variant"]) == (name, variant)
        assert "H100" in meta["device"]["name"] and meta["profiler"]["activities"] == [
            "CPU",
            "CUDA",
        ]
        assert (
            meta["max_memory_allocated_bytes"] > 0
            and meta["max_memory_allocated_profiled_bytes"] > 0
        )
        assert meta["flops_per_step"] > 0
        nvml = meta["nvml"]
        assert nvml["available"] and nvml["samples"] > 0
        assert nvml["gpu_util_pct"]["mean"] >= 0 and nvml["energy_j_per_step"] > 0


@pytest.mark.parametrize("name", demos.DEMOS)
def test_pair_meets_its_target(name):
    p = pair(name)
    result = demos.compare(name, p["bad"][1], p["fixed"][1])
    assert result.met, result.summary


def test_same_step_same_flops():
    """Where bad and fixed run the same model on the same batch, FlopCounterMode agrees."""
    for name in ("dataloader", "precision", "launch_overhead", "pageable_memcpy"):
        p = pair(name)
        assert p["bad"][1]["flops_per_step"] == p["fixed"][1]["flops_per_step"], name
