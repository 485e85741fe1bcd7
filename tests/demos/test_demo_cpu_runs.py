"""Every demo runs end to end on the CPU (small sizes, one timed step per block): it captures a
trace that is valid gzip JSON with traceEvents, writes a sidecar with the expected keys, and the
analyzer reads the trace. Runs two demos at a time; each must finish in under 30 s."""

from __future__ import annotations

import gzip
import json
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from bottleneck_lab import demos

pytest.importorskip("torch")

PAIRS = [(name, variant) for name in demos.DEMOS for variant in demos.VARIANTS]
CPU_LIMIT_S = 30.0

SIDECAR_KEYS = {
    "schema",
    "demo",
    "variant",
    "created_utc",
    "trace_file",
    "trace_bytes",
    "device",
    "torch_version",
    "cuda_version",
    "python_version",
    "host_cpu_count",
    "batch_size",
    "steps_profiled",
    "profiler",
    "timing",
    "backend_flags",
    "step_time_ms",
    "timed_steps",
    "timed_blocks",
    "timed_seconds",
    "steps_per_s",
    "samples_per_s",
    "flops_per_step",
    "flops_by_op",
    "flops_source",
    "achieved_tflops",
    "max_memory_allocated_bytes",
    "max_memory_allocated_profiled_bytes",
    "nvml",
    "metrics",
    "config",
}


@pytest.fixture(scope="module")
def cpu_runs(tmp_path_factory) -> dict[tuple[str, str], tuple[Path | Exception, float]]:
    out = tmp_path_factory.mktemp("demos")

    def run(pair: tuple[str, str]) -> tuple[Path | Exception, float]:
        name, variant = pair
        t0 = time.perf_counter()
        try:
            path: Path | Exception = demos.run_demo(
                name, variant, "cpu", 1, out / name, timeout_s=120
            )
        except demos.DemoError as exc:
            path = exc
        return path, time.perf_counter() - t0

    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("OMP_NUM_THREADS", "1")  # two runs share the machine: no thread oversubscription
        mp.setenv("CUDA_VISIBLE_DEVICES", "")
        with ThreadPoolExecutor(max_workers=2) as pool:
            return dict(zip(PAIRS, pool.map(run, PAIRS)))


def trace_of(cpu_runs, name: str, variant: str) -> Path:
    path, _ = cpu_runs[(name, variant)]
    if isinstance(path, Exception):
        pytest.fail(str(path))
    return path


@pytest.mark.parametrize(("name", "variant"), PAIRS)
def test_cpu_run_is_quick(cpu_runs, name, variant):
    trace_of(cpu_runs, name, variant)
    assert cpu_runs[(name, variant)][1] < CPU_LIMIT_S


@pytest.mark.parametrize(("name", "variant"), PAIRS)
def test_trace_is_gzip_json_with_profiled_steps(cpu_runs, name, variant):
    path = trace_of(cpu_runs, name, variant)
    assert path.name == f"{variant}.json.gz"
    with gzip.open(path, "rt") as fh:
        trace = json.load(fh)
    events = trace["traceEvents"]
    assert isinstance(events, list) and events
    steps = {e["name"] for e in events if str(e.get("name", "")).startswith("ProfilerStep#")}
    assert len(steps) == 3  # schedule active=3
    ops = [e for e in events if e.get("cat") == "cpu_op"]
    assert any("Input Dims" in e.get("args", {}) for e in ops)  # record_shapes=True
    assert any(e.get("name") == "[memory]" for e in events)  # profile_memory=True
    if name == "dataloader":
        assert any("DataLoader" in str(e.get("name")) for e in events)


@pytest.mark.parametrize(("name", "variant"), PAIRS)
def test_sidecar_has_the_ground_truth(cpu_runs, name, variant):
    path = trace_of(cpu_runs, name, variant)
    meta = demos.load_meta(path)
    assert SIDECAR_KEYS <= meta.keys(), SIDECAR_KEYS - meta.keys()
    assert (meta["schema"], meta["demo"], meta["variant"]) == (
        "bottleneck-lab/demo-meta/1",
        name,
        variant,
    )
    assert meta["trace_file"] == path.name and meta["trace_bytes"] == path.stat().st_size
    assert meta["device"]["type"] == "cpu"
    assert meta["profiler"]["record_shapes"] and meta["profiler"]["profile_memory"]
    assert meta["profiler"]["with_stack"] is False
    assert meta["profiler"]["schedule"] == {"wait": 1, "warmup": 1, "active": 3}
    assert meta["steps_profiled"] == 3
    assert meta["step_time_ms"]["median"] > 0 and meta["step_time_ms"]["mean"] > 0
    assert meta["timed_steps"] == meta["timed_blocks"] >= 3  # --steps 1: one step per block
    assert meta["samples_per_s"] == pytest.approx(meta["steps_per_s"] * meta["batch_size"])
    assert (
        meta["flops_per_step"] > 0 and sum(meta["flops_by_op"].values()) == meta["flops_per_step"]
    )
    assert meta["max_memory_allocated_bytes"] is None  # CPU: no CUDA allocator
    assert meta["max_memory_allocated_profiled_bytes"] is None
    assert meta["nvml"]["available"] is False and meta["nvml"]["reason"]
    if name == "pageable_memcpy":
        assert meta["metrics"]["copy_ms_per_step"]["n"] == meta["timed_steps"]
    if name == "dataloader":
        assert meta["metrics"]["data_wait_ms_per_step"]["median"] >= 0


@pytest.mark.parametrize(("name", "variant"), PAIRS)
def test_analyzer_reads_the_cpu_trace(cpu_runs, name, variant):
    analyze = pytest.importorskip("bottleneck_lab.analyze")
    from bottleneck_lab.trace import load_trace

    d = analyze.diagnose(load_trace(trace_of(cpu_runs, name, variant)))
    assert d.errors == {}
