"""The CPU cannot launch kernels as fast as the GPU runs them.

Symptom: many short kernels per step, kernels that run shorter than the launch call that issued
them, and idle gaps where the next kernel was launched only after the GPU ran dry while the host
was launching back to back.
Likely cause: eager execution of many small ops (small layers, elementwise chains, per-parameter
optimizer loops); Python and dispatcher overhead of ~5-20 µs per op dominates.
Fix: if most launches come from Optimizer.step with a single-tensor (for-loop) optimizer, use
`foreach=True` or `fused=True`; if its foreach ops run once per parameter group on a tensor or
two (facts.optimizer_groups_fragmented), give parameters that share settings one group. For
many small layers or elementwise chains, capture the step
with CUDA graphs (`torch.cuda.graphs`, `torch.compile(mode="reduce-overhead")`) or fuse it with
`torch.compile`. The fix names the calls that launch the most kernels a step (each kernel under
the outermost aten op the code called, or the autograd node that ran it in the backward): a call
made hundreds of times a step is where a Python loop over items or positions is worth looking
for (a CRF's logsumexp per position, a contrastive loss per anchor), and doing that work for all
of them in one call removes its launches.
Kernels a CUDA graph replays (one cudaGraphLaunch runs them all: torch.compile(mode=
"reduce-overhead"), torch.cuda.graphs, HF generate()'s static-cache decode) cost the host no
launch each: they are counted apart, and where a step has them the fix says the graphs are
there already and the launches left are the code around them (HF StableLM's static-cache decode,
holdout 84: 5,828 kernels a step from 31 graph launches, 2,004 launched one by one by the eager
prefill and generate()'s loop).
Estimate: the launch-bound idle left once the profiler's own host cost is taken out at the highest
share of host time measured for it (facts.PROFILER_SHARE_OF_HOST_OP_HIGH, as host_bound), plus a
per-parameter (or per-group) optimizer's extra kernels; where launching is what the GPU mostly waits for, the
step as a CUDA graph would run it (host dispatch gone), if that saves more; and for a
per-tensor optimizer loop, what a fused step takes off the step (the loop's host work, at the
profiler's highest share, and its excess kernels), if that saves more. The severity comes
from the same estimate with the host taken at the highest profiler share: where the host and the
GPU are close, the profiler's unknown share decides whether launching costs anything, and the
title then gives both.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from .. import facts
from ..diagnosis import SEVERITIES, Finding, severity_for_share
from ..trace import TraceFrame
from ..trace.frame import name_mask
from ..trace.synth import TraceBuilder
from ._common import autocast_cast_kernels, cost, gap_evidence, kernels_by_call
from ._examples import FULL_GRID, TINY_KERNELS, TINY_PERIOD_US, launch, steps, tiny_kernels

CODE = "launch-overhead"
KIND = "launch_overhead"
REQUIRES = {"kernels", "steps", "runtime"}

OPTIMIZER = facts.OPTIMIZER_STEP
# One call that runs every kernel of a captured CUDA graph (torch.compile(mode="reduce-overhead"),
# torch.cuda.graphs, HF generate()'s static-cache decode): its kernels cost the host no launch each.
GRAPH_LAUNCH = re.compile(r"^(cuda|hip)GraphLaunch")
MULTI_TENSOR = re.compile(
    r"multi_tensor_apply|fused_adam|FusedAdam|fused_sgd|_fused_", re.IGNORECASE
)


# Idle a CUDA graph would not remove, or that says the GPU waited on something other than
# launches (see detect).
OTHER_OWNERS = (
    "host_bound",
    "sync_stall",
    "memcpy",
    "recompilation",
    "cold_start",
    "data_loading",
    "gpu_idle",
)


# The title gives the share at the highest profiler share beside the typical one where they lie
# this many points apart (as precision's range).
RANGE_PTS = 10.0
# In inference, where autocast's casts inside matrix calls are this share of the kernels or more
# the fix names casting the model once (HF SegFormer at one image a call: 355 of 781 kernels,
# and the model cast to BF16 once measured 29.9% less time a call interleaved, paired blocks'
# median 25.9%: traces/README.md, holdout 63; GPT-2 generation at batch 1, 2,144 of 6,889
# kernels, 31%: 25.3%). A quarter is set under those two measured runs (45% and 31%), not
# calibrated: ResNet-50 at batch 1 (56 of 283, 20%) is not told.
AUTOCAST_CASTS_SHARE = 0.25


@dataclass(frozen=True)
class Config:
    min_share_pct: float = 3.0


def _optimizer_launch_share(frame: TraceFrame, launch_ts: np.ndarray) -> tuple[float, str | None]:
    ann = frame.annotations
    opt = ann.loc[name_mask(ann["name"], OPTIMIZER) & ~ann["on_gpu"].to_numpy()]
    if not len(opt) or not len(launch_ts):
        return 0.0, None
    s, e = opt["ts"].to_numpy(), opt["end"].to_numpy()
    i = np.searchsorted(np.sort(s), launch_ts, side="right") - 1
    order = np.argsort(s)
    inside = (i >= 0) & (launch_ts <= e[order][np.maximum(i, 0)])
    m = OPTIMIZER.match(str(opt["name"].iloc[0]))
    return float(inside.mean()), (m.group(1) if m else None)


def _optimizer_is_multi_tensor(frame: TraceFrame, k) -> bool:
    """Whether Optimizer.step launched foreach or fused (multi-tensor) kernels. Only the
    optimizer's own kernels say so: Inductor names its fused kernels triton_*_fused_* (a
    compiled model's 1,120 a step in gpt2_compiled_train, 27 of them the optimizer's)."""
    mine = facts.launched_in_optimizer(frame, k)
    return bool(name_mask(k.loc[mine, "name"], MULTI_TENSOR).any())


# A fused/multi-tensor Adam-family step reads param, grad and both moments and writes param and
# both moments: 7 passes over the parameters. A per-tensor optimizer's elementwise kernels make
# about 3 passes each (two reads, one write), so the fused step needs 7 / 3 kernel-passes' worth of
# the per-tensor kernels' time per parameter. On gpt2_adamw_foreach (8 kernels per parameter) that
# predicts 29% of the per-tensor kernel time; the fused run measured 31% (1.37 vs 4.37 ms).
FUSED_PASSES_IN_KERNELS = 7.0 / 3.0
ACCUMULATE_GRAD = re.compile(r"^torch::autograd::AccumulateGrad$")  # one per parameter per step


def _per_tensor_optimizer_excess_us(frame: TraceFrame, k, multi_tensor: bool) -> tuple[float, dict]:
    """GPU time of a per-tensor (for-loop) optimizer's kernels beyond what a fused one needs
    (multi_tensor: _optimizer_is_multi_tensor's answer)."""
    # foreach kernels are per-tensor ones too where each call gets a tensor or two
    if not len(facts.optimizer_spans(frame)[0]) or (
        multi_tensor and not facts.optimizer_groups_fragmented(frame)
    ):
        return 0.0, {}
    ops = frame.cpu_ops
    inside = facts.launched_in_optimizer(frame, k)
    params = int((name_mask(ops["name"], ACCUMULATE_GRAD) & (ops["step"].to_numpy() >= 0)).sum())
    n_opt = int(inside.sum())
    if not params or n_opt < 2 * params:
        return 0.0, {}
    per_param = n_opt / params
    opt_us = float(k.loc[inside, "dur"].sum())
    fused_us = opt_us * min(1.0, FUSED_PASSES_IN_KERNELS / per_param)
    n_steps = max(len(frame.steps), 1)
    return opt_us - fused_us, {
        "optimizer_kernels_per_parameter": round(per_param, 1),
        "optimizer_kernel_us_per_step": round(opt_us / n_steps, 1),
        "fused_optimizer_kernel_us_per_step_est": round(fused_us / n_steps, 1),
    }


# Optimizers whose foreach step still runs ops per tensor in Python: torch's Adafactor computes
# each factored gradient's row and column norms and means in a comprehension over the tensors
# (torch/optim/_adafactor.py, _multi_tensor_adafactor). T5's foreach=True step (holdout 35) kept
# 2,719 of its 4,367 recorded optimizer ops and measured 8.8% faster.
KEEPS_PER_TENSOR_OPS = frozenset({"Adafactor"})


def _optimizer_loop_saving_us(
    frame: TraceFrame, excess_us: float, optimizer: str | None, shares: tuple[float, ...]
) -> tuple[float, ...]:
    """µs over all steps a fused or foreach step saves over the per-tensor loop of `optimizer`
    (its name; None where there is no such loop), once for each profiler share in `shares`: the
    host's work inside Optimizer.step and the loop's excess kernel time (`excess_us`) come off
    the step, as far as the step's other host work (taken at that share) and its GPU work let it
    shrink (facts.step_saving_us). On a
    GPU-bound step the loop runs while the GPU works through the backward the host queued ahead,
    and little of it is saved (GPT-2's AdamW(foreach=False): 12.6% measured); where the host
    sets the step, the loop is step time (EfficientNet-B0's, holdout 46: 46 ms of a profiled
    step in Optimizer.step with the GPU busy 3.5 ms of it; fused=True measured 40.6% faster).
    The loop's own work is taken at the profiler's highest share, the rest of the step at
    each share of `shares`: an empirical choice, not a model. Over the four fused-optimizer fixes
    measured it promises 27.0% (40.6% measured), 45.4% (the launch_overhead demo's fused
    optimizer alone, 31.2%), 16.4% (GPT-2, 12.6%) and 33.7% (GPT-2 recaptured, 35.2%); with
    both at the median share the demo read 58%, with both at the highest 61%."""
    s, e = facts.optimizer_spans(frame)
    ws, we = facts.step_windows(frame)
    if not optimizer or optimizer in KEEPS_PER_TENSOR_OPS or excess_us <= 0 or not len(ws):
        return tuple(0.0 for _ in shares)
    i = np.searchsorted(ws, s, side="right") - 1
    inside = (i >= 0) & (s < we[np.maximum(i, 0)])
    s, e = s[inside], np.minimum(e[inside], we[i[inside]])  # the part inside its step
    n_steps = max(len(frame.steps), 1)
    high = facts.PROFILER_SHARE_OF_HOST_OP_HIGH
    host = float(facts.host_work_in(frame, s, e, high).sum()) / n_steps
    return tuple(
        n_steps
        * facts.step_saving_us(
            frame,
            excess_us / n_steps,
            host,
            profiler_share=share,
            step_us=facts.step_time_without_profiler_us(frame, share),
        )
        for share in shares
    )


def _graph_launches(evidence: dict) -> str:
    n = evidence["cuda_graph_launches_per_step"]
    return f"{n:g} CUDA graph launch" + ("" if n == 1 else "es")


def _graph_replayed(frame: TraceFrame, k) -> np.ndarray:
    """Which of the kernels `k` (rows of gpu_ops) a CUDA graph launch ran."""
    rows = k["launch"].to_numpy()
    by_graph = name_mask(frame.runtime["name"], GRAPH_LAUNCH)
    return (rows >= 0) & by_graph[np.maximum(rows, 0)]


def detect(frame: TraceFrame, cfg: Config):
    g = frame.gpu_ops
    k = g.loc[
        (g["kind"] == "kernel") & (g["step"] >= 0) & (g["device"] == facts.main_device(frame))
    ]
    # The profiler slows the launching these gaps wait on by a share that varies from run to
    # run (as host_bound's): promise the idle left at the highest share measured. Where launching
    # is what the GPU mostly waits for, the CUDA-graph estimate below stands on its own.
    idle = facts.host_idle_at_high_profiler_share(frame, "launch_overhead")
    multi_tensor = _optimizer_is_multi_tensor(frame, k)
    excess_us, opt_evidence = _per_tensor_optimizer_excess_us(frame, k, multi_tensor)
    n_steps = max(len(frame.steps), 1)
    # What the step loses to launching: with the step captured in a CUDA graph (and a fused
    # optimizer) the host's dispatch work is gone and the GPU runs fewer kernel passes, so the
    # step shrinks to the longer of what remains. That holds only where launching is what the
    # GPU mostly waits for: a graph cannot hold a sync, a blocking copy or a recompile, other
    # host work stays, and queued work that starts late is no launch cost. Elsewhere the
    # launch-bound idle and the optimizer's excess are the estimate.
    # (judged on the idle as traced: the profiler's share of it is launching work too)
    gaps = facts.idle_gaps(frame)
    traced = gaps["dur"].groupby(facts.gap_owners(frame)).sum() if len(gaps) else {}
    launch_bound = sum(traced.get(k, 0.0) for k in ("launch_overhead", "small_batch"))
    other = sum(traced.get(k, 0.0) for k in OTHER_OWNERS)
    estimate = surest = idle + excess_us
    # a per-tensor optimizer's loop, which a fused or foreach step all but removes (not a
    # foreach step split over many groups: regrouping leaves a call per group, how many unknown)
    la = facts.launches(frame)
    opt_share, opt_name = _optimizer_launch_share(frame, la["ts"].to_numpy())
    loop_name = None if multi_tensor else opt_name
    median, high = facts.PROFILER_SHARE_OF_HOST_OP, facts.PROFILER_SHARE_OF_HOST_OP_HIGH
    loop, loop_high = _optimizer_loop_saving_us(frame, excess_us, loop_name, (median, high))
    loop_sets_it = loop > estimate
    estimate = max(estimate, loop)
    surest = max(surest, loop_high)
    if launch_bound > 0 and launch_bound >= other:
        graph = facts.step_saving_us(frame, excess_us / n_steps, facts.host_dispatch_us(frame))
        estimate = max(estimate, graph * n_steps)
        # The same with the step and the host's work taken at the highest profiler share, as
        # the idle is: what holds however much of the host the profiler took. Where the host
        # and the GPU are close, that decides whether launching costs anything at all: BERT-base
        # batched (holdout 27) read as a 6.34 ms step at the median share, 4.92 ms of kernels,
        # and a graph was promised the 1.42 ms between; measured, the step took 5.45 ms.
        high = facts.PROFILER_SHARE_OF_HOST_OP_HIGH
        graph_high = facts.step_saving_us(
            frame,
            excess_us / n_steps,
            facts.host_dispatch_us(frame, high),
            profiler_share=high,
            step_us=facts.step_time_without_profiler_us(frame, high),
        )
        surest = max(surest, graph_high * n_steps)
    per_step, share = cost(frame, estimate)
    if share < cfg.min_share_pct:
        return []
    # the severity says how sure the loss is: the share at the highest profiler share
    _, surest_share = cost(frame, surest)
    launch_dur = frame.runtime["dur"].to_numpy()[np.maximum(k["launch"].to_numpy(), 0)]
    # a graph launch is one call for all its kernels: only kernels launched one by one compare
    replayed = _graph_replayed(frame, k)
    linked = (k["launch"].to_numpy() >= 0) & ~replayed
    graphed, eager = replayed.sum() / n_steps, (~replayed).sum() / n_steps  # kernels a step
    shorter = (
        float((k["dur"].to_numpy()[linked] < launch_dur[linked]).mean()) if linked.any() else 0.0
    )
    evidence = {
        "kernels_per_step": round(len(k) / n_steps, 1),
        "median_kernel_us": round(float(k["dur"].median()), 2) if len(k) else None,
        "median_launch_us": round(float(la["dur"].median()), 2) if len(la) else None,
        "kernels_shorter_than_launch_pct": round(100 * shorter, 1),
        "gpu_busy_pct": round(facts.busy_pct(frame, facts.main_device(frame)) or 0.0, 1),
        "launches_in_optimizer_pct": round(100 * opt_share, 1),
        "optimizer": opt_name,
        "optimizer_uses_multi_tensor_kernels": multi_tensor,
        "idle_us_per_step": cost(frame, idle)[0],
        "idle_us_per_step_at_median_profiler_share": cost(
            frame, facts.idle_by_owner(frame)["launch_overhead"]
        )[0],
        "profiler_share_assumed": facts.PROFILER_SHARE_OF_HOST_OP_HIGH,
        "share_pct_at_high_profiler_share": surest_share,
        **opt_evidence,
        "largest_gaps": gap_evidence(frame, "launch_overhead"),
        "kernels_by_call": kernels_by_call(frame, k),
    }
    if replayed.any():  # only where the step has CUDA graphs
        evidence["kernels_from_cuda_graphs_per_step"] = round(float(graphed), 1)
        evidence["cuda_graph_launches_per_step"] = round(
            len(np.unique(k["launch"].to_numpy()[replayed])) / n_steps, 1
        )
    # an inference step has no optimizer to make foreach or fused, and nothing keeps autocast's
    # casts between its calls
    backward = facts.has_backward(frame)
    groups = facts.optimizer_groups_fragmented(frame)
    per_parameter_optimizer = opt_share >= 0.4 and (not multi_tensor or groups > 0)
    if per_parameter_optimizer and groups:
        evidence["optimizer_foreach_calls_per_step"] = groups
        fix = (
            f"{100 * opt_share:.0f}% of launches come from Optimizer.step ({opt_name}), which "
            f"calls each foreach op {groups:.0f} times a step on one or two tensors: one call per "
            "parameter group, since foreach and fused kernels batch tensors only within a group. "
            "Give parameters that share settings one group (e.g. one per layer and weight-decay "
            "setting for layer-wise LR decay, not one per parameter)."
        )
    elif per_parameter_optimizer:
        fix = (
            f"{100 * opt_share:.0f}% of launches come from Optimizer.step ({opt_name}) running "
            "one kernel per parameter: construct it with foreach=True or fused=True "
            f"(e.g. torch.optim.{opt_name or 'AdamW'}(params, fused=True))."
        )
    else:
        training = backward or len(facts.optimizer_spans(frame)[0]) > 0
        fix = (
            "Too many small kernels per step for the CPU to keep up: capture the step with CUDA "
            "graphs (torch.compile(mode='reduce-overhead') or torch.cuda.graphs) or fuse ops with "
            "torch.compile" + ("; use a foreach/fused optimizer." if training else ".")
        )
        calls = evidence["kernels_by_call"][:3]
        if replayed.any():
            # the user has CUDA graphs already: what is left is the code outside them
            waits_on = (
                f"the GPU waits on the {eager:.0f} kernels a step launched one by one around them"
                if eager >= 1
                else "the GPU waits on the host's work between the graph launches"
            )
            fix = (
                f"The step already replays {graphed:.0f} kernels a step from "
                f"{_graph_launches(evidence)} "
                f"(cudaGraphLaunch); {waits_on}. Bring that code into the captured region "
                "(compile the loop around the model, its sampling or loss and bookkeeping, not "
                "only the model's forward) or make it fewer, larger ops"
                + ("; use a foreach/fused optimizer." if training else ".")
            )
        if calls:
            fix += (
                " The calls that launch the most kernels a step: "
                + ", ".join(
                    f"{c['call']} ({c['calls_per_step']:g} calls, {c['kernels_per_step']:g} "
                    "kernels)"
                    for c in calls
                )
                + " (kernels_by_call)."
            )
            # wording only: a call made hundreds of times a step is where a loop is worth looking
            if calls[0]["calls_per_step"] >= 100:
                fix += (
                    " Where one of them runs in a Python loop over items or positions, doing that "
                    "work for all of them in one call removes its launches."
                )
    casts = autocast_cast_kernels(frame, k) / n_steps
    evidence["autocast_cast_kernels_per_step"] = round(casts, 1)
    if casts >= AUTOCAST_CASTS_SHARE * len(k) / n_steps and not backward:
        fix += (
            f" {casts:.0f} of the {len(k) / n_steps:.0f} kernels a step are casts autocast makes "
            "inside matrix and convolution calls: with no backward in the steps (inference) it "
            "casts the weights again on every call. Cast the model once "
            "(model.to(torch.bfloat16)), call it without autocast and check its outputs (on HF "
            "SegFormer at one image a call this measured 26-30% less time a call, on GPT-2 "
            "generation at batch 1 25%)."
        )
    if facts.batch_is_small(frame):
        evidence["batch_is_small"] = True
        fix += (
            " The batch is also small (see small-batch): a bigger batch gives each launch more "
            "work and spreads the per-step launches over more samples."
        )
    elif shorter >= 0.5 and not per_parameter_optimizer:
        # the shapes can hide the batch (cuDNN's RNN ops, custom kernels) while the kernels
        # themselves show each launch carries too little work for its cost
        fix += (
            " Most kernels run shorter than the call that launched them: if memory allows, a "
            "bigger batch gives each launch more work and spreads the per-step launches over "
            "more samples."
        )
    idle_pct = f"{share:.1f}% of the step idle"
    if share - surest_share >= RANGE_PTS:
        idle_pct = (
            f"{share:.1f}% of the step idle with the host at its typical speed without the "
            f"profiler, {surest_share:.1f}% at its fastest plausible (the trace cannot tell which)"
        )
    if loop_sets_it:  # the share is what a fused step saves, not idle the trace shows
        idle_pct = (
            f"the optimizer's loop over parameters costs ~{share:.0f}% of the step (what a "
            "fused step would save)"
        )
    kernels = f"{len(k) / n_steps:.0f} kernels per step"
    if replayed.any() and not (~replayed).any():
        kernels = (
            f"{_graph_launches(evidence)} per step ({graphed:.0f} kernels) with the host's work "
            "between them"
        )
    elif replayed.any():
        kernels = (
            f"{eager:.0f} kernels per step launched one by one (and {graphed:.0f} replayed from "
            "CUDA graphs)"
        )
    title = f"Kernel launches cannot keep the GPU busy: {idle_pct}, {kernels}"
    severity = min(
        severity_for_share(share), severity_for_share(surest_share), key=SEVERITIES.index
    )
    return [Finding(CODE, KIND, severity, title, per_step, share, evidence, fix)]


# --- example: positive (bad=True) and negative trace; `bottleneck-lab explain` shows it -------
# hundreds of tiny kernels, each launched after the last ended


OPTIMIZER_STEP = "Optimizer.step#AdamW.step"


def example(bad: bool, optimizer: bool = False) -> TraceBuilder:
    """Bad: 90 tiny full-grid kernels per step launched back to back (GPU busy 20%), inside an
    `Optimizer.step#AdamW.step` range when optimizer=True (a for-loop optimizer). Good: the host
    launches as many in 90 µs and each kernel runs 10 µs, queued back to back."""
    b = TraceBuilder()
    for t0 in steps(b, cpu_us=TINY_KERNELS * TINY_PERIOD_US if bad else 100):
        if bad:
            if optimizer:
                b.annotation(OPTIMIZER_STEP, t0 + 1, TINY_KERNELS * TINY_PERIOD_US + 5)
            tiny_kernels(b, t0, FULL_GRID)
        else:
            for i in range(TINY_KERNELS):
                launch(b, t0 + i, t0 + 10 + i * 10, 10, op_us=1)
    return b
