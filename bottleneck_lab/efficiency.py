"""FLOP-based efficiency: FLOPs from recorded shapes, attached to kernels, against a stated peak.

Every MFU this module produces names its peak and where the peak came from (a datasheet entry,
a theoretical estimate, a `bottleneck-lab peak` measurement or a user override).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np
import pandas as pd

from . import facts
from .flops.models import COMPUTE_CATEGORIES, counted_op_costs
from .flops.peaks import DevicePeak, match_device, override_peak, ridge_point
from .trace import TraceFrame
from .trace.frame import name_mask, nearest_ancestor

# Kernel names that say an FP32 op ran on tensor cores in TF32 (cuBLAS/CUTLASS/cuDNN naming).
TF32_KERNEL = re.compile(r"tf32|s1688|s16816|tensorop_s|_f32f32_tf32", re.IGNORECASE)


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
    """One row per cpu_op whose cost enters a step total: row, step, flops, bytes, dtype, category."""
    c = _cache(frame)
    if "ops" in c:
        return c["ops"]
    ops = frame.cpu_ops
    cols = ["row", "step", "flops", "bytes", "dtype", "category"]
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
        },
        columns=cols,
    )
    return c["ops"]


def compute_ops(frame: TraceFrame) -> pd.DataFrame:
    """Ops carrying matmul/conv/attention FLOPs. An FP32 op whose kernels run mostly on tensor
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


def flops_per_step(frame: TraceFrame) -> float | None:
    ops = compute_ops(frame)
    if not len(ops):
        return None
    return float(ops["flops"].sum()) / max(len(frame.steps), 1)


def dominant_dtype(frame: TraceFrame) -> str | None:
    ops = compute_ops(frame)
    if not len(ops):
        return None
    return str(ops.groupby("dtype")["flops"].sum().idxmax())


@dataclass(frozen=True)
class PeakChoice:
    """What to measure MFU against, from the command line: a number and dtype, or a file of
    peaks measured by `bottleneck-lab peak`; by default the device table."""

    tflops: float | None = None
    dtype: str | None = None
    peaks_file: str | None = None


def device_peak(frame: TraceFrame, choice: PeakChoice | None = None) -> DevicePeak | None:
    choice = choice or PeakChoice()
    if choice.tflops:
        return override_peak(choice.tflops, choice.dtype or dominant_dtype(frame) or "fp32")
    dev = facts.main_device(frame)
    props = frame.device_props(dev) if dev is not None else None
    if choice.peaks_file:
        from pathlib import Path

        from .measure_peak import load_measured

        measured = load_measured((props or {}).get("name"), Path(choice.peaks_file))
        if measured is not None:
            return measured
    return match_device(props) if props else None


@dataclass(frozen=True)
class Efficiency:
    flops_per_step: float | None
    achieved_tflops: float | None
    peak_tflops: float | None
    peak_dtype: str | None
    peak_source: str | None
    mfu_pct: float | None
    flops_by_dtype: dict[str, float]
    compute_time_share_pct: float | None  # GPU kernel time in kernels that carry FLOPs


def efficiency(frame: TraceFrame, choice: PeakChoice | None = None) -> Efficiency:
    """The step's FLOP efficiency against the chosen peak (computed once per frame and choice)."""
    choice = choice or PeakChoice()
    c = _cache(frame)
    if ("efficiency", choice) not in c:
        c[("efficiency", choice)] = _efficiency(frame, choice)
    return c[("efficiency", choice)]


def _efficiency(frame: TraceFrame, choice: PeakChoice) -> Efficiency:
    stats = facts.step_stats(frame)
    fps = flops_per_step(frame)
    ops = compute_ops(frame)
    by_dtype = (
        {
            k: float(v) / max(len(frame.steps), 1)
            for k, v in ops.groupby("dtype")["flops"].sum().items()
        }
        if len(ops)
        else {}
    )
    dtype = choice.dtype or dominant_dtype(frame)
    peak = device_peak(frame, choice)
    achieved = fps / stats.median_us / 1e6 if fps and stats and stats.median_us > 0 else None
    # A dtype given on the command line (with or without a number) pins the peak to that dtype.
    forced = choice.tflops is not None or choice.dtype is not None
    peak_value, source = _mixed_peak(peak, by_dtype, dtype, forced=forced)
    devices = _flop_devices(frame)
    if peak_value and devices > 1:  # one process driving several GPUs: their peaks add up
        peak_value *= devices
        source = f"{devices} devices x ({source})"
    mfu = 100.0 * achieved / peak_value if achieved and peak_value else None
    return Efficiency(
        flops_per_step=fps,
        achieved_tflops=achieved,
        peak_tflops=peak_value,
        peak_dtype=dtype,
        peak_source=source,
        mfu_pct=mfu,
        flops_by_dtype=by_dtype,
        compute_time_share_pct=_compute_share(frame, ops),
    )


def _mixed_peak(
    peak: DevicePeak | None, by_dtype: dict[str, float], dominant: str | None, forced: bool
) -> tuple[float | None, str | None]:
    """The peak to divide by when FLOPs come in several dtypes: the rate at which the device
    would do this step's FLOPs at each dtype's own peak (a FLOP-weighted harmonic mean). With one
    dtype it is simply that dtype's peak. FLOPs of a dtype the device has no figure for are
    counted at the dominant dtype's peak."""
    if peak is None or not by_dtype or dominant is None:
        return None, None
    if forced:
        value = peak.peak_for(dominant)
        return value, (
            f"{peak.name}, {dominant} {value:g} TFLOP/s: {peak.source}" if value else None
        )
    fallback = peak.peak_for(dominant)
    total = sum(by_dtype.values())
    ideal_s, parts = 0.0, []
    for d, flops in sorted(by_dtype.items(), key=lambda kv: -kv[1]):
        p = peak.peak_for(d) or fallback
        if not p:
            return None, None
        ideal_s += flops / (p * 1e12)
        parts.append(f"{d} {p:g} TFLOP/s ({100 * flops / total:.0f}% of FLOPs)")
    value = total / ideal_s / 1e12
    return value, f"{peak.name}, dense: " + ", ".join(parts) + f"; {peak.source}"


def _flop_owner(frame: TraceFrame, counted_rows: np.ndarray) -> np.ndarray:
    """For each GPU op, the counted op that launched it (directly or through child ops), else -1."""
    ops = frame.cpu_ops
    is_counted = np.zeros(len(ops), dtype=bool)
    is_counted[counted_rows] = True
    return nearest_ancestor(ops["parent"].to_numpy(), frame.gpu_ops["op"].to_numpy(), is_counted)


def kernel_flops(frame: TraceFrame) -> pd.DataFrame:
    """Per GPU kernel: the FLOPs of the op that launched it, split over that op's kernels by time."""
    c = _cache(frame)
    if "kernels" in c:
        return c["kernels"]
    g = frame.gpu_ops
    ops = compute_ops(frame)
    k = g.loc[g["kind"] == "kernel", ["name", "dur", "op", "step"]].copy()
    k["flops"] = 0.0
    k["dtype"] = None
    if len(ops):
        if "owner" not in c:
            c["owner"] = _flop_owner(frame, ops["row"].to_numpy())
        owner = c["owner"][k.index.to_numpy()]
        k["owner"] = owner
        flops_of = pd.Series(ops["flops"].to_numpy(), index=ops["row"].to_numpy())
        dtype_of = pd.Series(ops["dtype"].to_numpy(), index=ops["row"].to_numpy())
        owned = k.loc[owner >= 0]
        share = owned["dur"] / owned.groupby("owner")["dur"].transform("sum").replace(0, np.nan)
        k.loc[owner >= 0, "flops"] = (
            flops_of.reindex(owned["owner"]).to_numpy() * share.fillna(0).to_numpy()
        )
        k.loc[owner >= 0, "dtype"] = dtype_of.reindex(owned["owner"]).to_numpy()
    c["kernels"] = k
    return k


def _flop_devices(frame: TraceFrame) -> int:
    """How many GPUs ran the kernels that carry this trace's FLOPs."""
    if not frame.has_gpu:
        return 0
    k = kernel_flops(frame)
    rows = k.index[k["flops"].to_numpy() > 0]
    return int(frame.gpu_ops.loc[rows, "device"].nunique())


def _compute_share(frame: TraceFrame, ops: pd.DataFrame) -> float | None:
    if not frame.has_gpu or not len(ops):
        return None
    k = kernel_flops(frame)
    total = k["dur"].sum()
    return 100.0 * float(k.loc[k["flops"] > 0, "dur"].sum() / total) if total > 0 else None


def kernel_table(frame: TraceFrame, peak: DevicePeak | None, top: int = 10) -> list[dict]:
    """FLOP efficiency of the kernels that carry FLOPs, most GPU time first."""
    k = kernel_flops(frame)
    k = k.loc[k["flops"] > 0]
    if not len(k):
        return []
    n_steps = max(len(frame.steps), 1)
    grouped = k.groupby(k["name"].astype(object)).agg(
        time_us=("dur", "sum"),
        flops=("flops", "sum"),
        calls=("dur", "size"),
        dtype=("dtype", "first"),
    )
    out = []
    for name, r in grouped.sort_values("time_us", ascending=False).head(top).iterrows():
        # r["dtype"], not r.dtype: the attribute is the row Series' own dtype
        time_us, flops, dtype = float(r["time_us"]), float(r["flops"]), r["dtype"]
        tflops = flops / time_us / 1e6 if time_us > 0 else None
        pk = peak.peak_for(dtype) if peak else None
        out.append(
            {
                "kernel": name[:120],
                "calls_per_step": round(int(r["calls"]) / n_steps, 1),
                "us_per_step": round(time_us / n_steps, 1),
                "dtype": dtype,
                "tflops": _sig(tflops) if tflops else None,
                "pct_of_peak": _sig(100 * tflops / pk, 3) if tflops and pk else None,
            }
        )
    return out


def _sig(x: float, digits: int = 4) -> float:
    """Round to significant digits: rates and intensities span six decades on a roofline."""
    return float(f"{x:.{digits}g}")


def roofline(frame: TraceFrame, peak: DevicePeak | None, top: int = 10) -> list[dict]:
    """Per op (by name and dtype), most GPU time first: FLOPs and bytes per step, arithmetic
    intensity against the device's ridge point (compute- or memory-bound), and the FLOP and byte
    rates its kernels reached, with the roof above it (`roof_tflops`: the lower of the dtype's
    compute peak and intensity x memory bandwidth) and how much of it was reached. Kernel time is
    the time of the kernels each op launched. FP32 matrix work that ran on tensor cores in TF32
    is measured against the TF32 roof, as MFU is."""
    oc = op_costs(frame)
    if not len(oc):
        return []
    comp = compute_ops(frame)
    dtype = oc["row"].map(pd.Series(comp["dtype"].to_numpy(), index=comp["row"].to_numpy()))
    oc = oc.assign(
        name=frame.cpu_ops["name"].astype(object).to_numpy()[oc["row"].to_numpy()],
        dtype=dtype.fillna(oc["dtype"]),
        us=0.0,
    )
    if frame.has_gpu:
        g = frame.gpu_ops
        owner = _flop_owner(frame, oc["row"].to_numpy())
        on = owner >= 0
        us = pd.Series(g["dur"].to_numpy()[on]).groupby(owner[on]).sum()
        oc["us"] = oc["row"].map(us).fillna(0.0).to_numpy()
    n_steps = max(len(frame.steps), 1)
    grouped = oc.groupby(["name", "dtype"])[["flops", "bytes", "us"]].sum()
    out = []
    for (name, dtype), r in grouped.sort_values("us", ascending=False).head(top).iterrows():
        flops, nbytes, us = float(r["flops"]), float(r["bytes"]), float(r["us"])
        ai = flops / nbytes if nbytes > 0 and flops > 0 else None
        ridge = ridge_point(peak, dtype) if peak else None
        tflops = flops / us / 1e6 if us > 0 and flops > 0 else None
        roof = (
            min(peak.peak_for(dtype), ai * peak.mem_bw_gbps / 1e3)
            if ai is not None and ridge is not None
            else None
        )
        out.append(
            {
                "op": name,
                "dtype": dtype,
                "gpu_us_per_step": round(us / n_steps, 1),
                "gflops_per_step": _sig(flops / n_steps / 1e9),
                "mb_per_step": _sig(nbytes / n_steps / 1e6),
                "flop_per_byte": None if ai is None else _sig(ai),
                "ridge_flop_per_byte": round(ridge, 1) if ridge else None,
                "bound": None
                if ridge is None or ai is None
                else ("compute" if ai >= ridge else "memory"),
                "tflops": _sig(tflops) if tflops else None,
                "gb_per_s": _sig(nbytes / us / 1e3) if us > 0 and nbytes > 0 else None,
                "roof_tflops": _sig(roof) if roof else None,
                "pct_of_roof": round(100 * tflops / roof, 1) if roof and tflops else None,
            }
        )
    return out


def roofline_roofs(peak: DevicePeak | None, rows: list[dict]) -> dict:
    """What a roofline plot of `rows` needs besides the points: the memory-bandwidth roof and
    the compute roof of each dtype among them, or `unavailable`: why none can be drawn."""
    drawn = [r for r in rows if r["tflops"] and r["flop_per_byte"]]
    if not rows:
        why = (
            "no op has FLOPs and bytes: the trace has no recorded shapes (capture with "
            "record_shapes=True)"
        )
    elif not drawn:
        why = "none of the top ops has both FLOPs and kernel time in the steps"
    elif peak is None:
        why = (
            "the device is not in the peak table, so its roofs are unknown "
            "(`bottleneck-lab peak` measures them; pass the file with --peaks-file)"
        )
    elif not peak.mem_bw_gbps:
        named = peak.name if peak.name == peak.source else f"{peak.name}: {peak.source}"
        why = (
            f"the peak in use ({named}) has no memory bandwidth; `bottleneck-lab peak` measures "
            "both roofs on the GPU (pass its file with --peaks-file)"
        )
    else:
        dtypes = sorted({r["dtype"] for r in drawn if peak.peak_for(r["dtype"])})
        if dtypes:
            return {
                "device": peak.name,
                "source": peak.source,
                "mem_bw_gbps": peak.mem_bw_gbps,
                "compute_tflops": {d: peak.peak_for(d) for d in dtypes},
                "ridge_flop_per_byte": {d: round(ridge_point(peak, d), 1) for d in dtypes},
            }
        why = f"{peak.name} has no peak for the dtypes of the top ops"
    return {"unavailable": why}


def memory_bound_kernels(frame: TraceFrame) -> pd.DataFrame:
    """Kernels inside the steps launched by elementwise or normalisation ops (directly or through
    child ops), with that op's row (`owner`), dtype, category and bytes split over its kernels by
    time. The optimizer's are left out (per-parameter FP32 state, not activations)."""
    c = _cache(frame)
    if "memory_bound" in c:
        return c["memory_bound"]
    g = frame.gpu_ops
    k = g.loc[
        (g["kind"] == "kernel") & (g["step"] >= 0),
        ["ts", "end", "dur", "name", "op", "stream", "step", "device"],
    ].copy()
    oc = op_costs(frame)
    mb = oc.loc[oc["category"].isin(("elementwise", "norm")) & (oc["bytes"] > 0)]
    ops = frame.cpu_ops
    is_mb = np.zeros(len(ops), dtype=bool)
    is_mb[mb["row"].to_numpy(dtype=np.int64)] = True
    os_, oe = facts.optimizer_spans(frame)
    if len(os_):
        ots = ops["ts"].to_numpy()
        i = np.searchsorted(os_, ots, side="right") - 1
        is_mb &= ~((i >= 0) & (ots < oe[np.maximum(i, 0)]))
    owner = (
        nearest_ancestor(ops["parent"].to_numpy(), k["op"].to_numpy(), is_mb)
        if len(ops)
        else np.full(len(k), -1)
    )
    k["owner"] = owner
    k = k.loc[owner >= 0]
    rows = mb["row"].to_numpy(dtype=np.int64)
    share = k["dur"] / k.groupby("owner")["dur"].transform("sum").replace(0, np.nan)
    k["bytes"] = (
        pd.Series(mb["bytes"].to_numpy(dtype=float), index=rows).reindex(k["owner"]).to_numpy()
        * share.fillna(0).to_numpy()
    )
    k["dtype"] = pd.Series(mb["dtype"].to_numpy(), index=rows).reindex(k["owner"]).to_numpy()
    k["category"] = pd.Series(mb["category"].to_numpy(), index=rows).reindex(k["owner"]).to_numpy()
    c["memory_bound"] = k
    return k


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
    batch x output positions, never the batch alone); NaN when the shapes do not tell."""
    s = _shapes(dims)
    base = name.split("::")[-1]
    t = lambda m, n: -(-m // TILE) * -(-n // TILE)  # noqa: E731
    try:
        if base in ("mm", "_scaled_mm", "addmm", "bmm", "baddbmm"):
            a, b = (s[1], s[2]) if base in ("addmm", "baddbmm") and len(s) >= 3 else (s[0], s[1])
            batch = a[0] if len(a) == 3 else 1
            return float(batch * t(a[-2], b[-1]))
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
    """Per matrix-work op (gemm, conv, attention with FLOPs): its row, FLOPs, output tiles and
    `fill` = tiles / SM count (>= 1: enough independent work for every SM)."""
    c = _cache(frame)
    if "fill" in c:
        return c["fill"]
    ops = compute_ops(frame)
    sms = facts.sm_count(frame)
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
