"""Kernels too small to fill the GPU.

Symptom: most kernel time is in kernels whose grid has fewer blocks than the GPU has SMs, with low
achieved occupancy and short median durations; matrix products have few rows; often the GPU also
idles between kernels because each one finishes before the host can launch the next.
Likely cause: a batch (or micro-batch) too small for the GPU.
Fix: raise the batch size until memory allows, and use gradient accumulation to keep the
effective batch (and learning rate schedule) where you want it. Compare samples/s, not steps/s.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .. import facts
from ..diagnosis import Finding, severity_for_share
from ..trace import TraceFrame
from ._common import cost, gap_evidence

CODE = "small-batch"
KIND = "small_batch"
REQUIRES = {"kernels", "steps"}


@dataclass(frozen=True)
class Config:
    min_share_pct: float = 3.0
    tiny_kernel_us: float = 10.0


def detect(frame: TraceFrame, cfg: Config):
    under = facts.underfilled_share(frame)
    if under is None or under < 0.5:
        return []
    sms = facts.sm_count(frame)
    k = facts.kernels(frame)
    k = k.loc[k["step"] >= 0]
    if not len(k):
        return []
    grid = k["grid"].to_numpy()
    # Idle while launching tiny kernels, plus the SM capacity left unused by under-filled kernels.
    launch_idle = facts.idle_by_cause(frame)["launch_overhead"] if facts.launch_bound_owner(frame) == "small_batch" else 0.0
    unused = np.where(np.isfinite(grid) & (grid < sms), 1.0 - np.nan_to_num(grid) / sms, 0.0)
    underfill_us = float((k["dur"].to_numpy() * unused).sum())
    per_step, share = cost(frame, launch_idle + underfill_us)
    if share < cfg.min_share_pct:
        return []
    occ = k["occupancy_pct"].dropna()
    rows = facts.median_gemm_rows(frame)
    n_steps = max(len(frame.steps), 1)
    evidence = {
        "sm_count": sms,
        "kernel_time_in_underfilled_kernels_pct": round(100 * under, 1),
        "median_grid_blocks": float(np.nanmedian(grid)) if np.isfinite(grid).any() else None,
        "median_achieved_occupancy_pct": round(float(occ.median()), 1) if len(occ) else None,
        "median_kernel_us": round(float(k["dur"].median()), 2),
        "gpu_time_in_kernels_under_10us_pct": round(
            100 * float(k.loc[k["dur"] < cfg.tiny_kernel_us, "dur"].sum() / max(k["dur"].sum(), 1e-9)), 1),
        "median_matmul_rows": rows,
        "kernels_per_step": round(len(k) / n_steps, 1),
        "launch_bound_idle_us_per_step": round(launch_idle / n_steps, 1),
        "unused_sm_time_us_per_step": round(underfill_us / n_steps, 1),
        "largest_gaps": gap_evidence(frame, "launch_overhead"),
    }
    title = (f"Kernels too small to fill the GPU: {100 * under:.0f}% of kernel time under {sms} "
             f"blocks, ~{share:.0f}% of the step lost")
    fix = ("Raise the batch size (as far as memory allows) so each kernel has enough work for all "
           f"{sms} SMs; keep the effective batch with gradient accumulation if you need it. "
           "Judge by samples/s, not steps/s.")
    return [Finding(CODE, KIND, severity_for_share(share), title, per_step, share, evidence, fix)]
