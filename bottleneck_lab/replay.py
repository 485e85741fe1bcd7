"""What-if replay of the profiled steps at the host's speed without the profiler.

A sync costs more than the idle right after it. Without syncs the host runs ahead of the GPU,
and the lead it builds while the GPU is busy with long kernels (a backward pass) covers the
stretches where launching is slower than running (a forward pass of small kernels). A sync
mid-step empties the queue every step, so after it the GPU runs at the host's pace until the host
is ahead again. Under the profiler the host is slower everywhere and the trace shows no lead at
all (HF GPT-2 with clip_grad_norm_(error_if_nonfinite=True): no wait at the sync in the trace,
18.9% measured without the check). The trace's own gaps cannot show this; replaying it can.

The replay walks the launching process's launches and syncs in host order. Host time between
them is the trace's, less the profiler's cost of the ops recorded in between
(facts.profiler_us_per_op) and less the time the host sat blocked (in syncs, in launches held by a
full queue), which the replay works out again. Each launch's GPU work starts once its stream is
free and the launch has reached the GPU (_launch_latency_us, measured in the trace), and one
op queued behind another starts a moment after it ends (_queued_gap_us, also measured: 1-2 µs
on an H100, which over GPT-2's 1,227 ops a step is 1.7 ms the kernels' durations leave out); a
sync holds the host until every launched op has finished; the host cannot get more than
QUEUE_DEPTH launches ahead of the GPU. A step is done when its host work and its GPU work are; the step time is the
median over steps of the time from its start (or the previous step's end, where the host ran
ahead) to that point.
Streams run independently: cross-stream waits are not in the trace, so the replay is no timing
model for overlapped communication, only for how the host and the GPU take turns.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pandas as pd

from . import facts
from .trace import TraceFrame

# Launches CUDA lets a host queue before cudaLaunchKernel blocks (the driver's pushbuffer holds
# about 1024 kernel launches).
QUEUE_DEPTH = 1024


def step_us(
    frame: TraceFrame, without_syncs: bool = False, profiler_share: float | None = None
) -> float | None:
    """Median step time of the replay; without_syncs drops every synchronising call but the
    copies the memcpy finding owns (sync_calls' `copy_owned`); profiler_share is the share of
    the host's working time taken to be the profiler's (facts.PROFILER_SHARE_OF_HOST_OP unless
    given). None where the trace gives nothing to replay (no launches or no steps)."""
    share = facts.PROFILER_SHARE_OF_HOST_OP if profiler_share is None else profiler_share
    c = frame.__dict__.setdefault("_replay", {})
    if share not in c:  # both replays at once: they share everything but the syncs
        c[share] = _ready(frame)(share / facts.PROFILER_SHARE_OF_HOST_OP)
    return c[share][without_syncs]


def sync_saving_us(frame: TraceFrame, profiler_share: float | None = None) -> float:
    """µs per step that dropping the syncs saves in the replay (0 where nothing replays), within
    what any step allows: without syncs the GPU still has its busy time to run (the replay
    knows no cross-stream waits, so on a multi-stream step it can finish sooner), and taking
    turns costs at most the shorter of the host's work and the GPU's, which overlap hides."""
    with_syncs = step_us(frame, profiler_share=profiler_share)
    without = step_us(frame, without_syncs=True, profiler_share=profiler_share)
    if with_syncs is None or without is None:
        return 0.0
    gpu = facts.gpu_time_us(frame)
    saving = with_syncs - max(without, gpu)
    return float(min(max(saving, 0.0), facts.host_time_us(frame), gpu))


def gpu_saving_us(frame: TraceFrame, shorter_us: pd.Series, profiler_share: float) -> float:
    """µs per step that a fix making each GPU op in `shorter_us` (µs, by gpu_ops row) that much
    shorter saves in the replay, syncs kept: where the host and the GPU take turns, GPU time
    saved shortens the step only in the stretches the GPU sets (the sync demo: BF16 autocast cut
    4.79 ms of its 8.24 ms of kernels a step and measured 2.29 ms, 15.3%, off the step). 0 where
    nothing replays. The host's own work is taken as it is: a fix that adds host work (autocast's
    casts) saves less."""
    before = step_us(frame, profiler_share=profiler_share)
    after = _ready(frame)(profiler_share / facts.PROFILER_SHARE_OF_HOST_OP, shorter_us)[False]
    if before is None or after is None:
        return 0.0
    return max(before - after, 0.0)


def _ready(frame: TraceFrame) -> Callable[..., dict[bool, float | None]]:
    """The frame's replay (_replay), worked out once: what does not hang on the profiler's share
    or on the ops a fix shortens."""
    c = frame.__dict__.setdefault("_replay", {})
    if "at" not in c:
        c["at"] = _replay(frame)
    return c["at"]


def _replay(frame: TraceFrame) -> Callable[[float], dict[bool, float | None]]:
    """The replay, ready to run: a function of profiler_x (the profiler's per-op cost taken at
    profiler_x times facts.profiler_us_per_op) giving {without_syncs: median step} for False (as
    traced) and True (no syncs); given shorter_us (µs by gpu_ops row), only False, as traced with
    those ops that much shorter."""

    def nothing(profiler_x: float, shorter_us=None) -> dict[bool, float | None]:
        return {False: None, True: None}

    mt = facts.main_thread(frame)
    steps = frame.steps
    if mt is None or not len(steps):
        return nothing
    starts = np.sort(steps["cpu_ts"].to_numpy(dtype=float))
    t0 = starts[0]
    t1 = max(float(steps["cpu_end"].max()), float(facts.step_windows(frame)[1][-1]))
    # the launching process's threads (the main thread and autograd's backward thread)
    la = facts.launches(frame)
    la = la.loc[(la["pid"] == mt[0]).to_numpy() & (la["ts"] >= t0).to_numpy() & (la["ts"] < t1)]
    g = frame.gpu_ops
    dev = facts.main_device(frame)
    work = g.loc[(g["launch"] >= 0).to_numpy() & (g["device"] == dev).to_numpy()]
    per = work.groupby("launch").agg(dur=("dur", "sum"), stream=("stream", "first"))
    la = la.loc[la.index.isin(per.index)]
    if not len(la):
        return nothing
    sy = facts.sync_calls(frame)
    sy = sy.loc[(sy["pid"] == mt[0]).to_numpy() & (sy["ts"] >= t0).to_numpy() & (sy["ts"] < t1)]

    # host time without the profiler: elapsed, less blocked time, less the profiler's per-op cost
    # a blocking copy is both a launch and a sync: its wait counts once, as the sync's
    wait = np.where(la.index.isin(sy.index), 0.0, facts.launch_wait_us(la))
    b_start = np.r_[sy["ts"].to_numpy(), la["ts"].to_numpy()]
    b_len = np.r_[sy["dur"].to_numpy(), wait]
    order = np.argsort(b_start, kind="stable")
    b_start, b_cum = b_start[order], np.r_[0.0, np.cumsum(b_len[order])]
    ops = frame.cpu_ops
    on_threads = np.isin(_thread_keys(ops), _thread_keys(la))
    op_ts = np.sort(ops["ts"].to_numpy()[on_threads])
    us_per_op = facts.profiler_us_per_op(frame)
    by_start = np.argsort(steps["cpu_ts"].to_numpy(dtype=float), kind="stable")
    ends = steps["cpu_end"].to_numpy(dtype=float)[by_start]
    slowdown = facts.host_slowdown_by_step(frame)[by_start]

    def working_us(t: np.ndarray) -> np.ndarray:
        return (t - t0) - b_cum[np.searchsorted(b_start, t, side="left")]

    # a slowed step's host work (facts.host_slowdown_by_step) runs at the fastest step's pace:
    # its slowdown is taken out in proportion to how far through its work the host is
    w_start, w_end = working_us(starts), working_us(np.maximum(ends, starts))
    slowed_before = np.r_[0.0, np.cumsum(slowdown)]

    def host_us(t: np.ndarray, profiler_x: float) -> np.ndarray:
        working = working_us(t)
        recorded = np.searchsorted(op_ts, t) - np.searchsorted(op_ts, t0)
        k = np.clip(np.searchsorted(starts, t, side="right") - 1, 0, len(starts) - 1)
        span = np.maximum(w_end[k] - w_start[k], 1e-9)
        through = np.clip((working - w_start[k]) / span, 0.0, 1.0)
        slowed = slowed_before[k] + slowdown[k] * through
        return np.maximum(working - recorded * us_per_op * profiler_x - slowed, 0.0)

    latency = _launch_latency_us(frame, work)
    gap = _queued_gap_us(work, frame.runtime["ts"].to_numpy()[work["launch"].to_numpy()], latency)

    def events(kept) -> tuple:
        """The launches and the kept syncs in host order: (is_launch, ts, dur, stream, step_of),
        and each one's runtime row (-1 for a sync)."""
        is_launch = np.r_[np.ones(len(la), bool), np.zeros(len(kept), bool)]
        ts = np.r_[la["ts"].to_numpy(), kept["ts"].to_numpy()]
        order = np.argsort(ts, kind="stable")
        is_launch, ts = is_launch[order], ts[order]
        rows = np.r_[la.index.to_numpy(), np.full(len(kept), -1)][order]
        dur = per["dur"].reindex(rows).to_numpy()
        stream = per["stream"].reindex(rows).to_numpy()
        return (is_launch, ts, dur, stream, np.searchsorted(starts, ts, side="right") - 1), rows

    (traced, traced_rows), (no_syncs, _) = events(sy), events(sy.loc[sy["copy_owned"].to_numpy()])

    def at(profiler_x: float, shorter_us: pd.Series | None = None) -> dict[bool, float | None]:
        step_host = host_us(starts, profiler_x)

        def walk(is_launch, ts, dur, stream, step_of) -> float:
            # two threads' clocks never run backwards
            host = np.maximum.accumulate(host_us(ts, profiler_x))
            return _walk(is_launch, host, dur, stream, step_of, step_host, latency, gap)

        if shorter_us is not None:  # the traced events, each launch's GPU work that much shorter
            is_launch, ts, dur, stream, step_of = traced
            launch = work["launch"].reindex(shorter_us.index)
            kept = launch.notna().to_numpy()  # ops of the replayed device only
            by_launch = shorter_us[kept].groupby(launch[kept].astype(np.int64)).sum()
            cut = by_launch.reindex(traced_rows).fillna(0.0).to_numpy()
            return {False: walk(is_launch, ts, np.maximum(dur - cut, 0.0), stream, step_of)}
        return {False: walk(*traced), True: walk(*no_syncs)}

    return at


def _thread_keys(rows) -> np.ndarray:
    """One integer per (pid, tid) row."""
    return rows["pid"].to_numpy(dtype=np.int64) * (1 << 32) + rows["tid"].to_numpy(dtype=np.int64)


def _launch_latency_us(frame: TraceFrame, work: pd.DataFrame) -> float:
    """The median µs from a launch call to its GPU op's start, over the ops of `work` (the main
    device's launched ops) launched while the device ran nothing (so nothing but the launch path
    held them): 6-11 µs on the H100 traces here. 0 where no op was launched onto an idle
    device."""
    k = work.sort_values("ts", kind="stable")
    start = k["ts"].to_numpy()
    busy_until = np.r_[-np.inf, np.maximum.accumulate(k["end"].to_numpy())[:-1]]
    launched = frame.runtime["ts"].to_numpy()[k["launch"].to_numpy()]
    latency = start - launched
    idle = (launched > busy_until) & (latency >= 0)
    return float(np.median(latency[idle])) if idle.any() else 0.0


def _queued_gap_us(work: pd.DataFrame, launched: np.ndarray, latency: float) -> float:
    """The median µs between an op's end and the start of the next op on its stream where that
    one was already waiting on the GPU (launched at least `latency` before): what the GPU takes
    to move from one queued op to the next, which their durations leave out. A queued op that
    waited longer than a launch takes to arrive was held by something else (another stream, an
    event) and says nothing of this. 0 where no op waited in a queue."""
    order = np.lexsort((work["ts"].to_numpy(), work["stream"].to_numpy()))
    stream = work["stream"].to_numpy()[order]
    start, end, launched = (
        work["ts"].to_numpy()[order],
        work["end"].to_numpy()[order],
        launched[order],
    )
    same = stream[1:] == stream[:-1]
    gap = start[1:] - end[:-1]
    queued = same & (launched[1:] + latency <= end[:-1]) & (gap >= 0) & (gap <= latency)
    return float(np.median(gap[queued])) if queued.any() else 0.0


def _walk(is_launch, host, dur, stream, step_of, step_host, latency: float, gap: float) -> float:
    """The replay proper: one pass over the events in host order (plain floats: this loop is
    the replay's whole cost, about a microsecond per launch). A step lasts from its start, or
    from the end of the step before where that is later (the host ran ahead), to its end."""
    n_steps = len(step_host)
    delay = 0.0  # host time lost waiting, so far
    free: dict = {}
    last_end = 0.0
    ends: list[float] = []
    done = [0.0] * n_steps
    begun = list(step_host)
    seen = -1
    for launch, h, d, s, k in zip(
        is_launch.tolist(), host.tolist(), dur.tolist(), stream.tolist(), step_of.tolist()
    ):
        while seen < k:  # steps begin on the host's clock, waits so far included
            seen += 1
            begun[seen] = step_host[seen] + delay
        h += delay
        if launch:
            if len(ends) >= QUEUE_DEPTH and h < ends[-QUEUE_DEPTH]:
                delay += ends[-QUEUE_DEPTH] - h
                h = ends[-QUEUE_DEPTH]
            end = max(h + latency, free.get(s, -gap) + gap) + d
            free[s] = end
            last_end = max(last_end, end)
            ends.append(end)
            done[k] = max(done[k], end, h)
        else:
            if h < last_end:
                delay += last_end - h
            done[k] = max(done[k], h, last_end)  # the host leaves the sync when the GPU is done
    finished = np.maximum.accumulate(np.asarray(done))
    previous = np.r_[-np.inf, finished[:-1]]
    return float(np.median(finished - np.maximum(previous, np.asarray(begun))))
