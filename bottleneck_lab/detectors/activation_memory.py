"""Activations dominate peak memory.

Symptom: the memory curve climbs through the forward pass and falls through the backward pass;
what forward leaves allocated for backward (saved activations) is a large share of the peak,
which sits near the end of forward or early in backward.
Likely cause: every layer keeps its intermediate tensors until its backward runs, so activation
memory grows with depth x batch x sequence length, while parameters, gradients and optimizer
state (the baseline) stay fixed.
Fix: only needed when memory is short (a batch that does not fit, OOM, a larger batch wanted):
activation checkpointing (`torch.utils.checkpoint.checkpoint(block, x, use_reentrant=False)`
around each block) keeps only block inputs and re-runs the forward of a block during backward,
costing about one extra forward pass; mixed precision (bf16 autocast) halves activation bytes.
With memory to spare, leave it: checkpointing only adds time.

A forward with no backward in any step (evaluation or inference with autograd left on: its ops
carry autograd sequence numbers, so autograd recorded them) keeps its activations for a backward
that never runs. There the fix is torch.inference_mode() or torch.no_grad(), which frees them at
no cost, never checkpointing.

The saving is estimated the way sqrt(n) checkpointing (Chen et al. 2016, "Training Deep Nets with
Sublinear Memory Cost") works: of the n activation tensors alive at the end of forward, about
2*sqrt(n) stay (segment boundaries plus one segment being recomputed), at the cost of one extra
forward pass, taken as the forward's GPU time (host time in a CPU-only trace).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from .. import memory
from ..diagnosis import Finding
from ..trace import TraceFrame
from ..trace.synth import TraceBuilder
from ..trace.synth_memory import MemTrace
from ._common import cost
from ._memory import capacity_pct, gib, human, peak_evidence

CODE = "activation-memory"
KIND = "activation_memory"
REQUIRES = {"memory_events", "cpu_ops"}


@dataclass(frozen=True)
class Config:
    min_activation_share_pct: float = 25.0  # activations' share of the peak worth mentioning
    near_capacity_pct: float = 90.0  # peak / device memory at which this matters
    min_activation_tensors: int = 4  # fewer tensors: nothing for checkpointing to drop


def checkpoint_estimate(activation_bytes: int, tensors: int) -> int:
    """Bytes sqrt(n) checkpointing would free from `tensors` activations of `activation_bytes`."""
    if tensors < 4 or activation_bytes <= 0:
        return 0
    return int(activation_bytes * max(0.0, 1.0 - 2.0 / math.sqrt(tensors)))


def detect(frame: TraceFrame, cfg: Config):
    report = memory.analyze(frame)
    s = report.peak_step if report is not None else None
    if s is None or s.forward_growth_bytes is None or s.peak_bytes <= 0:
        return []
    activations = max(s.forward_growth_bytes, 0)
    share = round(100.0 * activations / s.peak_bytes, 2)
    if share < cfg.min_activation_share_pct:
        return []
    checkpointed = memory.recompute(frame).present
    # autograd recorded the forward (its phase is grad-enabled ops) yet no step runs backward
    no_backward = all(x.phase("backward") is None for x in report.steps)
    tensors = s.activation_tensors or 0
    saved = (
        0
        if checkpointed or no_backward or tensors < cfg.min_activation_tensors
        else checkpoint_estimate(activations, tensors)
    )
    forward_us = sum(
        (x.forward_gpu_us if x.forward_gpu_us is not None else x.forward_us) or 0.0
        for x in report.steps
    )
    recompute_per_step, recompute_share = cost(frame, forward_us)
    peak_pct = capacity_pct(report, report.peak_bytes)
    near = peak_pct is not None and peak_pct >= cfg.near_capacity_pct
    evidence = {
        **peak_evidence(frame, report),
        "activation_bytes": activations,
        "activation_gib": gib(activations),
        "activation_share_of_peak_pct": share,
        "activation_tensors": tensors,
        "forward_peak_bytes": s.forward_peak_bytes,
        "backward_release_bytes": s.backward_release_bytes,
        "checkpointing_present": checkpointed,
        "backward_present": not no_backward,
        "checkpointing_estimate": None
        if checkpointed or no_backward
        else {
            "saved_bytes": saved,
            "saved_gib": gib(saved),
            "peak_after_bytes": s.peak_bytes - saved,
            "peak_after_pct_of_capacity": capacity_pct(report, s.peak_bytes - saved),
            "recompute_us_per_step": recompute_per_step,
            "recompute_share_pct": recompute_share,
            "method": "sqrt(n) segments: 2*sqrt(n) of n activation tensors kept, one extra forward",
        },
        "per_step": [
            {
                "step": x.step,
                "baseline_bytes": x.baseline_bytes,
                "peak_bytes": x.peak_bytes,
                "forward_growth_bytes": x.forward_growth_bytes,
                "backward_release_bytes": x.backward_release_bytes,
            }
            for x in report.steps[:8]
        ],
    }
    where = f" ({peak_pct:.0f}% of device memory)" if peak_pct is not None else ""
    title = f"Activations are {share:.0f}% of peak memory: {human(activations)} of {human(s.peak_bytes)}{where}"
    if no_backward:
        title = (
            f"Autograd is on but no step runs backward: the forward keeps {human(activations)} of "
            f"activations for nothing, {share:.0f}% of the {human(s.peak_bytes)} peak{where}"
        )
        fix = (
            f"Run the forward under torch.inference_mode() (or torch.no_grad()): autograd then "
            f"keeps nothing for backward and frees each activation once the next layer has used it: "
            f"most of the {human(activations)} comes off the peak at no cost, room for a larger "
            f"batch. Little time comes back on a GPU-bound step (autograd's bookkeeping is host "
            f"work)."
        )
    elif checkpointed:
        fix = (
            "Activation checkpointing is already on; what remains is saved by checkpointing more "
            "blocks, bf16 autocast, or a smaller micro-batch with gradient accumulation."
        )
    elif near:
        fix = (
            f"Checkpoint the repeated blocks (torch.utils.checkpoint.checkpoint(block, x, "
            f"use_reentrant=False)): about {human(saved)} less at the peak for about "
            f"{recompute_per_step / 1000:.2f} ms more per step ({recompute_share:.0f}% of the step)."
        )
    else:
        fix = (
            f"Nothing to do while memory suffices. To fit a larger batch, checkpointing the repeated "
            f"blocks would free about {human(saved)} at the peak for about "
            f"{recompute_per_step / 1000:.2f} ms more per step ({recompute_share:.0f}% of the step)."
        )
    severity = "medium" if near and not checkpointed else "info"
    return [Finding(CODE, KIND, severity, title, None, None, evidence, fix)]


# --- example: positive (bad=True) and negative trace; `bottleneck-lab explain` shows it -------
# 16 layers keep 100 MiB of activations each for the backward pass


def example(bad: bool) -> TraceBuilder:
    """A training loop with [memory] events (trace/synth_memory.py). Bad: 16 layers each keep a
    100 MiB activation for backward over 200 MiB of parameters and optimizer state, so
    activations are most of the peak. Good: 4 layers of 10 MiB over 2 GiB of state."""
    if bad:
        return MemTrace(layers=16, act_bytes=100 << 20, baseline_bytes=200 << 20).b
    return MemTrace(layers=4, act_bytes=10 << 20, baseline_bytes=2 << 30).b
