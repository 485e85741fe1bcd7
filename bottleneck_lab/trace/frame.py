"""TraceFrame: one rank's trace as columnar tables, with launch links and steps resolved once.

All times are microseconds (float64) on the trace's own clock, so a timestamp in a finding can
be looked up in Perfetto. Row links are integer positions into the other tables (-1 = none):

    gpu_ops.launch -> runtime row      (by `correlation`)
    gpu_ops.op, runtime.op -> cpu_ops row  (by `External id`, else the innermost cpu_op enclosing
                                            the launch on the launching thread)
    cpu_ops.parent -> cpu_ops row      (time nesting on each thread)
    *.step -> steps row
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np
import pandas as pd

from . import decode as D
from . import intervals

STEP_NAME = re.compile(r"^ProfilerStep#(\d+)$")
# The profiler's own span (category "Trace"): what it recorded lies inside it.
PROFILER_SPAN = re.compile(r"^PyTorch Profiler \(\d+\)$")
# "Memcpy HtoD (Pageable -> Device)", "Memcpy DtoH (Device -> Pinned)", ROCm "Memcpy HtoD (Host -> Device)"
COPY_KIND = re.compile(r"\b(HtoD|DtoH|DtoD|HtoH|PtoP|DtoA|AtoD)\b")


@dataclass
class TraceFrame:
    path: str
    rank: int
    gpu_ops: pd.DataFrame  # kernels, memcpy, memset
    runtime: pd.DataFrame  # CUDA/HIP runtime and driver calls
    cpu_ops: pd.DataFrame  # aten ops and other cpu_op events
    annotations: pd.DataFrame  # ProfilerStep, DataLoader, Optimizer.step, record_function ranges
    memory: pd.DataFrame  # [memory] instant events
    python: pd.DataFrame  # python_function events (with_stack=True)
    gpu_syncs: pd.DataFrame  # cuda_sync events: GPU-side view of synchronisations
    steps: pd.DataFrame  # one row per step: step, name, ts, cpu_end, end, dur
    device_properties: list[dict]
    metadata: dict[str, Any]
    distributed_info: dict
    events: int  # rows kept across all tables
    warnings: list[str] = field(default_factory=list)

    @property
    def has_gpu(self) -> bool:
        return len(self.gpu_ops) > 0

    @property
    def has_steps(self) -> bool:
        """True when the trace marked its steps (ProfilerStep), not a whole-trace fallback."""
        return bool(len(self.steps)) and bool(self.steps["marked"].iloc[0])

    @cached_property
    def devices(self) -> list[int]:
        """GPU device ids that ran work, busiest first."""
        if not self.has_gpu:
            return []
        busy = (
            self.gpu_ops.groupby("device", observed=True)["dur"].sum().sort_values(ascending=False)
        )
        return [int(d) for d in busy.index]

    def device_props(self, device: int) -> dict | None:
        for p in self.device_properties:
            if p.get("id") == device:
                return p
        return self.device_properties[0] if len(self.device_properties) == 1 else None

    def busy_intervals(self, device: int) -> tuple[np.ndarray, np.ndarray]:
        """Disjoint sorted intervals when any GPU op ran on `device` (all streams)."""
        cache = self.__dict__.setdefault("_busy", {})
        if device not in cache:
            g = self.gpu_ops
            on = g["device"].to_numpy() == device
            ts = g["ts"].to_numpy()[on]
            cache[device] = intervals.union(ts, ts + g["dur"].to_numpy()[on])
        return cache[device]


def name_mask(names: pd.Series, pattern: str | re.Pattern, flags: int = 0) -> np.ndarray:
    """Rows whose categorical name matches a regex, evaluated once per distinct name.

    Kernel names are long C++ signatures repeated thousands of times: matching the categories and
    indexing by code is orders of magnitude faster than matching every row.
    """
    rx = re.compile(pattern, flags) if isinstance(pattern, str) else pattern
    cats = names.cat.categories
    hits = np.fromiter((bool(rx.search(c)) for c in cats), dtype=bool, count=len(cats))
    codes = names.cat.codes.to_numpy()
    return np.where(codes >= 0, hits[np.maximum(codes, 0)], False)


def _categorical(codes: np.ndarray, dtype: pd.CategoricalDtype) -> pd.Categorical:
    return pd.Categorical.from_codes(codes, dtype=dtype)


def _ids(values: np.ndarray) -> np.ndarray:
    """Float ids (NaN = absent) as int64 with -1 for absent."""
    out = np.full(len(values), -1, dtype=np.int64)
    ok = np.isfinite(values) & (np.abs(values) < 2.0**62)  # ids beyond int64 are not ids we can use
    out[ok] = values[ok].astype(np.int64)
    return out


def _table(
    tables: dict,
    kinds: tuple[int, ...],
    names: pd.CategoricalDtype,
    id_cols: tuple[str, ...] = (),
    float_cols: tuple[str, ...] = (),
    object_cols: tuple[str, ...] = (),
) -> pd.DataFrame:
    """Concatenate the decoded columns of some row kinds into one DataFrame sorted by time
    (longest first at equal starts: a parent before its children). The order is computed once
    and each column taken once, rather than building a frame and sorting a copy of it."""
    present_kinds = [k for k in kinds if k in tables]
    present = [tables[k] for k in present_kinds]
    n = sum(len(t["ts"]) for t in present)

    def col(name: str, fill: Any, dtype: Any) -> np.ndarray:
        if not present:
            return np.empty(0, dtype=dtype)
        if len(present) == 1 and name in present[0]:
            return present[0][name]  # one kind: no concatenated copy (it is only indexed)
        return np.concatenate(
            [t[name] if name in t else np.full(len(t["ts"]), fill, dtype=dtype) for t in present]
        )

    ts, dur = col("ts", np.nan, np.float64), col("dur", np.nan, np.float64)
    ok = np.flatnonzero(np.isfinite(ts))
    rows = ok[np.lexsort((-dur[ok], ts[ok]))]  # stable, like sort_values(kind="stable")
    kind = (
        np.concatenate([np.full(len(t["ts"]), k, np.int8) for k, t in zip(present_kinds, present)])
        if n
        else np.empty(0, np.int8)
    )
    ts, dur = ts[rows], dur[rows]
    data = {
        "ts": ts,
        "dur": dur,
        "end": ts + dur,
        "name": _categorical(col("name", 0, np.int32)[rows], names),
        "pid": col("pid", -1, np.int64)[rows],
        "tid": col("tid", -1, np.int64)[rows],
        "kind_code": kind[rows],
    }
    for c in id_cols:
        data[c] = _ids(col(c, np.nan, np.float64)[rows])
    for c in float_cols:
        data[c] = col(c, np.nan, np.float64)[rows]
    for c in object_cols:
        data[c] = col(c, None, object)[rows]
    return pd.DataFrame(data)


def build_frame(raw: D.RawTrace, rank: int) -> TraceFrame:
    names = pd.CategoricalDtype(pd.Index(raw.names, dtype=object))
    t = raw.tables
    warnings = list(raw.repairs)
    if raw.dropped_events:
        warnings.append(f"{raw.dropped_events} unreadable events skipped")

    gpu = _table(
        t,
        (D.KERNEL, D.MEMCPY, D.MEMSET),
        names,
        id_cols=("correlation", "external_id", "device", "stream"),
        float_cols=("grid", "block", "occupancy_pct", "bytes"),
    )
    runtime = _table(
        t, (D.RUNTIME,), names, id_cols=("correlation", "external_id"), float_cols=("grid", "block")
    )
    cpu = _table(
        t,
        (D.CPU_OP,),
        names,
        id_cols=("external_id", "seq"),
        object_cols=("input_dims", "input_type", "concrete_inputs"),
    )
    ann = _table(t, (D.ANNOTATION, D.GPU_ANNOTATION), names, id_cols=("external_id",))
    memory = _table(
        t,
        (D.MEMORY,),
        names,
        float_cols=(
            "total_allocated",
            "total_reserved",
            "alloc_bytes",
            "addr",
            "device_id",
            "device_type",
        ),
    )
    python = _table(t, (D.PYTHON,), names)
    syncs = _table(t, (D.SYNC,), names, id_cols=("correlation", "device", "stream"))

    # torch 1.x wrote ProfilerStep as a cpu_op: it is an annotation, not an op.
    is_step = cpu["name"].isin(_step_names(names))
    if is_step.any():
        moved = cpu.loc[is_step, ["ts", "dur", "end", "name", "pid", "tid", "external_id"]]
        moved["kind_code"] = D.ANNOTATION
        ann = pd.concat([ann, moved], ignore_index=True).sort_values(
            "ts", kind="stable", ignore_index=True
        )
        cpu = cpu.loc[~is_step].reset_index(drop=True)
    memory = memory.loc[memory["name"] == "[memory]"].reset_index(drop=True)
    ann = _clip_to_profiler_window(ann)

    # GPU ops: device and stream from args where present, else from pid/tid.
    gpu["device"] = np.where(gpu["device"] >= 0, gpu["device"], gpu["pid"])
    gpu["stream"] = np.where(gpu["stream"] >= 0, gpu["stream"], gpu["tid"])
    gpu["kind"] = pd.Categorical.from_codes(
        np.select([gpu["kind_code"] == D.KERNEL, gpu["kind_code"] == D.MEMCPY], [0, 1], 2),
        categories=["kernel", "memcpy", "memset"],
    )
    _add_copy_columns(gpu)
    ann["on_gpu"] = ann["kind_code"] == D.GPU_ANNOTATION
    gpu, runtime, cpu, ann, memory, python, syncs = (
        df.drop(columns="kind_code") for df in (gpu, runtime, cpu, ann, memory, python, syncs)
    )

    _nest(cpu)
    runtime["op"] = _link_ops(runtime, cpu)
    gpu["launch"] = _link_launches(gpu, runtime)
    launched = gpu["launch"].to_numpy()
    gpu["op"] = _follow(launched, runtime["op"].to_numpy())
    _grid_from_launch(gpu, runtime, launched)

    steps = _steps(ann, gpu, runtime, cpu, memory, python)
    for df in (gpu, runtime, cpu, ann, memory, python):
        df["step"] = _step_of(df, steps)
    if len(gpu):
        # A GPU op belongs to the step that launched it, even when it runs after the step's CPU side.
        via_launch = _follow(launched, runtime["step"].to_numpy())
        gpu["step"] = np.where(launched >= 0, via_launch, gpu["step"])

    events = sum(len(df) for df in (gpu, runtime, cpu, ann, memory, python, syncs))
    if not events:
        warnings.append("trace has no timed events")
    return TraceFrame(
        path=raw.path,
        rank=rank,
        gpu_ops=gpu,
        runtime=runtime,
        cpu_ops=cpu,
        annotations=ann,
        memory=memory,
        python=python,
        gpu_syncs=syncs,
        steps=steps,
        device_properties=raw.device_properties,
        metadata=raw.metadata,
        distributed_info=raw.distributed_info,
        events=events,
        warnings=warnings,
    )


# HIP launch APIs whose grid argument is the global size in work-items, not in blocks.
WORK_ITEM_GRIDS = ("hipExtModuleLaunchKernel", "hipHccModuleLaunchKernel")


def _grid_from_launch(gpu: pd.DataFrame, runtime: pd.DataFrame, launched: np.ndarray) -> None:
    """ROCm writes grid and block on the launch call, not the kernel: take them from there."""
    ok = (launched >= 0) & (launched < len(runtime))
    rows = launched[ok]
    grid, block = np.full(len(gpu), np.nan), np.full(len(gpu), np.nan)
    grid[ok], block[ok] = runtime["grid"].to_numpy()[rows], runtime["block"].to_numpy()[rows]
    work_items = np.zeros(len(gpu), dtype=bool)
    work_items[ok] = runtime["name"].isin(WORK_ITEM_GRIDS).to_numpy()[rows]
    grid = np.where(work_items & (block > 0), grid / np.where(block > 0, block, 1), grid)
    gpu["grid"] = np.where(np.isnan(gpu["grid"].to_numpy()), grid, gpu["grid"].to_numpy())
    gpu["block"] = np.where(np.isnan(gpu["block"].to_numpy()), block, gpu["block"].to_numpy())


def nearest_ancestor(parent: np.ndarray, start: np.ndarray, is_target: np.ndarray) -> np.ndarray:
    """For each start row (-1 = none), the first cpu_op at or above it along `parent` for which
    `is_target` holds, else -1. One vectorised step per level of nesting."""
    cur = np.asarray(start, dtype=np.int64).copy()
    out = np.full(len(cur), -1, dtype=np.int64)
    while (live := cur >= 0).any():
        c = np.where(live, cur, 0)
        hit = live & is_target[c]
        out[hit] = cur[hit]
        cur = np.where(live & ~hit, parent[c], -1)
    return out


def outermost(parent: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """The rows of `mask` whose parent is not in it: where ops of the mask nest (aten::linear
    running aten::addmm, aten::sum running aten::sum), only the outer one."""
    return mask & ~((parent >= 0) & mask[np.maximum(parent, 0)])


def any_below(parent: np.ndarray, depth: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """For each cpu_op, whether an op below it (a child, a child's child ...) is in `mask`.
    One vectorised step per level of nesting, deepest first."""
    below = np.zeros(len(parent), dtype=bool)
    order = np.argsort(-depth, kind="stable")
    levels = np.flatnonzero(np.r_[True, depth[order][1:] != depth[order][:-1], True])
    for start, end in zip(levels[:-1], levels[1:]):
        rows = order[start:end]
        up = parent[rows[mask[rows] | below[rows]]]
        below[up[up >= 0]] = True
    return below


def _follow(rows: np.ndarray, values: np.ndarray) -> np.ndarray:
    """values[rows] where rows >= 0, else -1 (safe when `values` is empty)."""
    out = np.full(len(rows), -1, dtype=np.int64)
    ok = (rows >= 0) & (rows < len(values))
    out[ok] = values[rows[ok]]
    return out


def _step_names(names: pd.CategoricalDtype) -> list[str]:
    return [n for n in names.categories if n.startswith("ProfilerStep#")]


def _add_copy_columns(gpu: pd.DataFrame) -> None:
    """Copy direction and pageable/pinned host memory, read from the memcpy's name."""
    cats = gpu["name"].cat.categories
    direction = {
        n: (m.group(1) if (m := COPY_KIND.search(n)) else "")
        for n in cats
        if n.startswith("Memcpy")
    }
    is_copy = gpu["kind"] == "memcpy"
    kinds = np.array([direction.get(c, "") for c in cats] + [""], dtype=object)
    codes = gpu["name"].cat.codes.to_numpy()
    gpu["copy_kind"] = np.where(is_copy, kinds[codes], "")
    gpu["pageable"] = is_copy.to_numpy() & name_mask(gpu["name"], "Pageable")


def thread_key(pid: np.ndarray, tid: np.ndarray) -> np.ndarray:
    """One int64 per (pid, tid) pair."""
    return pid.astype(np.int64) * 4294967296 + (tid.astype(np.int64) & 0xFFFFFFFF)


def _composite(thread: np.ndarray, ts: np.ndarray, t0: float, span: float) -> np.ndarray:
    """A sort key that orders by thread, then time (exact for spans under ~1e9 us x threads)."""
    return thread * (span + 1.0) + (ts - t0)


def _thread_order(thread: np.ndarray, ts: np.ndarray, dur: np.ndarray) -> np.ndarray:
    """Rows in (thread, start, longest-first) order, ties by row. The table is already sorted by
    (start, longest-first) (_table), so a stable sort by thread gives it (50 ms -> 2 ms for the
    10x trace's 570k ops); the sort of all three keys is kept for a table not in that order."""
    in_order = bool(np.all((ts[1:] > ts[:-1]) | ((ts[1:] == ts[:-1]) & (-dur[1:] >= -dur[:-1]))))
    if in_order:
        return np.argsort(thread, kind="stable")
    return np.lexsort((-dur, ts, thread))


def _nest(cpu: pd.DataFrame) -> None:
    """depth and parent of each cpu_op by time nesting on its thread.

    In (thread, start, longest-first) order, an op's parent is the nearest earlier op on its
    thread still open when it starts. Starting from "the previous op" and jumping to a
    candidate's own candidate while the candidate has already closed finds it; every op skipped
    closed before the later op started, so it cannot be an ancestor. This is the classic stack
    walk done as vectorised pointer jumping (a handful of numpy passes instead of a Python loop).
    """
    n = len(cpu)
    parent = np.full(n, -1, dtype=np.int64)
    depth = np.zeros(n, dtype=np.int32)
    if n:
        thread = pd.factorize(thread_key(cpu["pid"].to_numpy(), cpu["tid"].to_numpy()))[0]
        order = _thread_order(thread, cpu["ts"].to_numpy(), cpu["dur"].to_numpy())
        ts = cpu["ts"].to_numpy()[order]
        end = cpu["end"].to_numpy()[order]
        th = thread[order]
        cand = np.arange(n) - 1
        cand[np.flatnonzero(np.diff(th, prepend=-1) != 0)] = -1  # first op of each thread
        while True:
            c = np.maximum(cand, 0)
            closed = (cand >= 0) & (end[c] <= ts)
            if not closed.any():
                break
            cand = np.where(closed, cand[c], cand)
        d = np.zeros(n, dtype=np.int32)
        anc = cand.copy()
        while (live := anc >= 0).any():
            d += live
            anc = np.where(live, cand[np.maximum(anc, 0)], -1)
        parent[order] = np.where(cand >= 0, order[np.maximum(cand, 0)], -1)
        depth[order] = d
    cpu["parent"] = parent
    cpu["depth"] = depth


def _innermost_enclosing(
    cpu: pd.DataFrame, pid: np.ndarray, tid: np.ndarray, ts: np.ndarray
) -> np.ndarray:
    """Row of the innermost cpu_op on the same thread that encloses each time point (-1 if none)."""
    out = np.full(len(ts), -1, dtype=np.int64)
    if not len(cpu) or not len(ts):
        return out
    keys = thread_key(cpu["pid"].to_numpy(), cpu["tid"].to_numpy())
    thread_index = pd.Index(pd.unique(keys))
    q_thread = thread_index.get_indexer(thread_key(pid, tid))
    c_thread = thread_index.get_indexer(keys)
    cts, cend = cpu["ts"].to_numpy(), cpu["end"].to_numpy()
    t0 = min(cts.min(), ts.min())
    span = max(cend.max(), ts.max()) - t0
    ckey = _composite(c_thread, cts, t0, span)
    # ckey orders by thread, then start. The table is sorted by start already (_table), so a
    # stable sort by thread gives the same order, much faster than sorting the float keys.
    if bool(np.all(cts[1:] >= cts[:-1])):
        order = np.argsort(c_thread, kind="stable")
    else:
        order = np.argsort(ckey, kind="stable")
    pos = np.searchsorted(ckey[order], _composite(q_thread, ts, t0, span), side="right") - 1
    cand = np.where((pos >= 0) & (q_thread >= 0), order[np.maximum(pos, 0)], -1)
    parent = cpu["parent"].to_numpy()
    # Walk up from the last op that started before the point until one still runs at it.
    for _ in range(int(cpu["depth"].max()) + 2 if len(cpu) else 0):
        bad = (cand >= 0) & (
            (c_thread[np.maximum(cand, 0)] != q_thread) | (cend[np.maximum(cand, 0)] < ts)
        )
        if not bad.any():
            break
        cand = np.where(bad, parent[np.maximum(cand, 0)], cand)
        cand = np.where(bad & (cand >= 0) & (c_thread[np.maximum(cand, 0)] != q_thread), -1, cand)
    out[:] = cand
    return out


def _link_ops(runtime: pd.DataFrame, cpu: pd.DataFrame) -> np.ndarray:
    """cpu_op row of each runtime call: by External id when it agrees with time, else by nesting."""
    if not len(runtime) or not len(cpu):
        return np.full(len(runtime), -1, dtype=np.int64)
    ids = pd.Index(cpu["external_id"].to_numpy())
    has_id = cpu["external_id"].to_numpy() >= 0
    first = ~ids.duplicated(keep="first") & has_id
    index = pd.Index(cpu["external_id"].to_numpy()[first])
    rows = np.flatnonzero(first)
    rid = runtime["external_id"].to_numpy()
    hit = index.get_indexer(rid)
    op = np.where(rid >= 0, _follow(hit, rows), -1)
    # The id must point at an op on the same thread that encloses the call; else use nesting.
    rts = runtime["ts"].to_numpy()
    okrow = np.maximum(op, 0)
    agrees = (
        (op >= 0)
        & (cpu["tid"].to_numpy()[okrow] == runtime["tid"].to_numpy())
        & (cpu["ts"].to_numpy()[okrow] <= rts + 1.0)
        & (cpu["end"].to_numpy()[okrow] >= rts - 1.0)
    )
    op = np.where(agrees, op, -1)
    missing = np.flatnonzero(op < 0)
    if len(missing):
        op[missing] = _innermost_enclosing(
            cpu,
            runtime["pid"].to_numpy()[missing],
            runtime["tid"].to_numpy()[missing],
            rts[missing],
        )
    return op


def _link_launches(gpu: pd.DataFrame, runtime: pd.DataFrame) -> np.ndarray:
    """runtime row that launched each GPU op, by correlation id (graph launches fan out)."""
    if not len(gpu) or not len(runtime):
        return np.full(len(gpu), -1, dtype=np.int64)
    corr = runtime["correlation"].to_numpy()
    keep = (corr >= 0) & ~pd.Index(corr).duplicated(keep="first")
    rows = np.flatnonzero(keep)
    hit = pd.Index(corr[keep]).get_indexer(gpu["correlation"].to_numpy())
    link = np.where(gpu["correlation"].to_numpy() >= 0, _follow(hit, rows), -1)
    # a call that began after the op had ended did not launch it: a reused correlation id (an
    # NCCL kernel launched before the profiler started, matched to a runtime call after its end)
    began = runtime["ts"].to_numpy()[np.maximum(link, 0)]
    return np.where((link >= 0) & (began > gpu["end"].to_numpy()), -1, link)


def _clip_to_profiler_window(ann: pd.DataFrame) -> pd.DataFrame:
    """Annotations without the profiler's own span, each ended no later than it: a step still
    open when the profiler stopped is written with the end it got later (a ProfilerStep of an
    A100 torch.compile trace ran 13 s past a 355 ms window), and nothing after the window was
    recorded."""
    window = name_mask(ann["name"], PROFILER_SPAN)
    if not window.any():
        return ann
    last = float(ann.loc[window, "end"].max())
    ann = ann.loc[~window].reset_index(drop=True)
    past = ann["end"].to_numpy() > last
    if past.any():
        ann.loc[past, "end"] = np.maximum(last, ann.loc[past, "ts"].to_numpy())
        ann["dur"] = ann["end"] - ann["ts"]
    return ann


def _steps(
    ann: pd.DataFrame,
    gpu: pd.DataFrame,
    runtime: pd.DataFrame,
    cpu: pd.DataFrame,
    memory: pd.DataFrame,
    python: pd.DataFrame,
) -> pd.DataFrame:
    """Steps from ProfilerStep spans, as back-to-back windows on the timeline.

    A step ends when both its CPU span and the GPU work it launched have ended. The next step's
    window starts where the previous one ended (or at its own CPU start, if later), so windows
    never overlap: when the CPU runs ahead of a busy GPU, each step's duration is its GPU time,
    and when the GPU waits on the CPU, it is the CPU time. Columns: step, name, cpu_ts, cpu_end
    (the ProfilerStep span itself), ts, end, dur (the window), marked.
    """
    is_step = name_mask(ann["name"], STEP_NAME) & ~ann["on_gpu"].to_numpy(dtype=bool)
    marked = ann.loc[is_step].copy()
    marked["step"] = [int(STEP_NAME.match(n).group(1)) for n in marked["name"].astype(object)]
    if len(marked):
        # The same step can appear twice (cpu_op and annotation); keep the longest span.
        marked = marked.sort_values("dur", ascending=False).drop_duplicates("step")
        steps = marked.sort_values("ts")[["step", "name", "ts", "end"]].rename(
            columns={"ts": "cpu_ts", "end": "cpu_end"}
        )
        steps["name"] = steps["name"].astype(object)
        steps["marked"] = True
    else:
        tables = (gpu, runtime, cpu, ann, memory, python)
        starts = [df["ts"].min() for df in tables if len(df)]
        ends = [df["end"].max() for df in tables if len(df)]
        if not starts:
            return pd.DataFrame(
                {c: [] for c in ("step", "name", "cpu_ts", "cpu_end", "ts", "end", "dur", "marked")}
            )
        steps = pd.DataFrame(
            {
                "step": [0],
                "name": ["whole trace"],
                "cpu_ts": [min(starts)],
                "cpu_end": [max(ends)],
                "marked": [False],
            }
        )
    steps = steps.reset_index(drop=True)
    end = steps["cpu_end"].to_numpy().copy()
    if len(gpu) and steps["marked"].iloc[0]:
        # A GPU op belongs to the step whose CPU span launched it (its own start if unlinked).
        launch = gpu["launch"].to_numpy()
        linked = (launch >= 0) & (launch < len(runtime))
        when = gpu["ts"].to_numpy().copy()
        when[linked] = runtime["ts"].to_numpy()[launch[linked]]
        s = _window_of(when, steps)
        ok = s >= 0
        np.maximum.at(end, s[ok], gpu["end"].to_numpy()[ok])
    end = np.maximum.accumulate(end)
    start = steps["cpu_ts"].to_numpy().copy()
    start[1:] = np.maximum(start[1:], end[:-1])
    steps["ts"] = start
    steps["end"] = end
    steps["dur"] = end - start
    return steps


def _window_of(ts: np.ndarray, steps: pd.DataFrame) -> np.ndarray:
    """Index of the step whose CPU span holds each time (-1 outside every step)."""
    starts = steps["cpu_ts"].to_numpy()
    i = np.searchsorted(starts, ts, side="right") - 1
    inside = (i >= 0) & (ts <= steps["cpu_end"].to_numpy()[np.maximum(i, 0)])
    return np.where(inside, i, -1)


def _step_of(df: pd.DataFrame, steps: pd.DataFrame) -> np.ndarray:
    if not len(steps) or not len(df):
        return np.full(len(df), -1, dtype=np.int64)
    return _window_of(df["ts"].to_numpy(), steps)
