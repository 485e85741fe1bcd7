"""Capture a training step the way bottleneck-lab wants it, plus the ground truth beside it.

    trace = capture(step, demo="sync", variant="bad", device="cuda", out_dir=out,
                    batch_size=64, timed_steps=20)

`step()` runs one whole training step (fetch the batch, forward, backward, optimizer). In order:

1. warm-up steps (allocator, cuDNN/cuBLAS handles, optimizer state, worker start-up);
2. FLOPs of one step under `torch.utils.flop_counter.FlopCounterMode`;
3. peak memory of one step (`reset_peak_memory_stats`, then `max_memory_allocated`);
4. timed steps outside the profiler, in blocks (synchronize, n steps back to back,
   synchronize), while NVML is sampled in a background thread;
5. the profiled steps, under the schedule wait/warmup/active, exported as gzip Chrome trace;
   peak memory is read over this region too.

It writes `OUT/<variant>.json.gz` and the sidecar `OUT/<variant>.meta.json` (keys documented in
traces/README.md) and returns the trace path. Every step in 2 to 5 is the same step function on
the same model and batch shapes, so the FLOPs and peak memory describe what the trace records.
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import json
import os
import platform
import statistics
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import torch

from bottleneck_lab.nvml import NvmlSampler

SCHEMA = "bottleneck-lab/demo-meta/1"

Step = Callable[[], Any]


@dataclass(frozen=True)
class ProfileSettings:
    """Profiler settings for a demo trace: few active steps keep the trace small."""

    wait: int = 1
    warmup: int = 1
    active: int = 3
    record_shapes: bool = True
    profile_memory: bool = True
    with_stack: bool = False

    @property
    def steps(self) -> int:
        return self.wait + self.warmup + self.active


@dataclass(frozen=True)
class TimingSettings:
    """How the ground-truth step time is measured, outside the profiler."""

    warmup_steps: int = 3
    min_blocks: int = 3
    max_blocks: int = 100
    min_seconds: float = 0.0  # keep adding blocks until this much time has passed


def is_cuda(device: str | torch.device) -> bool:
    return torch.device(device).type == "cuda"


def synchronize(device: str | torch.device) -> None:
    if is_cuda(device):
        torch.cuda.synchronize(device)


def activities(device: str | torch.device) -> list[torch.profiler.ProfilerActivity]:
    acts = [torch.profiler.ProfilerActivity.CPU]
    if is_cuda(device) and torch.cuda.is_available():
        acts.append(torch.profiler.ProfilerActivity.CUDA)
    return acts


class SpanTimer:
    """Times one region per step (e.g. the host-to-device copy): CUDA events on a GPU.

    `host=True` times it on the host clock instead (e.g. the wait for the next batch).
    `capture` turns it on for the timed steps only, so the profiled steps carry no extra event
    records. Use it as `with timer: x = x.to(dev)`.
    """

    def __init__(self, name: str, device: str | torch.device, *, host: bool = False):
        self.name = name
        self.cuda = is_cuda(device) and not host
        self.enabled = False
        self._spans: list[Any] = []

    def __enter__(self) -> SpanTimer:
        if self.enabled:
            if self.cuda:
                start = torch.cuda.Event(enable_timing=True)
                start.record()
                self._spans.append([start, None])
            else:
                self._spans.append([time.perf_counter(), None])
        return self

    def __exit__(self, *exc: object) -> None:
        if self.enabled:
            if self.cuda:
                end = torch.cuda.Event(enable_timing=True)
                end.record()
                self._spans[-1][1] = end
            else:
                self._spans[-1][1] = time.perf_counter()

    def reset(self) -> None:
        self._spans = []

    def summary(self) -> dict[str, Any]:
        if self.cuda:
            torch.cuda.synchronize()
            ms = [s.elapsed_time(e) for s, e in self._spans if e is not None]
        else:
            ms = [(e - s) * 1e3 for s, e in self._spans if e is not None]
        return {
            f"{self.name}_ms_per_step": _ms_stats(ms),
            f"{self.name}_timer": "CUDA events on the current stream"
            if self.cuda
            else "perf_counter",
        }


def _ms_stats(ms: Sequence[float]) -> dict[str, float | int] | None:
    if not ms:
        return None
    return {
        "median": statistics.median(ms),
        "mean": statistics.fmean(ms),
        "min": min(ms),
        "max": max(ms),
        "n": len(ms),
    }


@contextlib.contextmanager
def _timers_on(timers: Sequence[SpanTimer]) -> Iterator[None]:
    for t in timers:
        t.reset()
        t.enabled = True
    try:
        yield
    finally:
        for t in timers:
            t.enabled = False


def count_flops(step: Step) -> tuple[int | None, dict[str, int], str | None]:
    """FLOPs of one call of `step`, total and by aten op, as FlopCounterMode counts them, and
    None where it could not count: then (None, {}, why). A formula that rejects an op's shapes
    must not cost the trace (torch 2.11's SDPA formula raises on grouped-query attention, where
    torch 2.13's counts it), so the capture goes on without FLOPs and the sidecar says why."""
    from torch.utils.flop_counter import FlopCounterMode

    counter = FlopCounterMode(display=False)
    try:
        with counter:
            step()
    except Exception as e:  # noqa: BLE001 - any failure of the counter, reported in the sidecar
        why = f"not counted: FlopCounterMode raised {type(e).__name__}: {str(e)[:200]}"
        print(f"bottleneck-lab capture: FLOPs {why}", file=sys.stderr)
        return None, {}, why
    by_op = {str(op): int(n) for op, n in counter.get_flop_counts().get("Global", {}).items()}
    return int(counter.get_total_flops()), dict(sorted(by_op.items())), None


def measure_peak_memory(step: Step, device: str | torch.device) -> int | None:
    """`torch.cuda.max_memory_allocated()` over one step (None off CUDA)."""
    if not is_cuda(device):
        return None
    synchronize(device)
    torch.cuda.reset_peak_memory_stats(device)
    step()
    synchronize(device)
    return int(torch.cuda.max_memory_allocated(device))


def time_steps(
    step: Step, device: str | torch.device, steps: int, timing: TimingSettings
) -> dict[str, Any]:
    """Blocks of `steps` steps, each block between two synchronisations; per-step ms per block."""
    per_step_ms: list[float] = []
    total_s, total_steps = 0.0, 0
    while len(per_step_ms) < timing.max_blocks and (
        len(per_step_ms) < timing.min_blocks or total_s < timing.min_seconds
    ):
        synchronize(device)
        t0 = time.perf_counter()
        for _ in range(steps):
            step()
        synchronize(device)
        dt = time.perf_counter() - t0
        per_step_ms.append(dt * 1e3 / steps)
        total_s += dt
        total_steps += steps
    return {
        "step_time_ms": _ms_stats(per_step_ms) | {"mean": total_s * 1e3 / total_steps},
        "timed_steps": total_steps,
        "timed_blocks": len(per_step_ms),
        "timed_seconds": total_s,
    }


def profile_steps(
    step: Step, device: str | torch.device, path: Path, settings: ProfileSettings
) -> int | None:
    """Run the profiled steps and export `path` (.json.gz). Returns max_memory_allocated over them."""
    if is_cuda(device):
        synchronize(device)
        torch.cuda.reset_peak_memory_stats(device)
    path.parent.mkdir(parents=True, exist_ok=True)
    with torch.profiler.profile(
        activities=activities(device),
        schedule=torch.profiler.schedule(
            wait=settings.wait, warmup=settings.warmup, active=settings.active, repeat=1
        ),
        record_shapes=settings.record_shapes,
        profile_memory=settings.profile_memory,
        with_stack=settings.with_stack,
        on_trace_ready=lambda prof: prof.export_chrome_trace(str(path)),
    ) as prof:
        for _ in range(settings.steps):
            step()
            prof.step()
    if not is_cuda(device):
        return None
    synchronize(device)
    return int(torch.cuda.max_memory_allocated(device))


def device_facts(device: str | torch.device) -> dict[str, Any]:
    if not is_cuda(device):
        return {
            "type": "cpu",
            "name": platform.processor() or platform.machine(),
            "cpu_count": os.cpu_count(),
        }
    p = torch.cuda.get_device_properties(device)
    return {
        "type": "cuda",
        "name": p.name,
        "capability": f"{p.major}.{p.minor}",
        "sm_count": p.multi_processor_count,
        "total_memory_bytes": int(p.total_memory),
        "uuid": str(getattr(p, "uuid", "")) or None,
    }


def sidecar_head(demo: str, variant: str, trace_path: Path, device: str | torch.device) -> dict:
    """The sidecar's first keys: what ran, when, the trace file, and the machine."""
    return {
        "schema": SCHEMA,
        "demo": demo,
        "variant": variant,
        "created_utc": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        "trace_file": trace_path.name,
        "trace_bytes": trace_path.stat().st_size,
        "device": device_facts(device),
        "torch_version": torch.__version__,
        "cuda_version": torch.version.cuda,
        "python_version": platform.python_version(),
        "host_cpu_count": os.cpu_count(),
    }


def backend_flags() -> dict[str, Any]:
    return {
        "float32_matmul_precision": torch.get_float32_matmul_precision(),
        "cuda_matmul_allow_tf32": bool(torch.backends.cuda.matmul.allow_tf32),
        "cudnn_allow_tf32": bool(torch.backends.cudnn.allow_tf32),
        "cudnn_benchmark": bool(torch.backends.cudnn.benchmark),
        "num_threads": torch.get_num_threads(),
    }


def capture(
    step: Step,
    *,
    demo: str,
    variant: str,
    device: str | torch.device,
    out_dir: str | Path,
    batch_size: int,
    timed_steps: int,
    flop_step: Step | None = None,
    flops_note: str | None = None,
    timers: Sequence[SpanTimer] = (),
    config: dict[str, Any] | None = None,
    settings: ProfileSettings = ProfileSettings(),
    timing: TimingSettings | None = None,
) -> Path:
    """Warm up, count, time and profile `step`; write trace and sidecar; return the trace path.

    `flop_step` counts FLOPs where `step` hides its ops from the dispatcher (a CUDA graph replay):
    it must run the same model on the same batch eagerly. `timers` add demo metrics (per step).
    """
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    trace_path = out / f"{variant}.json.gz"
    if timing is None:
        timing = TimingSettings(min_seconds=1.0 if is_cuda(device) else 0.0)

    for _ in range(timing.warmup_steps):
        step()
    synchronize(device)

    flops, flops_by_op, not_counted = count_flops(flop_step or step)
    peak_step = measure_peak_memory(step, device)

    sampler = (
        NvmlSampler(
            cuda_index=torch.device(device).index or 0,
            uuid=device_facts(device).get("uuid") if is_cuda(device) else None,
        )
        if is_cuda(device)
        else None
    )
    with _timers_on(timers), sampler or contextlib.nullcontext():
        timed = time_steps(step, device, timed_steps, timing)
        metrics: dict[str, Any] = {}
        for t in timers:
            metrics |= t.summary()
    if sampler is not None:
        nvml = sampler.summary(timed["timed_steps"])
        sampler.close()
    else:
        nvml = {"available": False, "reason": "device is not CUDA"}

    peak_profiled = profile_steps(step, device, trace_path, settings)

    mean_s = timed["step_time_ms"]["mean"] / 1e3
    meta: dict[str, Any] = {
        **sidecar_head(demo, variant, trace_path, device),
        "batch_size": batch_size,
        "steps_profiled": settings.active,
        "profiler": {
            "activities": [a.name for a in activities(device)],
            "schedule": {
                "wait": settings.wait,
                "warmup": settings.warmup,
                "active": settings.active,
            },
            **{k: v for k, v in asdict(settings).items() if k not in ("wait", "warmup", "active")},
            "export": "export_chrome_trace(<variant>.json.gz)",
        },
        "timing": asdict(timing) | {"method": "synchronize; n steps back to back; synchronize"},
        "backend_flags": backend_flags(),
        **timed,
        "steps_per_s": 1.0 / mean_s,
        "samples_per_s": batch_size / mean_s,
        "flops_per_step": flops,
        "flops_by_op": flops_by_op,
        "flops_source": not_counted
        or flops_note
        or "FlopCounterMode around one call of the profiled step function",
        "achieved_tflops": flops / mean_s / 1e12 if flops else None,
        "max_memory_allocated_bytes": peak_step,
        "max_memory_allocated_profiled_bytes": peak_profiled,
        "nvml": nvml,
        "metrics": metrics,
        "config": config or {},
    }
    meta_path = out / f"{variant}.meta.json"
    meta_path.write_text(json.dumps(meta, indent=2, sort_keys=False) + "\n")
    return trace_path
