"""Holistic Trace Analysis (HTA) beside bottleneck-lab: run HTA's breakdowns for comparison.

`hta_report(path)` runs HTA's temporal, idle-time and GPU-kernel breakdowns on a trace and returns
plain JSON-able values; it never raises: where HTA cannot run (no kernels, not a Kineto trace, HTA
not installed) it returns `{"available": False, "reason": "..."}`. `render_hta_text(report)` is
the clearly labelled text section for the report. Neither computes any finding of ours.

`our_idle_like_hta(frame, ...)` is the other half of the comparison: our GPU idle time per device
measured over HTA's window, optionally with HTA's own input quirks applied, so that a remaining
difference is a real disagreement and not a different definition.

What HTA 0.5.0 does that our plain numbers do not (hta/common/trace.py, trace_parser.py,
analyzers/breakdown_analysis.py):

- ns rounding: when any `ts` in the file is fractional, every event is rounded inward to whole
  microseconds (ts = ceil(ts), end = floor(ts + dur)); a sub-microsecond kernel can come out with
  a negative duration. `HTA_DISABLE_NS_ROUNDING=1` turns this off.
- last-step drop: with two or more ProfilerStep names in the trace, GPU events are kept only when
  a CPU-side event with the same correlation id (their launch) starts before the last
  ProfilerStep starts. GPU events with no launch in the trace are dropped with them.
- window: idle = (end of last GPU event - start of first) - merged busy time, per rank, over every
  event that has a `stream` arg: kernels, memcpy, memset, and also cuda_sync events (and, on ROCm,
  runtime calls, which carry `stream` too). Devices of one rank are not told apart.
- ranks come from the regex `"rank":\\s+(\\d+)` on the file text: compact JSON gives rank 0.

Analysing a trace never imports torch; HTA 0.5.0 does not import it either (it imports pandas,
plotly and psutil).
"""

from __future__ import annotations

import contextlib
import io
import logging
import math
import os
import tempfile
import traceback
import warnings
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import numpy as np

from .trace import TraceFrame, intervals

LABEL = "Holistic Trace Analysis (HTA) breakdowns, for comparison — computed by HTA, not by bottleneck-lab"
TOP_KERNELS = 10


# --- running HTA ------------------------------------------------------------------------------


@contextlib.contextmanager
def _quiet() -> Iterator[None]:
    """Silence HTA: its logger (INFO/WARNING per rank and per step), Python and pandas warnings,
    and anything printed to stdout/stderr while it runs."""
    log = logging.getLogger("hta")
    level, disabled = log.level, log.disabled
    log.setLevel(logging.CRITICAL + 1)
    log.disabled = True
    try:
        with (
            warnings.catch_warnings(),
            contextlib.redirect_stdout(io.StringIO()),
            contextlib.redirect_stderr(io.StringIO()),
        ):
            warnings.simplefilter("ignore")
            yield
    finally:
        log.setLevel(level)
        log.disabled = disabled


def _one_line(exc: BaseException, stage: str) -> str:
    msg = " ".join(str(exc).split()) or _failed_check(exc)
    if len(msg) > 200:
        msg = msg[:197] + "..."
    return f"{stage}: {type(exc).__name__}: {msg}"


def _failed_check(exc: BaseException) -> str:
    """For an exception with no message (HTA's own asserts), the line that raised it and where:
    "`assert non_compute_time >= 0` failed in idle_time_per_rank"."""
    where = traceback.extract_tb(exc.__traceback__)
    if not where or not where[-1].line:
        return "(no message)"
    return f"`{where[-1].line}` failed in {where[-1].name}"


@contextlib.contextmanager
def _trace_dir(path: str | os.PathLike, files: Iterable[str | os.PathLike] | None) -> Iterator[str]:
    """A directory HTA can read: the directory itself, or a temp dir of symlinks to the files."""
    p = Path(path)
    if p.is_dir() and files is None:
        yield str(p)
        return
    chosen = [Path(f) for f in files] if files is not None else [p]
    with tempfile.TemporaryDirectory(prefix="bottleneck-lab-hta-") as tmp:
        for i, f in enumerate(chosen):
            if not f.is_file():
                raise FileNotFoundError(f"no such file: {f}")
            name = f.name if len(chosen) == 1 else f"{i:04d}-{f.name}"
            os.symlink(f.resolve(), Path(tmp) / name)
        yield tmp


def _records(df: Any, rename: dict[str, str]) -> list[dict[str, Any]]:
    """DataFrame rows -> list of dicts of plain Python values (no numpy scalars, no NaN)."""
    out = []
    for row in df.to_dict("records"):
        rec = {}
        for k, v in row.items():
            if hasattr(v, "item") and callable(v.item):
                v = v.item()
            if isinstance(v, float) and not math.isfinite(v):
                v = None
            rec[rename.get(k, k)] = v
        out.append(rec)
    return out


TEMPORAL_COLUMNS = {
    "idle_time(us)": "idle_time_us",
    "compute_time(us)": "compute_time_us",
    # HTA's "kernel_time" is its window (first GPU event start to last end), not kernel time.
    "non_compute_time(us)": "non_compute_time_us",
    "kernel_time(us)": "window_us",
    "idle_time_pctg": "idle_time_pct",
    "compute_time_pctg": "compute_time_pct",
    "non_compute_time_pctg": "non_compute_time_pct",
}
IDLE_COLUMNS = {"idle_time": "idle_time_us"}
KERNEL_COLUMNS = {
    "sum (us)": "total_us",
    "max (us)": "max_us",
    "min (us)": "min_us",
    "stddev": "stddev_us",
    "mean (us)": "mean_us",
}


def _top_kernels(metrics: Any) -> list[dict[str, Any]]:
    """HTA's per-rank kernel table, its aggregate 'others' rows left out, top 10 by total time."""
    named = metrics[metrics["name"] != "others"]
    top = (
        named.sort_values("sum (us)", ascending=False).groupby("rank", sort=True).head(TOP_KERNELS)
    )
    top = top.sort_values(["rank", "sum (us)"], ascending=[True, False])
    rows = _records(
        top[
            [
                "rank",
                "name",
                "kernel_type",
                "sum (us)",
                "mean (us)",
                "min (us)",
                "max (us)",
                "stddev",
            ]
        ],
        KERNEL_COLUMNS,
    )
    for r in rows:
        mean = r.get("mean_us")
        r["count"] = int(round(r["total_us"] / mean)) if mean else None
    return rows


def _count_step_names(analyzer: Any) -> int:
    return sum("ProfilerStep" in str(s) for s in analyzer.t.symbol_table.get_sym_id_map())


def hta_report(
    path: str | os.PathLike, *, files: Iterable[str | os.PathLike] | None = None
) -> dict[str, Any]:
    """HTA's temporal, idle-time and kernel breakdowns of a trace file or directory, as plain values.

    `files`: the trace files HTA should read (default: the file `path`, or every *.json/*.gz in the
    directory `path`, as HTA itself would). Pass the files bottleneck-lab loaded to keep HTA off
    files it cannot read, such as an execution trace lying beside the profiler trace.

    Returns {"available": True, "tool", "ranks", "notes", "temporal", "idle_time", "kernel_types",
    "kernels"}, or {"available": False, "reason": "<stage>: <exception type>: <message>"} when HTA
    cannot run on it. Never raises (only KeyboardInterrupt passes through).
    """
    stage = "import hta"
    analyzer = None
    try:
        with _quiet():
            from importlib.metadata import version

            from hta.trace_analysis import TraceAnalysis

            tool = f"HolisticTraceAnalysis {version('HolisticTraceAnalysis')}"
            stage = "TraceAnalysis (load)"
            with _trace_dir(path, files) as trace_dir:
                n_files = sum(
                    1 for f in Path(trace_dir).iterdir() if f.name.endswith((".json", ".gz"))
                )
                analyzer = TraceAnalysis(trace_dir=trace_dir)
            ranks = [int(r) for r in analyzer.t.get_ranks()]
            stage = "get_temporal_breakdown"
            temporal = analyzer.get_temporal_breakdown(visualize=False)
            stage = "get_idle_time_breakdown"
            idle, _ = analyzer.get_idle_time_breakdown(ranks=ranks, visualize=False)
            stage = "get_gpu_kernel_breakdown"
            kernel_types, kernel_metrics = analyzer.get_gpu_kernel_breakdown(
                visualize=False, num_kernels=TOP_KERNELS
            )
            stage = "collecting results"
            notes = []
            if len(ranks) < n_files:
                notes.append(
                    f"HTA read {n_files} files as {len(ranks)} rank(s): a file without "
                    "'\"rank\": N' in its text (compact JSON, or not a Kineto trace) counts "
                    "as rank 0, and HTA keeps only one file per rank"
                )
            if _count_step_names(analyzer) >= 2:
                notes.append(
                    "HTA drops the last ProfilerStep (it keeps GPU work launched before "
                    "the last step starts)"
                )
            report = {
                "available": True,
                "tool": tool,
                "ranks": ranks,
                "notes": notes,
                "temporal": _records(temporal, TEMPORAL_COLUMNS),
                "idle_time": _records(idle, IDLE_COLUMNS),
                "kernel_types": _records(kernel_types, {"sum": "total_us", "percentage": "pct"}),
                "kernels": _top_kernels(kernel_metrics),
            }
        return report
    except KeyboardInterrupt:
        raise
    except (
        BaseException
    ) as exc:  # HTA fails in many ways (IndexError, AttributeError, assert, exit)
        reason = _one_line(exc, stage)
        if analyzer is not None and not _has_gpu_events(analyzer):
            reason += " (HTA's breakdowns fail on traces without GPU kernels)"
        return {"available": False, "reason": reason}


def _has_gpu_events(analyzer: Any) -> bool:
    try:
        return any(bool((df["stream"] >= 0).any()) for df in analyzer.t.traces.values())
    except Exception:
        return True  # cannot tell: say nothing more


# --- rendering --------------------------------------------------------------------------------


def _us(v: Any) -> str:
    return "n/a" if v is None else f"{v:,.0f} µs"


def _num(v: Any, fmt: str) -> str:
    return "n/a" if v is None else format(v, fmt)


def render_hta_text(report: dict[str, Any], width: int = 100) -> str:
    """HTA's numbers as a labelled text section (no analysis here)."""
    out = [LABEL, "-" * min(len(LABEL), width)]
    if not report.get("available"):
        out.append(f"HTA could not run on this trace: {report.get('reason', 'unknown reason')}")
        return "\n".join(out) + "\n"
    out.append(f"{report.get('tool', 'HTA')}, ranks {', '.join(map(str, report.get('ranks', [])))}")
    out.extend(f"note: {n}" for n in report.get("notes", []))
    out += ["", "Temporal breakdown per rank (HTA's window: first to last GPU event)"]
    out.append(
        f"  {'rank':>4}  {'window':>14}  {'idle':>14} {'%':>6}  {'compute':>14} {'%':>6}  "
        f"{'non-compute':>14} {'%':>6}"
    )
    for r in report.get("temporal", []):
        out.append(
            f"  {r['rank']:>4}  {_us(r['window_us']):>14}  {_us(r['idle_time_us']):>14} "
            f"{_num(r['idle_time_pct'], '>6.2f')}  {_us(r['compute_time_us']):>14} "
            f"{_num(r['compute_time_pct'], '>6.2f')}  {_us(r['non_compute_time_us']):>14} "
            f"{_num(r['non_compute_time_pct'], '>6.2f')}"
        )
    out += [
        "",
        "Idle time per rank and stream (HTA's categories; ratio = share of the stream's idle)",
    ]
    out.append(f"  {'rank':>4}  {'stream':>6}  {'category':<12} {'idle':>14}  {'ratio':>5}")
    for r in report.get("idle_time", []):
        out.append(
            f"  {r['rank']:>4}  {r['stream']:>6}  {r['idle_category']:<12} "
            f"{_us(r['idle_time_us']):>14}  {_num(r['idle_time_ratio'], '>5.2f')}"
        )
    out += ["", "Kernel time by type"]
    for r in report.get("kernel_types", []):
        out.append(f"  {r['kernel_type']:<44} {_us(r['total_us']):>14}  {_num(r['pct'], '>5.1f')}%")
    out += ["", f"Top {TOP_KERNELS} kernels per rank by total time"]
    name_w = max(20, width - 56)
    for r in report.get("kernels", []):
        name = r["name"] if len(r["name"]) <= name_w else r["name"][: name_w - 3] + "..."
        out.append(
            f"  {r['rank']:>4}  {name:<{name_w}} {_us(r['total_us']):>14}  "
            f"x{r['count'] if r['count'] is not None else '?':<6} {r['kernel_type']}"
        )
    return "\n".join(out) + "\n"


# --- our idle time, measured the way HTA measures it -------------------------------------------


def _round_inward(ts: np.ndarray, end: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """HTA's ns rounding: ts = ceil(ts), end = floor(ts + dur) (a no-op on integer traces)."""
    return np.ceil(ts), np.floor(end)


def hta_keeps(frame: TraceFrame, *, round_ns: bool = False) -> np.ndarray:
    """Mask of frame.gpu_ops HTA keeps when it drops the last step.

    With two or more marked steps, HTA keeps a GPU op only if its launch is in the trace and
    starts before the last ProfilerStep starts; with fewer steps it keeps everything.
    """
    g = frame.gpu_ops
    if not frame.has_steps or len(frame.steps) < 2:
        return np.ones(len(g), dtype=bool)
    # HTA's cut is where the last ProfilerStep span starts on the CPU (the frame's `cpu_ts`; `ts`
    # is the step's window on the timeline, which starts later when the GPU runs behind).
    col = "cpu_ts" if "cpu_ts" in frame.steps.columns else "ts"
    last_start = float(frame.steps[col].max())
    launch = g["launch"].to_numpy()
    launch_ts = (
        frame.runtime["ts"].to_numpy()[np.maximum(launch, 0)]
        if len(frame.runtime)
        else np.full(len(g), np.inf)
    )
    if round_ns:
        launch_ts, last_start = np.ceil(launch_ts), math.ceil(last_start)
    return (launch >= 0) & (launch_ts < last_start)


def busy_like_hta(
    frame: TraceFrame, *, drop_last_step: bool, round_ns: bool, count_syncs: bool = False
) -> dict[int, tuple[np.ndarray, np.ndarray]]:
    """Disjoint busy intervals per device of frame.gpu_ops (kernels, memcpy, memset, all streams),
    optionally with HTA's input quirks (see our_idle_like_hta)."""
    g = frame.gpu_ops
    dev = g["device"].to_numpy()
    ts, end = g["ts"].to_numpy(), g["end"].to_numpy()
    keep = hta_keeps(frame, round_ns=round_ns) if drop_last_step else np.ones(len(g), dtype=bool)
    if count_syncs and len(frame.gpu_syncs):
        s = frame.gpu_syncs
        on_stream = s["stream"].to_numpy() >= 0
        dev = np.concatenate([dev, s["device"].to_numpy()[on_stream]])
        ts = np.concatenate([ts, s["ts"].to_numpy()[on_stream]])
        end = np.concatenate([end, (s["ts"] + s["dur"]).to_numpy()[on_stream]])
        # HTA's last-step filter drops cuda_sync events of the last step too; the frame does not
        # link them to launches, so with a step dropped they are left out rather than guessed.
        dropped = drop_last_step and frame.has_steps and len(frame.steps) >= 2
        keep = np.concatenate([keep, np.full(int(on_stream.sum()), not dropped)])
    if round_ns:
        ts, end = _round_inward(ts, end)
    out = {}
    for d in sorted({int(x) for x in dev[keep]}):
        on = keep & (dev == d)
        out[d] = intervals.union(ts[on], end[on])
    return out


def our_idle_like_hta(
    frame: TraceFrame, *, drop_last_step: bool, round_ns: bool, count_syncs: bool = False
) -> dict[int, float]:
    """Our GPU idle µs per device over HTA's window: first GPU op start to last GPU op end.

    idle = window - time covered by the union of the device's GPU ops (kernels, memcpy, memset,
    all streams), from the same interval arithmetic as frame.busy_intervals. The flags mimic HTA:
    `drop_last_step` keeps only the ops HTA keeps (hta_keeps), `round_ns` rounds each op inward
    to whole µs as HTA does on float traces (so a sub-µs op can count negative, as in HTA), and
    `count_syncs` counts cuda_sync events (GPU-side waits) as busy, as HTA does because they carry
    a `stream` arg. With all flags off this is our plain definition.
    """
    busy = busy_like_hta(
        frame, drop_last_step=drop_last_step, round_ns=round_ns, count_syncs=count_syncs
    )
    return {d: float(e[-1] - s[0]) - intervals.total(s, e) for d, (s, e) in busy.items()}
