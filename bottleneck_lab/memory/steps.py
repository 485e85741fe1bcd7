"""Each step's phases (forward, backward, optimizer), found from the trace alone, the op
running at a given time, and the per-step breakdown: baseline, peak and the op at it, the growth
during forward and the release during backward (see the package docstring)."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ..trace import TraceFrame
from ..trace import intervals as iv
from ..trace.frame import nearest_ancestor
from .allocations import MemoryCurve, _cache, capacity_bytes, curve

EVALUATE_FUNCTION = "autograd::engine::evaluate_function: "
OPTIMIZER_STEP = "Optimizer.step#"
OPTIMIZER_ANY = "Optimizer."
PHASES = ("forward", "backward", "optimizer")


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
    """Per cpu_op: is it an evaluate_function, an autograd node (its child), inside backward, a
    grad-enabled op of a step's forward (a Sequence number, outside backward)."""
    c = _cache(frame)
    if "roles" not in c:
        ops = frame.cpu_ops
        ev = _names_with(ops["name"], lambda n: n.startswith(EVALUATE_FUNCTION))
        parent = ops["parent"].to_numpy()
        has_parent = parent >= 0
        node = has_parent & ev[np.maximum(parent, 0)]
        # inside_bw: some ancestor is an evaluate_function.
        inside = nearest_ancestor(parent, parent, ev) >= 0
        forward = (
            (ops["seq"].to_numpy() >= 0) & ~ev & ~node & ~inside & (ops["step"].to_numpy() >= 0)
        )
        c["roles"] = {
            "evaluate_function": ev,
            "node": node,
            "in_backward": inside,
            "forward": forward,
        }
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
    fwd = roles["forward"].copy()
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
    # cpu_ops are sorted by start: only those started by t are looked at (called once per step).
    n = int(np.searchsorted(ops["ts"].to_numpy(), t, side="right"))
    on = (
        (ops["pid"].to_numpy()[:n] == pid)
        & (ops["tid"].to_numpy()[:n] == tid)
        & (ops["end"].to_numpy()[:n] >= t)
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
            # The curve is in time order: only the forward window's slice is looked at (a
            # pass over every event per step before); the same events are summed in order.
            lo, hi = _window(cv.ts, fw)
            alive = (cv.delta[lo:hi] > 0) & (freed[lo:hi] > fw.end)
            n_act, act_bytes = int(alive.sum()), int(cv.delta[lo:hi][alive].sum())
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
