"""One-off start-up inside the profiled window (cold start), not the training step.

Symptom: the GPU idles while the host sits in single CUDA runtime or driver calls that run for
milliseconds to seconds with nothing queued: the first CUDA call of the process creating the
context (often `cudaDeviceGetStreamPriorityRange`, `cudaGetDeviceCount` or `cudaFree`), a
kernel's first launch loading its module (lazy loading), streams and cuDNN/cuBLAS handles being
created, the caching allocator's first `cudaMalloc` calls; or ops whose first call runs ten
times longer than their repeats with the same shapes (cuDNN building its convolution plans in
the first `conv2d`, cuBLAS heuristics, lazy initialisation). They fall in the first profiled
step only (or the trace marks no steps, so nothing shows they recur). A launch is module loading
only on its kernel's first launch: a long launch of a kernel that already ran in the trace is a
stall of that step (HF UperNet, holdout 58: 47 ms for a copy kernel run 106 times before it).
Likely cause: the profiler started with the process: no warm-up iterations before it, or no
`torch.profiler.schedule`, so the trace shows start-up that a long run pays once.
Fix: profile steady-state steps: run a few iterations before profiling, or use
`torch.profiler.schedule(wait=1, warmup=1, active=3)` and call `prof.step()` every iteration.
Only where the job is this short (or starts many processes) is start-up itself the cost.
Where the slow first calls lead and the ops' input shapes change from step to step (dynamic
padding), a first call at a shape recurs with every new shape: the title says so and the fix is
to pad or bucket the shapes, not to warm up.

Estimate: the idle of the gaps the host spent in start-up (facts.startup_spans), as a share of
the whole profiled window (a one-off is no share of a median step); the other findings leave it
out.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from .. import facts
from ..diagnosis import Finding, severity_for_share
from ..trace import TraceFrame
from ..trace import intervals as iv
from ..trace.frame import nearest_ancestor
from ..trace.synth import TraceBuilder
from ._common import gap_evidence, shape_changes, when
from ._examples import STEP_US, STEPS, launch

CODE = "cold-start"
KIND = "host_bound"
REQUIRES = {"kernels", "steps", "runtime"}

CONTEXT = "CUDA context creation"
# What each kind of start-up call is doing, for the evidence (first match wins; the trace's
# first CUDA call, whatever its name, is where the process created its context).
WHAT = (
    (re.compile(r"^cu(da)?(Init|Ctx|DevicePrimaryCtx|SetDevice|GetDevice|DeviceGet)"), CONTEXT),
    (re.compile(r"Launch", re.IGNORECASE), "module loading on first launch"),
    (facts.ALLOCATOR_CALLS, "allocator growth (cudaMalloc/cudaFree)"),
    (re.compile(r"Module|Library|Func(Get|Set)", re.IGNORECASE), "module loading"),
    (re.compile(r"Stream|Event|Handle", re.IGNORECASE), "stream and handle set-up"),
)


@dataclass(frozen=True)
class Config:
    min_share_pct: float = 3.0


def _duration(us: float) -> str:
    return (
        f"{us / 1e6:.1f} s" if us >= 1e6 else f"{us / 1e3:.0f} ms" if us >= 1e3 else f"{us:.0f} µs"
    )


def _what(name: str, first: bool = False) -> str:
    return CONTEXT if first else next((w for rx, w in WHAT if rx.search(name)), CONTEXT)


FIRST_CALLS = "slow first calls of ops (cuDNN/cuBLAS plans, lazy init)"


def detect(frame: TraceFrame, cfg: Config):
    calls = facts.startup_calls(frame)
    firsts = facts.first_call_ops(frame)
    if not len(calls) and not len(firsts):
        return []
    names = calls["name"].astype(str)
    first_call = float(frame.runtime["ts"].min()) if len(frame.runtime) else np.nan
    whats = [_what(n, ts == first_call) for n, ts in zip(names, calls["ts"].to_numpy())]
    by_what: dict[str, float] = {}
    for what, dur in zip(whats, calls["dur"].to_numpy()):
        by_what[what] = by_what.get(what, 0.0) + float(dur)
    # the first calls' own time: their spans less the set-up calls made inside them
    cs, ce = iv.union(calls["ts"].to_numpy(), calls["end"].to_numpy())
    fs, fe = iv.union(firsts["ts"].to_numpy(), firsts["end"].to_numpy())
    own = iv.total(fs, fe) - float(iv.overlap_with(cs, ce, fs, fe).sum())
    if own > 0:
        by_what[FIRST_CALLS] = own
    by_what = dict(sorted(by_what.items(), key=lambda kv: -kv[1]))
    # the outermost slow first calls (conv2d, not also the convolution inside it)
    ops = frame.cpu_ops
    is_first = np.zeros(len(ops), dtype=bool)
    is_first[firsts.index.to_numpy()] = True
    above = nearest_ancestor(ops["parent"].to_numpy(), firsts["parent"].to_numpy(), is_first)
    outer = firsts.loc[above < 0]
    multi_step = len(frame.steps) > 1
    extra = {
        "startup_us_total": round(facts.startup_us(frame), 1),
        "us_by_what": {k: round(v, 1) for k, v in by_what.items()},
        "largest_calls": [
            {**when(frame, r.ts), "call": r.name, "us": round(float(r.dur), 1), "what": r.what}
            for r in calls.assign(name=names, what=whats).nlargest(5, "dur").itertuples()
        ],
        "slow_first_calls": [
            {**when(frame, r.ts), "op": str(r.name), "us": round(float(r.dur), 1)}
            for r in outer.nlargest(5, "dur").itertuples()
        ],
        "seen_in": "the first step only" if multi_step else "the trace's only step window",
    }
    parts = ", ".join(f"{what} {_duration(us)}" for what, us in list(by_what.items())[:2])
    # A one-off is a share of the whole window, not of the median step (which leaves the cold
    # first step out by design): both less the profiler's own recording.
    idle = facts.idle_by_owner(frame)["cold_start"]
    stats = facts.step_stats(frame)
    window = stats.total_us - facts.profiler_overhead_us(frame)
    share = round(min(100.0 * idle / window, 100.0), 2) if window > 0 else 0.0
    if share < cfg.min_share_pct:
        return []
    gaps = int((facts.gap_owners(frame) == "cold_start").sum())
    evidence = {
        "idle_us_total": round(idle, 1),
        "window_us_without_profiler": round(window, 1),
        "gaps": gaps,
        "largest_gaps": gap_evidence(frame, "cold_start"),
        **extra,
    }
    title = (
        f"One-off start-up, not training: {share:.0f}% of the profiled time the GPU waits on "
        f"set-up in {extra['seen_in']} ({parts})"
    )
    fix = (
        "Profile steady-state steps: run a few iterations first, or use "
        "torch.profiler.schedule(wait=1, warmup=1, active=3) and call prof.step() every "
        "iteration. Start-up is paid once per process. The other findings leave it out, but "
        "the steps after it may still be warming up (allocator, caches, optimizer state): "
        "confirm them on a steady-state profile before acting on them."
    )
    changing = [c["op"] for c in shape_changes(frame)]
    evidence["ops_whose_shapes_change_between_steps"] = changing
    if changing and next(iter(by_what)) == FIRST_CALLS:
        # HF BERT-base padded per batch (holdout 33): 94 ms for cuDNN attention's plan at a
        # sequence length the warm-up had not seen, in a run whose every step had a new length
        title = (
            f"Slow first calls at new input shapes: {share:.0f}% of the profiled time the GPU "
            f"waits while ops set up for a shape not seen before ({parts}), and the shapes "
            "change from step to step, so each new one pays again"
        )
        fix = (
            "The input shapes change between steps (" + ", ".join(changing[:3]) + "): each "
            "shape seen for the first time builds its cuDNN/cuBLAS plans again, so a run pays "
            "this once per distinct shape, not once per process. Pad or bucket inputs to a few "
            "fixed shapes (sequence lengths to multiples of 64, or a handful of buckets) to bound "
            "it. The other findings leave it out."
        )
    per_step = round(idle / max(stats.count, 1), 1)
    return [Finding(CODE, KIND, severity_for_share(share), title, per_step, share, evidence, fix)]


# --- example: positive (bad=True) and negative trace; `bottleneck-lab explain` shows it -------
# the first step's first launch loads its module while the GPU idles


def example(bad: bool, every_step: bool = False) -> TraceBuilder:
    """Three steps, each launching k1 at 10 (runs 20-200) and k2 at 40 (queued behind k1).
    Bad: in the first step the launch of k2 takes 320 µs (its module loads, 200-520) and k2 runs
    only at 530, the GPU idle from 200; the later steps launch it in 4 µs. Good: every step is
    like the later ones. With every_step, the slow launch recurs in each step: the step's own
    cost, no start-up."""
    b = TraceBuilder()
    for i in range(STEPS):
        t0 = i * STEP_US
        slow = bad and (i == 0 or every_step)
        b.step(i + 1, t0, 700 if slow else 60)
        launch(b, t0 + 10, t0 + 20, 180, kernel="gemm_a")
        if slow:
            launch(b, t0 + 40, t0 + 530, 100, kernel="gemm_b", op_us=640)
        else:
            launch(b, t0 + 40, t0 + 200, 100, kernel="gemm_b")
    return b
