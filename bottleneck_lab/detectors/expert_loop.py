"""Mixture-of-experts layers that run their experts one at a time, in a host loop (expert-loop).

Symptom: a weight shape is multiplied, many times a step, by groups of rows of different sizes,
one group after another, and the groups add up to a whole multiple of the step's token count
(each token's top-k experts): the shape an eager mixture-of-experts layer leaves. Between the
products the host gathers each expert's tokens (often reading their count or positions from the
GPU: nonzero, torch.where(mask), .tolist(), each a sync) and scatters the results back. The GPU
idles while the host walks the loop, forward and backward, and the loop is most of the host's
work.
Likely cause: an eager MoE implementation: transformers' "eager" experts backend, a Python
for-loop over experts, torchtitan's for-loop reference.
Fix: run each projection of all the experts as one grouped GEMM: load the HF model with
experts_implementation="grouped_mm"; in your own code sort the tokens by expert and call
torch._grouped_mm (PyTorch 2.9+) with the per-expert counts as GPU offsets (torchtitan's
GroupedExperts), or use a grouped-GEMM MoE kernel (MegaBlocks, ScatterMoE).
Estimate: the loop's share of the host's recorded ops in the steps (its forward span, and the
backward nodes that carry the sequence numbers of the forward ops in it) of the host's own work
(at the profiler's low share) is host time the fix removes; the step saves it only down to the
GPU's busy time, since the loop's matrix work stays (facts.step_saving_us). Not caught: a loop
whose experts all get the same number of rows (capacity padding; one token each at batch-1
decoding), or whose groups drop tokens.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from .. import facts
from ..diagnosis import Finding, severity_for_share
from ..trace import TraceFrame
from ..trace.frame import name_mask, nearest_ancestor
from ..trace.synth import TraceBuilder
from ._common import cost, forward_matmuls, in_steps, when
from ._examples import BF16, BF16_GEMM, launch, steps

CODE = "expert-loop"
KIND = "host_bound"
REQUIRES = {"kernels", "steps", "shapes"}

# A router sends each token to at most this many experts.
MAX_EXPERTS_PER_TOKEN = 16


@dataclass(frozen=True)
class Config:
    # a weight shape multiplied in one step by at least this many row counts that no dense
    # product of the step has, none of them in more than half of its products, is a loop over
    # groups of rows: a dense model multiplies each weight shape by one row count (batch x
    # sequence), or by two or three (an encoder's and a decoder's); an expert loop by one count
    # per expert, shared only by the products of one expert (gate and up projections)
    min_groups_count: int = 4
    min_share_pct: float = 3.0


def _grouped_weights(g: pd.DataFrame, cfg: Config) -> set:
    """Weight shapes of one step's products `g` that meet min_groups_count row counts, none in
    more than half of their products."""
    out = set()
    for weight, rows in g.groupby("weight")["rows"]:
        counts = rows.value_counts()
        if len(counts) >= cfg.min_groups_count and 2 * int(counts.iat[0]) <= len(rows):
            out.add(weight)
    return out


def _routed(run: pd.DataFrame, dense: set[int]) -> bool:
    """Whether each weight's groups in `run` add up to a whole multiple (at most
    MAX_EXPERTS_PER_TOKEN) of a row count that a dense product of the step has: every token
    went to k experts, as a router sends them."""
    for total in run.groupby("weight")["rows"].sum():
        if not any(total % t == 0 and total // t <= MAX_EXPERTS_PER_TOKEN for t in dense):
            return False
    return True


def _loops(mm: pd.DataFrame, cfg: Config) -> list[pd.DataFrame]:
    """Expert loops: per step and thread, runs of grouped products (a weight shape of
    _grouped_weights, at a row count no dense product of the step has) with no other product
    between them, whose groups a router could have made (_routed)."""
    mm = mm.assign(looped=False)
    dense_by_step = {}
    for step, g in mm.groupby("step"):
        grouped = _grouped_weights(g, cfg)
        dense = set(g.loc[~g["weight"].isin(grouped), "rows"])
        candidate = g["weight"].isin(grouped) & ~g["rows"].isin(dense)
        # the same test on what is left: a dense product sharing an expert's shape (attention's
        # square projections, a shared expert) neither makes nor hides a loop
        again = _grouped_weights(g.loc[candidate], cfg)
        mm.loc[g.index[candidate & g["weight"].isin(again)], "looped"] = True
        dense_by_step[step] = dense
    looped = mm["looped"]
    boundary = (
        looped.ne(looped.shift())
        | mm["step"].ne(mm["step"].shift())
        | mm["tid"].ne(mm["tid"].shift())
    )
    out = []
    for _, run in mm.loc[looped].groupby(boundary.cumsum()[looped]):
        if run["rows"].nunique() >= cfg.min_groups_count and _routed(
            run, dense_by_step[run["step"].iat[0]]
        ):
            out.append(run)
    return out


def _loop_ops(frame: TraceFrame, loops: list[pd.DataFrame], is_node: np.ndarray) -> dict:
    """CPU ops the loops recorded over all steps, forward and backward, and each loop's span. A
    loop's forward is every op of its thread in the steps (backward work left out) from its first
    product's start to its last one's end, scaled by n/(n - 1) for its n row counts, one per
    iteration (that span misses one iteration's gather and scatter); its backward, the
    autograd-engine nodes carrying the sequence numbers its forward ops recorded, with everything
    they ran."""
    ops = frame.cpu_ops
    ts, end = ops["ts"].to_numpy(), ops["end"].to_numpy()
    tid = ops["tid"].to_numpy()
    seq = ops["seq"].to_numpy() if "seq" in ops else np.full(len(ops), -1)
    # the autograd-engine node each op runs under (itself if it is one): one forward op's backward
    node_of = nearest_ancestor(ops["parent"].to_numpy(), np.arange(len(ops)), is_node)
    counted = in_steps(frame)
    forward_ops = np.flatnonzero(counted & (node_of < 0))
    by_thread = {}
    for t in np.unique(tid[forward_ops]):
        rows = forward_ops[tid[forward_ops] == t]
        rows = rows[np.argsort(ts[rows], kind="stable")]
        by_thread[t] = (ts[rows], seq[rows])
    forward, spans, ranges = 0.0, [], []
    for run in loops:
        first, last = int(run["row"].iat[0]), int(run["row"].iat[-1])
        starts, seqs = by_thread[tid[first]]
        lo, hi = np.searchsorted(starts, [ts[first], end[last]], side="left")
        n = int(run["rows"].nunique())
        forward += float(hi - lo) * n / max(n - 1, 1)
        spans.append((float(ts[first]), float(end[last])))
        numbered = seqs[lo:hi][seqs[lo:hi] >= 0]
        if len(numbered):
            ranges.append((int(numbered.min()), int(numbered.max())))
    nodes = np.flatnonzero(is_node & counted & (seq >= 0))
    matched = np.zeros(len(ops), dtype=bool)
    if ranges and len(nodes):
        ranges.sort()
        lows = np.array([r[0] for r in ranges])
        highs = np.array([r[1] for r in ranges])
        j = np.searchsorted(lows, seq[nodes], side="right") - 1
        hit = (j >= 0) & (seq[nodes] <= highs[np.maximum(j, 0)])
        matched[nodes[hit]] = True
    backward = counted & (node_of >= 0) & matched[np.maximum(node_of, 0)]
    return {
        "ops": forward + float(backward.sum()),
        "spans": spans,
        "backward_nodes": int(matched.sum()),
    }


def detect(frame: TraceFrame, cfg: Config):
    # without marked steps the whole trace is one "step", and requests or micro-batches of
    # different lengths could read as groups
    if not frame.has_steps or not frame.has_gpu:
        return []
    is_node = name_mask(frame.cpu_ops["name"], facts.ENGINE_NODE)
    mm = forward_matmuls(frame)
    if not len(mm):
        return []
    loops = _loops(mm, cfg)
    all_ops = facts.ops_in_steps(frame)
    if not loops or not all_ops:
        return []
    n = max(facts.step_stats(frame).count, 1)
    found = _loop_ops(frame, loops, is_node)
    # the loop's share of the host's recorded ops, of the host's own work, comes off the host;
    # the GPU keeps its work, so the step saves it only down to the GPU's busy time
    loop_share = min(found["ops"] / all_ops, 1.0)
    host_saving = loop_share * facts.host_time_us(frame)
    saved = facts.step_saving_us(frame, 0.0, host_saving)
    per_step, share = cost(frame, saved * n)
    if share < cfg.min_share_pct:
        return []
    calls = pd.concat(loops)
    starts, ends = np.array(found["spans"]).T
    syncs = facts.sync_calls(frame)
    sync_ts = np.sort(syncs["ts"].to_numpy()) if len(syncs) else np.zeros(0)
    in_loops = int(
        (np.searchsorted(sync_ts, ends, "left") - np.searchsorted(sync_ts, starts, "left")).sum()
    )
    weights = sorted(set(calls["weight"]))
    names = frame.cpu_ops["name"].astype(object).to_numpy()[calls["row"].to_numpy()]
    evidence = {
        "op": pd.Series(names).value_counts().index[0],  # the looped product, as Perfetto names it
        "looped_matmuls_per_step": round(len(calls) / n, 1),
        "weight_shapes": [f"{w[0]} x {w[1]}" for w in weights[:6]],  # the operand as recorded
        "rows_min": int(calls["rows"].min()),
        "rows_max": int(calls["rows"].max()),
        "loops_per_step": round(len(loops) / n, 1),
        "loop_ops_per_step": round(found["ops"] / n, 1),
        "backward_nodes_matched_per_step": round(found["backward_nodes"] / n, 1),
        "loop_share_of_host_ops_pct": round(100 * loop_share, 1),
        "syncs_in_loops_per_step": round(in_loops / n, 1),
        "host_time_us_per_step": round(facts.host_time_us(frame), 1),
        "gpu_busy_us_per_step": round(facts.gpu_time_us(frame), 1),
        "first_loop": when(frame, float(starts.min())),
    }
    reads = f", reading the GPU {in_loops / n:.0f} times a step" if in_loops else ""
    per_step_loops = len(loops) / n
    title = (
        f"Experts run one at a time (an eager mixture-of-experts layer): {per_step_loops:.0f} "
        f"host loop{'s' if per_step_loops >= 1.5 else ''} a step, {len(calls) / n:.0f} products "
        f"on {len(weights)} weight shape{'s' if len(weights) > 1 else ''} with groups of "
        f"{evidence['rows_min']:,}-{evidence['rows_max']:,} rows, {100 * loop_share:.0f}% of the "
        f"host's ops{reads}; grouped GEMMs would save ~{share:.0f}% of the step"
    )
    fix = (
        "Run each projection of all the experts as one grouped GEMM: load the HF model with "
        "experts_implementation='grouped_mm'; in your own code sort the tokens by expert and call "
        "torch._grouped_mm (PyTorch 2.9+) with the per-expert counts as GPU offsets "
        "(torchtitan's GroupedExperts), or use a grouped-GEMM MoE kernel (MegaBlocks, "
        "ScatterMoE). If the groups are not experts (per-type or per-adapter weights), batch them "
        "into one grouped or segment matmul the same way. host_bound, sync_stall and "
        "launch_overhead, where reported, count parts of the same idle."
    )
    return [Finding(CODE, KIND, severity_for_share(share), title, per_step, share, evidence, fix)]


# --- example: positive (bad=True) and negative trace; `bottleneck-lab explain` shows it -------
EXPERTS = 8
EXPERT_ROWS = (700, 310, 520, 150, 880, 260, 430, 600)  # tokens the router sent to each expert
TOKENS = sum(EXPERT_ROWS) // 2  # each token went to its top 2 experts


def _linear(b: TraceBuilder, t: float, start: float, rows: int, weight: tuple[int, int]) -> None:
    """An aten::linear of [rows, weight[1]] by weight^T, its 60 µs BF16 GEMM run at start."""
    args = {
        "Input Dims": [[rows, weight[1]], list(weight), []],
        "Input type": [BF16, BF16, ""],
        "Concrete Inputs": ["", "", ""],
    }
    launch(b, t, start, 60.0, name="aten::linear", kernel=BF16_GEMM, op_args=args)


def example(bad: bool) -> TraceBuilder:
    """One MoE layer per step: a router (an aten::linear of TOKENS rows onto EXPERTS scores),
    then EXPERTS aten::linear ops on a [rows, 1024] x [2048, 1024]^T weight, one after another,
    each launching a 60 µs BF16 GEMM. Bad: each expert gets its own number of rows
    (EXPERT_ROWS, twice TOKENS in all: top-2 routing), and before each product the host either
    reads the count (a cudaStreamSynchronize that waits for the previous GEMM) or gathers the
    rows (a 50 µs aten::index), so the GPU idles between experts, the idle split between
    sync_stall and host_bound as on a real eager MoE. Good: a dense layer repeated EXPERTS
    times, every product on the same 512 rows, launched back to back."""
    b = TraceBuilder()
    for t0 in steps(b, cpu_us=800.0 if bad else 100.0):
        t = gpu_free = t0 + 10
        _linear(b, t, t + 4, TOKENS if bad else 512, (EXPERTS, 1024))
        t, gpu_free = t + 10, t + 64
        for e in range(EXPERTS):
            if bad and e % 2 == 0:
                done = max(t + 5, gpu_free) + 5
                b.runtime("cudaStreamSynchronize", t, done - t)
                t = done
            elif bad:
                b.cpu_op("aten::index", t, 50.0)
                t += 50
            start = max(t + 4, gpu_free)
            _linear(b, t, start, EXPERT_ROWS[e] if bad else 512, (2048, 1024))
            gpu_free = start + 60.0
            t += 10
    return b
