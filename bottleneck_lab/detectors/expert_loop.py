"""Mixture-of-experts layers that run their experts one at a time, in a host loop (expert-loop).

Symptom: the same weight shapes are multiplied, many times a step, by inputs whose row counts all
differ (each expert's share of the tokens), one expert after another; between the matmuls the
host gathers each expert's tokens (often reading their count or positions from the GPU: nonzero,
torch.where(mask), .tolist(), each a sync) and scatters the results back. The GPU idles while
the host walks the loop, forward and backward: the step is the host's, and the loop is most of
its work.
Likely cause: an eager MoE implementation: transformers' "eager" experts backend, a Python
for-loop over experts, torchtitan's for-loop reference.
Fix: run each projection of all the experts as one grouped GEMM: load the HF model with
experts_implementation="grouped_mm"; in your own code sort the tokens by expert and call
torch._grouped_mm with the per-expert counts as GPU offsets (torchtitan's GroupedExperts,
use_grouped_mm=True), or use a grouped-GEMM MoE kernel (MegaBlocks, ScatterMoE).
Estimate: the loop's share of the host's recorded ops (its forward, and the backward nodes that
carry the forward ops' sequence numbers) of the host's own work (at the profiler's low share) is
host time the fix removes; the step saves it only down to the GPU's busy time, since the loop's
matrix work stays (facts.step_saving_us).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from .. import facts
from ..diagnosis import Finding, severity_for_share
from ..trace import TraceFrame
from ..trace.frame import name_mask
from ..trace.synth import TraceBuilder
from ._common import cost, when
from ._examples import BF16, BF16_GEMM, launch, steps

CODE = "expert-loop"
KIND = "host_bound"
REQUIRES = {"steps", "shapes"}

# Recorded matrix products and which of their inputs are (activation, weight).
MATMUL_INPUTS = {"aten::linear": (0, 1), "aten::mm": (0, 1), "aten::matmul": (0, 1)}
MATMUL_INPUTS["aten::addmm"] = (1, 2)


@dataclass(frozen=True)
class Config:
    # a weight shape multiplied at least this many times a step by this many different row
    # counts, none of them in more than half of its products, is a loop over groups of rows: a
    # dense model multiplies each weight shape by one row count (batch x sequence), or by two or
    # three (an encoder's and a decoder's); an expert loop by one count per expert, shared only
    # by the products of one expert (gate and up projections)
    min_groups_count: int = 4
    min_share_pct: float = 3.0


def _flag_below(frame: TraceFrame, marks: np.ndarray) -> np.ndarray:
    """For each CPU op, whether an op above it (an ancestor) is marked."""
    ops = frame.cpu_ops
    parent = ops["parent"].to_numpy()
    depth = ops["depth"].to_numpy()
    below = np.zeros(len(ops), dtype=bool)
    for d in range(1, int(depth.max(initial=0)) + 1):
        at = np.flatnonzero(depth == d)
        p = parent[at]
        ok = p >= 0
        below[at[ok]] = below[p[ok]] | marks[p[ok]]
    return below


def _engine_node_of(frame: TraceFrame, is_node: np.ndarray) -> np.ndarray:
    """For each CPU op, the row of the autograd-engine node it runs under (itself if it is one),
    or -1: the backward work of one forward op."""
    ops = frame.cpu_ops
    parent = ops["parent"].to_numpy()
    depth = ops["depth"].to_numpy()
    node = np.where(is_node, np.arange(len(ops)), -1)
    for d in range(1, int(depth.max(initial=0)) + 1):
        at = np.flatnonzero((depth == d) & ~is_node)
        p = parent[at]
        ok = p >= 0
        node[at[ok]] = node[p[ok]]
    return node


def _forward_matmuls(frame: TraceFrame) -> pd.DataFrame:
    """The forward pass's outermost products of an activation by a weight matrix in the steps (no
    matmul or autograd-engine node above them), each with its row count (rows) and weight shape
    (weight)."""
    ops = frame.cpu_ops
    names = ops["name"].astype(object).to_numpy()
    is_mm = np.isin(names, list(MATMUL_INPUTS))
    is_node = name_mask(ops["name"], facts.ENGINE_NODE)
    above = _flag_below(frame, is_mm | is_node)
    rows = np.flatnonzero(is_mm & ~above & ~is_node & (ops["step"].to_numpy() >= 0))
    all_dims = ops["input_dims"].to_numpy()
    steps = ops["step"].to_numpy()
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
        ) or not all(isinstance(v, int) for v in x + weight):
            continue
        out.append((i, int(steps[i]), math.prod(x[:-1]), tuple(weight)))
    return pd.DataFrame(out, columns=["row", "step", "rows", "weight"])


def _looped(mm: pd.DataFrame, cfg: Config) -> np.ndarray:
    """Mask over `mm`: products whose weight shape, in their step, meets min_groups_count different
    row counts, none in more than half of its products (a loop over groups of rows)."""
    looped = np.zeros(len(mm), dtype=bool)
    for _, g in mm.groupby(["step", "weight"]):
        counts = g["rows"].value_counts()
        if len(counts) >= cfg.min_groups_count and 2 * int(counts.iat[0]) <= len(g):
            looped[mm.index.get_indexer(g.index)] = True
    return looped


def _loop_ops(frame: TraceFrame, mm: pd.DataFrame, looped: np.ndarray) -> tuple[float, list]:
    """CPU ops the loops recorded over all steps, and each loop's (start, end, calls): a loop is a
    run of looped products with no other product between them. Its forward is every op of its
    thread from the first product's start to the last one's end, scaled by n/(n - 1) for its n
    row counts, one per iteration (that span misses one iteration's gather and scatter); its
    backward, the autograd-engine nodes carrying the sequence numbers its forward ops recorded,
    with everything they ran."""
    ops = frame.cpu_ops
    ts, end = ops["ts"].to_numpy(), ops["end"].to_numpy()
    thread = ops["pid"].astype(str).to_numpy() + ":" + ops["tid"].astype(str).to_numpy()
    seq = ops["seq"].to_numpy() if "seq" in ops else np.full(len(ops), -1)
    is_node = name_mask(ops["name"], facts.ENGINE_NODE)
    mm = mm.assign(looped=looped, ts=ts[mm["row"]]).sort_values("ts")
    run_id = (mm["looped"] != mm["looped"].shift()).cumsum()
    forward = 0.0
    ranges: list[tuple[int, int]] = []
    loops = []
    for _, run in mm.loc[mm["looped"]].groupby(run_id[mm["looped"]]):
        first, last = int(run["row"].iat[0]), int(run["row"].iat[-1])
        iterations = int(run["rows"].nunique())
        inside = (thread == thread[first]) & (ts >= ts[first]) & (ts < end[last])
        forward += float(inside.sum()) * iterations / max(iterations - 1, 1)
        numbered = seq[inside & (seq >= 0)]
        if len(numbered):
            ranges.append((int(numbered.min()), int(numbered.max())))
        loops.append((float(ts[first]), float(end[last]), len(run)))
    nodes = np.flatnonzero(is_node & (ops["step"].to_numpy() >= 0))
    in_loop = np.zeros(len(nodes), dtype=bool)
    for lo, hi in ranges:
        in_loop |= (seq[nodes] >= lo) & (seq[nodes] <= hi)
    backward = int(np.isin(_engine_node_of(frame, is_node), nodes[in_loop]).sum())
    return forward + backward, loops


def detect(frame: TraceFrame, cfg: Config):
    if not len(frame.steps):
        return []
    mm = _forward_matmuls(frame)
    if not len(mm):
        return []
    looped = _looped(mm, cfg)
    if not looped.any():
        return []
    n = max(facts.step_stats(frame).count, 1)
    loop_ops, loops = _loop_ops(frame, mm, looped)
    all_ops = facts.ops_in_steps(frame)
    if not all_ops:
        return []
    # the loop's share of the host's recorded ops, of the host's own work, comes off the host;
    # the GPU keeps its work, so the step saves it only down to the GPU's busy time
    loop_share = min(loop_ops / all_ops, 1.0)
    host_saving = loop_share * facts.host_time_us(frame)
    saved = facts.step_saving_us(frame, 0.0, host_saving)
    per_step, share = cost(frame, saved * n)
    if share < cfg.min_share_pct:
        return []
    calls = mm.loc[looped]
    syncs = facts.sync_calls(frame)
    sync_ts = syncs["ts"].to_numpy() if len(syncs) else np.zeros(0)
    in_loops = sum(int(((sync_ts >= s) & (sync_ts < e)).sum()) for s, e, _ in loops)
    weights = sorted({w for w in calls["weight"]})
    names = frame.cpu_ops["name"].astype(object).to_numpy()[calls["row"].to_numpy()]
    evidence = {
        "op": pd.Series(names).value_counts().index[0],  # the looped product, as Perfetto names it
        "looped_matmuls_per_step": round(len(calls) / n, 1),
        "weight_shapes": [list(w) for w in weights[:6]],
        "rows_min": int(calls["rows"].min()),
        "rows_max": int(calls["rows"].max()),
        "loops_per_step": round(len(loops) / n, 1),
        "loop_ops_per_step": round(loop_ops / n, 1),
        "loop_share_of_host_ops_pct": round(100 * loop_share, 1),
        "syncs_in_loops_per_step": round(in_loops / n, 1),
        "host_time_us_per_step": round(facts.host_time_us(frame), 1),
        "gpu_busy_us_per_step": round(facts.gpu_time_us(frame), 1),
        "first_loop": when(frame, loops[0][0]),
    }
    reads = f", reading the GPU {in_loops / n:.0f} times a step" if in_loops else ""
    title = (
        f"Mixture-of-experts layers run their experts one at a time: {len(calls) / n:.0f} "
        f"matmuls a step on {len(weights)} weight shape{'s' if len(weights) > 1 else ''}, each on "
        "a different number of rows "
        f"({evidence['rows_min']:,}-{evidence['rows_max']:,}), in a host loop that is "
        f"{100 * loop_share:.0f}% of the host's ops{reads}; grouped GEMMs would save ~{share:.0f}% "
        "of the step"
    )
    fix = (
        "Run each projection of all the experts as one grouped GEMM: load the HF model with "
        "experts_implementation='grouped_mm'; in your own code sort the tokens by expert and call "
        "torch._grouped_mm with the per-expert counts as GPU offsets (torchtitan's GroupedExperts), "
        "or use a grouped-GEMM MoE kernel (MegaBlocks, ScatterMoE). host_bound, sync_stall and "
        "launch_overhead, where reported, count parts of the same idle."
    )
    return [Finding(CODE, KIND, severity_for_share(share), title, per_step, share, evidence, fix)]


# --- example: positive (bad=True) and negative trace; `bottleneck-lab explain` shows it -------
EXPERTS = 8
EXPERT_ROWS = (700, 310, 520, 150, 880, 260, 430, 600)  # tokens the router sent to each expert


def example(bad: bool) -> TraceBuilder:
    """One MoE layer per step: EXPERTS aten::linear ops on a [rows, 1024] x [2048, 1024]^T
    weight, one after another, each launching a 60 µs BF16 GEMM. Bad: each expert gets its own
    number of rows (EXPERT_ROWS), and before each product the host either reads the count (a
    cudaStreamSynchronize that waits for the previous GEMM) or gathers the rows (a 50 µs
    aten::index), so the GPU idles between experts, the idle split between sync_stall and
    host_bound as on a real eager MoE. Good: a dense layer repeated EXPERTS times, every
    product on the same 512 rows, launched back to back."""
    b = TraceBuilder()
    for t0 in steps(b, cpu_us=800.0 if bad else 100.0):
        t = gpu_free = t0 + 10
        for e in range(EXPERTS):
            if bad and e % 2 == 0:
                done = max(t + 5, gpu_free) + 5
                b.runtime("cudaStreamSynchronize", t, done - t)
                t = done
            elif bad:
                b.cpu_op("aten::index", t, 50.0)
                t += 50
            args = {
                "Input Dims": [[EXPERT_ROWS[e] if bad else 512, 1024], [2048, 1024], []],
                "Input type": [BF16, BF16, ""],
                "Concrete Inputs": ["", "", ""],
            }
            start = max(t + 4, gpu_free)
            launch(b, t, start, 60.0, name="aten::linear", kernel=BF16_GEMM, op_args=args)
            gpu_free = start + 60.0
            t += 10
    return b
