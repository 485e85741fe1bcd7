"""Activation checkpointing re-runs forward work during the backward pass.

Symptom: forward ops (aten::linear, aten::gelu, attention ...) recorded with a Sequence number
run inside `autograd::engine::evaluate_function` spans of the backward pass (under
CheckpointFunctionBackward with reentrant checkpointing, under the first node that needs a
saved tensor without it); the step takes longer by about one forward of the checkpointed part.
Likely cause: `torch.utils.checkpoint` (or FSDP / a framework's activation checkpointing) around
model blocks: it trades this recompute for activation memory.
Fix: the trade is worth it only while memory is short. If the peak plus the activations it
re-materialises fits the device, checkpoint fewer blocks or turn it off; if not, keep it and cut
the recompute instead: selective checkpointing (save the matmul outputs, recompute only cheap
pointwise ops: `torch.utils.checkpoint.create_selective_checkpoint_contexts`), or checkpoint
every other block.

Not a setting: where most recomputed ops run inside a custom autograd Function's backward whose
name says no checkpoint (HF Reformer's reversible layers rebuild their inputs there), the
recompute is that Function's design; the finding names it and is at most low.

Estimate: what the step saves without the recompute: its kernels' GPU time, and the host time of
the backward nodes that re-ran forward work less their own backward ops (the re-run ops plus the
bookkeeping around them), plus, with non-reentrant checkpointing, what the forward's ops took
beyond the same ops re-run (checkpoint's pack hooks run inside them), taken by the side that sets
the step's length (on a host-bound step most of the saving is host time). That host time is
mostly Python the profiler slows little, so no profiler share comes off it (reentrant: the
ordinary share).

The memory it saves is estimated from the trace alone as the bytes the recomputed ops allocate
per step and keep for backward, less the most kept under one autograd node (alive at once even
with checkpointing). The estimate tends high: some re-materialised tensors are in the plain
run's peak as well (autocast's bf16 weight copies, block outputs that are the next block's kept
input).
Comparing against a non-checkpointed trace of the same model
(`bottleneck_lab.memory.compare_checkpointing`) measures it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .. import facts, memory
from ..diagnosis import SEVERITIES, Finding, severity_for_share
from ..trace import TraceFrame
from ..trace.synth import TraceBuilder
from ..trace.synth_memory import MemTrace
from ._common import cost
from ._memory import capacity_pct, gib, human

CODE = "recompute"
KIND = "recompute"
REQUIRES = {"cpu_ops"}


@dataclass(frozen=True)
class Config:
    near_capacity_pct: float = (
        90.0  # peak without checkpointing above this share of memory: keep it
    )


def detect(frame: TraceFrame, cfg: Config):
    rc = memory.recompute(frame)
    if not rc.present:
        return []
    gpu_total = (
        sum(s.gpu_us or 0.0 for s in rc.steps)
        if any(s.gpu_us is not None for s in rc.steps)
        else None
    )
    host_total = sum(s.host_us for s in rc.steps)
    n_steps = max(len(frame.steps), 1)
    # Turning checkpointing off removes the recompute's GPU work and the host's: the re-run ops
    # and the bookkeeping around them, and (non-reentrant) the forward's saved-tensor hooks. The
    # step shortens by whichever side sets its length (on host-bound steps the host's part is
    # most of it: timm ConvNeXt-S measured 129.7 -> 79.7 ms with 19.7 ms of recomputed kernels).
    node_host = sum(s.node_host_us for s in rc.steps) / n_steps
    hooks = memory.forward_hook_us(frame)
    # Non-reentrant checkpointing's host cost is mostly Python the profiler records no op for
    # (pack and unpack hooks, the recompute's bookkeeping), so the profiler adds little to it:
    # on four calibration models the saving outside the profiler was 0.90-1.31x the node and
    # hook time read here (`python benchmarks/checkpoint_share.py`), taken whole (holdout 82's
    # MaxViT-T, 0.62x, is over-promised). Reentrant checkpointing (one model: 0.78x) keeps the
    # ordinary op share.
    profiler_share = facts.PROFILER_SHARE_OF_HOST_OP if rc.reentrant else 0.0
    node_host_saved = (node_host + hooks) * (1.0 - profiler_share)
    if gpu_total is None:
        per_step, share = cost(frame, host_total)
    else:
        step_saved = facts.step_saving_us(frame, gpu_total / n_steps, node_host_saved)
        per_step, share = cost(frame, step_saved * n_steps)
    host_per_step, _ = cost(frame, host_total)
    alloc = rc.per_step("alloc_bytes")
    saved = (
        None if alloc is None else max(0, int(alloc - (rc.per_step("largest_segment_bytes") or 0)))
    )
    report = memory.analyze(frame)
    without = None if report is None or saved is None else report.peak_bytes + saved
    without_pct = None if without is None else capacity_pct(report, without)
    fits = None if without_pct is None else without_pct < cfg.near_capacity_pct
    evidence = {
        "recompute_ops_per_step": round(sum(s.ops for s in rc.steps) / n_steps, 1),
        "recomputed_ops": [{"op": n, "count": k} for n, k in rc.op_names],
        "markers": list(rc.markers),
        "recompute_us_per_step": per_step,
        "recompute_share_pct": share,
        "recompute_host_us_per_step": host_per_step,
        "recompute_node_host_us_per_step": round(node_host, 1),
        "forward_hook_us_per_step": round(hooks, 1),
        "host_time_saved_us_per_step": round(node_host_saved, 1),
        "recompute_gpu_us_per_step": None if gpu_total is None else round(gpu_total / n_steps, 1),
        "extra_flops_per_step": rc.flops_per_step,
        "rematerialised_bytes_per_step": None if alloc is None else int(alloc),
        "saved_bytes_estimate": saved,
        "saved_gib_estimate": gib(saved),
        "peak_allocated_bytes": None if report is None else report.peak_bytes,
        "peak_without_checkpointing_bytes_estimate": without,
        "peak_without_checkpointing_pct_of_capacity": without_pct,
        "per_step": [
            {
                "step": s.step,
                "ops": s.ops,
                "host_us": s.host_us,
                "node_host_us": s.node_host_us,
                "gpu_us": s.gpu_us,
                "rematerialised_bytes": s.alloc_bytes,
            }
            for s in rc.steps[:8]
        ],
    }
    flops = "" if rc.flops_per_step is None else f", {rc.flops_per_step / 1e9:.1f} GFLOP"
    work = (
        f"{per_step / 1000:.2f} ms per step"
        if gpu_total is None
        else f"{gpu_total / n_steps / 1000:.2f} ms of GPU and {node_host_saved / 1000:.2f} ms of "
        "host work per step"
    )
    title = (
        f"Activation checkpointing re-runs forward ops in backward ({work}{flops}): it costs "
        f"~{share:.0f}% of the step"
    )
    if saved is not None:
        title += f", saving about {human(saved)}"
    function = _recomputing_function(frame)
    evidence["custom_function"] = function or None
    if function:
        # the recompute is the Function's own algorithm, not a checkpointing setting to turn off
        title = (
            f"The autograd Function {function} re-runs forward ops in its backward ({work}{flops}): "
            f"~{share:.0f}% of the step"
        )
        fix = (
            f"This recompute is written into {function} itself (reversible layers rebuild their "
            "inputs from their outputs instead of storing activations; a hand-written checkpoint "
            "does the same), not a checkpointing setting: removing it means changing that "
            f"Function or the model, for up to {per_step / 1000:.2f} ms per step where memory "
            "allows storing the activations."
        )
        severity = min(severity_for_share(share), "low", key=SEVERITIES.index)
        return [Finding(CODE, KIND, severity, title, per_step, share, evidence, fix)]
    if fits is False:
        severity = "info"
        fix = (
            "Keep checkpointing: without it the peak could reach about "
            f"{without_pct:.0f}% of device memory. To cut the recompute, use selective "
            "checkpointing (save matmul outputs, recompute pointwise ops) or checkpoint every "
            "other block."
        )
    else:
        severity = severity_for_share(share)
        if fits is None:  # cannot tell whether it would fit: do not make it the verdict
            severity = min(severity, "low", key=SEVERITIES.index)
        room = (
            ""
            if without_pct is None
            else (
                f" (without it the peak would be at most about {without_pct:.0f}% of device memory)"
            )
        )
        fix = (
            (
                f"Memory allows less checkpointing{room}: checkpoint fewer blocks or turn it off to "
                f"save up to {per_step / 1000:.2f} ms per step; or keep it and recompute less with "
                "selective checkpointing."
            )
            if fits
            else (
                "If memory allows, checkpoint fewer blocks or turn checkpointing off to save up to "
                f"{per_step / 1000:.2f} ms per step; otherwise recompute less with selective checkpointing."
            )
        )
    return [Finding(CODE, KIND, severity, title, per_step, share, evidence, fix)]


def _recomputing_function(frame: TraceFrame) -> str:
    """The custom autograd Function (facts.CUSTOM_FUNCTION_NODE, not a checkpoint: its name
    holds no "Checkpoint") whose backward re-ran most of the recomputed forward ops, or ""."""
    rows = np.flatnonzero(memory.recompute_rows(frame))
    if not len(rows):
        return ""
    names = facts.by_custom_function(frame, rows, np.ones(len(rows)))
    if not len(names):
        return ""
    names = names.loc[~names.index.str.contains("Checkpoint")]
    if not len(names) or names.max() < 0.5 * len(rows):
        return ""
    return str(names.idxmax())


# --- example: positive (bad=True) and negative trace; `bottleneck-lab explain` shows it -------
# activation checkpointing re-runs each layer's forward inside backward


def example(bad: bool) -> TraceBuilder:
    """A training loop with [memory] events (trace/synth_memory.py), 6 layers of 100 MiB
    activations. Bad: checkpointed, each backward node first re-runs its layer's forward
    (aten::linear with a Sequence number inside the node), allocating the activation again.
    Good: the same model without checkpointing."""
    return MemTrace(layers=6, act_bytes=100 << 20, checkpoint=bad).b
