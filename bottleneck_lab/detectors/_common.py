"""Helpers detectors share: per-step cost, shares and timeline evidence."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from .. import facts, replay
from ..diagnosis import Finding, severity_for_share
from ..op_flops import matrix_owner
from ..trace import TraceFrame
from ..trace.frame import name_mask, nearest_ancestor, outermost

# Recorded matrix products and which of their inputs are (activation, weight).
MATMUL_INPUTS = {"aten::linear": (0, 1), "aten::mm": (0, 1), "aten::matmul": (0, 1)}
MATMUL_INPUTS["aten::addmm"] = (1, 2)


def trace_start(frame: TraceFrame) -> float:
    return float(frame.steps["ts"].min()) if len(frame.steps) else 0.0


def when(frame: TraceFrame, ts: float) -> dict:
    """Where to look: ms from the start of the first step (ProfilerStep) on the timeline, and
    the event's raw `ts` (µs) exactly as written in the trace file."""
    return {"at_ms": round((ts - trace_start(frame)) / 1000.0, 3), "ts": round(float(ts), 3)}


def cost(frame: TraceFrame, total_us: float) -> tuple[float, float]:
    """(µs lost per step, % of step time) for a total cost over the whole trace. The share is of
    the step as it would run without the profiler (the traced steps less the idle only the
    profiler's host cost made), since that is the step the fix will shorten. The median step,
    not the mean: the first profiled step often carries un-recorded work from before the trace."""
    real_step = facts.step_time_without_profiler_us(frame)
    # no fix saves more than the whole step
    per_step = min(total_us / max(facts.step_stats(frame).count, 1), max(real_step, 0.0))
    share = 100.0 * per_step / real_step if real_step > 0 else 0.0
    return round(per_step, 1), round(share, 2)


def gap_evidence(frame: TraceFrame, cause: str, top: int = 5) -> list[dict]:
    """The largest idle gaps a finding kind owns (facts.gap_owners), with what the host was doing."""
    gaps = facts.idle_gaps(frame)
    sel = gaps.loc[facts.gap_owners(frame) == cause].nlargest(top, "dur")
    out = []
    for g in sel.itertuples():
        item = {
            **when(frame, g.start),
            "idle_us": round(g.dur, 1),
            "step": int(g.step),
            "next_gpu_op": g.next_op,
        }
        if cause == "sync_stall":
            item["sync_call"] = g.sync_call
        if cause == "data_loading":
            item["dataloader_us"] = round(g.dataloader_us, 1)
        if cause in ("host_bound", "launch_overhead", "small_batch"):
            item["launches_in_gap"] = int(g.launches_in_gap)
            item["host_ops"] = facts.host_ops_in(frame, g.start, g.end)
        out.append(item)
    return out


def shape_text(dims) -> str:
    """A tensor's dimensions as a report writes them: 8x1024x768."""
    return "x".join(map(str, dims))


def kernels_by_call(frame: TraceFrame, kernels: pd.DataFrame, top: int = 5) -> list[dict]:
    """The calls that launch the most of `kernels` (rows of frame.gpu_ops in the steps), each
    kernel counted under the autograd node that ran it in the backward, else under the outermost
    aten op above it: the call the Python code made (aten::logsumexp, not the amax inside it).
    Per step: how many times each was called and how many kernels it launched."""
    ops = frame.cpu_ops
    parent = ops["parent"].to_numpy()
    start = kernels["op"].to_numpy()
    node = nearest_ancestor(parent, start, name_mask(ops["name"], facts.ENGINE_NODE))
    called = outermost(parent, name_mask(ops["name"], r"^aten::"))
    call = np.where(node >= 0, node, nearest_ancestor(parent, start, called))
    call = call[call >= 0]
    if not len(call):
        return []
    n_steps = max(len(frame.steps), 1)
    name = ops["name"].to_numpy()[call].astype(str)
    by = pd.DataFrame({"name": name, "call": call}).groupby("name")["call"]
    table = pd.DataFrame({"calls": by.nunique(), "kernels": by.size()})
    table = table.sort_values(["kernels", "calls"], ascending=False, kind="stable").head(top)
    return [
        {
            "call": facts.ENGINE_NODE.sub("", str(n)),
            "calls_per_step": round(float(r.calls) / n_steps, 1),
            "kernels_per_step": round(float(r.kernels) / n_steps, 1),
        }
        for n, r in table.iterrows()
    ]


# Matrix calls whose inputs autocast casts in the call's own wrapper: the casts (aten::to) sit
# directly under them in the trace, the weights' among them.
AUTOCAST_CALL = (
    r"^aten::(linear|matmul|mm|addmm|bmm|baddbmm|einsum|convolution|conv[123]d"
    r"|conv_transpose[123]d)$"
)


def autocast_cast_kernels(frame: TraceFrame, kernels: pd.DataFrame) -> int:
    """How many of `kernels` (rows of frame.gpu_ops) a cast made directly inside a matrix call
    launched: autocast's casts of that call's inputs and weights."""
    ops = frame.cpu_ops
    if not len(kernels) or not len(ops):
        return 0
    parent = ops["parent"].to_numpy()
    cast = nearest_ancestor(parent, kernels["op"].to_numpy(), name_mask(ops["name"], r"^aten::to$"))
    caller = np.where(cast >= 0, parent[np.maximum(cast, 0)], -1)
    matrix_call = name_mask(ops["name"], AUTOCAST_CALL)
    return int(((caller >= 0) & matrix_call[np.maximum(caller, 0)]).sum())


def idle_finding(
    frame: TraceFrame,
    code: str,
    kind: str,
    cause: str,
    title: str,
    fix: str,
    min_share_pct: float,
    extra: dict | None = None,
    total_us: float | None = None,
) -> list[Finding]:
    """A finding for the idle time attributed to one cause (or `total_us` of it, where the
    detector promises less than all), or none below `min_share_pct`."""
    total = facts.idle_by_owner(frame)[cause] if total_us is None else total_us
    per_step, share = cost(frame, total)
    if share < min_share_pct:
        return []
    n = int((facts.gap_owners(frame) == cause).sum())
    evidence = {
        "idle_us_total": round(total, 1),
        "gaps": n,
        "gaps_per_step": round(n / max(len(frame.steps), 1), 1),
        "largest_gaps": gap_evidence(frame, cause),
        **(extra or {}),
    }
    return [
        Finding(
            code,
            kind,
            severity_for_share(share),
            title.format(share=share, per_step=per_step),
            per_step,
            share,
            evidence,
            fix,
        )
    ]


def host_us_of_kernels(frame: TraceFrame, removed: pd.DataFrame) -> float:
    """Host µs per trace that dispatching the kernels a fix removes (rows of frame.gpu_ops, with
    the cpu_op that launched each as `owner`) took: each kernel's op (`owner`), or in
    backward the autograd node that ran it where that node runs no matrix work (fused code
    absorbs the node, its bookkeeping too; AddmmBackward0 around a bias gradient's sum, or
    CudnnRnnBackward0 around one layout copy, stays to launch its products), counted once,
    less the profiler's share of host time. A launch call held up inside a span (longer than
    facts.BLOCKED_LAUNCH_US: a full queue, or a first launch loading its module; seen at 6.5 ms in
    one AccumulateGrad node whose twin took 42 µs) counts at the median launch: a fused kernel
    removes dispatch, not waits. Never more than the host's own work in the steps."""
    if not len(removed):
        return 0.0
    ops = frame.cpu_ops
    parent = ops["parent"].to_numpy()
    g = frame.gpu_ops
    node_of = nearest_ancestor(
        parent, g["op"].to_numpy(), name_mask(ops["name"], facts.ENGINE_NODE)
    )
    matrix = (matrix_owner(frame) >= 0) | name_mask(g["name"], facts.GEMM_KERNEL)
    runs_matrix = np.zeros(len(ops), dtype=bool)
    runs_matrix[node_of[matrix & (node_of >= 0)]] = True
    node = node_of[g.index.get_indexer(removed.index)]
    whole = (node >= 0) & ~runs_matrix[np.maximum(node, 0)]
    owners = removed["owner"].to_numpy()
    spans = np.unique(np.where(whole, node, owners))
    recorded = float(ops["dur"].to_numpy()[spans].sum())
    la = facts.launches(frame)
    wait = facts.launch_wait_us(la)
    held = np.flatnonzero(wait != 0)
    if len(held):
        in_span = np.zeros(len(ops), dtype=bool)
        in_span[spans] = True
        inside = nearest_ancestor(parent, la["op"].to_numpy()[held], in_span) >= 0
        recorded -= float(wait[held][inside].sum())
    n_steps = max(len(frame.steps), 1)
    host_us = max(recorded, 0.0) * (1.0 - facts.PROFILER_SHARE_OF_HOST_OP)
    return min(host_us, facts.host_time_us(frame) * n_steps)


def fused_step_saving_us(frame: TraceFrame, gpu_us: float, host_us: float) -> float:
    """What the step saves, per step, when a fix removes gpu_us of kernel time and host_us of
    host dispatch per step (fusion's chains, eager attention's kernels).

    Whether the host or the GPU sets the step's length hangs on the profiler's share of host
    time, known only within a range: off a GPU-bound step, promise the smaller of the two ends.
    At the highest share the host's saving shortens the step only by the idle it makes the GPU
    wait (as host_bound promises; DenseNet-121, GPU busy 92% of the synchronised step, was
    promised 12% from host dispatch that torch.compile, measured 22-54% slower, never gave
    back). Where the GPU is busy through the step it sets the step's length, and the kernel time
    removed is step time saved. Elsewhere the host's work may set it: facts.host_time_us is then
    an upper bound (waits in a full launch queue shorter than BLOCKED_LAUNCH_US go unseen), so
    promise no more than it allows (DenseNet-121 above)."""
    n_steps = max(len(frame.steps), 1)
    idle_high = facts.host_idle_at_high_profiler_share(frame, "launch_overhead", "host_bound")
    step_saved = gpu_us + min(host_us, idle_high / n_steps)
    if not facts.gpu_sets_step(frame):
        step_saved = min(step_saved, facts.step_saving_us(frame, gpu_us, host_us))
    return step_saved


def shape_changes(frame: TraceFrame, top: int = 3) -> list[dict]:
    """Ops at the top of the launching thread whose input shapes differ between steps."""
    ops = frame.cpu_ops
    sel = ops.loc[(ops["step"] >= 0) & (ops["depth"] <= 1) & ops["input_dims"].notna()]
    seen: dict[str, dict[int, str]] = {}
    for name, step, dims in zip(sel["name"].astype(object), sel["step"], sel["input_dims"]):
        seen.setdefault(name, {}).setdefault(int(step), str(dims))
    out = []
    for name, by_step in seen.items():
        shapes = list(dict.fromkeys(by_step.values()))
        if len(by_step) > 1 and len(shapes) > 1:
            out.append(
                {"op": name, "shapes_by_step": {s: d[:80] for s, d in list(by_step.items())[:3]}}
            )
    return out[:top]


def in_steps(frame: TraceFrame) -> np.ndarray:
    """Mask over CPU ops: the launching process's ops inside the steps (what
    facts.ops_in_steps counts)."""
    ops = frame.cpu_ops
    mt = facts.main_thread(frame)
    inside = ops["step"].to_numpy() >= 0
    return inside if mt is None else inside & (ops["pid"].to_numpy() == mt[0])


def forward_matmuls(frame: TraceFrame) -> pd.DataFrame:
    """The forward pass's outermost products of an activation by a weight matrix in the steps (no
    matmul or autograd-engine node above them; loss, metric and optimizer products too), each
    with its thread, start, row count (rows) and weight shape (weight). Worked out once a frame:
    expert-loop and prefix-recompute both read it."""
    cache = frame.__dict__.setdefault("_forward_matmuls", {})
    if "mm" not in cache:
        cache["mm"] = _forward_matmuls(frame)
    return cache["mm"]


def _forward_matmuls(frame: TraceFrame) -> pd.DataFrame:
    ops = frame.cpu_ops
    is_node = name_mask(ops["name"], facts.ENGINE_NODE)
    is_mm = ops["name"].isin(list(MATMUL_INPUTS)).to_numpy()
    parent = ops["parent"].to_numpy()
    # a grouped matmul is a product too: in FP32 PyTorch runs it as one aten::mm per expert
    # (holdout 86), a loop in PyTorch, not in the model's code
    grouped = name_mask(ops["name"], facts.GROUPED_MM)
    above = nearest_ancestor(parent, parent, is_mm | is_node | grouped) >= 0
    rows = np.flatnonzero(is_mm & ~above & ~is_node & in_steps(frame))
    names = ops["name"].astype(object).to_numpy()
    all_dims = ops["input_dims"].to_numpy()
    out = []
    for i in rows:
        dims = all_dims[i]
        a, w = MATMUL_INPUTS[names[i]]
        if not isinstance(dims, list) or len(dims) <= max(a, w):
            continue
        x, weight = dims[a], dims[w]
        # a weight is one matrix: a batched second operand ([..., k, n]: attention's q @ k^T)
        # is activations, whose row counts change with the stage, not with a router
        if not (
            isinstance(x, list) and isinstance(weight, list) and len(x) >= 2 and len(weight) == 2
        ) or not all(type(v) is int for v in x + weight):
            continue
        out.append((i, math.prod(x[:-1]), tuple(weight)))
    mm = pd.DataFrame(out, columns=["row", "rows", "weight"])
    at = mm["row"].to_numpy(dtype=np.int64)
    return mm.assign(
        step=ops["step"].to_numpy()[at],
        tid=ops["tid"].to_numpy()[at],
        ts=ops["ts"].to_numpy()[at],
    ).sort_values(["tid", "ts"], ignore_index=True)


def kernel_step_saving_us(
    frame: TraceFrame,
    gpu_saved: float,
    shorter: pd.Series,
    profiler_share: float,
    host_saved: float = 0.0,
) -> tuple[float, float | None]:
    """The step saving of kernels `shorter` by that much (gpu_saved in all, per step) with the
    host's work taken at `profiler_share`, and the replay's where it bounds it. GPU time saved
    shortens the step only where the GPU, not the host, sets its length; where the host and the
    GPU take turns (at syncs) that bound is too kind, since only the stretches the GPU sets get
    shorter: the replay says how many. host_saved: host work per step the same fix removes,
    with the syncs in it; the replay keeps every traced op and sync, so it cannot price that."""
    step_saved = facts.step_saving_us(frame, gpu_saved, host_saved, profiler_share=profiler_share)
    if facts.gpu_sets_step(frame) or host_saved > 0:
        return step_saved, None
    replayed = replay.gpu_saving_us(frame, shorter, profiler_share)
    return min(step_saved, replayed), replayed
