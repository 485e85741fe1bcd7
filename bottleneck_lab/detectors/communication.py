"""Collective communication not hidden behind compute.

Symptom: NCCL (or RCCL) kernels run while no compute kernel runs on the same GPU and compute is
queued behind them (launched, waiting to start). Where nothing was queued the GPU would have
idled anyway, for the host: that time is the host's, and faster communication would not give it
back (a ViT's all-reduces 9x slower through host memory, NCCL_P2P_DISABLE=1, ran mostly in such
gaps under the profiler and measured no slower a step without it).
Likely cause: gradients all-reduced after backward instead of overlapped with it, buckets too
large or too small, a single stream for compute and communication, or a slow interconnect.
Fix: let DDP/FSDP overlap communication with backward (check `bucket_cap_mb`, avoid
`find_unused_parameters=True` where not needed, no_sync during gradient accumulation: named first
where a step all-reduces its gradients once per micro-batch), and check link bandwidth with
nccl-tests if exposed time stays high.
"""

from __future__ import annotations

from dataclasses import dataclass

from .. import facts
from ..diagnosis import Finding, severity_for_share
from ..trace import TraceFrame
from ..trace import intervals as iv
from ..trace.synth import TraceBuilder
from ._common import cost, when
from ._examples import launch, steps

CODE = "communication"
KIND = "communication"
REQUIRES = {"kernels", "steps", "nccl"}


@dataclass(frozen=True)
class Config:
    min_share_pct: float = 3.0


def exposed_title(share_pct: float, beyond: str = "", rounds: int | None = None) -> str:
    """The finding's title; `beyond` names what the share leaves out (ranks.straggler_findings),
    `rounds` the gradient all-reduces a step where one would do (facts.gradient_sync_rounds)."""
    if rounds:
        return (
            f"Gradient sync once per micro-batch: {rounds_note(rounds)}; {share_pct:.1f}% of "
            f"the step in the extra rounds' reducer work and in collectives that queued compute "
            f"waits for{beyond}"
        )
    return (
        f"Exposed communication: {share_pct:.1f}% of the step in collectives that queued "
        f"compute waits for{beyond}"
    )


def rounds_note(rounds: int) -> str:
    return (
        f"the gradients are all-reduced {rounds} times a step, once per micro-batch, for one "
        "optimizer step"
    )


def no_sync_fix(rounds: int) -> str:
    return (
        f"Under gradient accumulation, run the forward and backward of all but the last "
        f"micro-batch inside model.no_sync(): {rounds - 1} of the {rounds} gradient all-reduces a "
        "step go, with the waits between ranks at each. "
    )


def no_sync_saving_us(frame: TraceFrame, rounds: int, held_us: float) -> float:
    """µs per step that model.no_sync() saves where the gradients are all-reduced `rounds` times
    a step: all rounds but one of the reducer's host work (facts.reducer_host_us) and of the
    collective time queued compute waits for (`held_us`). The step is bounded by its host's own
    work and by its GPU's (compute and that waiting); it shortens by what the busier of the two
    loses. HF GPT-2 medium under DDP, 4 micro-batches, host-bound: 50.3 ms a step on rank 0 (3/4
    of its 67.0 ms of reducer work); no_sync measured 49.2 of 414.5 ms (11.9%). Left out: the scaled copies into the
    buckets on the GPU, and the waits between ranks at each round."""
    drop = (rounds - 1) / rounds
    host = facts.host_time_us(frame, facts.PROFILER_SHARE_OF_HOST_OP)
    gpu = facts.compute_us(frame) + held_us
    after = max(host - drop * facts.reducer_host_us(frame), gpu - drop * held_us)
    return max(max(host, gpu) - after, 0.0)


def detect(frame: TraceFrame, cfg: Config):
    comm, _, _ = facts.collectives_and_compute(frame, facts.main_device(frame))
    if not len(comm):
        return []
    comm_total = iv.total(*iv.union(comm["ts"].to_numpy(), comm["end"].to_numpy()))
    held_collectives = facts.held_collectives(frame)
    exposed, held = held_collectives.exposed, held_collectives.held
    n_steps = max(len(frame.steps), 1)
    rounds = facts.gradient_sync_rounds(frame)
    no_sync = no_sync_saving_us(frame, rounds, held / n_steps) if rounds else 0.0
    per_step, share = cost(frame, max(held, no_sync * n_steps))
    if share < cfg.min_share_pct:
        return []
    by_name = (
        comm.groupby(
            comm["name"]
            .astype(object)
            .str.extract(r"(ncclDevKernel_\w+|ncclKernel_\w+|nccl\w+)", expand=False)
            .fillna("nccl")
        )["dur"]
        .sum()
        .sort_values(ascending=False)
    )
    evidence = {
        "collective_us_per_step": round(comm_total / n_steps, 1),
        "exposed_us_per_step": round(exposed / n_steps, 1),
        "compute_waiting_us_per_step": per_step,
        "overlapped_pct": round(100 * (1 - exposed / comm_total), 1) if comm_total else None,
        "collectives_per_step": round(len(comm) / n_steps, 1),
        "time_by_kernel_us_per_step": {
            n: round(v / n_steps, 1) for n, v in by_name.head(5).items()
        },
        "longest_collectives": [
            {**when(frame, c.ts), "kernel": str(c.name)[:100], "us": round(c.dur, 1)}
            for c in comm.nlargest(3, "dur").itertuples()
        ],
    }
    evidence["gradient_sync_rounds_per_step"] = rounds
    if rounds:
        evidence["no_sync_saving_us_per_step"] = round(no_sync, 1)
    title = exposed_title(share, rounds=rounds)
    fix = (no_sync_fix(rounds) if rounds else "") + (
        "Overlap gradient communication with backward (DDP/FSDP do this by default: check "
        "bucket_cap_mb, avoid find_unused_parameters=True, use no_sync during accumulation); "
        "if exposed time stays high, measure the interconnect with nccl-tests."
    )
    return [Finding(CODE, KIND, severity_for_share(share), title, per_step, share, evidence, fix)]


# --- example: positive (bad=True) and negative trace; `bottleneck-lab explain` shows it -------
# an all-reduce not hidden behind compute


NCCL_KERNEL = "ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)"
COMM_STREAM = 20


def example(bad: bool) -> TraceBuilder:
    """Compute runs 10-500 on stream 7; the all-reduce (400 µs, stream 20) runs after it, 510-910,
    when bad, and inside it, 50-450, when good. The optimizer's kernel, launched at 30, waits for
    it and runs after it (910 when bad, 510 when good)."""
    b = TraceBuilder(rank=0, world_size=2)
    for t0 in steps(b, cpu_us=40):
        launch(b, t0, t0 + 10, 490, kernel="gemm_a")
        launch(b, t0 + 30, t0 + (910 if bad else 510), 20, name="aten::_fused_adamw_")
        launch(
            b,
            t0 + 10,
            t0 + (510 if bad else 50),
            400,
            name="c10d::allreduce_",
            kernel=NCCL_KERNEL,
            stream=COMM_STREAM,
            grid=(2, 1, 1),
        )
    return b
