"""The GPU waits on CPU work in the training loop that is not data loading or launching.

Symptom: idle gaps on the GPU while the launching thread is busy in CPU ops or in Python that the
profiler did not record as ops, and the next kernel is launched only after the gap began.
Likely cause: Python-side work in the step: metrics, logging, numpy, tokenisation, building
tensors on the host, per-step object creation.
Fix: move the work out of the step (do it every N steps, or asynchronously), keep tensors on the
GPU, or overlap it with GPU work by launching the next step's kernels first.
Where autograd's anomaly detection is on (facts.anomaly_checks_per_step), the fix names it: it
records a stack trace inside every forward op.
Estimate: the idle left once the profiler's own host cost is taken out at the highest share of
host time measured for it (facts.PROFILER_SHARE_OF_HOST_OP_HIGH), since the profiler slows the
very host work these gaps wait on.
"""

from __future__ import annotations

from dataclasses import dataclass

from .. import facts
from ..trace import TraceFrame
from ..trace.synth import TraceBuilder
from ._common import idle_finding
from ._examples import launch, steps

CODE = "host-bound"
KIND = "host_bound"
REQUIRES = {"kernels", "steps", "runtime"}


@dataclass(frozen=True)
class Config:
    min_share_pct: float = 3.0


def detect(frame: TraceFrame, cfg: Config):
    # The profiler slows exactly the host work these gaps wait on, by a share that varies from
    # run to run: promise only the idle left at the highest share measured.
    median = facts.idle_by_owner(frame)["host_bound"]
    fix = (
        "Find the host ops listed under each gap (or the unrecorded Python between ops) and move "
        "that work out of the step, run it every N steps, or keep the data on the GPU."
    )
    if facts.anomaly_checks_per_step(frame) >= 1:
        # anomaly mode records a stack trace inside every forward op: host work these gaps wait on
        fix = (
            "Autograd's anomaly detection is on (torch.autograd.set_detect_anomaly(True) or a "
            "detect_anomaly() block; sync_stall counts its NaN reads): it records a stack trace "
            "inside every forward op, host work these gaps wait on. Turn it off outside a "
            "debugging run. " + fix
        )
    return idle_finding(
        frame,
        CODE,
        KIND,
        "host_bound",
        "GPU waits on other CPU work {share:.1f}% of the step ({per_step:.0f} µs per step)",
        fix,
        cfg.min_share_pct,
        extra={
            "idle_us_total_at_median_profiler_share": round(median, 1),
            "profiler_share_assumed": facts.PROFILER_SHARE_OF_HOST_OP_HIGH,
        },
        total_us=facts.host_idle_at_high_profiler_share(frame, "host_bound"),
    )


# --- example: positive (bad=True) and negative trace; `bottleneck-lab explain` shows it -------
# the GPU waits while the host runs a long non-launching op (or Python)


def example(bad: bool, python: bool = False) -> TraceBuilder:
    """k1 runs 10-200. When bad, the host then spends 500 µs in a CPU `aten::copy_` (or, with
    python=True, in unrecorded Python: no op at all) and only then launches k2 (~570): the GPU is
    idle 200-570 with nothing queued. When good, k2 is launched at ~22, queued behind k1."""
    b = TraceBuilder()
    for t0 in steps(b, cpu_us=600 if bad else 30):
        launch(b, t0, t0 + 10, 190, kernel="gemm_a")
        if bad:
            if not python:
                b.cpu_op("aten::copy_", t0 + 60, 500)
            launch(b, t0 + 560, t0 + 570, 330, kernel="gemm_b")
        else:
            launch(b, t0 + 20, t0 + 200, 330, kernel="gemm_b")
    return b
