"""The FLOP models (flops/) applied to a trace: each recorded op's FLOPs and bytes (op_costs,
compute_ops, and which op launched each kernel), and how much of the GPU an op's matrix work can
fill (work_fill, median_fill). facts reads median_fill to attribute idle time, so this module
sits below facts; efficiency builds MFU and the roofline on it."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

from .device import sm_count
from .flops.models import (
    BATCH_NORM_OPS,
    COMPUTE_CATEGORIES,
    MATRIX_OPS,
    counted_op_costs,
    memory_bound_category,
)
from .trace import TraceFrame
from .trace.frame import any_below, name_mask, nearest_ancestor

# Kernel names that say an FP32 op ran on tensor cores in TF32 (cuBLAS/CUTLASS/cuDNN naming).
TF32_KERNEL = re.compile(r"tf32|s1688|s16816|tensorop_s|_f32f32_tf32", re.IGNORECASE)

# The precision a kernel computes in, as its name says (cuBLAS and cuBLASLt's nvjet, CUTLASS,
# cuDNN, xformers' fmha, PyTorch's templated kernels), for traces without recorded shapes. Tried
# in this order: "bf16" holds "f16", and half-precision kernels name the FP32 they accumulate in
# ("bf16f32_f32", "<__nv_bfloat16, __nv_bfloat16, float>"). AMD's Tensile names are not read.
KERNEL_DTYPES = (
    ("bf16", re.compile(r"bf16|bfloat16|nvjet_sm\d+_tst_", re.IGNORECASE)),
    (
        "fp16",
        re.compile(r"f16|__half|c10::Half|nvjet_sm\d+_hsh_|h884|h1688|h16816|hmma", re.IGNORECASE),
    ),
    ("tf32", TF32_KERNEL),
    ("fp64", re.compile(r"dgemm|f64f64_f64f64|_d884gemm|_d16816gemm|\bdouble\b", re.IGNORECASE)),
    ("fp32", re.compile(r"sgemm|scudnn|ffma|f32f32_f32f32|_f32_|\bfloat\b", re.IGNORECASE)),
)


def _cache(frame: TraceFrame) -> dict:
    return frame.__dict__.setdefault("_efficiency", {})


def _launched(frame: TraceFrame) -> np.ndarray:
    """Per cpu_op: did it, or an op inside it, launch any GPU work?"""
    ops = frame.cpu_ops
    hit = np.zeros(len(ops), dtype=bool)
    cur = frame.gpu_ops["op"].to_numpy()
    cur = np.unique(cur[cur >= 0])
    parent = ops["parent"].to_numpy()
    while len(cur):
        new = cur[~hit[cur]]
        hit[new] = True
        cur = parent[new]
        cur = cur[cur >= 0]
    return hit


def op_costs(frame: TraceFrame) -> pd.DataFrame:
    """One row per cpu_op whose cost enters a step total: row, step, flops, bytes, dtype,
    category, and flopcountermode_extra (what FlopCounterMode counts beyond the op's work)."""
    c = _cache(frame)
    if "ops" in c:
        return c["ops"]
    ops = frame.cpu_ops
    cols = ["row", "step", "flops", "bytes", "dtype", "category", "flopcountermode_extra"]
    if not len(ops) or not ops["input_dims"].notna().any():
        c["ops"] = pd.DataFrame(columns=cols)
        return c["ops"]
    sel = np.flatnonzero(ops["input_dims"].notna().to_numpy() & (ops["step"].to_numpy() >= 0))
    launched = _launched(frame) if frame.has_gpu else None
    names = ops["name"].astype(object).to_numpy()
    ts, dur, tid = ops["ts"].to_numpy(), ops["dur"].to_numpy(), ops["tid"].to_numpy()
    dims, types, conc = (
        ops["input_dims"].to_numpy(),
        ops["input_type"].to_numpy(),
        ops["concrete_inputs"].to_numpy(),
    )
    records = [
        (
            names[i],
            ts[i],
            dur[i],
            tid[i],
            dims[i],
            types[i],
            conc[i],
            None if launched is None else bool(launched[i]),
        )
        for i in sel
    ]
    counted = counted_op_costs(records)
    rows = [int(sel[i]) for i, _ in counted]
    c["ops"] = pd.DataFrame(
        {
            "row": rows,
            "step": ops["step"].to_numpy()[rows] if rows else [],
            "flops": [cost.flops for _, cost in counted],
            "bytes": [cost.bytes for _, cost in counted],
            "dtype": [cost.dtype or "unknown" for _, cost in counted],
            "category": [cost.category for _, cost in counted],
            "flopcountermode_extra": [cost.flopcountermode_extra for _, cost in counted],
        },
        columns=cols,
    )
    return c["ops"]


def compute_ops(frame: TraceFrame) -> pd.DataFrame:
    """Ops carrying matrix FLOPs (matmul, conv, attention, cuDNN recurrent layers). An FP32 op whose kernels run mostly on tensor
    cores in TF32 (cuDNN does so by default for convolutions) gets dtype "tf32", so it is
    measured against the TF32 peak, not the far lower FP32 one."""
    c = _cache(frame)
    if "compute" in c:
        return c["compute"]
    oc = op_costs(frame)
    ops = oc.loc[oc["category"].isin(COMPUTE_CATEGORIES) & (oc["flops"] > 0)].copy()
    if len(ops) and frame.has_gpu and (ops["dtype"] == "fp32").any():
        g = frame.gpu_ops
        kern = (g["kind"] == "kernel").to_numpy()
        owner = _flop_owner(frame, ops["row"].to_numpy())
        c["owner"] = owner
        on = kern & (owner >= 0)
        tf32 = name_mask(g["name"], TF32_KERNEL)[on]
        dur = g["dur"].to_numpy()[on]
        share = pd.Series(np.where(tf32, dur, 0.0)).groupby(owner[on]).sum() / pd.Series(
            dur
        ).groupby(owner[on]).sum().replace(0, np.nan)
        is_tf32 = ops["row"].map(share).fillna(0).to_numpy() >= 0.5
        ops.loc[is_tf32 & (ops["dtype"] == "fp32").to_numpy(), "dtype"] = "tf32"
    c["compute"] = ops
    return ops


def kernel_dtype_by_name(names: pd.Series) -> np.ndarray:
    """Per kernel name, the precision it names (KERNEL_DTYPES), None where it names none."""
    out = np.full(len(names), None, dtype=object)
    for dtype, pattern in reversed(KERNEL_DTYPES):  # the earlier pattern wins
        out[name_mask(names, pattern)] = dtype
    return out


def named_matrix_kernels(frame: TraceFrame) -> pd.DataFrame:
    """Kernels inside the steps that a matrix op (flops.models.MATRIX_OPS, known by name alone)
    launched, directly or through child ops, for traces without recorded shapes: `owner` (that
    op's row) and `dtype`, the precision most of that op's kernel time names
    (kernel_dtype_by_name), so a TF32 convolution's FP32 helper kernels count as TF32, as its
    recorded input type would make them; NaN where none of its kernels names one."""
    g = frame.gpu_ops
    k = g.loc[(g["kind"] == "kernel") & (g["step"] >= 0), ["name", "dur", "step", "device", "op"]]
    is_matrix = frame.cpu_ops["name"].isin(MATRIX_OPS).to_numpy()
    owner = nearest_ancestor(frame.cpu_ops["parent"].to_numpy(), k["op"].to_numpy(), is_matrix)
    k = k.drop(columns="op").assign(owner=owner).loc[owner >= 0]
    named = pd.DataFrame(
        {"owner": k["owner"].to_numpy(), "dtype": kernel_dtype_by_name(k["name"]), "dur": k["dur"]}
    ).dropna(subset=["dtype"])
    time = named.groupby(["owner", "dtype"])["dur"].sum().reset_index().sort_values("dur")
    major = time.drop_duplicates("owner", keep="last").set_index("owner")["dtype"]
    return k.assign(dtype=k["owner"].map(major))


def named_memory_bound_ops(frame: TraceFrame) -> pd.DataFrame:
    """For a trace without recorded shapes: the elementwise, norm and bytes-only ops inside the
    steps that op_costs would count (row, category), told by name
    (flops.models.memory_bound_category) and nesting, by counted_op_costs' rule: an op counts
    only where no other costed op runs inside it and it runs inside no matrix op and no batch
    norm op (autocast's cast inside aten::layer_norm is counted, not the norm; the bias copy_
    inside aten::addmm is the addmm's); a batch norm op counts where no batch norm op runs inside
    it and it runs inside no matrix op."""
    ops = frame.cpu_ops
    names = ops["name"]
    category = names.map(memory_bound_category).to_numpy(dtype=object)
    matrix = names.isin(MATRIX_OPS).to_numpy()
    batch_norm = names.isin(BATCH_NORM_OPS).to_numpy()
    costed = pd.notna(category) | matrix
    parent = ops["parent"].to_numpy()
    has_cost_inside = any_below(parent, ops["depth"].to_numpy(), costed)
    has_batch_norm_inside = any_below(parent, ops["depth"].to_numpy(), batch_norm)
    inside_matrix = nearest_ancestor(parent, parent, matrix) >= 0
    inside_batch_norm = nearest_ancestor(parent, parent, batch_norm) >= 0
    keep = np.where(
        batch_norm,
        ~has_batch_norm_inside & ~inside_matrix,
        ~has_cost_inside & ~inside_matrix & ~inside_batch_norm,
    )
    rows = np.flatnonzero(keep & costed & ~matrix & (ops["step"].to_numpy() >= 0))
    return pd.DataFrame({"row": rows, "category": category[rows]})


def matrix_owner(frame: TraceFrame) -> np.ndarray:
    """For each GPU op (row of frame.gpu_ops), the matrix-work op of compute_ops that launched
    it, directly or through child ops; -1 for none."""
    c = _cache(frame)
    if "owner" not in c:
        c["owner"] = _flop_owner(frame, compute_ops(frame)["row"].to_numpy(dtype=int))
    return c["owner"]


def _flop_owner(frame: TraceFrame, counted_rows: np.ndarray) -> np.ndarray:
    """For each GPU op, the counted op that launched it (directly or through child ops), else -1."""
    ops = frame.cpu_ops
    is_counted = np.zeros(len(ops), dtype=bool)
    is_counted[counted_rows] = True
    return nearest_ancestor(ops["parent"].to_numpy(), frame.gpu_ops["op"].to_numpy(), is_counted)


# Output tile edge of the GEMM kernels cuBLAS/cuDNN pick for large problems: a product with fewer
# TILE x TILE output tiles than the GPU has SMs cannot give every SM work (split-K aside).
TILE = 128


def _shapes(dims) -> list[list[int]]:
    return [
        d
        for d in (dims if isinstance(dims, list) else [])
        if isinstance(d, list) and d and all(isinstance(x, int) for x in d)
    ]


def _tiles(name: str, dims, flops: float) -> float:
    """Output tiles of one matrix-work op (implicit GEMM for convolutions: rows are
    batch x output positions, never the batch alone); NaN when the shapes do not tell, and for
    a cuDNN recurrent layer, whose one op runs both products over all its tokens and products
    of one time step's batch: its kernels' own grids tell how much each fills."""
    s = _shapes(dims)
    base = name.split("::")[-1]
    t = lambda m, n: -(-m // TILE) * -(-n // TILE)  # noqa: E731
    try:
        if base in ("mm", "_scaled_mm", "addmm", "bmm", "baddbmm"):
            a, b = (s[1], s[2]) if base in ("addmm", "baddbmm") and len(s) >= 3 else (s[0], s[1])
            batch = a[0] if len(a) == 3 else 1
            return float(batch * t(a[-2], b[-1]))
        if base in ("_grouped_mm", "_scaled_grouped_mm"):
            # one output per group where the groups split the inner dimension (a weight
            # gradient) or batch the product; where they split rows or columns, tiles of the
            # whole rows or columns (ragged edges aside)
            a, b = s[0], s[1]
            if len(a) == len(b) == 3:
                return float(a[0] * t(a[1], b[2]))
            if len(a) == len(b) == 2:
                offs = next((x for x in s[2:] if len(x) == 1), [1])  # [groups]
                return float(offs[0] * t(a[0], b[1]))
            return float(t(a[-2], b[-1]))
        if "convolution_backward" in base:
            g, w = s[0], s[2]  # grad_output [N, Cout, *spatial], weight [Cout, Cin/g, *k]
            return float(t(g[0] * int(np.prod(g[2:])), w[0]))
        if "conv" in base:
            w = s[
                1
            ]  # input, weight: rows = flops / (2 * weight elements) = batch x output positions
            return float(t(int(flops / (2 * np.prod(w))), w[0]))
        if "attention" in base or "flash" in base or "efficient" in base:
            q = s[0]  # [batch, heads, queries, head_dim]: one query tile per (batch, head)
            return float(q[0] * q[1] * -(-q[2] // TILE))
    except (IndexError, ValueError, ZeroDivisionError):
        pass
    return float("nan")


def work_fill(frame: TraceFrame) -> pd.DataFrame:
    """Per matrix-work op (compute_ops): its row, FLOPs, output tiles and `fill` = tiles / SM
    count (>= 1: enough independent work for every SM; NaN where the shapes do not tell)."""
    c = _cache(frame)
    if "fill" in c:
        return c["fill"]
    ops = compute_ops(frame)
    sms = sm_count(frame)
    names = frame.cpu_ops["name"].astype(object).to_numpy()
    dims = frame.cpu_ops["input_dims"].to_numpy()
    rows = ops["row"].to_numpy()
    tiles = np.array([_tiles(names[r], dims[r], f) for r, f in zip(rows, ops["flops"].to_numpy())])
    c["fill"] = pd.DataFrame(
        {
            "row": rows,
            "flops": ops["flops"].to_numpy(),
            "tiles": tiles,
            "fill": tiles / sms if sms else np.full(len(rows), np.nan),
        }
    )
    return c["fill"]


def told_fill_share(frame: TraceFrame) -> float | None:
    """The share of matrix FLOPs whose fill the shapes tell (work_fill's finite rows); None
    without matrix FLOPs."""
    w = work_fill(frame)
    total = float(w["flops"].sum())
    if total <= 0:
        return None
    return float(w["flops"][np.isfinite(w["fill"].to_numpy())].sum()) / total


def _leading_dim(dims) -> int | None:
    """The first dimension of an op's first input where it has 3 or more (a batch, as in
    [batch, tokens, width], [batch, channels, h, w] or [batch, heads, tokens, d]); else None."""
    first = dims[0] if isinstance(dims, list) and dims else None
    if isinstance(first, list) and len(first) >= 3 and isinstance(first[0], int):
        return first[0]
    return None


def one_sample_share(frame: TraceFrame) -> tuple[float, float] | None:
    """How much matrix work runs one sample a call: (the share of matrix FLOPs whose call tells
    its batch, the share of those whose batch is 1). A call tells its batch where it, or the op
    that ran it (aten::linear over the 2-D aten::mm it flattens to), has a first input of 3 or
    more dimensions; the backward's flattened products tell none. None without matrix FLOPs."""
    c = _cache(frame)
    if "one_sample_share" not in c:
        c["one_sample_share"] = _one_sample_share(frame)
    return c["one_sample_share"]


def _one_sample_share(frame: TraceFrame) -> tuple[float, float] | None:
    ops = compute_ops(frame)
    total = float(ops["flops"].sum())
    if total <= 0:
        return None
    lead = np.array([_leading_dim(d) or 0 for d in frame.cpu_ops["input_dims"].to_numpy()])
    parent = frame.cpu_ops["parent"].to_numpy()
    teller = nearest_ancestor(parent, ops["row"].to_numpy(), lead > 0)
    told = teller >= 0
    flops = ops["flops"].to_numpy()
    told_flops = float(flops[told].sum())
    if told_flops <= 0:
        return 0.0, 0.0
    one = float(flops[told & (lead[np.maximum(teller, 0)] == 1)].sum())
    return told_flops / total, one / told_flops


def median_fill(frame: TraceFrame) -> float | None:
    """FLOP-weighted median of `fill` over matrix work: below 1, most of the math runs in
    products too small to occupy the GPU (a small batch, or micro-batch)."""
    w = work_fill(frame)
    w = w.loc[np.isfinite(w["fill"].to_numpy())]
    if not len(w) or w["flops"].sum() <= 0:
        return None
    w = w.sort_values("fill")
    cum = w["flops"].cumsum().to_numpy()
    return float(w["fill"].to_numpy()[np.searchsorted(cum, cum[-1] / 2)])
