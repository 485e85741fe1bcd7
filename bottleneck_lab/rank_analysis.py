"""One rank's analysis: run every registered detector on a frame, contain failures, summarise it
(timeline, top kernels, memory curve); and how the ranks' findings merge. ranks.py maps this
over the ranks and reduces; analyze.py is the entry point."""

from __future__ import annotations

import json
import traceback
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from . import facts
from .demos import sidecar_path
from .detectors import REGISTRY
from .diagnosis import Finding, Summary
from .efficiency import (
    Efficiency,
    PeakChoice,
    device_peak,
    efficiency,
    kernel_table,
    roofline,
    roofline_roofs,
)
from .memory import peak_memory_bytes
from .trace import TraceFrame
from .trace.frame import name_mask

PREREQUISITE_CHECKS: dict[str, tuple[str, Callable[[TraceFrame], bool]]] = {
    "kernels": ("GPU kernels", lambda f: bool((f.gpu_ops["kind"] == "kernel").any())),
    "steps": ("steps", lambda f: len(f.steps) > 0),
    "runtime": ("CUDA runtime calls", lambda f: len(f.runtime) > 0),
    "cpu_ops": ("CPU ops", lambda f: len(f.cpu_ops) > 0),
    "shapes": (
        "recorded shapes (record_shapes=True)",
        lambda f: bool(len(f.cpu_ops)) and bool(f.cpu_ops["input_dims"].notna().any()),
    ),
    "memory_events": ("[memory] events (profile_memory=True)", lambda f: len(f.memory) > 0),
    "nccl": (
        "NCCL kernels",
        lambda f: bool(name_mask(facts.kernels(f)["name"], facts.COLLECTIVE).any()),
    ),
    "dataloader": ("DataLoader spans", lambda f: len(facts.dataloader_spans(f)) > 0),
}


def missing_prerequisite(frame: TraceFrame, requires: frozenset[str]) -> str | None:
    for req in sorted(requires):
        label, check = PREREQUISITE_CHECKS[req]
        if not check(frame):
            return f"skipped: trace has no {label}"
    return None


def summarize(frame: TraceFrame, peak: PeakChoice | None = None) -> Summary:
    stats = facts.step_stats(frame)
    eff = efficiency(frame, peak)
    dev = facts.main_device(frame)
    busy = facts.busy_pct(frame, dev) if dev is not None else None
    extra: dict[str, Any] = {}
    if stats is not None:
        extra["steps_marked"] = stats.marked
        extra["trace_span_us"] = round(stats.span_end - stats.span_start, 1)
    if dev is not None:
        extra["main_device"] = dev
        extra["idle_us_per_step_by_cause"] = {
            k: round(v / max(stats.count, 1), 1) for k, v in facts.idle_by_cause(frame).items()
        }
        # The same idle by the finding that reports it, less the profiler's share: these agree
        # with the findings' own estimates (a compile-bound gap is `recompilation` here).
        extra["idle_us_per_step_by_owner"] = {
            k: round(v / max(stats.count, 1), 1) for k, v in facts.idle_by_owner(frame).items() if v
        }
        overhead = facts.profiler_overhead_us(frame) / max(stats.count, 1)
        without_us = facts.step_time_without_profiler_us(frame)
        extra["profiler_overhead"] = {
            "idle_us_per_step": round(overhead, 1),
            "slowed_host_idle_us_per_step": round(facts.slowed_host_us(frame) / stats.count, 1),
            "step_time_us_without_profiler_est": round(without_us, 1),
            # the most idle a plausible profiler cost explains (its highest measured share):
            # what a rank's lateness to its peers must exceed to be its own (ranks.py)
            "idle_us_per_step_at_high_share": round(
                float(
                    np.mean(
                        facts.profiler_idle_by_step_us(frame, facts.PROFILER_SHARE_OF_HOST_OP_HIGH)
                    )
                ),
                1,
            ),
            "us_per_recorded_op": facts.profiler_us_per_op(frame),
            "note": "idle that only the profiler's per-op cost, or a host running the same ops "
            "slower in some steps, created; findings leave it out",
            **_efficiency_without_profiler(eff, without_us),
        }
        k = facts.kernels(frame, dev)
        extra["kernels_per_step"] = round(int((k["step"] >= 0).sum()) / max(stats.count, 1), 1)
        if stats is not None:
            extra["timeline"] = timeline(frame, dev)
    if eff.flops_per_step is not None:
        extra["flops_per_step_by_dtype"] = {
            k: float(f"{v:.4g}") for k, v in eff.flops_by_dtype.items()
        }
        extra["compute_time_share_pct"] = _r(eff.compute_time_share_pct, 1)
        dev_peak = device_peak(frame, peak)
        extra["kernel_efficiency"] = kernel_table(frame, dev_peak, top=5)
        extra["roofline"] = roofline(frame, dev_peak)
    if dev is not None:  # what the HTML roofline draws, or why it cannot
        extra["roofline_roofs"] = roofline_roofs(
            device_peak(frame, peak) if eff.flops_per_step is not None else None,
            extra.get("roofline", []),
        )
    if dev is not None:
        top = top_kernels(
            frame,
            dev,
            kernel_table(frame, device_peak(frame, peak), top=10)
            if eff.flops_per_step is not None
            else [],
        )
        if top:
            extra["top_kernels"] = top
    mem = memory_curve(frame)
    if mem is not None:
        extra["memory_curve"] = mem
    return Summary(
        steps=stats.count if stats else None,
        step_time_us=round(stats.median_us, 1) if stats else None,
        gpu_busy_pct=round(busy, 2) if busy is not None else None,
        flops_per_step=eff.flops_per_step,
        achieved_tflops=_r(eff.achieved_tflops, 3),
        peak_tflops=eff.peak_tflops,
        peak_source=eff.peak_source,
        mfu_pct=_r(eff.mfu_pct, 2),
        peak_memory_bytes=peak_memory_bytes(frame),
        extra=extra,
    )


# What the timeline keeps: every idle gap up to this many over the trace (the largest beyond it),
# so a trace of thousands of steps does not turn the JSON into a copy of the trace.
TIMELINE_MAX_GAPS = 5000
TIMELINE_WINDOWS = 20  # GPU busy % of each step, over this many equal windows


def timeline(frame: TraceFrame, dev: int) -> dict[str, Any]:
    """Per step: its window, GPU busy time, and each idle gap with the finding kind that owns it
    (facts.gap_owners: the kind whose finding reports that idle time). Gaps are
    [start_us from the step's start, dur_us, index into `owners`]; `origin_ts` is the trace
    timestamp (µs) of the first step's start, and each step's `start_us` is relative to it."""
    from .trace import intervals as iv

    steps = frame.steps
    gaps = facts.idle_gaps(frame, dev)
    owners = (
        facts.gap_owners(frame) if dev == facts.main_device(frame) else gaps["cause"].to_numpy()
    )
    owner_names = list(facts.OWNERS)
    code = {o: i for i, o in enumerate(owner_names)}
    keep = np.ones(len(gaps), dtype=bool)
    if len(gaps) > TIMELINE_MAX_GAPS:
        keep[:] = False
        keep[np.argsort(-gaps["dur"].to_numpy(), kind="stable")[:TIMELINE_MAX_GAPS]] = True
    bs, be = frame.busy_intervals(dev)
    origin = float(steps["ts"].min())
    gs, gd, gstep = gaps["start"].to_numpy(), gaps["dur"].to_numpy(), gaps["step"].to_numpy()
    owner_of = np.fromiter(map(code.__getitem__, owners), dtype=np.intp, count=len(owners))
    owner_set = np.array(owner_names, dtype=object)
    # Every step's windows and the steps themselves in one overlap_with each: each call sums
    # all busy intervals first (a pass over the whole trace per step was 70% of this function).
    # Each query's overlap does not depend on the other queries, so the values are the same.
    starts, ends = steps["ts"].to_numpy(dtype=float), steps["end"].to_numpy(dtype=float)
    edges = [np.linspace(s, e, TIMELINE_WINDOWS + 1) for s, e in zip(starts, ends)]
    all_w = (
        iv.overlap_with(
            bs, be, np.concatenate([x[:-1] for x in edges]), np.concatenate([x[1:] for x in edges])
        )
        if len(edges)
        else np.empty(0)
    )
    busy_steps = iv.overlap_with(bs, be, starts, ends)
    out_steps = []
    for k, st in enumerate(steps.itertuples()):
        start, end = float(st.ts), float(st.end)
        busy_w = all_w[k * TIMELINE_WINDOWS : (k + 1) * TIMELINE_WINDOWS]
        width = (end - start) / TIMELINE_WINDOWS
        mine = np.flatnonzero(gstep == st.step) if len(gaps) else np.empty(0, dtype=int)
        idle_by = _sums_by_owner(owner_set, owner_of[mine], gd[mine])
        shown = mine[keep[mine]] if len(mine) else mine
        out_steps.append(
            {
                "step": int(st.step),
                "start_us": round(start - origin, 3),
                "dur_us": round(end - start, 3),
                "busy_us": round(float(busy_steps[k]), 3),
                "idle_us_by_owner": {k: round(v, 3) for k, v in idle_by.items()},
                "busy_pct_windows": [
                    round(100.0 * float(b) / width, 1) if width > 0 else None for b in busy_w
                ],
                "gaps": [
                    [round(float(gs[i]) - start, 3), round(float(gd[i]), 3), code[owners[i]]]
                    for i in shown
                ],
                "gaps_omitted": int(len(mine) - len(shown)),
            }
        )
    return {"device": int(dev), "origin_ts": origin, "owners": owner_names, "steps": out_steps}


def _sums_by_owner(names: np.ndarray, codes: np.ndarray, dur: np.ndarray) -> dict[str, float]:
    """Total duration per owner (codes index names), owners in order of first appearance.
    bincount adds in row order, as a loop would, so the sums are the same to the last bit; a
    Python loop over every gap of a long trace (hundreds of thousands) was not."""
    if not len(codes):
        return {}
    present, first = np.unique(codes, return_index=True)
    sums = np.bincount(codes, weights=dur, minlength=len(names))
    return {names[present[j]]: float(sums[present[j]]) for j in np.argsort(first)}


TOP_KERNELS = 10


def top_kernels(frame: TraceFrame, dev: int, flop_table: list[dict]) -> list[dict[str, Any]]:
    """The kernels with the most GPU time per step, with their FLOP rate and share of the peak
    where FLOPs are known (kernel_table rows, matched by name), and the median grid of their
    launches in thread blocks beside the device's SM count. `underfills_sms` where the blocks
    leave a tenth of the SMs or more without work while the kernel runs alone (the share
    small_batch calls a small batch, facts.SMALL_BATCH_IDLE_SMS): SegFormer's bilinear upsample
    at one image, 16 blocks for 132 SMs, a third of the GPU time; not a GEMM of 128 tiles on 132
    SMs."""
    k = facts.kernels(frame, dev)
    k = k.loc[k["step"] >= 0]
    if not len(k):
        return []
    n_steps = max(len(frame.steps), 1)
    total = float(k["dur"].sum())
    # Grouped by the name's category code (no string hashing of every kernel), then put in name
    # order, as grouping the names themselves gives it, for the ranking's ties.
    grouped = k.groupby("name", observed=True).agg(
        sum=("dur", "sum"), size=("dur", "size"), blocks=("grid", "median")
    )
    grouped.index = grouped.index.astype(object)
    grouped = grouped.sort_index()
    eff = {row["kernel"]: row for row in flop_table}
    sms = int((frame.device_props(dev) or {}).get("numSms") or 0) or None
    out = []
    for name, r in grouped.sort_values("sum", ascending=False).head(TOP_KERNELS).iterrows():
        e = eff.get(name[:120], {})
        out.append(
            {
                "kernel": name,
                "calls_per_step": round(float(r["size"]) / n_steps, 1),
                "us_per_step": round(float(r["sum"]) / n_steps, 1),
                "pct_of_kernel_time": round(100.0 * float(r["sum"]) / total, 1)
                if total > 0
                else None,
                "dtype": e.get("dtype"),
                "tflops": e.get("tflops"),
                "pct_of_peak": e.get("pct_of_peak"),
                "median_grid_blocks": None if np.isnan(r["blocks"]) else int(round(r["blocks"])),
                "sm_count": sms,
                # (a collective's few blocks are by design: it runs beside the compute)
                "underfills_sms": bool(
                    sms
                    and r["blocks"] < (1 - facts.SMALL_BATCH_IDLE_SMS) * sms
                    and not facts.COLLECTIVE.search(name)
                ),
            }
        )
    return out


MEMORY_CURVE_POINTS = 800


def memory_curve(frame: TraceFrame) -> dict[str, Any] | None:
    """The memory curve of the analysed device for plotting: at most MEMORY_CURVE_POINTS
    [ms from the first step's host start, allocated bytes, reserved bytes] points (each bucket
    keeps its lowest and highest allocation, so peaks survive), each step's phases and peak."""
    from . import memory

    cv = memory.curve(frame)
    report = memory.analyze(frame)
    if cv is None or report is None or not len(cv):
        return None
    # [memory] events are host-side: steps are placed by their host (ProfilerStep) spans, not
    # by the GPU work they cover, which runs later and would put the step lines off the curve.
    host = dict(
        zip(frame.steps["step"], zip(frame.steps["cpu_ts"], frame.steps["cpu_end"], strict=True))
    )
    t0 = float(frame.steps["cpu_ts"].min()) if len(frame.steps) else float(cv.ts[0])
    n = len(cv)
    if n > MEMORY_CURVE_POINTS:
        buckets = np.array_split(np.arange(n), MEMORY_CURVE_POINTS // 2)
        idx = np.unique(
            np.concatenate(
                [
                    [b[np.argmin(cv.allocated[b])], b[np.argmax(cv.allocated[b])]]
                    for b in buckets
                    if len(b)
                ]
                + [[n - 1]]
            )
        )
    else:
        idx = np.arange(n)
    points = [
        [round((float(cv.ts[i]) - t0) / 1000.0, 4), int(cv.allocated[i]), int(cv.reserved[i])]
        for i in idx
    ]
    steps = [
        {
            "step": s.step,
            "start_ms": round((host[s.step][0] - t0) / 1000.0, 4),
            "end_ms": round((host[s.step][1] - t0) / 1000.0, 4),
            "peak_ms": round((s.peak_ts - t0) / 1000.0, 4),
            "peak_bytes": int(s.peak_bytes),
            "peak_op": s.peak_op,
            "peak_phase": s.peak_phase,
            "phases": [
                {
                    "name": p.name,
                    "start_ms": round((p.start - t0) / 1000.0, 4),
                    "end_ms": round((p.end - t0) / 1000.0, 4),
                }
                for p in s.phases
            ],
        }
        for s in report.steps
    ]
    where = f"GPU {cv.device_id}" if cv.device_type == memory.CUDA else "host"
    return {
        "device": where,
        "origin_ts": t0,
        "events": n,
        "points": points,
        "steps": steps,
        "peak_bytes": int(report.peak_bytes),
        "capacity_bytes": report.capacity_bytes,
    }


def _r(x: float | None, nd: int) -> float | None:
    """Round to nd decimals, but a small non-zero value (the MFU of a recommender, 0.0437%)
    keeps 3 significant digits instead of becoming 0."""
    if x is None:
        return None
    return round(x, nd) if x == 0 or abs(x) >= 10 ** (2 - nd) else float(f"{x:.3g}")


def sidecar_nvml(path: str) -> dict[str, Any] | None:
    """NVML readings from a capture sidecar (`X.meta.json` beside `X.json.gz`), if there is one:
    they show "GPU busy" as the driver counts it (any kernel running), next to MFU (how much of
    the peak that work used), so people see that 98% busy can be 40% of peak."""
    if not Path(path).is_file():
        return None
    meta = sidecar_path(path)
    try:
        nvml = json.loads(meta.read_text()).get("nvml") or {}
    except (OSError, ValueError, AttributeError):
        return None
    if not nvml.get("available"):
        return None

    def mean(key: str) -> float | None:
        v = nvml.get(key)
        return round(v["mean"], 1) if isinstance(v, dict) and v.get("mean") is not None else None

    return {
        "gpu_busy_pct": mean("gpu_util_pct"),
        "power_w": mean("power_w"),
        "sm_clock_mhz": mean("sm_clock_mhz"),
        "energy_j_per_step": _r(nvml.get("energy_j_per_step"), 2),
        "source": str(meta),
    }


def _efficiency_without_profiler(eff: Efficiency, step_us: float) -> dict[str, float | None]:
    """Achieved TFLOP/s and MFU over the step without the profiler's share (the step the
    findings' shares are of). FLOPs over the profiled step understate both wherever the profiler
    slowed the host: on the zoo and demo traces by 28% at the median against FLOPs over the
    synchronised step measured outside the profiler; over this step, by 2.1%
    (benchmarks/profiler_free.py)."""
    if not eff.flops_per_step or step_us <= 0:
        return {}
    achieved = eff.flops_per_step / step_us / 1e6
    mfu = 100.0 * achieved / eff.peak_tflops if eff.peak_tflops else None
    return {
        "achieved_tflops_without_profiler_est": _r(achieved, 3),
        "mfu_pct_without_profiler_est": _r(mfu, 2),
    }


def _with_efficiency(
    f: Finding, eff: Efficiency, frame: TraceFrame, peak: PeakChoice | None
) -> Finding:
    """MFU now, and what it would be if this finding's cost per step were recovered: the FLOPs
    over the step without the profiler's share and without the cost, against the peak of the
    precision the fix uses (BF16 for a precision finding), so it cannot pass 100% by moving to a
    faster dtype."""
    if eff.mfu_pct is None or not eff.flops_per_step:
        return f
    step_us = facts.step_time_without_profiler_us(frame)
    saved = f.time_lost_us_per_step or 0.0
    target = f.evidence.get("target_dtype") if f.kind == "precision" else None
    dev_peak = device_peak(frame, peak)
    peak_after = (dev_peak.peak_for(target) if target and dev_peak else None) or eff.peak_tflops
    if_saved = None
    if peak_after and step_us > saved > 0:
        if_saved = min(100.0, 100.0 * eff.flops_per_step / ((step_us - saved) * 1e6) / peak_after)
    return replace(
        f,
        efficiency={
            "mfu_pct": round(eff.mfu_pct, 2),
            "mfu_pct_without_profiler_est": _efficiency_without_profiler(eff, step_us).get(
                "mfu_pct_without_profiler_est"
            ),
            "mfu_pct_if_recovered": _r(if_saved, 2),
            "mfu_if_recovered_peak_tflops": peak_after,
            "mfu_if_recovered_peak_dtype": target or eff.peak_dtype,
            "achieved_tflops": _r(eff.achieved_tflops, 3),
            "peak_tflops": eff.peak_tflops,
            "peak_source": eff.peak_source,
        },
    )


def _run_detectors(
    frame: TraceFrame, cfgs: dict[str, Any], skipped: dict, errors: dict
) -> list[Finding]:
    found: list[Finding] = []
    for code, det in REGISTRY.items():
        why = missing_prerequisite(frame, det.requires)
        if why:
            skipped.setdefault(code, why)
            continue
        try:
            found.extend(det.detect(frame, cfgs[code]))
        except Exception as exc:  # one broken detector must not sink the report
            tb = traceback.extract_tb(exc.__traceback__)[-1]
            errors[code] = (
                f"{type(exc).__name__}: {exc} ({tb.filename.rsplit('/', 1)[-1]}:{tb.lineno})"
            )
    return found


def _device_info(frame: TraceFrame) -> dict[str, Any] | None:
    dev = facts.main_device(frame)
    props = (
        frame.device_props(dev)
        if dev is not None
        else (frame.device_properties[0] if frame.device_properties else None)
    )
    if props is None:
        return None
    info = {"name": props.get("name"), "id": props.get("id", dev)}
    for src, dst in (("numSms", "sm_count"), ("totalGlobalMem", "memory_bytes")):
        if src in props:
            info[dst] = props[src]
    if "computeMajor" in props:
        info["compute_capability"] = f"{props['computeMajor']}.{props.get('computeMinor', 0)}"
    return info


def _merge_ranks(
    frames: list[TraceFrame], per_rank: list[list[Finding]], lead: int
) -> list[Finding]:
    """The slowest rank's findings (it sets the job's pace), each noting which ranks show it too.

    Taking every code from whichever rank is worst would add idle from different ranks into
    one list and claim more time than any rank lost; findings seen only on other ranks are
    listed in the summary instead (`findings_on_other_ranks`)."""
    if len(frames) == 1:
        return per_rank[0]
    ranks: dict[str, list[int]] = {}
    for frame, found in zip(frames, per_rank):
        for f in found:
            ranks.setdefault(f.code, []).append(frame.rank)
    return [
        replace(
            f,
            evidence={
                **f.evidence,
                "rank": frames[lead].rank,
                "ranks_affected": sorted(ranks[f.code]),
            },
        )
        for f in per_rank[lead]
    ]


def _other_rank_findings(
    frames: list[TraceFrame], per_rank: list[list[Finding]], lead: int
) -> list[dict]:
    lead_codes = {f.code for f in per_rank[lead]}
    out = []
    for i, (frame, found) in enumerate(zip(frames, per_rank)):
        if i != lead:
            out += [
                {"rank": frame.rank, "code": f.code, "severity": f.severity, "title": f.title}
                for f in found
                if f.code not in lead_codes
            ]
    return out
