"""The GPU waits on CPU work in the training loop that is not data loading or launching.

Symptom: idle gaps on the GPU while the launching thread is busy in CPU ops or in Python that the
profiler did not record as ops, and the next kernel is launched only after the gap began.
Likely cause: Python-side work in the step: metrics, logging, numpy, tokenisation, building
tensors on the host, per-step object creation.
Fix: move the work out of the step (do it every N steps, or asynchronously), keep tensors on the
GPU, or overlap it with GPU work by launching the next step's kernels first. Most such waits
are no block of work but hundreds of short gaps a step, the host slower to issue each op than
the GPU to run the last (over launch_overhead's 40 µs a launch, the profiler's cost included):
there title and fix say so and name fewer, larger ops first.
Where autograd's anomaly detection is on (facts.anomaly_checks_per_step), the fix names it: it
records a stack trace inside every forward op. Where torch.compile'd code runs as several graphs
a step (AOTAutograd's `CompiledFunction`, once per graph), title and fix say how many: each
graph break leaves host work between the graphs (guard checks, the eager code around the break)
that the GPU waits on. Where most of the wait lies in an Optimizer.step whose parameter groups
split its foreach work (facts.optimizer_groups_fragmented), title and fix say so.
Estimate: the idle left once the profiler's own host cost is taken out at the highest share of
host time measured for it (facts.PROFILER_SHARE_OF_HOST_OP_HIGH), since the profiler slows the
very host work these gaps wait on.
Under FSDP2 with many units (facts.fsdp_hooks) the GPU waits for the host inside NCCL kernels,
for a peer whose host has not yet launched its side, not in idle gaps: where sharding the model
as one unit would save more than the gaps hold (fsdp_one_unit_saving_us), title, fix and
estimate are that.
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
    title = "GPU waits on other CPU work {share:.1f}% of the step ({per_step:.0f} µs per step)"
    fix = (
        "Find the host ops listed under each gap (or the unrecorded Python between ops) and move "
        "that work out of the step, run it every N steps, or keep the data on the GPU."
    )
    spread = _short_gaps(frame)
    if spread["short_gap_share_pct"] >= 50 and spread["gaps_per_step"] >= MANY_GAPS_PER_STEP:
        # Hundreds of short waits a step, one op's launch each, are the host's cost per op, not
        # a block of work to move out (holdout 34's Python loop over nn.LSTMCell: 398 a step,
        # a median 55 µs; nn.LSTM measured 86.1% faster).
        title += (
            f", over {spread['gaps_per_step']:.0f} short waits a step (median "
            f"{spread['median_gap_us']:.0f} µs): the host's time per op"
        )
        fix = (
            "Most of this wait is spread over many short gaps, in each the host took longer to "
            "issue the next op than the GPU took to run the last: the host's cost per op (Python "
            "between ops, dispatch, and the profiler's own share, which the estimate takes out "
            "at its highest measured). Fewer, larger ops cut it: vectorise Python loops over time "
            "steps or items, torch.compile or CUDA graphs, fused or foreach ops, a bigger batch. "
            "Where the ops under the gaps are extra work of your own (metrics, logging, tensors "
            "built on the host), move it out of the step or keep it on the GPU."
        )
    groups = facts.optimizer_groups_fragmented(frame)
    outside = facts.idle_outside_optimizer(frame, "host_bound")
    in_optimizer = 1.0 - outside / median if median > 0 else 0.0
    if groups and in_optimizer >= 0.5:
        # holdout 40's ViT-B with one parameter group per parameter: 54% of this wait inside
        # Optimizer.step, whose foreach ops ran once per group on one tensor each
        title += f"; {100 * in_optimizer:.0f}% of it inside Optimizer.step"
        fix = (
            f"{100 * in_optimizer:.0f}% of this wait is inside Optimizer.step, which calls each "
            f"foreach op {groups:.0f} times a step on one or two tensors: one call per parameter "
            "group (see launch-overhead). Give parameters that share settings one group. " + fix
        )
    if facts.anomaly_checks_per_step(frame) >= 1:
        # anomaly mode records a stack trace inside every forward op: host work these gaps wait on
        fix = (
            "Autograd's anomaly detection is on (torch.autograd.set_detect_anomaly(True) or a "
            "detect_anomaly() block; sync_stall counts its NaN reads): it records a stack trace "
            "inside every forward op, host work these gaps wait on. Turn it off outside a "
            "debugging run. " + fix
        )
    graphs = _compiled_graphs_per_step(frame)
    if graphs >= 2:
        # holdout 33's compiled ViT-S with a hook reading .item() in each block: 15 graphs a
        # step against 1 without the reads, which measured 35.1% faster
        title += f"; the compiled code runs as {graphs:.0f} graphs a step (graph breaks)"
        fix = (
            f"torch.compile'd code here runs as {graphs:.0f} graphs a step: at each graph break "
            "Dynamo checks guards and runs the code around the break eagerly while the GPU "
            "waits. TORCH_LOGS=graph_breaks (or torch._dynamo.explain) lists the breaks; a "
            ".item(), print or data-dependent branch inside the compiled code is the usual "
            "cause. " + fix
        )
    total = facts.host_idle_at_high_profiler_share(frame, "host_bound")
    hooks, units = facts.fsdp_hooks(frame)
    fsdp, host, gpu = fsdp_one_unit_saving_us(frame, hooks, units)
    if fsdp * max(len(frame.steps), 1) > total:
        # holdout 79's GPT-2 large with one FSDP2 unit per block: the GPU, its compute 94 ms a
        # step, waited in NCCL kernels for the hosts (not idle, so not in the gaps above); the
        # root as one unit measured 47.8% faster (1 - 153.3/293.6), 41.4% promised here
        title = (
            f"FSDP2's per-unit hooks set the step: {units} units, {hooks / 1000:.1f} ms of host "
            "work a step in their hooks while the GPU waits; the model as one unit saves "
            "~{share:.1f}% of the step ({per_step:.0f} µs per step)"
        )
        fix = (
            f"Each FSDP2 unit (each fully_shard call) runs its hooks four times a step, about "
            f"{hooks / units / 1000:.1f} ms of host work a unit here whatever its size, and this "
            "step is bound by its host. Shard in fewer, larger units: fully_shard a list of "
            "consecutive blocks (fully_shard([blocks[i], blocks[i + 1], ...]) makes them one "
            "unit), or, where every GPU can hold the model's parameters unsharded, the root "
            "alone; the estimate is the root alone. reshard_after_forward=False on the blocks "
            "also drops the backward's all-gathers, keeping each block's parameters gathered "
            "from its forward to its backward."
        )
        total = fsdp * max(len(frame.steps), 1)
    fsdp_evidence = (
        {
            "fsdp_units": units,
            "fsdp_hook_host_us_per_step": round(hooks, 1),
            "fsdp_one_unit_saving_us_per_step": round(fsdp, 1),
            "host_work_us_per_step": round(host, 1),
            "gpu_work_us_per_step": round(gpu, 1),
        }
        if units >= 2
        else {}
    )
    return idle_finding(
        frame,
        CODE,
        KIND,
        "host_bound",
        title,
        fix,
        cfg.min_share_pct,
        extra={
            **fsdp_evidence,
            "idle_us_total_at_median_profiler_share": round(median, 1),
            "profiler_share_assumed": facts.PROFILER_SHARE_OF_HOST_OP_HIGH,
            "compiled_graphs_per_step": round(graphs, 1),
            "idle_in_optimizer_pct": round(100 * in_optimizer, 1),
            # gaps_per_step is idle_finding's own
            **{k: v for k, v in spread.items() if k != "gaps_per_step"},
        },
        total_us=total,
    )


def fsdp_one_unit_saving_us(
    frame: TraceFrame, hooks_us: float, units: int
) -> tuple[float, float, float]:
    """(µs per step that sharding the model as one FSDP2 unit saves where it runs as `units`
    (facts.fsdp_hooks); the host's work a step; the GPU's). The hooks' host work (`hooks_us` a
    step) is taken as a cost per unit, so one unit removes (units - 1) / units of it. The step is
    bounded by its host's own work and by its GPU's (compute, and the transfers of collectives
    that queued compute waits for, not their waits for a peer's host); it shortens by what the
    busier of the two loses. The waits between ranks in lock step at each unit's collectives are
    left out: the promise is a floor. HF GPT-2 large, one unit per block on two H200s: 114.1 ms a
    step (41.4%) promised, the root alone measured 47.8% and 49.1% faster; GPT-2 medium: 26.4%
    promised, 42.0% measured (benchmarks/zoo/fsdp_units.py)."""
    if units < 2:
        return 0.0, 0.0, 0.0
    host = facts.host_time_us(frame, facts.PROFILER_SHARE_OF_HOST_OP)
    transfer = facts.held_collectives(frame).held_transfer / max(len(frame.steps), 1)
    gpu = facts.compute_us(frame) + transfer
    after = max(host - hooks_us * (units - 1) / units, gpu)
    return max(max(host, gpu) - after, 0.0), host, gpu


# From this many host-bound gaps a step, spread thin (most of the wait in gaps under
# facts.LONG_HOST_GAP_US), the wait is per-op cost: the zoo's host-bound findings had 177 to 2,730
# a step, the few made of one block of host work 1 to 3.
MANY_GAPS_PER_STEP = 20


def _short_gaps(frame: TraceFrame) -> dict:
    """How the host-bound wait is spread: gaps a step, their median length as traced, and the
    share of the wait in gaps under facts.LONG_HOST_GAP_US."""
    gaps = facts.idle_gaps(frame)
    mine = gaps.loc[facts.gap_owners(frame) == "host_bound"]
    if not len(mine):
        return {"gaps_per_step": 0.0, "median_gap_us": 0.0, "short_gap_share_pct": 0.0}
    short = mine["dur"].to_numpy() < facts.LONG_HOST_GAP_US
    exposed = mine["exposed_us"].to_numpy()
    return {
        "gaps_per_step": round(len(mine) / max(len(frame.steps), 1), 1),
        "median_gap_us": round(float(mine["dur"].median()), 1),
        "short_gap_share_pct": round(
            100 * float(exposed[short].sum()) / max(float(exposed.sum()), 1e-9), 1
        ),
    }


def _compiled_graphs_per_step(frame: TraceFrame) -> float:
    """Forward graphs of torch.compile'd code run a step: AOTAutograd's `CompiledFunction` spans
    in the steps (one per graph called; a model without graph breaks runs one)."""
    ops = frame.cpu_ops
    called = (ops["name"] == "CompiledFunction").to_numpy() & (ops["step"].to_numpy() >= 0)
    return float(called.sum()) / max(len(frame.steps), 1)


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
