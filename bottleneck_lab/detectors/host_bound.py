"""The GPU waits on CPU work in the training loop that is not data loading or launching.

Symptom: idle gaps on the GPU while the launching thread is busy in CPU ops or in Python that the
profiler did not record as ops, and the next kernel is launched only after the gap began.
Likely cause: Python-side work in the step: metrics, logging, numpy, tokenisation, building
tensors on the host, per-step object creation.
Fix: move the work out of the step (do it every N steps, or asynchronously), keep tensors on the
GPU, or overlap it with GPU work by launching the next step's kernels first.
Where autograd's anomaly detection is on (facts.anomaly_checks_per_step), the fix names it: it
records a stack trace inside every forward op. Where torch.compile'd code runs as several graphs
a step (AOTAutograd's `CompiledFunction`, once per graph), title and fix say how many: each
graph break leaves host work between the graphs (guard checks, the eager code around the break)
that the GPU waits on.
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
    title = "GPU waits on other CPU work {share:.1f}% of the step ({per_step:.0f} µs per step)"
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
    return idle_finding(
        frame,
        CODE,
        KIND,
        "host_bound",
        title,
        fix,
        cfg.min_share_pct,
        extra={
            "idle_us_total_at_median_profiler_share": round(median, 1),
            "profiler_share_assumed": facts.PROFILER_SHARE_OF_HOST_OP_HIGH,
            "compiled_graphs_per_step": round(graphs, 1),
        },
        total_us=facts.host_idle_at_high_profiler_share(frame, "host_bound"),
    )


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
