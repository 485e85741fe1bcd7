"""Two traces of one model, with and without activation checkpointing: the memory it saved and
the time it cost."""

from __future__ import annotations

from dataclasses import dataclass

from .. import facts
from ..trace import TraceFrame
from .allocations import CPU, curve
from .checkpointing import recompute


@dataclass(frozen=True)
class CheckpointComparison:
    checkpointed_peak_bytes: int
    baseline_peak_bytes: int
    saved_bytes: int
    saved_pct: float
    recompute_us_per_step: float | None  # GPU time where the trace has it, else host time
    step_time_delta_us: float | None  # median step time, checkpointed - baseline


def _comparable_peak(frame: TraceFrame) -> int | None:
    """The peak, as bytes above the first level for host memory: the CPU allocator's totals only
    count blocks allocated while a profiler recorded, and keep blocks freed after it stopped, so
    their origin drifts from one profiling session to the next. GPU totals are absolute."""
    cv = curve(frame)
    if cv is None or not len(cv):
        return None
    return int(cv.allocated.max() - (cv.initial if cv.device_type == CPU else 0.0))


def compare_checkpointing(
    checkpointed: TraceFrame, baseline: TraceFrame
) -> CheckpointComparison | None:
    """The memory activation checkpointing saved and the time it cost, from a checkpointed and a
    non-checkpointed trace of the same model (None when either lacks [memory] events)."""
    a, b = _comparable_peak(checkpointed), _comparable_peak(baseline)
    if a is None or b is None:
        return None
    rc = recompute(checkpointed)
    cost = rc.per_step("gpu_us")
    if cost is None:
        cost = rc.per_step("host_us")
    sa, sb = facts.step_stats(checkpointed), facts.step_stats(baseline)
    delta = sa.median_us - sb.median_us if sa and sb else None
    return CheckpointComparison(
        a,
        b,
        b - a,
        round(100.0 * (b - a) / b, 2) if b else 0.0,
        None if cost is None else round(cost, 1),
        None if delta is None else round(delta, 1),
    )
