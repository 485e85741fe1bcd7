"""GPU idle the analyzer cannot pin on a host cause.

Symptom: the GPU sits idle inside the steps although the next kernel had already been launched,
or the idle cannot be linked to a launch at all.
Likely cause: cross-stream waits (cudaStreamWaitEvent), work on another device or process,
kernels launched from threads the profiler did not record, or CPU-GPU clock skew.
Fix: open the largest gaps listed in the evidence in Perfetto and look at what the other streams
and threads were doing; overlapping independent work on separate streams can fill them.
Gaps of at most KERNEL_SWITCH_US before a kernel already queued are the GPU's own latency from
one kernel to the next, not a wait: they are counted in the evidence, not promised as a saving.
The evidence also lists idle time per attributed cause (data loading, sync, launch, host), each of
which its own detector reports, so this total never double counts.
"""

from __future__ import annotations

from dataclasses import dataclass

from .. import facts
from ..trace import TraceFrame
from ..trace.synth import TraceBuilder
from ._common import idle_finding
from ._examples import launch, steps

CODE = "gpu-idle"
KIND = "gpu_idle"
REQUIRES = {"kernels", "steps"}


@dataclass(frozen=True)
class Config:
    min_share_pct: float = 3.0


# A gap this short before a kernel that was already queued is the GPU's own latency from one
# kernel to the next, not a wait on a stream or event: across the 70 shipped H100 traces such
# gaps have a median of 1.1-6.5 µs and make up nearly all of this cause's idle. It grows with
# the number of kernels (a cuDNN LSTM at batch 32: 1,500 per step, 15% of the step), so fewer,
# larger kernels shrink it; no stream to look at would.
KERNEL_SWITCH_US = 10.0


def detect(frame: TraceFrame, cfg: Config):
    by_cause = {k: round(v, 1) for k, v in facts.idle_by_cause(frame).items()}
    gaps = facts.idle_gaps(frame)
    exposed = gaps["exposed_us"].to_numpy(dtype=float)
    mine = facts.gap_owners(frame) == "gpu_idle"
    switch = mine & (gaps["dur"].to_numpy(dtype=float) <= KERNEL_SWITCH_US)
    n = max(len(frame.steps), 1)
    return idle_finding(
        frame,
        CODE,
        KIND,
        "gpu_idle",
        "GPU idle {share:.1f}% of the step with no host cause to blame ({per_step:.0f} µs per step): "
        "the next op was already queued or has no launch link",
        "Look at the listed gaps in Perfetto: find the stream or event the next kernel waited on, "
        "and overlap independent work on separate streams.",
        cfg.min_share_pct,
        extra={
            "idle_us_by_cause": by_cause,
            "kernel_switch_gaps_per_step": round(int(switch.sum()) / n, 1),
            "kernel_switch_us_per_step": round(float(exposed[switch].sum()) / n, 1),
        },
        total_us=float(exposed[mine & ~switch].sum()),
    )


# --- example: positive (bad=True) and negative trace; `bottleneck-lab explain` shows it -------
# the next kernel was queued long before, yet started late


def example(bad: bool, **builder_kw) -> TraceBuilder:
    """k1 runs 10-300; k2 is launched at ~12 (queued behind k1) but starts at 600 when bad
    (a 300 µs gap with the queue full), at 300 when good."""
    b = TraceBuilder(**builder_kw)
    for t0 in steps(b, cpu_us=30):
        launch(b, t0, t0 + 10, 290, kernel="gemm_a")
        launch(b, t0 + 10, t0 + (600 if bad else 300), 300, kernel="gemm_b")
    return b
