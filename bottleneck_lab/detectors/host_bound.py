"""The GPU waits on CPU work in the training loop that is not data loading or launching.

Symptom: idle gaps on the GPU while the launching thread is busy in CPU ops or in Python that the
profiler did not record as ops, and the next kernel is launched only after the gap began.
Likely cause: Python-side work in the step: metrics, logging, numpy, tokenisation, building
tensors on the host, per-step object creation.
Fix: move the work out of the step (do it every N steps, or asynchronously), keep tensors on the
GPU, or overlap it with GPU work by launching the next step's kernels first.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..trace import TraceFrame
from ._common import idle_finding

CODE = "host-bound"
KIND = "host_bound"
REQUIRES = {"kernels", "steps", "runtime"}


@dataclass(frozen=True)
class Config:
    min_share_pct: float = 3.0


def detect(frame: TraceFrame, cfg: Config):
    return idle_finding(
        frame,
        CODE,
        KIND,
        "host_bound",
        "GPU waits on other CPU work {share:.1f}% of the step ({per_step:.0f} µs per step)",
        "Find the host ops listed under each gap (or the unrecorded Python between ops) and move "
        "that work out of the step, run it every N steps, or keep the data on the GPU.",
        cfg.min_share_pct,
    )
