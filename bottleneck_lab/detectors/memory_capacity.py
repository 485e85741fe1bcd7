"""Device memory near capacity, a cache far above what is allocated, or allocator churn.

Symptom: the peak of Total Allocated is within 10% of the device's memory; or Total Reserved
(what the caching allocator holds) is far above the allocated peak; or cudaMalloc / cudaFree
(hipMalloc / hipFree, cuMem* with expandable segments) run in steady-state steps, where a warm
caching allocator should serve every request from its cache.
Likely cause: near capacity, the allocator frees its cache and retries on misses (cudaFree
synchronises the device) and the next larger batch will not fit. A large reserved excess is
fragmentation: blocks split for tensors of changing sizes that cannot be reused for others.
Steady-state cudaMalloc/cudaFree means shapes change from step to step (variable sequence
lengths, a last short batch), `torch.cuda.empty_cache()` is called in the loop, or the cache is
being flushed because memory is full.
Fix: cut the peak (activation checkpointing, bf16 autocast, a smaller micro-batch with gradient
accumulation, `optimizer.zero_grad(set_to_none=True)`); set
`PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True` against fragmentation; pad or bucket inputs
to a few fixed shapes, use `drop_last=True`, and remove `empty_cache()` calls from the loop.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .. import memory
from ..diagnosis import SEVERITIES, Finding, severity_for_share
from ..trace import TraceFrame
from ..trace.synth import TraceBuilder
from ..trace.synth_memory import MemTrace
from ._common import when
from ._memory import capacity_pct, human, peak_evidence

CODE = "memory-capacity"
KIND = "memory_capacity"
REQUIRES = {"runtime"}

ALLOCATOR_CALLS = re.compile(
    r"^(cuda|hip)(Malloc|Free)(Async)?$|^cuMem(Alloc|Free)(Async)?(_v2)?$"
    r"|^cuMem(Create|Map|Unmap|Release|AddressReserve|AddressFree)$"
)


@dataclass(frozen=True)
class Config:
    near_capacity_pct: float = 90.0  # peak allocated / device memory
    reserved_over_allocated_ratio: float = 1.5  # peak reserved / peak allocated
    min_reserved_excess_bytes: int = 1 << 30  # and at least this much held but unused
    min_allocator_calls_per_step: float = 1.0  # steady-state cudaMalloc/cudaFree per step


def _allocator_calls(frame: TraceFrame):
    rt = frame.runtime
    names = [n for n in rt["name"].cat.categories if ALLOCATOR_CALLS.match(n)]
    return rt.loc[rt["name"].isin(names)] if names else rt.iloc[:0]


def detect(frame: TraceFrame, cfg: Config):
    report = memory.analyze(frame, memory.CUDA) if len(frame.memory) else None
    parts: list[tuple[str, str]] = []  # (severity, title part)
    evidence: dict = (
        peak_evidence(frame, report)
        if report is not None
        else {
            "peak_allocated_bytes": None,
            "note": "no [memory] events (profile_memory=True): capacity not checked",
        }
    )
    fixes: list[str] = []

    if report is not None:
        peak_pct = capacity_pct(report, report.peak_bytes)
        reserved_pct = capacity_pct(report, report.reserved_peak_bytes)
        if peak_pct is not None and peak_pct >= cfg.near_capacity_pct:
            parts.append(
                (
                    "medium",
                    f"peak memory is {peak_pct:.0f}% of the device's "
                    f"{human(report.capacity_bytes)}",
                )
            )
            fixes.append(
                "Cut the peak: activation checkpointing, bf16 autocast, or a smaller micro-batch "
                "with gradient accumulation."
            )
        excess = report.reserved_peak_bytes - report.peak_bytes
        ratio = report.reserved_peak_bytes / report.peak_bytes if report.peak_bytes > 0 else 0.0
        evidence["reserved_excess_bytes"] = int(excess)
        evidence["reserved_over_allocated_ratio"] = round(ratio, 2)
        evidence["peak_reserved_pct_of_capacity"] = reserved_pct
        if ratio >= cfg.reserved_over_allocated_ratio and excess >= cfg.min_reserved_excess_bytes:
            tight = reserved_pct is not None and reserved_pct >= cfg.near_capacity_pct
            parts.append(
                (
                    "low" if tight else "info",
                    f"the allocator reserves {human(report.reserved_peak_bytes)} for a "
                    f"{human(report.peak_bytes)} peak ({ratio:.1f}x)",
                )
            )
            fixes.append(
                "Reduce fragmentation with PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True and "
                "fixed input shapes; no empty_cache() calls in the loop."
            )

    calls = _allocator_calls(frame)
    steady = calls.loc[calls["step"] >= 1] if len(frame.steps) > 1 else calls.iloc[:0]
    n_steady = max(len(frame.steps) - 1, 1)
    per_step_calls = len(steady) / n_steady
    lost = round(float(steady["dur"].sum()) / n_steady, 1)  # over the steady steps only
    steady_us = float(frame.steps["dur"].iloc[1:].sum()) if len(frame.steps) > 1 else 0.0
    share = round(100.0 * float(steady["dur"].sum()) / steady_us, 2) if steady_us > 0 else 0.0
    evidence["allocator_calls_first_step"] = int((calls["step"] == 0).sum())
    evidence["allocator_calls_per_steady_step"] = round(per_step_calls, 1)
    evidence["allocator_us_per_steady_step"] = lost
    if len(steady):
        by_name = steady.groupby(steady["name"].astype(object))["dur"].agg(["size", "sum"])
        evidence["allocator_calls_by_name"] = {
            str(k): {"calls": int(v["size"]), "us": round(float(v["sum"]), 1)}
            for k, v in by_name.iterrows()
        }
        evidence["largest_allocator_calls"] = [
            {
                **when(frame, c.ts),
                "name": str(c.name),
                "us": round(c.dur, 1),
                "step": int(frame.steps["step"].iat[c.step]),
            }
            for c in steady.nlargest(5, "dur").itertuples()
        ]
    churn = bool(len(steady)) and per_step_calls >= cfg.min_allocator_calls_per_step
    if churn:
        parts.append(
            (
                max(severity_for_share(share), "low", key=SEVERITIES.index),
                f"{per_step_calls:.0f} cudaMalloc/cudaFree calls per steady-state step "
                f"({lost / 1000:.2f} ms)",
            )
        )
        fixes.append(
            "Keep the caching allocator warm: fixed or bucketed input shapes, drop_last=True, "
            "no torch.cuda.empty_cache() in the loop, and more headroom below capacity."
        )

    if not parts:
        return []
    severity = max((p[0] for p in parts), key=SEVERITIES.index)
    title = "Device memory: " + "; ".join(p[1] for p in parts)
    return [
        Finding(
            CODE,
            KIND,
            severity,
            title,
            lost if churn else None,
            share if churn else None,
            evidence,
            " ".join(fixes),
        )
    ]


# --- example: positive (bad=True) and negative trace; `bottleneck-lab explain` shows it -------
# the peak is within 5% of the device's memory


def example(bad: bool) -> TraceBuilder:
    """A training loop with [memory] events (trace/synth_memory.py): 6 layers of 100 MiB
    activations over 200 MiB of state peak at 810 MiB. Bad: on a device with 850 MiB (95% used,
    820 MiB reserved). Good: on the default 80 GB device, 1 GiB reserved."""
    if bad:
        return MemTrace(
            layers=6,
            act_bytes=100 << 20,
            baseline_bytes=200 << 20,
            capacity_bytes=850 << 20,
            reserved_bytes=820 << 20,
        ).b
    return MemTrace(reserved_bytes=1 << 30).b
