"""Activation checkpointing in one trace: the forward ops re-run inside the backward pass, their
time, FLOPs and the memory they allocate again."""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..trace import TraceFrame
from ..trace.frame import name_mask, nearest_ancestor, outermost
from .allocations import _cache, curve
from .steps import _op_roles

# Reentrant checkpointing names its autograd function; with_stack traces name the module.
# reentrant checkpointing runs each checkpointed block as this autograd Function
REENTRANT_MARKER = "CheckpointFunction"
CHECKPOINT_MARKERS = (REENTRANT_MARKER, "torch/utils/checkpoint.py")
# Autograd nodes by name (ReluBackward0, torch::autograd::CopySlices): one node can run another
# inside it, off any evaluate_function of its own (CopySlices runs the backward of an in-place op
# on a view: RAFT's in-place ReLUs on slices), which is backward work, never forward re-run.
AUTOGRAD_NODE = re.compile(r"Backward\d*$|^torch::autograd::")


@dataclass(frozen=True)
class StepRecompute:
    step: int
    ops: int  # outermost recomputed forward ops
    host_us: float  # their host time
    node_host_us: float  # host time of the backward nodes that ran them, less the nodes' own work
    gpu_us: float | None  # GPU time of the work they launched (None without GPU ops)
    alloc_bytes: int  # bytes they allocated that outlive them: re-materialised activations
    largest_segment_bytes: int  # the most re-materialised under one autograd node (held at once)


@dataclass(frozen=True)
class Recompute:
    present: bool
    markers: tuple[
        str, ...
    ]  # checkpoint names found in the trace (CheckpointFunction, checkpoint.py)
    op_names: tuple[tuple[str, int], ...]  # most frequent recomputed ops (name, count)
    steps: tuple[StepRecompute, ...]
    flops_per_step: (
        float | None
    )  # extra FLOPs (gemm/conv/attention), None without a FLOP model or shapes

    @property
    def reentrant(self) -> bool:
        """Reentrant checkpointing (its CheckpointFunction in the trace): the forward runs under
        no_grad, with no saved-tensor hooks."""
        return any(REENTRANT_MARKER in m for m in self.markers)

    def per_step(self, attr: str) -> float | None:
        vals = [getattr(s, attr) for s in self.steps]
        vals = [v for v in vals if v is not None]
        return float(np.mean(vals)) if vals else None


def recompute_rows(frame: TraceFrame) -> np.ndarray:
    """Mask of cpu_ops that re-run forward work inside the backward pass (with descendants)."""
    c = _cache(frame)
    if "recompute_rows" not in c:
        ops = frame.cpu_ops
        r = _op_roles(frame)
        rerun = (
            (ops["seq"].to_numpy() >= 0)
            & r["in_backward"]
            & ~r["evaluate_function"]
            & ~r["node"]
            & ~name_mask(ops["name"], AUTOGRAD_NODE)
        )
        # Children of a recomputed op belong to it even when they carry no Sequence number.
        c["recompute_rows"] = (
            nearest_ancestor(ops["parent"].to_numpy(), np.arange(len(ops)), rerun) >= 0
        )
    return c["recompute_rows"]


def recompute(frame: TraceFrame) -> Recompute:
    """Where activation checkpointing re-ran forward ops during backward, per step."""
    c = _cache(frame)
    if "recompute" in c:
        return c["recompute"]
    ops = frame.cpu_ops
    mark = recompute_rows(frame)
    markers = _checkpoint_markers(frame)
    parent = ops["parent"].to_numpy()
    rows = np.flatnonzero(outermost(parent, mark))
    names = ops["name"].astype(object).to_numpy()
    counts = pd.Series(names[rows]).value_counts().head(8) if len(rows) else pd.Series(dtype=int)
    steps = []
    n_steps = len(frame.steps)
    ostep = ops["step"].to_numpy()
    host = (
        np.bincount(
            ostep[rows][ostep[rows] >= 0],
            weights=ops["dur"].to_numpy()[rows][ostep[rows] >= 0],
            minlength=n_steps,
        )
        if len(rows)
        else np.zeros(n_steps)
    )
    nops = (
        np.bincount(ostep[rows][ostep[rows] >= 0], minlength=n_steps)
        if len(rows)
        else np.zeros(n_steps, int)
    )
    node_host = _recompute_node_host_us(frame, rows, n_steps)
    gpu = None
    g = frame.gpu_ops
    if len(g):
        op = g["op"].to_numpy()
        on = (op >= 0) & mark[np.maximum(op, 0)] & (g["step"].to_numpy() >= 0)
        gpu = np.bincount(
            g["step"].to_numpy()[on], weights=g["dur"].to_numpy()[on], minlength=n_steps
        )
    alloc, seg = _recompute_allocations(frame, rows, n_steps)
    for i in range(n_steps):
        if nops[i] == 0:
            continue
        steps.append(
            StepRecompute(
                int(frame.steps["step"].iloc[i]),
                int(nops[i]),
                round(float(host[i]), 3),
                round(float(node_host[i]), 3),
                None if gpu is None else round(float(gpu[i]), 3),
                int(alloc[i]),
                int(seg[i]),
            )
        )
    flops = _recompute_flops(frame, mark, n_steps) if len(rows) else None
    out = Recompute(
        bool(len(rows)) or bool(markers),
        markers,
        tuple((str(k), int(v)) for k, v in counts.items()),
        tuple(steps),
        flops,
    )
    c["recompute"] = out
    return out


def _recompute_node_host_us(frame: TraceFrame, rows: np.ndarray, n_steps: int) -> np.ndarray:
    """Per step: host µs of the backward nodes (evaluate_function spans) inside which forward
    ops were re-run, less the nodes' own backward work (their ops that are neither recomputed
    nor on the way to a recomputed op). What is left is the recompute and the checkpointing
    bookkeeping around it (unpack hooks, RNG and autocast state: Python the profiler records
    no op for); it goes with checkpointing. timm ConvNeXt-S: 60.8 ms per profiled step in
    these nodes, of which 35.0 in the recomputed ops and 4.8 in the nodes' own work."""
    ops = frame.cpu_ops
    parent = ops["parent"].to_numpy()
    ev = _op_roles(frame)["evaluate_function"]
    node = nearest_ancestor(parent, rows, ev)
    rows, node = rows[node >= 0], node[node >= 0]
    if not len(rows):
        return np.zeros(n_steps)
    # the ops from each recomputed op up to its node: the node's work goes on beside them
    on_path = np.zeros(len(ops), dtype=bool)
    cur = parent[rows]
    while len(cur):
        on_path[cur] = True
        cur = cur[~ev[cur]]
        cur = parent[cur]
        cur = cur[(cur >= 0) & ~on_path[np.maximum(cur, 0)]]
    mark = recompute_rows(frame)
    own = (parent >= 0) & on_path[np.maximum(parent, 0)] & ~mark & ~on_path
    nodes = np.unique(node)
    dur, step = ops["dur"].to_numpy(), ops["step"].to_numpy()
    total = np.zeros(n_steps)
    for sel, sign in ((nodes, 1.0), (np.flatnonzero(own), -1.0)):
        sel = sel[step[sel] >= 0]
        total += sign * np.bincount(step[sel], weights=dur[sel], minlength=n_steps)[:n_steps]
    return np.maximum(total, 0.0)


def forward_hook_us(frame: TraceFrame) -> float:
    """Host µs per step that the checkpointed forward's ops took beyond the same ops re-run in
    the backward: what checkpoint's saved-tensor pack hooks (Python run inside the op that saves
    a tensor, which the profiler records as that op's own time) added to the forward. Each
    recomputed op counts once, at (median forward time - median recompute time) of its name and
    input shapes, never below zero. The recompute runs the same ops on the same shapes under a
    lighter hook, so this is a floor on what the forward loses. 0 with reentrant checkpointing,
    which has no such hooks. timm EfficientViT-B2 (holdout
    81): 23 ms a profiled step, against 19-23 ms more forward op time than without
    checkpointing."""
    c = _cache(frame)
    if "forward_hook_us" in c:
        return c["forward_hook_us"]
    ops = frame.cpu_ops
    parent = ops["parent"].to_numpy()
    rerun = outermost(parent, recompute_rows(frame))
    forward = outermost(parent, _op_roles(frame)["forward"])
    total = 0.0
    if rerun.any() and forward.any() and not recompute(frame).reentrant:
        rows = np.flatnonzero(rerun | forward)  # keys for these rows only: traces run to millions
        key = ops["name"].iloc[rows].astype(str) + "|" + ops["input_dims"].iloc[rows].astype(str)
        dur = pd.Series(ops["dur"].to_numpy()[rows], index=key.to_numpy())
        fwd = dur[forward[rows]].groupby(level=0).median()
        rc = dur[rerun[rows]].groupby(level=0).agg(["median", "count"])
        extra = (fwd.reindex(rc.index) - rc["median"]).clip(lower=0.0).fillna(0.0)
        total = float((extra * rc["count"]).sum()) / max(len(frame.steps), 1)
    c["forward_hook_us"] = total
    return total


def _checkpoint_markers(frame: TraceFrame) -> tuple[str, ...]:
    """Names in the trace that only checkpointing writes (all tables share one name list)."""
    found: list[str] = []
    for table in (frame.cpu_ops, frame.python, frame.annotations):
        if not len(table):
            continue
        codes = table["name"].cat.codes.to_numpy()
        used = table["name"].cat.categories[np.unique(codes[codes >= 0])]
        found += [str(n) for n in used if any(m in n for m in CHECKPOINT_MARKERS)]
    return tuple(dict.fromkeys(found))[:8]


def _recompute_allocations(
    frame: TraceFrame, rows: np.ndarray, n_steps: int
) -> tuple[np.ndarray, np.ndarray]:
    """Per step: bytes allocated inside recomputed ops on the analysed device that outlive the
    op (re-materialised activations), and the most under one outermost autograd node (the part
    alive at once even with checkpointing)."""
    total = np.zeros(n_steps)
    largest = np.zeros(n_steps)
    cv = curve(frame)
    if cv is None or not len(rows) or not len(cv):
        return total, largest
    ops = frame.cpu_ops
    parent = ops["parent"].to_numpy()
    root = nearest_ancestor(parent, rows, parent < 0)  # each row's outermost op
    ots, oend = ops["ts"].to_numpy()[rows], ops["end"].to_numpy()[rows]
    opid, otid = ops["pid"].to_numpy()[rows], ops["tid"].to_numpy()[rows]
    owner = np.full(len(cv), -1)
    for pid, tid in set(zip(opid.tolist(), otid.tolist())):
        on = np.flatnonzero((opid == pid) & (otid == tid))
        on = on[np.argsort(ots[on], kind="stable")]
        ev = np.flatnonzero((cv.pid == pid) & (cv.tid == tid) & (cv.delta > 0))
        j = np.searchsorted(ots[on], cv.ts[ev], side="right") - 1
        hit = (j >= 0) & (cv.ts[ev] <= oend[on][np.maximum(j, 0)])
        owner[ev[hit]] = on[j[hit]]
    # Only what outlives the recomputed op is an activation kept for backward; the rest were
    # temporaries the plain run would not have kept either.
    outlives = cv.freed_at() > oend[np.maximum(owner, 0)]
    ok = (owner >= 0) & (cv.step >= 0) & outlives
    if not ok.any():
        return total, largest
    step = cv.step[ok]
    total = np.bincount(step, weights=cv.delta[ok], minlength=n_steps)
    by_seg = pd.Series(cv.delta[ok]).groupby([step, root[owner[ok]]]).sum()
    best = by_seg.groupby(level=0).max()
    largest[best.index.to_numpy()] = best.to_numpy()
    return total, largest


def _recompute_flops(frame: TraceFrame, mark: np.ndarray, n_steps: int) -> float | None:
    """Extra matrix FLOPs per step (op_flops.compute_ops) of the recomputed ops, from the FLOP model
    when it is there and the trace recorded shapes."""
    try:
        from ..op_flops import compute_ops
    except ImportError:
        return None
    ops = compute_ops(frame)
    if not len(ops):
        return None
    rows = ops["row"].to_numpy().astype(np.int64)
    return float(ops["flops"].to_numpy()[mark[rows]].sum()) / max(n_steps, 1)
