"""The memory curve, read from the trace's `[memory]` events (`profile_memory=True`).

Every allocation and free the caching allocator makes is one instant event carrying the
allocator's `Total Allocated` and `Total Reserved` after it, so the curve is exact at every
event: its maximum is what `torch.cuda.max_memory_allocated()` reports over the same steps.

Per step the curve is cut into phases, found from the trace alone:

    forward    ops recorded with a Sequence number (autograd records one for every op run with
               grad enabled) before the backward pass, outside Optimizer.* ranges
    backward   the span of `autograd::engine::evaluate_function: ...` ops (the backward thread
               on GPU, the calling thread on CPU)
    optimizer  the `Optimizer.step#...` ranges

and reported as plain values: the baseline when forward begins (parameters, gradients,
optimizer state), the peak and the op running at it, the growth during forward (activations
kept for backward) and the release during backward.

Activation checkpointing shows up as forward ops re-run inside the backward pass: ops with a
Sequence number (grad enabled) inside an evaluate_function span that are not the autograd node
itself. The backward pass runs with grad disabled, so its own ops carry none.

Times are µs on the trace's clock, sizes are bytes. Curves hold numpy arrays; everything else
is ints, floats, strings and tuples of them. Results are cached on the frame.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from . import facts
from .trace import TraceFrame
from .trace import intervals as iv
from .trace.frame import nearest_ancestor

CPU, CUDA = 0, 1  # `Device Type` of a [memory] event
EVALUATE_FUNCTION = "autograd::engine::evaluate_function: "
OPTIMIZER_STEP = "Optimizer.step#"
OPTIMIZER_ANY = "Optimizer."
# Reentrant checkpointing names its autograd function; with_stack traces name the module.
CHECKPOINT_MARKERS = ("CheckpointFunction", "torch/utils/checkpoint.py")
PHASES = ("forward", "backward", "optimizer")


def _cache(frame: TraceFrame) -> dict:
    return frame.__dict__.setdefault("_memory", {})


# --- the curve ---------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class MemoryCurve:
    """Allocator state after each [memory] event of one device, in time order."""

    device_type: int
    device_id: int
    ts: np.ndarray  # µs
    allocated: np.ndarray  # Total Allocated after the event, bytes
    reserved: np.ndarray  # Total Reserved after the event, bytes
    delta: np.ndarray  # the event's Bytes: + allocation, - free
    addr: np.ndarray
    pid: np.ndarray
    tid: np.ndarray
    step: np.ndarray  # steps row (-1 outside every step)

    def __len__(self) -> int:
        return len(self.ts)

    @property
    def initial(self) -> float:
        """Allocated before the first event."""
        return float(self.allocated[0] - self.delta[0]) if len(self) else 0.0

    def before(self, t: float | np.ndarray) -> np.ndarray:
        """Allocated just before time t (events at t not yet applied)."""
        i = np.searchsorted(self.ts, t, side="left") - 1
        return np.where(i >= 0, self.allocated[np.maximum(i, 0)], self.initial)

    def after(self, t: float | np.ndarray) -> np.ndarray:
        """Allocated just after time t (events at t applied)."""
        i = np.searchsorted(self.ts, t, side="right") - 1
        return np.where(i >= 0, self.allocated[np.maximum(i, 0)], self.initial)

    def freed_at(self) -> np.ndarray:
        """For each allocation, when its block was freed (inf if never in the trace; NaN for
        frees). Blocks are matched by address: the next event at the same address frees it."""
        n = len(self)
        order = np.lexsort((np.arange(n), self.addr))
        nxt = np.full(n, -1)
        same = self.addr[order[1:]] == self.addr[order[:-1]]
        nxt[order[:-1][same]] = order[1:][same]
        ok = nxt >= 0
        freed = np.where(
            ok & (self.delta[np.maximum(nxt, 0)] < 0), self.ts[np.maximum(nxt, 0)], np.inf
        )
        return np.where(self.delta > 0, freed, np.nan)


def memory_devices(frame: TraceFrame) -> list[tuple[int, int]]:
    """(device type, device id) of every device with [memory] events, highest peak first."""
    m = frame.memory
    if not len(m):
        return []
    peaks = (
        m.groupby(["device_type", "device_id"])["total_allocated"]
        .max()
        .sort_values(ascending=False)
    )
    return [(int(t), int(d)) for t, d in peaks.index]


def default_device(frame: TraceFrame, device_type: int | None = None) -> tuple[int, int] | None:
    """The device the memory analysis describes: the main GPU (else the CUDA device with the
    highest peak); host memory only in a trace with no GPU work, or when asked for it."""
    devs = memory_devices(frame)
    if device_type is None:
        device_type = (
            CUDA if any(t == CUDA for t, _ in devs) else (CPU if not frame.has_gpu else None)
        )
    if device_type is None:
        return None
    of_type = [(t, d) for t, d in devs if t == device_type]
    if not of_type:
        return None
    main = facts.main_device(frame)
    return next(((t, d) for t, d in of_type if d == main), of_type[0])


def curve(
    frame: TraceFrame, device_type: int | None = None, device_id: int | None = None
) -> MemoryCurve | None:
    """The memory curve of one device (default: `default_device`); None without its events.

    `device_type` is 1 for CUDA (also HIP) memory and 0 for host memory, as the trace writes it.
    """
    if device_id is None:
        dev = default_device(frame, device_type)
        if dev is None:
            return None
        device_type, device_id = dev
    elif device_type is None:
        device_type = CUDA
    key = ("curve", device_type, device_id)
    c = _cache(frame)
    if key not in c:
        m = frame.memory
        sel = (m["device_type"].to_numpy() == device_type) & (
            m["device_id"].to_numpy() == device_id
        )
        if not sel.any():
            c[key] = None
        else:

            def col(name: str) -> np.ndarray:
                return m[name].to_numpy()[sel]

            alloc = np.nan_to_num(col("total_allocated"))
            c[key] = MemoryCurve(
                int(device_type),
                int(device_id),
                col("ts"),
                alloc,
                np.nan_to_num(col("total_reserved")),
                np.nan_to_num(col("alloc_bytes")),
                np.nan_to_num(col("addr"), nan=-1.0),
                col("pid"),
                col("tid"),
                col("step"),
            )
    return c[key]


def peak_memory_bytes(frame: TraceFrame) -> int | None:
    """Peak Total Allocated of the analysed device over the trace (what
    `torch.cuda.max_memory_allocated()` reports over the same steps); None without [memory]
    events of a GPU (or, in a trace with no GPU work, of the host: host totals count only blocks
    allocated while a profiler recorded, so they start near zero in a fresh process)."""
    cv = curve(frame)
    return int(cv.allocated.max()) if cv is not None and len(cv) else None


def capacity_bytes(frame: TraceFrame, device_type: int, device_id: int) -> int | None:
    """The device's memory from deviceProperties (None for host memory or when not written)."""
    if device_type != CUDA:
        return None
    props = frame.device_props(device_id) or {}
    mem = props.get("totalGlobalMem")
    return int(mem) if mem else None


# --- phases ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Phase:
    name: str  # forward | backward | optimizer
    start: float
    end: float

    @property
    def dur(self) -> float:
        return self.end - self.start


def _names_with(names: pd.Series, test) -> np.ndarray:
    """Mask of rows of a categorical name column whose name passes `test` (tested once per name)."""
    cats = names.cat.categories
    hit = np.fromiter((bool(test(n)) for n in cats), dtype=bool, count=len(cats))
    codes = names.cat.codes.to_numpy()
    return (
        np.where(codes >= 0, hit[np.maximum(codes, 0)], False)
        if len(cats)
        else np.zeros(len(codes), bool)
    )


def _op_roles(frame: TraceFrame) -> dict[str, np.ndarray]:
    """Per cpu_op: is it an evaluate_function, an autograd node (its child), inside backward."""
    c = _cache(frame)
    if "roles" not in c:
        ops = frame.cpu_ops
        ev = _names_with(ops["name"], lambda n: n.startswith(EVALUATE_FUNCTION))
        parent = ops["parent"].to_numpy()
        has_parent = parent >= 0
        node = has_parent & ev[np.maximum(parent, 0)]
        # inside_bw: some ancestor is an evaluate_function.
        inside = nearest_ancestor(parent, parent, ev) >= 0
        c["roles"] = {"evaluate_function": ev, "node": node, "in_backward": inside}
    return c["roles"]


def _optimizer_spans(frame: TraceFrame, prefix: str) -> pd.DataFrame:
    a = frame.annotations
    if not len(a):
        return a
    hit = _names_with(a["name"], lambda n: n.startswith(prefix)) & ~a["on_gpu"].to_numpy()
    return a.loc[hit]


def phases(frame: TraceFrame) -> dict[int, tuple[Phase, ...]]:
    """Forward, backward and optimizer phases of each step (keyed by steps row), each phase one
    span from its first to its last op; a phase the trace does not show is left out."""
    c = _cache(frame)
    if "phases" in c:
        return c["phases"]
    ops = frame.cpu_ops
    roles = _op_roles(frame)
    out: dict[int, tuple[Phase, ...]] = {}
    n_steps = len(frame.steps)
    if not n_steps:
        c["phases"] = out
        return out
    ostep = ops["step"].to_numpy()
    ots, oend = ops["ts"].to_numpy(), ops["end"].to_numpy()
    ev = roles["evaluate_function"]
    # Backward: every evaluate_function in the step.
    bw_start = _per_step(ostep[ev], ots[ev], n_steps, np.minimum, np.inf)
    bw_end = _per_step(ostep[ev], oend[ev], n_steps, np.maximum, -np.inf)
    # Optimizer: the Optimizer.step ranges.
    opt = _optimizer_spans(frame, OPTIMIZER_STEP)
    opt_start = _per_step(opt["step"].to_numpy(), opt["ts"].to_numpy(), n_steps, np.minimum, np.inf)
    opt_end = _per_step(opt["step"].to_numpy(), opt["end"].to_numpy(), n_steps, np.maximum, -np.inf)
    # Forward: grad-enabled ops before the backward pass, not in optimizer ranges (zero_grad).
    fwd = (ops["seq"].to_numpy() >= 0) & ~ev & ~roles["node"] & ~roles["in_backward"] & (ostep >= 0)
    anyopt = _optimizer_spans(frame, OPTIMIZER_ANY)
    if len(anyopt) and fwd.any():
        us, ue = iv.union(anyopt["ts"].to_numpy(), anyopt["end"].to_numpy())
        fwd &= iv.overlap_with(us, ue, ots, np.maximum(oend, ots + 1e-3)) <= 0
    fwd &= ots < bw_start[np.maximum(ostep, 0)]
    fw_start = _per_step(ostep[fwd], ots[fwd], n_steps, np.minimum, np.inf)
    fw_end = _per_step(ostep[fwd], oend[fwd], n_steps, np.maximum, -np.inf)
    fw_end = np.minimum(fw_end, bw_start)
    for i in range(n_steps):
        ph = []
        for name, s, e in (
            ("forward", fw_start[i], fw_end[i]),
            ("backward", bw_start[i], bw_end[i]),
            ("optimizer", opt_start[i], opt_end[i]),
        ):
            if np.isfinite(s) and np.isfinite(e) and e >= s:
                ph.append(Phase(name, float(s), float(e)))
        out[i] = tuple(ph)
    c["phases"] = out
    return out


def _per_step(step: np.ndarray, values: np.ndarray, n: int, ufunc, empty: float) -> np.ndarray:
    out = np.full(n, empty, dtype=np.float64)
    ok = (step >= 0) & (step < n)
    ufunc.at(out, step[ok], values[ok])
    return out


def _phase_of(ph: tuple[Phase, ...], t: float) -> str | None:
    # Later phases win where spans touch (backward starts where forward ends).
    for p in reversed(ph):
        if p.start <= t <= p.end:
            return p.name
    return None


# --- the op at a time --------------------------------------------------------------------------


def op_stack_at(frame: TraceFrame, pid: int, tid: int, t: float) -> tuple[str, ...]:
    """Names of the cpu_ops running on thread (pid, tid) at time t, outermost first."""
    ops = frame.cpu_ops
    if not len(ops):
        return ()
    on = (
        (ops["pid"].to_numpy() == pid)
        & (ops["tid"].to_numpy() == tid)
        & (ops["ts"].to_numpy() <= t)
        & (ops["end"].to_numpy() >= t)
    )
    rows = np.flatnonzero(on)
    if not len(rows):
        return ()
    rows = rows[np.argsort(ops["depth"].to_numpy()[rows], kind="stable")]
    names = ops["name"].iloc[rows].astype(object)  # only these rows: called once per step
    return tuple(str(n) for n in names)


# --- per-step breakdown ------------------------------------------------------------------------


@dataclass(frozen=True)
class StepMemory:
    step: int  # ProfilerStep number
    start: float
    end: float
    phases: tuple[Phase, ...]
    baseline_bytes: int  # allocated when forward began: params, grads, optimizer state
    peak_bytes: int
    peak_ts: float
    peak_phase: str | None  # forward | backward | optimizer | None (between phases)
    peak_op: str | None  # innermost op running on the allocating thread at the peak
    peak_op_stack: tuple[str, ...]  # outermost first
    reserved_peak_bytes: int
    end_bytes: int  # allocated when the step ends
    forward_growth_bytes: (
        int | None
    )  # allocated at forward end - baseline: activations kept for backward
    forward_peak_bytes: int | None
    backward_release_bytes: int | None  # allocated at backward start - at backward end
    backward_peak_bytes: int | None
    optimizer_growth_bytes: (
        int | None
    )  # allocated at optimizer end - at its start (state on first steps)
    activation_tensors: int | None  # forward allocations still alive when forward ends
    activation_tensor_bytes: int | None
    forward_us: float | None  # forward span (host)
    forward_gpu_us: float | None  # GPU time of work launched in forward (None without GPU ops)

    def phase(self, name: str) -> Phase | None:
        return next((p for p in self.phases if p.name == name), None)


@dataclass(frozen=True)
class MemoryReport:
    device_type: int
    device_id: int
    capacity_bytes: int | None
    events: int
    peak_bytes: int
    peak_ts: float
    reserved_peak_bytes: int
    steps: tuple[StepMemory, ...] = field(default_factory=tuple)

    @property
    def peak_step(self) -> StepMemory | None:
        """The step holding the trace's peak (else the step with the highest peak)."""
        return max(self.steps, key=lambda s: s.peak_bytes, default=None)


def analyze(
    frame: TraceFrame, device_type: int | None = None, device_id: int | None = None
) -> MemoryReport | None:
    """Curve facts and the per-step breakdown of one device; None without its [memory] events."""
    cv = curve(frame, device_type, device_id)
    if cv is None or not len(cv):
        return None
    key = ("report", cv.device_type, cv.device_id)
    c = _cache(frame)
    if key not in c:
        c[key] = _analyze(frame, cv)
    return c[key]


def _analyze(frame: TraceFrame, cv: MemoryCurve) -> MemoryReport:
    steps = frame.steps
    ph_all = phases(frame)
    freed = cv.freed_at()
    launch_ts = _gpu_launch_times(frame)
    out = []
    order = np.argsort(cv.step, kind="stable")
    bounds = np.searchsorted(cv.step[order], np.arange(len(steps) + 1))
    for i in range(len(steps)):
        idx = order[bounds[i] : bounds[i + 1]]
        st = steps.iloc[i]
        ph = ph_all.get(i, ())
        if not len(idx):
            continue
        k = idx[np.argmax(cv.allocated[idx])]
        stack = op_stack_at(frame, int(cv.pid[k]), int(cv.tid[k]), float(cv.ts[k]))
        fw, bw, opt = (next((p for p in ph if p.name == n), None) for n in PHASES)
        baseline = float(cv.before(fw.start if fw else float(st.ts)))

        def window_max(p: Phase | None) -> int | None:
            if p is None:
                return None
            lo, hi = _window(cv.ts, p)
            return int(max(cv.allocated[lo:hi].max(initial=0.0), cv.before(p.start)))

        n_act = act_bytes = None
        fw_gpu = None
        if fw is not None:
            made = (cv.ts >= fw.start) & (cv.ts <= fw.end) & (cv.delta > 0)
            alive = made & (freed > fw.end)
            n_act, act_bytes = int(alive.sum()), int(cv.delta[alive].sum())
            if launch_ts is not None:
                lo, hi = _window(launch_ts[0], fw)
                fw_gpu = float(launch_ts[1][lo:hi].sum())
        out.append(
            StepMemory(
                step=int(st.step),
                start=float(st.ts),
                end=float(st.end),
                phases=ph,
                baseline_bytes=int(baseline),
                peak_bytes=int(cv.allocated[k]),
                peak_ts=float(cv.ts[k]),
                peak_phase=_phase_of(ph, float(cv.ts[k])),
                peak_op=stack[-1] if stack else None,
                peak_op_stack=stack,
                reserved_peak_bytes=int(cv.reserved[idx].max()),
                end_bytes=int(cv.after(float(st.end))),
                forward_growth_bytes=int(cv.after(fw.end) - baseline) if fw else None,
                forward_peak_bytes=window_max(fw),
                backward_release_bytes=int(cv.before(bw.start) - cv.after(bw.end)) if bw else None,
                backward_peak_bytes=window_max(bw),
                optimizer_growth_bytes=int(cv.after(opt.end) - cv.before(opt.start))
                if opt
                else None,
                activation_tensors=n_act,
                activation_tensor_bytes=act_bytes,
                forward_us=round(fw.dur, 3) if fw else None,
                forward_gpu_us=fw_gpu,
            )
        )
    k = int(np.argmax(cv.allocated))
    return MemoryReport(
        cv.device_type,
        cv.device_id,
        capacity_bytes(frame, cv.device_type, cv.device_id),
        len(cv),
        int(cv.allocated[k]),
        float(cv.ts[k]),
        int(cv.reserved.max()),
        tuple(out),
    )


def _window(ts: np.ndarray, p: Phase) -> tuple[int, int]:
    """Index range of sorted times inside [p.start, p.end]."""
    return int(np.searchsorted(ts, p.start, side="left")), int(
        np.searchsorted(ts, p.end, side="right")
    )


def _gpu_launch_times(frame: TraceFrame) -> tuple[np.ndarray, np.ndarray] | None:
    """Launch time (host) and duration of every GPU op with a launch link, by launch time."""
    g = frame.gpu_ops
    if not len(g):
        return None
    launch = g["launch"].to_numpy()
    ok = launch >= 0
    lt = frame.runtime["ts"].to_numpy()[launch[ok]]
    order = np.argsort(lt, kind="stable")
    return lt[order], g["dur"].to_numpy()[ok][order]


# --- activation checkpointing ----------------------------------------------------------------


@dataclass(frozen=True)
class StepRecompute:
    step: int
    ops: int  # outermost recomputed forward ops
    host_us: float  # their host time
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
            (ops["seq"].to_numpy() >= 0) & r["in_backward"] & ~r["evaluate_function"] & ~r["node"]
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
    top = mark & ~((parent >= 0) & mark[np.maximum(parent, 0)])
    rows = np.flatnonzero(top)
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
    """Extra FLOPs per step (gemm, conv, attention) of the recomputed ops, from the FLOP model
    when it is there and the trace recorded shapes."""
    try:
        from .efficiency import compute_ops
    except ImportError:
        return None
    ops = compute_ops(frame)
    if not len(ops):
        return None
    rows = ops["row"].to_numpy().astype(np.int64)
    return float(ops["flops"].to_numpy()[mark[rows]].sum()) / max(n_steps, 1)


# --- two traces of one model ---------------------------------------------------------------


@dataclass(frozen=True)
class CheckpointComparison:
    checkpointed_peak_bytes: int
    baseline_peak_bytes: int
    saved_bytes: int
    saved_pct: float
    recompute_us_per_step: float | None  # GPU time where the trace has it, else host time
    step_time_delta_us: float | None  # median step time, checkpointed - baseline


def _comparable_peak(frame: TraceFrame) -> int | None:
    """The peak, as bytes above the first level for host memory: the CPU allocator's totals only
    count blocks allocated while a profiler recorded, and keep blocks freed after it stopped, so
    their origin drifts from one profiling session to the next. GPU totals are absolute."""
    cv = curve(frame)
    if cv is None or not len(cv):
        return None
    return int(cv.allocated.max() - (cv.initial if cv.device_type == CPU else 0.0))


def compare_checkpointing(
    checkpointed: TraceFrame, baseline: TraceFrame
) -> CheckpointComparison | None:
    """The memory activation checkpointing saved and the time it cost, from a checkpointed and a
    non-checkpointed trace of the same model (None when either lacks [memory] events)."""
    a, b = _comparable_peak(checkpointed), _comparable_peak(baseline)
    if a is None or b is None:
        return None
    rc = recompute(checkpointed)
    cost = rc.per_step("gpu_us")
    if cost is None:
        cost = rc.per_step("host_us")
    sa, sb = facts.step_stats(checkpointed), facts.step_stats(baseline)
    delta = sa.median_us - sb.median_us if sa and sb else None
    return CheckpointComparison(
        a,
        b,
        b - a,
        round(100.0 * (b - a) / b, 2) if b else 0.0,
        None if cost is None else round(cost, 1),
        None if delta is None else round(delta, 1),
    )
