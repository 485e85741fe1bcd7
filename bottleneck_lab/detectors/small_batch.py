"""Kernels too small to fill the GPU.

Symptom: most of the step's math (FLOP-weighted) is in matrix products, convolutions (as implicit
GEMMs: batch x output positions rows) and attention with fewer 128x128 output tiles than the GPU
has SMs, so part of the GPU has nothing to do, or in calls of one sample (one image, one
sequence), whose per-step costs all fall on it however well its products fill the GPU; often the
GPU also idles between kernels because each one finishes before the host can launch the next. A
classifier head or other small layer does not make a batch small: the judgement weighs every
product by its FLOPs, and where the products whose tiles the shapes tell carry under half of them
(a cuDNN recurrent layer's, run inside one op, are not told), by the grids of the GEMM kernels no
shape describes.
Likely cause: a batch (or micro-batch) too small for the GPU.
Fix: raise the batch size until memory allows, and use gradient accumulation to keep the
effective batch (and learning rate schedule) where you want it. Compare samples/s, not steps/s.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from .. import facts
from ..diagnosis import Finding, severity_for_share
from ..efficiency import device_peak, kernel_flops
from ..op_flops import median_fill, one_sample_share, told_fill_share, work_fill
from ..trace import TraceFrame
from ..trace.synth import TraceBuilder
from ._common import cost, gap_evidence
from ._examples import (
    BF16,
    BF16_GEMM,
    SMALL_GRID,
    TINY_KERNELS,
    TINY_PERIOD_US,
    launch,
    mm_args,
    steps,
    tiny_kernels,
)

CODE = "small-batch"
KIND = "small_batch"
REQUIRES = {"kernels", "steps"}


# The share of the dense datasheet peak that large matrix products reach: `bottleneck-lab peak`
# on the H100 measured 52.0 of 66.9 (FP32), 415.9 of 494.7 (TF32) and 801.6 of 989.5 (BF16)
# TFLOP/s (traces/h100/peaks.json): 0.78 to 0.84.
LARGE_GEMM_SHARE_OF_PEAK = 0.8


@dataclass(frozen=True)
class Config:
    min_share_pct: float = 3.0
    tiny_kernel_us: float = 10.0


def _optimizer_kernel_us(frame: TraceFrame) -> float:
    """GPU time of the kernels Optimizer.step launched: work sized by the parameters, not the
    batch, so a bigger batch spreads all of it over more samples."""
    g = facts.kernels(frame, facts.main_device(frame))
    g = g.loc[g["step"] >= 0]
    return float(g.loc[facts.launched_in_optimizer(frame, g), "dur"].sum())


# Idle between kernels that were already queued, up to this long, is the GPU's own per-kernel
# latency (p50 1.4 µs on a healthy ViT-B/16 step, 4.3 µs between a cuDNN LSTM's per-timestep
# kernels): a bigger batch gives each kernel more work for the same latency. Longer idle with
# work queued waits on something else (another stream, an event).
QUEUED_GAP_US = 10.0


def _underfill_us(frame: TraceFrame, sms: int) -> float:
    """Kernel time a bigger batch would fill with more work for free: each matrix kernel's time
    x (1 - tiles / SMs) from recorded shapes, each other kernel's x (1 - grid / SMs) where its
    grid is under the SM count (a tiny tensor), and at least the time any kernel takes on this
    GPU however little it does (the shortest kernel in the steps). The optimizer's kernels are
    counted whole apart (_optimizer_kernel_us)."""
    g = facts.kernels(frame, facts.main_device(frame))
    g = g.loc[g["step"] >= 0]
    g = g.loc[~facts.launched_in_optimizer(frame, g)]
    if not len(g):
        return 0.0
    grid = g["grid"].to_numpy()
    dur = g["dur"].to_numpy()
    unused = np.where(
        np.isfinite(grid) & (grid < sms), 1.0 - np.nan_to_num(grid) / max(sms, 1), 0.0
    )
    floor = float(dur[dur > 0].min()) if (dur > 0).any() else 0.0
    unused = np.maximum(unused, np.minimum(floor / np.where(dur > 0, dur, np.inf), 1.0))
    wf = work_fill(frame)
    k = kernel_flops(frame)
    if len(wf) and "owner" in k:
        fill = pd.Series(wf["fill"].to_numpy(), index=wf["row"].to_numpy())
        f = fill.reindex(k.loc[g.index, "owner"].to_numpy()).to_numpy()
        unused = np.where(np.isfinite(f), 1.0 - np.minimum(np.nan_to_num(f), 1.0), unused)
        # A matrix kernel with few rows can also be bound by reading its weights, a cost per
        # step the rows share: at a batch that fills the GPU its FLOPs run at the rate large
        # products reach, so the time above that is what a bigger batch spreads too.
        peak = device_peak(frame)
        if peak is not None:
            kk = k.loc[g.index]
            rate = np.array([peak.peak_for(d) or np.nan for d in kk["dtype"].to_numpy()])
            at_scale = kk["flops"].to_numpy() / (LARGE_GEMM_SHARE_OF_PEAK * rate * 1e6)
            weight_bound = np.where(
                np.isfinite(f) & (dur > 0) & np.isfinite(at_scale),
                1.0 - np.minimum(at_scale / np.where(dur > 0, dur, 1.0), 1.0),
                0.0,
            )
            unused = np.maximum(unused, weight_bound)
    return float((g["dur"].to_numpy() * unused).sum())


def detect(frame: TraceFrame, cfg: Config):
    if not facts.batch_is_small(frame):
        return []
    sms = facts.sm_count(frame) or 0
    k = facts.kernels(frame, facts.main_device(frame))  # measured against that device's SMs
    k = k.loc[k["step"] >= 0]
    if not len(k):
        return []
    grid = k["grid"].to_numpy()
    # What a batch big enough to fill the GPU saves per sample: the per-step costs that do not
    # grow with the batch. That is the host idle it owns (short host-bound gaps outside the
    # optimizer), the launch-bound idle outside the optimizer (which launch-overhead reports too:
    # a bigger batch and CUDA graphs are two fixes for it), and the SM capacity kernels leave
    # unused. Idle with its own fix (data loading, syncs, copies, compilation) is not in it.
    owned_idle = facts.idle_by_owner(frame)["small_batch"]
    launch_idle = facts.idle_outside_optimizer(frame, "launch_overhead")
    queued_idle = facts.idle_outside_optimizer(frame, "gpu_idle", QUEUED_GAP_US)
    underfill_us = _underfill_us(frame, sms)
    optimizer_us = _optimizer_kernel_us(frame)
    # The step keeps the work each sample needs: the GPU time left once the unused SM capacity
    # and the optimizer are spread (per step, as the idle and the step itself are medians and
    # means of few steps, their sum can pass it: BERT-base at batch 2 summed to 119% of its step).
    n_steps = max(len(frame.steps), 1)
    kept = max(facts.gpu_time_us(frame) - (underfill_us + optimizer_us) / n_steps, 0.0)
    ceiling = max(facts.step_time_without_profiler_us(frame) - kept, 0.0) * n_steps
    total = min(owned_idle + launch_idle + queued_idle + underfill_us + optimizer_us, ceiling)
    per_step, share = cost(frame, total)
    if share < cfg.min_share_pct:
        return []
    occ = k["occupancy_pct"].dropna()
    rows = facts.median_gemm_rows(frame)
    fill = median_fill(frame) if sms else None
    # the share of matrix FLOPs whose fill the shapes tell (a cuDNN recurrent layer's do not: its
    # one op runs products over all tokens and per-time-step ones, told apart by their grids)
    told_share = told_fill_share(frame)
    one = one_sample_share(frame)
    under = facts.underfilled_share(frame)
    unshaped = facts.unshaped_gemm_underfilled_share(frame)
    evidence = {
        "flop_weighted_median_tiles_per_sm": None if fill is None else round(fill, 3),
        "matrix_flops_with_known_fill_pct": None
        if told_share is None
        else round(100 * told_share, 1),
        "median_matmul_rows": rows,
        # of the matrix FLOPs whose calls tell their batch (the forward's), those of batch 1
        "matrix_flops_in_one_sample_calls_pct": None
        if not one or not one[0]
        else round(100 * one[1], 1),
        "sm_count": sms or None,
        "kernel_time_in_grids_under_sm_count_pct": None if under is None else round(100 * under, 1),
        "unshaped_gemm_time_in_grids_under_sm_count_pct": None
        if unshaped is None
        else round(100 * unshaped, 1),
        "median_grid_blocks": float(np.nanmedian(grid)) if np.isfinite(grid).any() else None,
        "median_achieved_occupancy_pct": round(float(occ.median()), 1) if len(occ) else None,
        "median_kernel_us": round(float(k["dur"].median()), 2),
        "gpu_time_in_kernels_under_10us_pct": round(
            100
            * float(k.loc[k["dur"] < cfg.tiny_kernel_us, "dur"].sum() / max(k["dur"].sum(), 1e-9)),
            1,
        ),
        "kernels_per_step": round(len(k) / n_steps, 1),
        "gpu_busy_pct": round(facts.busy_pct(frame, facts.main_device(frame)) or 0.0, 1),
        "host_idle_us_per_step": round(owned_idle / n_steps, 1),
        "launch_bound_idle_us_per_step_also_in_launch_overhead": round(launch_idle / n_steps, 1),
        "queued_kernel_gap_us_per_step": round(queued_idle / n_steps, 1),
        "unused_sm_time_us_per_step": round(underfill_us / n_steps, 1),
        "optimizer_kernel_us_per_step": round(optimizer_us / n_steps, 1),
        "largest_gaps": gap_evidence(frame, "small_batch")
        or gap_evidence(frame, "launch_overhead"),
    }
    severity = severity_for_share(share)
    capped = fill is None and severity in ("medium", "high")
    if capped:
        severity = "low"  # without shapes, small grids may be narrow layers rather than the batch
    judged = facts.judging_fill(frame)
    one_sample_only = False  # the products fill the GPU; one sample a call makes the batch small
    if judged is not None and judged < 1.0 - facts.SMALL_BATCH_IDLE_SMS:
        what = f"most matrix work fills {judged:.0%} of the {sms} SMs"
    elif facts.runs_one_sample_a_call(frame):
        what = "most matrix work runs one sample a call, so every per-step cost falls on it"
        one_sample_only = True
    elif unshaped is not None:  # judged from GEMM kernels no recorded shape describes
        what = (
            f"{unshaped:.0%} of the time of GEMM kernels no recorded shape describes is in grids "
            f"under the {sms} SMs"
        )
    else:
        what = "kernels under the SM count"
    title = (
        f"Batch too small for the GPU: {what}; a batch that fills it would cut time per sample "
        f"by ~{share:.0f}%"
    )
    if capped:
        title += (
            " (low: the trace records no input shapes, so the small grids may be narrow layers "
            "rather than a small batch; record_shapes=True tells them apart)"
        )
    fills = (
        "" if one_sample_only else f"each kernel has enough work for all {sms or 'the'} SMs and "
    )
    fix = (
        f"Raise the batch size (as far as memory allows) so {fills}per-step host costs "
        "(launches, Python between ops, the optimizer) are spread over more samples; keep the "
        "effective batch with gradient accumulation if you need it. Judge by samples/s, not steps/s."
    )
    return [Finding(CODE, KIND, severity, title, per_step, share, evidence, fix)]


# --- example: positive (bad=True) and negative trace; `bottleneck-lab explain` shows it -------
# tiny matmuls whose kernels use 8 of 108 SMs, launched back to back


def example(bad: bool) -> TraceBuilder:
    """Bad: 16-row BF16 matmuls (aten::mm [[16, 1024], [1024, 1024]]) whose kernels use 8 of 108
    SMs, launched back to back as in launch_overhead. Good: 4096-row matmuls with full grids,
    queued back to back."""
    b = TraceBuilder()
    for t0 in steps(b, cpu_us=TINY_KERNELS * TINY_PERIOD_US if bad else 100):
        if bad:
            tiny_kernels(b, t0, SMALL_GRID, op_args=mm_args(16, BF16), name="aten::mm")
        else:
            for i in range(8):
                launch(
                    b,
                    t0 + i * 10,
                    t0 + 10 + i * 100,
                    100,
                    name="aten::mm",
                    kernel=BF16_GEMM,
                    op_args=mm_args(4096, BF16),
                )
    return b
