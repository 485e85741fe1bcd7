"""FLOP-based efficiency: FLOPs from recorded shapes, attached to kernels, against a stated peak.

Every MFU this module produces names its peak and where the peak came from (a datasheet entry,
a theoretical estimate, a `bottleneck-lab peak` measurement or a user override).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from . import facts
from .flops.peaks import DevicePeak, match_device, override_peak, ridge_point
from .op_flops import (
    _cache,
    _flop_owner,
    compute_ops,
    kernel_dtype_by_name,
    matrix_owner,
    named_memory_bound_ops,
    op_costs,
)
from .trace import TraceFrame
from .trace.frame import name_mask, nearest_ancestor


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

        from .flops.measured import load_measured

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
        owner = matrix_owner(frame)[k.index.to_numpy()]
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
    """Kernels inside the steps launched by elementwise, normalisation or bytes-only ops
    (softmax, dropout, sums and means: category "other") directly or through child ops, with that
    op's row (`owner`), dtype, category and bytes split over its kernels by time. The
    optimizer's are left out (per-parameter FP32 state, not activations)."""
    c = _cache(frame)
    if "memory_bound" in c:
        return c["memory_bound"]
    g = frame.gpu_ops
    k = g.loc[
        (g["kind"] == "kernel") & (g["step"] >= 0),
        ["ts", "end", "dur", "name", "op", "stream", "step", "device"],
    ].copy()
    ops = frame.cpu_ops
    oc = op_costs(frame)
    shaped = bool(len(oc))
    if not shaped:  # no recorded shapes: the ops by name, their bytes unknown
        oc = named_memory_bound_ops(frame).assign(bytes=np.nan, dtype=None)
    mb = oc.loc[
        oc["category"].isin(("elementwise", "norm", "other")) & ((oc["bytes"] > 0) | ~shaped)
    ]
    # a fused optimizer op outside an Optimizer.step span is still the optimizer's
    fused_opt = name_mask(ops["name"], r"^aten::_fused_(?!rms_norm)")
    mb = mb.loc[~fused_opt[mb["row"].to_numpy(dtype=np.int64)]]
    is_mb = np.zeros(len(ops), dtype=bool)
    is_mb[mb["row"].to_numpy(dtype=np.int64)] = True
    is_mb &= ~facts.ops_in_optimizer(frame)
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
    if not shaped:  # the dtype its kernel's name says
        k["dtype"] = kernel_dtype_by_name(k["name"])
    c["memory_bound"] = k
    return k
