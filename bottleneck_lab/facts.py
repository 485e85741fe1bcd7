"""Derived facts shared by detectors and the summary, computed once per frame and cached on it.

The central one is the idle-gap table: every interval inside the steps when a device ran no GPU
op, with the one cause it is attributed to (so no idle microsecond is counted twice):

    data_loading     the host was in DataLoader __next__ for most of the gap
    sync_stall       the gap began while the host sat in a synchronising call: the queue drained
    launch_overhead  the queue was empty and the host was issuing launches back to back
    host_bound       the queue was empty and the host was busy with other work (ops or Python)
    gpu_idle         anything else (the next op was already queued, or no launch link)
    unrecorded_work  the gap that opens the profiled window when its next op was launched before
                     the window (or its launch was not recorded): the GPU was still running work
                     queued before the profiler started, not idle. No finding reports it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np
import pandas as pd

from .device import main_device, sm_count  # also read as facts.main_device, facts.sm_count
from .op_flops import matrix_owner, median_fill, one_sample_share, told_fill_share, work_fill
from .trace import TraceFrame
from .trace import intervals as iv
from .trace.frame import name_mask, nearest_ancestor

COLLECTIVE = re.compile(r"nccl|rccl", re.IGNORECASE)
DATALOADER = re.compile(r"DataLoader.*__next__|dataloader.*next", re.IGNORECASE)
SYNC_CALLS = re.compile(
    r"^(cuda|hip|cu)(Stream|Device|Event|Ctx)Synchronize$|^(cuda|hip)Memcpy(2D|3D)?$|^hipMemcpyWithStream$"
    r"|^cuMemcpy(DtoH|HtoD)?(_v2)?$"
)
# When the host spends no more than this per launch inside a gap, launching is what holds the GPU.
LAUNCH_BOUND_US_PER_LAUNCH = 40.0
# The host returns from a sync a little after the GPU drains; allow this much clock slack.
SYNC_SLACK_US = 5.0
CAUSES = (
    "data_loading",
    "sync_stall",
    "launch_overhead",
    "host_bound",
    "gpu_idle",
    "unrecorded_work",
)
# The profiler's own host cost per recorded CPU op (record_shapes + profile_memory) grows with
# the host's cost per op: its callbacks run on the same CPU as the dispatch they wrap, so a slow
# host pays more for both. Over the 19 runs of traces/zoo and traces/h100 that the profiler
# slowed by 10% or more (two hosts, eager and compiled), (profiled step - synchronised step) was
# a median 0.43 of the host's working time in the trace (`python benchmarks/profiler_share.py`):
# the profiler about doubles a host-bound step's op cost. A fixed 2.85 µs per op, the figure
# this replaced, missed runs on a slower host by 2x.
PROFILER_SHARE_OF_HOST_OP = 0.43
# The low end of that range among runs it slowed by 30% or more (the sync demo's fixed run, whose
# GPU sets its step: there the share read is only a floor). Over the 12 runs whose host sets the
# synchronised step it is 0.49 (0.31-0.58: `benchmarks/profiler_share.py --host-set`); the
# analyzer at 0.49 and 0.31 got one more zoo top right and four more false alarms, so not kept.
# Where the host's own work bounds what a GPU-side fix saves, a host taken too fast promises
# GPU savings the step never sees, so that bound takes the profiler's share at its lowest
# (measured: at 0.46 the estimate promised 27% from BF16 on the sync demo's fixed run, which
# BF16 made 12.5% slower).
PROFILER_SHARE_OF_HOST_OP_LOW = 0.24
# The high end, likewise (the launch_overhead demo's fused-optimizer run). Idle that the GPU
# spent waiting on the host's other work is what the profiler inflates most, so the host-bound
# finding promises only the idle left at this share: a healthy BERT-large step (GPU busy 92% of
# the synchronised step) showed 15% such idle at the median share and 3% at this one.
PROFILER_SHARE_OF_HOST_OP_HIGH = 0.58
# A step whose host took at least this much longer than the fastest step to do the same recorded
# ops was slowed by something outside the program's work: under record_shapes + profile_memory
# the same ops took 1.25x to 2.4x as long in one step as in another on 34 of the 129 traces of
# traces/zoo and traces/h100 with steps (`python benchmarks/host_slowdown_scan.py`; the GPU-bound
# ResNet-50 -> ResNet-18 distillation run: 71, 76 and 35 ms of host work, the step measured 23 ms
# without the profiler).
SLOWED_HOST_RATIO = 1.25
HOST_CAUSES = ("data_loading", "sync_stall", "launch_overhead", "host_bound")


def _cache(frame: TraceFrame) -> dict:
    return frame.__dict__.setdefault("_facts", {})


@dataclass(frozen=True)
class StepStats:
    count: int
    median_us: float
    total_us: float  # sum of step windows
    span_start: float
    span_end: float
    marked: bool


def step_stats(frame: TraceFrame) -> StepStats | None:
    s = frame.steps
    if not len(s):
        return None
    return StepStats(
        len(s),
        float(np.median(s["dur"])),
        float(s["dur"].sum()),
        float(s["ts"].min()),
        float(s["end"].max()),
        bool(s["marked"].iloc[0]),
    )


def step_windows(frame: TraceFrame) -> tuple[np.ndarray, np.ndarray]:
    """The step windows as sorted disjoint intervals (back to back, with any time between
    ProfilerSteps left out)."""
    s = frame.steps
    return iv.union(s["ts"].to_numpy(), s["end"].to_numpy())


def busy_pct(frame: TraceFrame, device: int) -> float | None:
    ws, we = step_windows(frame)
    window = iv.total(ws, we)
    if window <= 0:
        return None
    bs, be = frame.busy_intervals(device)
    return 100.0 * float(iv.overlap_with(bs, be, ws, we).sum()) / window


def launches(frame: TraceFrame) -> pd.DataFrame:
    """Runtime calls that launched at least one GPU op (any API: the link says it, not the name)."""
    c = _cache(frame)
    if "launches" not in c:
        # Distinct launch rows, sorted: marked in a mask (np.unique sorts or hashes every op).
        launched = frame.gpu_ops["launch"].to_numpy()
        mark = np.zeros(len(frame.runtime), dtype=bool)
        mark[launched[launched >= 0]] = True
        c["launches"] = frame.runtime.iloc[np.flatnonzero(mark)]
    return c["launches"]


def main_thread(frame: TraceFrame) -> tuple[int, int] | None:
    """(pid, tid) of the thread that launched most GPU work."""
    c = _cache(frame)
    if "main_thread" not in c:
        la = launches(frame)
        c["main_thread"] = None
        if len(la):
            pid, tid = la.groupby(["pid", "tid"]).size().idxmax()
            c["main_thread"] = (int(pid), int(tid))
    return c["main_thread"]


def sync_calls(frame: TraceFrame) -> pd.DataFrame:
    """Runtime calls that block the host until the GPU catches up: the synchronising APIs by
    name, and copies that did not return before their own transfer ended (`.cpu()`, `.item()`
    or `.to()` through pageable memory issue a cudaMemcpyAsync that blocks)."""
    c = _cache(frame)
    if "syncs" not in c:
        rt = frame.runtime
        named = name_mask(rt["name"], SYNC_CALLS) if len(rt) else np.zeros(0, dtype=bool)
        g = frame.gpu_ops
        copies = g.loc[(g["kind"] == "memcpy").to_numpy() & (g["launch"].to_numpy() >= 0)]
        launch = copies["launch"].to_numpy()
        # Device-to-device and peer copies never hold the host: one that finished inside its
        # call ran on an idle GPU, not after a wait (DDP's bucket copies, 265 a step, had read
        # as syncs).
        on_device = np.isin(copies["copy_kind"].to_numpy(), ("DtoD", "PtoP"))
        blocking = ~on_device & (
            rt["end"].to_numpy()[launch] + SYNC_SLACK_US >= copies["end"].to_numpy()
        )
        is_sync = named.copy()
        is_sync[launch[blocking]] = True
        is_sync[blocking_launches(frame)] = True
        # A blocking host-to-device copy is a copy problem (pageable memory, no non_blocking), not
        # a read of GPU values, unless it sends back the answer to one (answer_trips); a round
        # trip's copy down (round_trips) is a copy problem too: the memcpy finding owns the idle
        # they cause (`copy_owned`). Pageable copies block inside the copy call, or in the
        # cudaStreamSynchronize that the same aten op issues right after it.
        h2d = copies["copy_kind"].to_numpy() == "HtoD"
        h2d &= ~copies.index.isin(answer_trips(frame)["up"])  # the read's, as its sync is
        trip_down = copies.index.isin(round_trips(frame)["down"])
        owned = np.zeros(len(rt), dtype=bool)
        owned[launch[blocking & (h2d | trip_down)]] = True
        rt_op = rt["op"].to_numpy()
        copy_ops = rt_op[launch[h2d | trip_down]]
        owned |= named & np.isin(rt_op, copy_ops[copy_ops >= 0])
        c["syncs"] = rt.loc[is_sync].assign(copy_owned=owned[is_sync])
    return c["syncs"]


# A kernel this long cannot have ended before its launch call returned unless the call waited
# for it: an asynchronous launch returns in microseconds (the median launch of such kernels took
# 5 to 16 µs in 565 of the 571 traces of traces/ and ../shared/external-traces that have them).
BLOCKING_LAUNCH_KERNEL_US = 50.0


def blocking_launches(frame: TraceFrame) -> np.ndarray:
    """Runtime rows of the kernel launches that returned only after their kernels had finished,
    where the trace's launches block: CUDA_LAUNCH_BLOCKING=1 (left set after debugging a
    device-side assert) or a tool that serialises launches. Judged over the launches of kernels
    that ran BLOCKING_LAUNCH_KERNEL_US or longer: where most of those returned after their
    kernel ended (all 601 in a trace of timm Twins-SVT-S with the variable set; under 0.5% in
    every other trace of traces/ or ../shared/external-traces), every launch that did so waited
    for its kernel. Empty otherwise: an asynchronous launch of a tiny kernel onto an idle GPU
    can return after it ended, having waited for nothing."""
    c = _cache(frame)
    if "blocking_launches" not in c:
        rt, g = frame.runtime, frame.gpu_ops
        k = g.loc[(g["kind"] == "kernel").to_numpy() & (g["launch"].to_numpy() >= 0)]
        launch = k["launch"].to_numpy()
        after = rt["end"].to_numpy()[launch] + SYNC_SLACK_US >= k["end"].to_numpy()
        long = k["dur"].to_numpy() >= BLOCKING_LAUNCH_KERNEL_US
        blocks = long.sum() >= 10 and after[long].mean() > 0.5
        c["blocking_launches"] = np.unique(launch[after]) if blocks else np.zeros(0, np.int64)
    return c["blocking_launches"]


def dataloader_spans(frame: TraceFrame) -> pd.DataFrame:
    a = frame.annotations
    names = [n for n in a["name"].cat.categories if DATALOADER.search(n)]
    dl = a.loc[a["name"].isin(names) & ~a["on_gpu"]]
    if not len(dl):  # some versions record it as a cpu_op
        ops = frame.cpu_ops
        names = [n for n in ops["name"].cat.categories if DATALOADER.search(n)]
        dl = ops.loc[ops["name"].isin(names)]
    return dl


# Autograd's anomaly detection (torch.autograd.set_detect_anomaly(True), detect_anomaly()) has
# the engine check every backward node's outputs for NaN: isnan, _is_any_true and a host read
# (item) under the node, one sync per output. ResNet-50 with it on measured 103.89 ms a step,
# 19.97 off (holdout 23). A user's NaN check (torch.isnan(loss).any().item()) runs under its
# own op, not directly under an engine node; a custom backward that read its output for NaN
# would be counted too.
ENGINE_NODE = re.compile(r"^autograd::engine::evaluate_function: ")


def has_backward(frame: TraceFrame) -> bool:
    """Whether the steps run a backward pass: autograd engine nodes in them (none in
    inference)."""
    ops = frame.cpu_ops
    if not len(ops):
        return False
    return bool((name_mask(ops["name"], ENGINE_NODE) & (ops["step"].to_numpy() >= 0)).any())


# Grouped matmuls (mixture-of-experts layers' experts, torch._grouped_mm / F.grouped_mm): not
# autocast ops, so they run in the weights' dtype (transformers casts their input to it); in FP32,
# PyTorch's fallback runs one product per group after reading the group offsets to the host.
GROUPED_MM = re.compile(r"^aten::_(scaled_)?grouped_mm$")

# A torch.compile'd frame's span on the host: `Torch-Compiled Region: F/N`, frame F's N-th
# compile (recompilation reads N; sync_stall, the reads made inside one).
COMPILED_REGION = re.compile(r"^Torch-Compiled Region: (\d+)/(\d+)")

# The backward node of an autograd Function written in Python (torch.autograd.Function: its
# class name then "Backward", where PyTorch's own nodes end in a digit, MmBackward0): its
# backward runs what the Function's author wrote, outside the autocast region its forward ran
# in unless the Function is decorated with torch.amp.custom_bwd. torch.compile's
# CompiledFunction is left out: it keeps the forward's autocast state itself.
CUSTOM_FUNCTION_NODE = re.compile(
    r"^autograd::engine::evaluate_function: (?!CompiledFunction)([A-Za-z_]\w*[A-Za-z_])Backward$"
)


def by_custom_function(frame: TraceFrame, rows: np.ndarray, weights: np.ndarray) -> pd.Series:
    """`weights` of the cpu_ops `rows` summed by the custom autograd Function (its class name,
    _ReversibleFunction) whose backward node (CUSTOM_FUNCTION_NODE) each ran inside, nested
    autograd nodes between them or not; rows inside none are left out."""
    ops = frame.cpu_ops
    mask = name_mask(ops["name"], CUSTOM_FUNCTION_NODE)
    node = nearest_ancestor(ops["parent"].to_numpy(), rows, mask)
    inside = node >= 0
    by_node = pd.Series(weights[inside]).groupby(node[inside]).sum()
    names = [CUSTOM_FUNCTION_NODE.match(str(ops["name"].iat[n])).group(1) for n in by_node.index]
    return by_node.groupby(names).sum()


def anomaly_checks_per_step(frame: TraceFrame) -> float:
    """Anomaly detection's NaN reads per step: aten::item ops in the steps whose parent is an
    autograd engine node that also ran aten::isnan."""
    ops = frame.cpu_ops
    names = ops["name"].to_numpy()
    parent = ops["parent"].to_numpy()
    node = name_mask(ops["name"], ENGINE_NODE)
    checked = np.zeros(len(ops), dtype=bool)
    isnan = np.flatnonzero((names == "aten::isnan") & (parent >= 0))
    checked[parent[isnan]] = True
    item = (names == "aten::item") & (parent >= 0) & (ops["step"].to_numpy() >= 0)
    reads = item & (node & checked)[np.maximum(parent, 0)]
    return float(reads.sum()) / max(len(frame.steps), 1)


# Runtime calls that are the copy and memset findings' (a pageable copy blocks inside its call).
COPY_CALLS = re.compile(r"Memcpy|Memset", re.IGNORECASE)
ALLOCATOR_CALLS = re.compile(r"^(cuda|hip|cu)(Malloc|Free|MemAlloc|MemFree)", re.IGNORECASE)


def startup_calls(frame: TraceFrame) -> pd.DataFrame:
    """Runtime calls of one-off start-up inside the steps: CUDA context creation (the first CUDA
    call pays it), module loading on a kernel's first launch, stream and library-handle set-up.
    A call counts when it ran longer than BLOCKED_LAUNCH_US while the GPU sat idle (a launch held
    by a full queue has a busy GPU) and it is no synchronisation or copy. In a trace of several
    steps only the first step's count, only names that run that long with the GPU idle in no
    later step, and only by BLOCKED_LAUNCH_US beyond the median of the same call in the later
    steps: what recurs every step is the step's own cost (allocator churn is
    memory_capacity's). A trace of one window cannot show what recurs: there the allocator's
    calls count too."""
    c = _cache(frame)
    if "startup" not in c:
        rt = frame.runtime
        dev = main_device(frame)
        ws, we = step_windows(frame)
        out = rt.iloc[:0]
        if len(rt) and dev is not None and len(ws):
            long = rt.loc[(rt["dur"] > BLOCKED_LAUNCH_US).to_numpy() & (rt["step"] >= 0).to_numpy()]
            long = long.loc[
                ~name_mask(long["name"], SYNC_CALLS) & ~name_mask(long["name"], COPY_CALLS)
            ]
            bs, be = frame.busy_intervals(dev)
            busy = iv.overlap_with(bs, be, long["ts"].to_numpy(), long["end"].to_numpy())
            long = long.loc[busy < 0.5 * long["dur"].to_numpy()]
            # a kernel's module loads on its first launch only: a launch whose kernel already ran
            # earlier in the trace was held up by something else (HF UperNet: the 147th launch of
            # step 0, a BF16 copy kernel that had run 106 times before it, took 47 ms)
            long = long.loc[~_relaunches(frame)[rt.index.get_indexer(long.index)]]
            if len(frame.steps) > 1:
                # names that run that long with the GPU idle in a later step recur (a host the
                # profiler slowed in one step launches slowly in it throughout)
                recurring = long.loc[long["step"] > 0, "name"].unique()
                # and only the part of a call beyond the same call's median in the later steps
                # is one-off, whether the GPU was idle then or not (a CUDA graph's launch: 97, 79
                # and 73 µs in three steps of a graphed MLP, the later two on a busy GPU)
                key = _call_keys(frame)
                later = (rt["step"] > 0).to_numpy()
                typical = pd.Series(rt["dur"].to_numpy()[later]).groupby(key[later]).median()
                at = rt.index.get_indexer(long.index)
                usual = typical.reindex(key[at]).fillna(0.0).to_numpy()
                long = long.loc[
                    (long["step"] == 0).to_numpy()
                    & ~long["name"].isin(recurring).to_numpy()
                    & (long["dur"].to_numpy() - usual > BLOCKED_LAUNCH_US)
                    & ~name_mask(long["name"], ALLOCATOR_CALLS)
                ]
            out = long
        c["startup"] = out
    return c["startup"]


def _relaunches(frame: TraceFrame) -> np.ndarray:
    """For each runtime call, whether it launched a kernel whose name had already run earlier in
    the trace (no module to load). A graph launch is none: its first launch uploads the graph,
    whatever ran before."""
    rt, g = frame.runtime, frame.gpu_ops
    k = g.loc[(g["kind"] == "kernel").to_numpy() & (g["launch"].to_numpy() >= 0)]
    first_run = k.groupby("name")["ts"].transform("min").to_numpy()
    out = np.zeros(len(rt), dtype=bool)
    out[k["launch"].to_numpy()[k["ts"].to_numpy() > first_run]] = True
    return out & ~name_mask(rt["name"], r"Graph")


def _call_keys(frame: TraceFrame) -> np.ndarray:
    """What each runtime call is, to compare it with its repeats: its name and, for a launch,
    the first kernel it launched (one launch API starts every kernel)."""
    rt, g = frame.runtime, frame.gpu_ops
    first = g.loc[g["launch"].to_numpy() >= 0].drop_duplicates("launch")
    kernel = np.full(len(rt), "", dtype=object)
    kernel[first["launch"].to_numpy()] = first["name"].astype(str).to_numpy()
    return rt["name"].astype(str).to_numpy().astype(object) + "|" + kernel


# A first call this much slower than the median of its repeats (and at least FIRST_CALL_MIN_US
# longer) was paying for set-up, not doing its work: cuDNN building its convolution plans (seen
# at 235 ms in a ResNet-50's first conv2d whose repeats took 0.1 ms), cuBLAS heuristics, lazy
# initialisation.
FIRST_CALL_SLOWDOWN = 10.0
FIRST_CALL_MIN_US = 1000.0


def first_call_ops(frame: TraceFrame) -> pd.DataFrame:
    """CPU ops whose first call in the trace ran FIRST_CALL_SLOWDOWN times longer than the median
    of the later calls with the same name and input shapes, by FIRST_CALL_MIN_US at least, while
    the GPU sat idle (a sync's wait has a busy GPU) and torch.compile was not compiling. In a
    trace of several steps, only first calls whose repeats run in a later step, and only in the
    first step, unless that step shows the process starting (start-up calls or such first
    calls): then the trace is cold, and an op first called in a later step (an optimizer's
    momentum, first used in its second step) pays its set-up there. A step that was already warm
    shows none, and so is one the profiler numbered 1 or more with no start-up call in it: the
    schedule's wait and warm-up steps (ProfilerStep#0 on) ran the same loop before it, so a
    slow call there is a stall of that step, not a first call."""
    c = _cache(frame)
    if "first_calls" not in c:
        multi = len(frame.steps) > 1
        starting = bool(len(startup_calls(frame)))
        warmed_up = frame.has_steps and int(frame.steps["step"].iloc[0]) >= 1
        if warmed_up and not starting:
            found = frame.cpu_ops.iloc[:0]
        else:
            found = _slow_first_calls(frame, first_step_only=multi)
            if multi and (len(found) or starting):
                found = _slow_first_calls(frame, first_step_only=False)
        c["first_calls"] = found
    return c["first_calls"]


def _slow_first_calls(frame: TraceFrame, first_step_only: bool) -> pd.DataFrame:
    """first_call_ops, looking in the first step only or in every step."""
    ops = frame.cpu_ops
    dev = main_device(frame)
    # columns read as arrays, candidates first (long, in the steps looked at, the GPU idle,
    # not compiling), so that keys of name and shapes are built only for ops of the candidates'
    # names: no copy of the whole table
    step, dur = ops["step"].to_numpy(), ops["dur"].to_numpy()
    ts, end = ops["ts"].to_numpy(), ops["end"].to_numpy()
    multi = len(frame.steps) > 1
    cand = np.flatnonzero(
        (step == 0 if first_step_only else step >= 0)
        & (dur >= FIRST_CALL_MIN_US)
        & (dev is not None)
    )
    if len(cand):
        busy = iv.overlap_with(*frame.busy_intervals(dev), ts[cand], end[cand])
        # torch.compile compiling is the recompilation finding's, first call or not
        compiling = iv.overlap_with(*compile_spans(frame), ts[cand], end[cand])
        cand = cand[(busy < 0.5 * dur[cand]) & (compiling <= 0)]
    if not len(cand):
        return ops.iloc[:0]
    codes = ops["name"].cat.codes.to_numpy()
    pool = np.flatnonzero((step >= 0) & np.isin(codes, codes[cand]))
    dims = pd.Series(ops["input_dims"].to_numpy()[pool]).astype(str)
    key = pd.factorize(pd.Series(codes[pool]).astype(str) + "|" + dims)[0]
    order = np.argsort(ts[pool], kind="stable")
    _, first_pos = np.unique(key[order], return_index=True)
    first = np.zeros(len(pool), dtype=bool)
    first[order[first_pos]] = True
    d = dur[pool]
    typical = pd.Series(d[~first]).groupby(key[~first]).median().reindex(key).to_numpy()
    hit = (
        first
        & np.isfinite(typical)
        & (d >= FIRST_CALL_SLOWDOWN * typical)
        & (d - typical >= FIRST_CALL_MIN_US)
    )
    if multi:  # repeated in a later step, not only within its own
        s = step[pool]
        later = pd.Series(s[~first]).groupby(key[~first]).max().reindex(key).to_numpy()
        hit &= later > s
    return ops.iloc[np.intersect1d(pool[hit], cand)]


def startup_spans(frame: TraceFrame) -> tuple[np.ndarray, np.ndarray]:
    """Host spans of one-off start-up (startup_calls and first_call_ops), sorted and disjoint."""
    c = _cache(frame)
    if "startup_spans" not in c:
        parts = [startup_calls(frame), first_call_ops(frame)]
        ts = np.concatenate([p["ts"].to_numpy() for p in parts])
        end = np.concatenate([p["end"].to_numpy() for p in parts])
        c["startup_spans"] = iv.union(ts, end)
    return c["startup_spans"]


def startup_us(frame: TraceFrame) -> float:
    """µs over all steps the host spent in one-off start-up (startup_spans)."""
    return iv.total(*startup_spans(frame))


def idle_gaps(frame: TraceFrame, device: int | None = None) -> pd.DataFrame:
    """Every idle interval of `device` inside the steps, with its attributed cause."""
    device = main_device(frame) if device is None else device
    c = _cache(frame)
    key = ("gaps", device)
    if key not in c:
        c[key] = _idle_gaps(frame, device)
    return c[key]


def _idle_gaps(frame: TraceFrame, device: int | None) -> pd.DataFrame:
    cols = [
        "start",
        "end",
        "dur",
        "step",
        "cause",
        "next_op",
        "next_launch_ts",
        "launches_in_gap",
        "dataloader_us",
        "sync_call",
        "sync_is_copy",
        "slowed_us",
        "unrecorded_us",
        "profiler_us",
        "exposed_us",
        "in_startup",
        "in_round_trip",
    ]
    if device is None or not len(frame.steps):
        return pd.DataFrame(columns=cols)
    bs, be = frame.busy_intervals(device)
    ws, we = step_windows(frame)
    parts = [iv.gaps(bs, be, s, e) for s, e in zip(ws, we)]
    gs = np.concatenate([p[0] for p in parts]) if parts else np.empty(0)
    ge = np.concatenate([p[1] for p in parts]) if parts else np.empty(0)
    dur = ge - gs
    n = len(gs)

    g = frame.gpu_ops
    # The device's ops: only the three columns read, not a copy of the whole table.
    on = g["device"].to_numpy() == device
    n_on = int(on.sum())
    # The op that ends each gap: the first op on the device starting at or after the gap's end.
    ots = g["ts"].to_numpy()[on]
    nxt = np.searchsorted(ots, ge - 1e-6, side="left")
    has_next = nxt < n_on
    nxt_c = np.minimum(nxt, max(n_on - 1, 0))
    launch_row = g["launch"].to_numpy()[on][nxt_c] if n_on else np.full(n, -1)
    launch_row = np.where(has_next, launch_row, -1)
    rts = frame.runtime["ts"].to_numpy()
    next_launch_ts = np.where(
        launch_row >= 0, rts[np.maximum(launch_row, 0)] if len(rts) else np.nan, np.nan
    )
    # Names through their codes: only the gaps' ops become strings (NaN for a missing name,
    # as astype(object) gives it).
    names = g["name"]
    by_code = np.append(names.cat.categories.to_numpy(dtype=object), np.nan)
    next_name = by_code[names.cat.codes.to_numpy()[on][nxt_c]] if n_on else np.full(n, None)
    next_name = np.where(has_next, next_name, "(none: the device ran nothing more in the trace)")

    # Host activity inside each gap, on every thread of the launching process (backward launches
    # from autograd's thread, the optimizer from Python's).
    mt = main_thread(frame)
    la = launches(frame)
    if mt is not None:
        la = la.loc[la["pid"] == mt[0]]
    lts = np.sort(la["ts"].to_numpy())
    launches_in_gap = np.searchsorted(lts, ge, side="right") - np.searchsorted(lts, gs, side="left")

    dl = dataloader_spans(frame)
    ds, de = iv.union(dl["ts"].to_numpy(), dl["end"].to_numpy())
    dl_us = iv.overlap_with(ds, de, gs, ge)

    sy = sync_calls(frame)
    sync_name = np.full(n, None, dtype=object)
    sync_copy = np.zeros(n, dtype=bool)
    if len(sy):
        sy = sy.sort_values("ts")
        # The sync call that was running when the gap began (the queue drained under it).
        owner = _covering_index(sy["ts"].to_numpy(), sy["end"].to_numpy(), gs)
        names = sy["name"].astype(object).to_numpy()
        sync_name = np.where(owner >= 0, names[np.maximum(owner, 0)], None)
        sync_copy = (owner >= 0) & sy["copy_owned"].to_numpy()[np.maximum(owner, 0)]

    # The next op had not even been launched when the GPU went idle (or nothing more ran in the
    # step: the host never gave the GPU more work).
    queue_empty = (next_launch_ts > gs) | ~has_next
    host_per_launch = dur / np.maximum(launches_in_gap, 1)
    # The window's first gap before an op queued earlier: the GPU ran work from before the trace.
    opens_window = np.zeros(n, dtype=bool)
    if n and len(ws):
        opens_window = np.abs(gs - ws[0]) < 1e-3
    # (a missing launch counts only where the trace records launches at all)
    launched_before = (next_launch_ts <= gs) | ((launch_row < 0) & (len(frame.runtime) > 0))
    unrecorded = opens_window & has_next & launched_before
    cause = np.select(
        [
            unrecorded,
            dl_us >= 0.5 * dur,
            sync_name != None,  # noqa: E711 (elementwise)
            queue_empty & (host_per_launch <= LAUNCH_BOUND_US_PER_LAUNCH),
            queue_empty,
        ],
        ["unrecorded_work", "data_loading", "sync_stall", "launch_overhead", "host_bound"],
        "gpu_idle",
    )
    steps = frame.steps
    si = np.searchsorted(steps["ts"].to_numpy(), gs, side="right") - 1
    # The host paid the profiler for every op it recorded, and a host that falls behind shows it
    # as idle in the gaps where the GPU waited on it: take that cost (capped at those gaps) out of
    # them in proportion to their length.
    # Gaps the host spent in one-off start-up (cold_start owns them; no profiler cost).
    ss, se = startup_spans(frame)
    starting = iv.overlap_with(ss, se, gs, ge) >= 0.5 * dur if len(ss) else np.zeros(n, bool)
    recorded = profiler_us_per_op(frame) * ops_in_steps(frame)
    # Gaps inside a round trip through the host (round_trips), on the device it copies from.
    trips = round_trips(frame) if device == main_device(frame) else round_trips(frame)[:0]
    hs, he = trips["host_start"].to_numpy(float), trips["host_end"].to_numpy(float)
    in_trip = iv.overlap_with(hs, he, gs, ge) >= 0.5 * dur if len(trips) else np.zeros(n, bool)
    slowed_us = _slowed_us_of_gaps(frame, dur, si, cause, starting, in_trip)
    # the part of each gap the host spent in work it recorded no op for takes none of that cost
    unrecorded_us = iv.overlap_with(*unrecorded_host_spans(frame), gs, ge)
    profiler_us = _profiler_us_of_gaps(
        np.maximum(dur - slowed_us - unrecorded_us, 0.0), cause, starting, in_trip, recorded
    )
    return pd.DataFrame(
        {
            "start": gs,
            "end": ge,
            "dur": dur,
            "step": steps["step"].to_numpy()[np.maximum(si, 0)] if len(steps) else -1,
            "cause": cause,
            "next_op": next_name,
            "next_launch_ts": next_launch_ts,
            "launches_in_gap": launches_in_gap,
            "dataloader_us": dl_us,
            "sync_call": sync_name,
            "sync_is_copy": sync_copy,
            "slowed_us": slowed_us,
            "unrecorded_us": unrecorded_us,
            "profiler_us": profiler_us,
            "exposed_us": dur - slowed_us - profiler_us,
            "in_startup": starting,
            "in_round_trip": in_trip,
        }
    )


def profiler_us_per_op(frame: TraceFrame) -> float:
    """The profiler's host cost per recorded op: PROFILER_SHARE_OF_HOST_OP of the host's working
    time per op in the steps (time blocked on the GPU or the input pipeline left out), unless the
    frame says its host spans carry no profiler cost."""
    if "profiler_us_per_op" in frame.__dict__:
        return float(frame.__dict__["profiler_us_per_op"])
    c = _cache(frame)
    if "profiler_us_per_op" not in c:
        ops = ops_in_steps(frame)
        us, ue = unrecorded_host_spans(frame)
        working = (
            _host_span_us(frame)
            - _host_blocked_us(frame)
            - float(host_slowdown_by_step(frame).sum())
            - float((ue - us).sum())  # no op recorded there: no per-op cost in it
        )
        c["profiler_us_per_op"] = (
            PROFILER_SHARE_OF_HOST_OP * max(working, 0.0) / ops if ops else 0.0
        )
    return c["profiler_us_per_op"]


def host_slowdown_by_step(frame: TraceFrame) -> np.ndarray:
    """µs of each step's host work (in the order of frame.steps) beyond the fastest step's, where
    every step recorded the same ops (counts within 1%) and this one took SLOWED_HOST_RATIO
    times the fastest's time or more; 0 elsewhere. The same ops at a fraction of the time in
    another step show the host was held up (the profiler's buffers, other load on the CPU), not
    working: a fix to the step's code gets none of it back."""
    c = _cache(frame)
    if "slowdown" not in c:
        s = frame.steps
        # over the host's own spans, not the step windows: a window that runs on while the GPU
        # finishes holds the next step's opening wait (a DataLoader fetch, a sync), which would
        # make every step but the last look fast
        starts, ends = _host_spans(frame)
        working = (ends - starts) - _host_blocked_in(frame, starts, ends)
        ops = _ops_in(frame, starts, ends)
        out = np.zeros(len(s))
        if len(s) >= 2 and ops.min() > 0 and ops.max() <= 1.01 * ops.min() and working.min() > 0:
            fastest = float(working.min())
            out = np.where(working >= SLOWED_HOST_RATIO * fastest, working - fastest, 0.0)
        c["slowdown"] = out
    return c["slowdown"]


def _ops_in(frame: TraceFrame, starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """CPU ops the launching process recorded inside each span [starts, ends)."""
    ops = frame.cpu_ops
    mt = main_thread(frame)
    ts = ops["ts"].to_numpy()
    if mt is not None:  # a mask on the one column read, not a copy of the whole table
        ts = ts[ops["pid"].to_numpy() == mt[0]]
    ts = np.sort(ts)
    return np.searchsorted(ts, ends, side="left") - np.searchsorted(ts, starts, side="left")


def ops_in_steps(frame: TraceFrame) -> int:
    """CPU ops the launching process recorded inside the steps."""
    s = frame.steps
    return int(_ops_in(frame, s["ts"].to_numpy(), s["end"].to_numpy()).sum())


def _covering_index(starts: np.ndarray, ends: np.ndarray, t: np.ndarray) -> np.ndarray:
    """Index of a span (sorted by start) that covers t, preferring the latest start; -1 if none."""
    i = np.searchsorted(starts, t, side="right") - 1
    out = np.full(len(t), -1)
    for _ in range(8):  # syncs rarely nest; look back a few calls
        ok = (i >= 0) & (out < 0)
        hit = ok & (ends[np.maximum(i, 0)] + SYNC_SLACK_US >= t)
        out = np.where(hit, i, out)
        i = np.where(ok & ~hit, i - 1, -1)
        if not (i >= 0).any():
            break
    return out


# With a small batch, host gaps shorter than this are per-step overhead that a bigger batch
# amortises; longer ones (a logging call, a checkpoint save) stay the host-bound finding's.
LONG_HOST_GAP_US = 1000.0
OWNERS = (
    "data_loading",
    "sync_stall",
    "launch_overhead",
    "host_bound",
    "gpu_idle",
    "small_batch",
    "memcpy",
    "recompilation",
    "cold_start",
    "unrecorded_work",
)
# Dynamo/Inductor compile phases as the profiler records them (cpu_op or user annotation).
COMPILE_SPAN = re.compile(
    r"^(entire_frame_compile|_compile\.compile_inner|backend_compile|compile_fx_inner"
    r"|compile_fx\.<locals>\.(fw|bw)_compiler|inductor_compile|fx_codegen_and_compile"
    r"|create_aot_dispatcher_function|OutputGraph\.call_user_compiler)( \(dynamo_timed\))?$"
)


def compile_spans(frame: TraceFrame) -> tuple[np.ndarray, np.ndarray]:
    """Host spans where torch.compile was compiling, inside the steps (sorted, disjoint)."""
    c = _cache(frame)
    if "compile_spans" not in c:
        parts = [
            df.loc[name_mask(df["name"], COMPILE_SPAN)]
            for df in (frame.cpu_ops, frame.annotations)
            if len(df)
        ]
        ts = np.concatenate([p["ts"].to_numpy() for p in parts]) if parts else np.empty(0)
        end = np.concatenate([p["end"].to_numpy() for p in parts]) if parts else np.empty(0)
        cs, ce = iv.union(ts, end)
        ws, we = step_windows(frame)
        keep = iv.overlap_with(ws, we, cs, ce) > 0 if len(cs) else np.zeros(0, dtype=bool)
        c["compile_spans"] = (cs[keep], ce[keep])
    return c["compile_spans"]


# A tensor that goes to the host and comes back: numpy/PIL work on a GPU batch (host-side mixup,
# augmentation, sampling). Copies under a MiB are reads of scalars and indices, not a batch.
ROUND_TRIP_MIN_BYTES = 1 << 20
# The copy back may change dtype on the host (uint8 <-> float32 is 4x)
ROUND_TRIP_BYTES_RATIO = 4.0


def _copy_pairs(frame: TraceFrame) -> pd.DataFrame:
    """Device-to-host copies on the main device whose next GPU work there, in the same step, is a
    host-to-device copy that begins after the copy down ended, with the device idle in between
    (busy for under 5% of it: nothing overlapped the wait, as a prefetch on a side stream
    would). One row per pair: `down` and `up` (the copies' gpu_ops rows), `step`, `start` (the
    copy down begins), `host_start` (it ended), `host_end` (the copy up begins), `end`,
    `bytes_down`, `bytes_up`."""
    c = _cache(frame)
    if "copy_pairs" not in c:
        g = frame.gpu_ops
        dev = main_device(frame)
        w = g.loc[(g["device"] == dev) & (g["step"] >= 0) & g["kind"].isin(("kernel", "memcpy"))]
        w = w.sort_values("ts", kind="stable")
        kind = np.where(w["kind"].to_numpy() == "memcpy", w["copy_kind"].to_numpy(), "")
        step = w["step"].to_numpy()
        ts, end = w["ts"].to_numpy(dtype=float), w["end"].to_numpy(dtype=float)
        i = np.flatnonzero(
            (kind[:-1] == "DtoH")
            & (kind[1:] == "HtoD")
            & (step[:-1] == step[1:])
            & (ts[1:] > end[:-1])
        )
        if len(i) and dev is not None:
            bs, be = frame.busy_intervals(dev)
            busy = iv.overlap_with(bs, be, end[i], ts[i + 1])
            i = i[busy < 0.05 * (ts[i + 1] - end[i])]
        nbytes = w["bytes"].to_numpy(dtype=float)
        c["copy_pairs"] = pd.DataFrame(
            {
                "down": w.index.to_numpy()[i],
                "up": w.index.to_numpy()[i + 1],
                "step": step[i],
                "start": ts[i],
                "host_start": end[i],
                "host_end": ts[i + 1],
                "end": end[i + 1],
                "bytes_down": nbytes[i],
                "bytes_up": nbytes[i + 1],
            }
        )
    return c["copy_pairs"]


def round_trips(frame: TraceFrame) -> pd.DataFrame:
    """Tensors sent to the host and back within a step (_copy_pairs' columns): the copy up holds
    about as many bytes as the copy down (within ROUND_TRIP_BYTES_RATIO), each at least
    ROUND_TRIP_MIN_BYTES. The GPU waited for the host to work on the data."""
    p = _copy_pairs(frame)
    lo = np.minimum(p["bytes_down"].to_numpy(float), p["bytes_up"].to_numpy(float))
    hi = np.maximum(p["bytes_down"].to_numpy(float), p["bytes_up"].to_numpy(float))
    return p.loc[(lo >= ROUND_TRIP_MIN_BYTES) & (hi <= ROUND_TRIP_BYTES_RATIO * lo)]


def answer_trips(frame: TraceFrame) -> pd.DataFrame:
    """A few values read on the host and an answer sent straight back (_copy_pairs' columns),
    both copies under ROUND_TRIP_MIN_BYTES: losses ranked by numpy and the chosen indices copied
    up. The copy up's wait is part of the read's (pageable copies up wait for the stream too):
    computing the answer on the GPU removes both."""
    p = _copy_pairs(frame)
    small = (p["bytes_down"].to_numpy(float) < ROUND_TRIP_MIN_BYTES) & (
        p["bytes_up"].to_numpy(float) < ROUND_TRIP_MIN_BYTES
    )
    return p.loc[small]


def gap_owners(frame: TraceFrame) -> np.ndarray:
    """The finding kind that reports each idle gap: its cause, except that the memcpy finding
    takes the gaps that began under a copy it owns (sync_calls' `copy_owned`) or lie inside a
    round trip through the host (round_trips), compilation the gaps inside torch.compile's
    compile spans, and a small batch the short host-bound gaps outside the optimizer (see
    small_batch_owns_host_idle)."""
    c = _cache(frame)
    if "gap_owners" in c:
        return c["gap_owners"]
    gaps = idle_gaps(frame)
    owner = gaps["cause"].to_numpy().astype(object)
    if len(gaps):
        owner = np.where(
            (owner == "sync_stall") & gaps["sync_is_copy"].to_numpy(dtype=bool), "memcpy", owner
        )
        # The wait between a tensor's copy to the host and its copy back is the round trip's
        # (round_trips): moving that work onto the GPU removes the copies and the wait together.
        waiting = gaps["in_round_trip"].to_numpy(dtype=bool) & (owner != "data_loading")
        owner = np.where(waiting, "memcpy", owner)
        # Idle while torch.compile compiles is the compile's, whatever the host did in it (the
        # autotuner's syncs and benchmark launches included).
        cs, ce = compile_spans(frame)
        if len(cs):
            gs, ge = gaps["start"].to_numpy(), gaps["end"].to_numpy()
            compiling = iv.overlap_with(cs, ce, gs, ge) >= 0.5 * (ge - gs)
            owner = np.where(compiling & (owner != "data_loading"), "recompilation", owner)
        # Idle while the host sat in one-off start-up calls is start-up's, not the step's.
        starting = gaps["in_startup"].to_numpy(dtype=bool)
        owner = np.where(starting & (owner != "recompilation"), "cold_start", owner)
    if len(gaps) and small_batch_owns_host_idle(frame):
        # The optimizer's launches are per parameter, not per sample: a bigger batch leaves them.
        os_, oe = optimizer_spans(frame)
        in_opt = iv.overlap_with(os_, oe, gaps["start"].to_numpy(), gaps["end"].to_numpy()) > 0
        short_host = (owner == "host_bound") & (gaps["dur"].to_numpy() < LONG_HOST_GAP_US)
        owner = np.where(short_host & ~in_opt, "small_batch", owner)
    c["gap_owners"] = owner
    return owner


def profiler_overhead_us(frame: TraceFrame) -> float:
    """Idle µs over all steps that only the profiler's own host cost created (see
    profiler_us_per_op): the part of host-caused gaps a run without the profiler would not have."""
    gaps = idle_gaps(frame)
    return float(gaps["profiler_us"].sum()) if len(gaps) else 0.0


def slowed_host_us(frame: TraceFrame) -> float:
    """Idle µs over all steps that steps whose host was slowed added (host_slowdown_by_step)."""
    gaps = idle_gaps(frame)
    return float(gaps["slowed_us"].sum()) if len(gaps) else 0.0


def step_time_without_profiler_us(frame: TraceFrame, profiler_share: float | None = None) -> float:
    """The median over steps of each step less the idle in it that only the profiler's host
    cost made (at PROFILER_SHARE_OF_HOST_OP unless `profiler_share` is given). Step by step, not
    the median step less the mean: one step the profiler held up (timm ConvNeXt-S, checkpointed:
    372 ms against 203 and 190, a 186 ms host stall in one op) took the others' estimate to 94 ms
    where 130 was measured without the profiler."""
    added = profiler_idle_by_step_us(frame, profiler_share)
    return float(np.median(frame.steps["dur"].to_numpy() - added))


def profiler_idle_by_step_us(frame: TraceFrame, profiler_share: float | None = None) -> np.ndarray:
    """µs of idle in each step (in the order of frame.steps) that only the profiler's host cost
    made, at PROFILER_SHARE_OF_HOST_OP unless `profiler_share` is given."""
    gaps = idle_gaps(frame)
    profiler = gaps["profiler_us"]
    if profiler_share is not None and len(gaps):
        profiler = pd.Series(_profiler_us_at_share(frame, profiler_share), index=gaps.index)
    added = (profiler + gaps["slowed_us"]).groupby(gaps["step"]).sum()
    return added.reindex(frame.steps["step"].to_numpy(), fill_value=0.0).to_numpy(dtype=float)


# A launch call longer than this was held up by a full launch queue (the host waiting on the GPU).
BLOCKED_LAUNCH_US = 50.0


def host_time_us(frame: TraceFrame, profiler_share: float = PROFILER_SHARE_OF_HOST_OP_LOW) -> float:
    """The host's own work per step: the step without the profiler's share (its low end unless
    given), less the time the launching thread sat waiting on the GPU (in synchronising calls, or
    in launches held up by a full queue), and never longer than its own span of the step. A step
    cannot get shorter than this by making the GPU faster."""
    c = _cache(frame).setdefault("host_time", {})
    if profiler_share not in c:
        n = max(step_stats(frame).count, 1)
        blocked = _host_blocked_us(frame) - _dataloader_us(frame)  # loading is host work
        # the host's span per step, without what the profiler added to it
        x = profiler_share / PROFILER_SHARE_OF_HOST_OP
        span = (
            _host_span_us(frame)
            - float(host_slowdown_by_step(frame).sum())
            - x * profiler_us_per_op(frame) * ops_in_steps(frame)
        ) / n
        c[profiler_share] = max(min(step_time_without_profiler_us(frame), span) - blocked / n, 0.0)
    return c[profiler_share]


def host_work_in_us(
    frame: TraceFrame,
    starts: np.ndarray,
    ends: np.ndarray,
    profiler_share: float = PROFILER_SHARE_OF_HOST_OP_LOW,
) -> np.ndarray:
    """The host's own work inside each span [starts, ends) of the launching process, without
    the profiler, as host_time_us reads a step's: the span less the time it sat in synchronising
    calls and less the profiler's cost of the ops recorded in it (at `profiler_share`)."""
    x = profiler_share / PROFILER_SHARE_OF_HOST_OP
    profiler = x * profiler_us_per_op(frame) * _ops_in(frame, starts, ends)
    return np.maximum(ends - starts - _in_syncs_in(frame, starts, ends) - profiler, 0.0)


def _host_span_us(frame: TraceFrame) -> float:
    """µs over all steps that the host spent inside its step (the ProfilerStep spans; the
    windows where a trace marks no steps): a host that ran ahead and waited for the GPU between
    its steps was not working then. At most the step windows."""
    if not len(frame.steps):
        return 0.0
    ws, we = step_windows(frame)
    starts, ends = _host_spans(frame)
    return min(float((ends - starts).sum()), float((we - ws).sum()))


def _host_spans(frame: TraceFrame) -> tuple[np.ndarray, np.ndarray]:
    """(starts, ends) of each step's host span, in the order of frame.steps: its ProfilerStep's
    CPU span (empty where it ends before it starts), or its window where no step has one."""
    s = frame.steps
    starts = s["cpu_ts"].to_numpy(dtype=float)
    ends = np.maximum(s["cpu_end"].to_numpy(dtype=float), starts)
    if (ends - starts).sum() > 0:
        return starts, ends
    return s["ts"].to_numpy(dtype=float), s["end"].to_numpy(dtype=float)


# A stretch of a step's host span this long with no op or runtime call recorded in it is work
# the profiler never saw (gc.collect(), numpy, file I/O, sleep): its per-op cost cannot have
# slowed it. Far above the Python between two ops of any loop (tens of µs) and an optimizer's
# Python before its first kernel (1.0-1.7 ms in the zoo): the profiler shares the zoo measured
# (PROFILER_SHARE_OF_HOST_OP) took those as working time, so this leaves them in it.
UNRECORDED_HOST_MIN_US = 10_000.0


def unrecorded_host_spans(frame: TraceFrame) -> tuple[np.ndarray, np.ndarray]:
    """(starts, ends) of the stretches of the steps' host spans, UNRECORDED_HOST_MIN_US or longer,
    in which the launching process recorded no CPU op and no runtime call on any thread."""
    c = _cache(frame)
    if "unrecorded" not in c:
        mt = main_thread(frame)
        out: tuple[np.ndarray, np.ndarray] = (np.empty(0), np.empty(0))
        if mt is not None and len(frame.steps):
            ops, rt = frame.cpu_ops, frame.runtime
            mine, rmine = ops["pid"].to_numpy() == mt[0], rt["pid"].to_numpy() == mt[0]
            rs, re_ = iv.union(
                np.concatenate([ops["ts"].to_numpy()[mine], rt["ts"].to_numpy()[rmine]]),
                np.concatenate([ops["end"].to_numpy()[mine], rt["end"].to_numpy()[rmine]]),
            )
            parts = [iv.gaps(rs, re_, a, b) for a, b in zip(*_host_spans(frame)) if b > a]
            gs = np.concatenate([q[0] for q in parts]) if parts else np.empty(0)
            ge = np.concatenate([q[1] for q in parts]) if parts else np.empty(0)
            keep = ge - gs >= UNRECORDED_HOST_MIN_US
            # autograd's engine runs backward nodes back to back, with no Python between them:
            # a silence between two of them is a trace with events left out (a sampled or
            # trimmed trace), not host work
            ev = name_mask(ops["name"], ENGINE_NODE) & mine
            if ev.any() and keep.any():
                st = ops["step"].to_numpy()[ev]
                bs = pd.Series(ops["ts"].to_numpy()[ev]).groupby(st).min().to_numpy()
                be = pd.Series(ops["end"].to_numpy()[ev]).groupby(st).max().to_numpy()
                keep &= iv.overlap_with(*iv.union(bs, be), gs, ge) <= 0
            out = iv.union(gs[keep], ge[keep])
        c["unrecorded"] = out
    return c["unrecorded"]


def _host_blocked_us(frame: TraceFrame) -> float:
    """µs over all steps that the launching thread sat waiting rather than working: in
    synchronising calls, in launches held up by a full queue, and in DataLoader `__next__`."""
    c = _cache(frame)
    if "host_blocked" not in c:
        s = frame.steps
        blocked = _host_blocked_in(frame, s["ts"].to_numpy(), s["end"].to_numpy())
        c["host_blocked"] = float(blocked.sum())
    return c["host_blocked"]


def _host_blocked_in(frame: TraceFrame, ws: np.ndarray, we: np.ndarray) -> np.ndarray:
    """µs of each span [ws, we) (sorted, disjoint) that the launching thread sat waiting rather
    than working: in synchronising calls, in launches held up by a full queue, in DataLoader
    `__next__`, and in one-off start-up."""
    mt = main_thread(frame)
    dl = dataloader_spans(frame)
    blocked = iv.overlap_with(*iv.union(dl["ts"].to_numpy(), dl["end"].to_numpy()), ws, we)
    blocked = blocked + _in_syncs_in(frame, ws, we)
    if mt is not None:
        la = launches(frame)
        la = la.loc[la["pid"] == mt[0]]
        # one-off start-up is no per-op work the profiler inflates either
        ss, se = startup_spans(frame)
        blocked += iv.overlap_with(ss, se, ws, we)
        if len(la) and len(ws):
            in_startup = iv.overlap_with(ss, se, la["ts"].to_numpy(), la["end"].to_numpy()) > 0
            # a blocking copy is both a launch and a sync: its wait counts once, as the sync's
            counted = in_startup | la.index.isin(sync_calls(frame).index)
            wait = np.where(counted, 0.0, launch_wait_us(la))
            pos = np.searchsorted(ws, la["ts"].to_numpy(), side="right") - 1
            inside = (pos >= 0) & (la["ts"].to_numpy() < we[np.maximum(pos, 0)])
            blocked += np.bincount(pos[inside], weights=wait[inside], minlength=len(ws))
    return blocked


def host_work_in(
    frame: TraceFrame,
    ws: np.ndarray,
    we: np.ndarray,
    profiler_share: float = PROFILER_SHARE_OF_HOST_OP_LOW,
) -> np.ndarray:
    """µs of each span [ws, we) (sorted, disjoint) the launching thread spent working: the span
    less its waits (_host_blocked_in) and the profiler's cost of the ops recorded in it, taken
    at `profiler_share` of the host's working time (its low end unless given)."""
    x = profiler_share / PROFILER_SHARE_OF_HOST_OP
    profiler = x * profiler_us_per_op(frame) * _ops_in(frame, ws, we)
    return np.maximum((we - ws) - _host_blocked_in(frame, ws, we) - profiler, 0.0)


def launch_wait_us(la: pd.DataFrame) -> np.ndarray:
    """µs each launch call in `la` spent waiting: its time beyond the median launch of `la` where
    it ran longer than BLOCKED_LAUNCH_US (a full queue, or a first launch loading its module),
    else 0."""
    dur = la["dur"].to_numpy()
    if not len(dur):
        return np.zeros(0)
    return np.where(dur > BLOCKED_LAUNCH_US, dur - float(np.median(dur)), 0.0)


def _dataloader_us(frame: TraceFrame) -> float:
    """µs of the step windows the host spent inside DataLoader `__next__`."""
    dl = dataloader_spans(frame)
    ws, we = step_windows(frame)
    if not len(dl):
        return 0.0
    return float(
        iv.overlap_with(*iv.union(dl["ts"].to_numpy(), dl["end"].to_numpy()), ws, we).sum()
    )


def host_dispatch_us(
    frame: TraceFrame, profiler_share: float = PROFILER_SHARE_OF_HOST_OP_LOW
) -> float:
    """The host's work per step that issuing GPU work costs (Python, dispatch, launches): what
    capturing the step in a CUDA graph removes. The host's work less the time it spent loading
    data, the idle it caused doing other work (host_bound) and its work on a tensor between the
    copies of a round trip (numpy or PIL: round_trips), which a graph keeps."""
    n = max(step_stats(frame).count, 1)
    gaps = idle_gaps(frame)
    trips = float(gaps.loc[gaps["in_round_trip"].to_numpy(dtype=bool), "exposed_us"].sum())
    other = (_dataloader_us(frame) + idle_by_owner(frame)["host_bound"] + trips) / n
    return max(host_time_us(frame, profiler_share) - other, 0.0)


def step_saving_us(
    frame: TraceFrame,
    gpu_saving_us: float,
    host_saving_us: float = 0.0,
    profiler_share: float = PROFILER_SHARE_OF_HOST_OP_LOW,
    step_us: float | None = None,
) -> float:
    """What a fix that removes `gpu_saving_us` of GPU time and `host_saving_us` of host time per
    step saves of the step (`step_us`, the step without the profiler unless given): the step is
    at least the longer of the host's work (host_time_us at `profiler_share`) and the GPU's, so
    GPU time saved on a host-bound step is mostly not step time saved (measured: BF16 autocast
    on the sync demo's host-bound fixed run made it 12.5% slower, where GPU time alone promised
    58%)."""
    step = step_time_without_profiler_us(frame) if step_us is None else step_us
    host = host_time_us(frame, profiler_share)
    after = max(host - host_saving_us, gpu_time_us(frame) - gpu_saving_us, 0.0)
    return float(min(max(step - after, 0.0), gpu_saving_us + host_saving_us))


# A step whose GPU is busy at least this share of it (without the profiler) has its length set
# by the GPU: kernel time a fix removes is step time saved.
GPU_BOUND_SHARE = 0.9


def gpu_sets_step(frame: TraceFrame) -> bool:
    """Whether the GPU is busy through the step (GPU_BOUND_SHARE of it, without the profiler),
    so that it, not the host, sets the step's length."""
    return gpu_time_us(frame) >= GPU_BOUND_SHARE * step_time_without_profiler_us(frame)


def gpu_busy_by_step(frame: TraceFrame) -> np.ndarray:
    """µs the main device was busy in each step, in the order of frame.steps (0 without one)."""
    dev = main_device(frame)
    s = frame.steps
    if dev is None:
        return np.zeros(len(s))
    bs, be = frame.busy_intervals(dev)
    return iv.overlap_with(bs, be, s["ts"].to_numpy(), s["end"].to_numpy())


def gpu_time_us(frame: TraceFrame) -> float:
    """GPU busy time per step on the main device: the median over steps, as the step time is
    (not the busy share of all steps times the median step, which one long step deflates)."""
    busy = gpu_busy_by_step(frame)
    return float(np.median(busy)) if len(busy) else 0.0


def _in_syncs_in(frame: TraceFrame, ws: np.ndarray, we: np.ndarray) -> np.ndarray:
    """µs of each span [ws, we) the launching process sat in synchronising calls (the copies the
    memcpy finding owns included)."""
    mt = main_thread(frame)
    if mt is None:
        return np.zeros(len(ws))
    sy = sync_calls(frame)
    sy = sy.loc[(sy["pid"] == mt[0]).to_numpy()]
    return iv.overlap_with(*iv.union(sy["ts"].to_numpy(), sy["end"].to_numpy()), ws, we)


def idle_by_owner(frame: TraceFrame) -> dict[str, float]:
    """Idle µs each finding kind reports, less what only the profiler and a slowed host caused
    (`exposed_us`); with profiler_overhead_us and slowed_host_us they add up to the total idle
    exactly."""
    c = _cache(frame)
    if "owners" not in c:
        gaps = idle_gaps(frame)
        totals = gaps["exposed_us"].groupby(gap_owners(frame)).sum().to_dict() if len(gaps) else {}
        c["owners"] = {k: float(totals.get(k, 0.0)) for k in OWNERS}
    return c["owners"]


def _profiler_us_of_gaps(
    dur: np.ndarray,
    cause: np.ndarray,
    in_startup: np.ndarray,
    in_round_trip: np.ndarray,
    recorded_us: float,
) -> np.ndarray:
    """The profiler's `recorded_us` of host cost spread over the gaps the host caused with work it
    recorded, in proportion to their length, capped at their idle; nothing on the others. Left
    out: one-off start-up (cold_start's; no per-op cost) and the host's work inside a round trip
    through the host (round_trips: numpy or PIL, which records no ops for the profiler to slow)."""
    host = _recorded_host_work(cause, in_startup, in_round_trip)
    return _spread_over(dur, host, np.zeros(len(dur), dtype=np.int64), np.array([recorded_us]))


def _slowed_us_of_gaps(
    frame: TraceFrame,
    dur: np.ndarray,
    step_pos: np.ndarray,
    cause: np.ndarray,
    in_startup: np.ndarray,
    in_round_trip: np.ndarray,
) -> np.ndarray:
    """Each step's host slowdown (host_slowdown_by_step) spread over the gaps its host caused with
    work it recorded, in proportion to their length and capped at their idle, as the profiler's
    per-op cost is (_profiler_us_of_gaps)."""
    slow = host_slowdown_by_step(frame)
    if not len(dur) or not slow.any():
        return np.zeros(len(dur))
    host = _recorded_host_work(cause, in_startup, in_round_trip)
    return _spread_over(dur, host, np.clip(step_pos, 0, len(slow) - 1), slow)


def _recorded_host_work(
    cause: np.ndarray, in_startup: np.ndarray, in_round_trip: np.ndarray
) -> np.ndarray:
    """The gaps the host caused with work the profiler recorded: host-caused, not one-off
    start-up, not the numpy or PIL work inside a round trip."""
    return np.isin(cause, HOST_CAUSES) & ~in_startup & ~in_round_trip


def _spread_over(
    dur: np.ndarray, host: np.ndarray, group: np.ndarray, amount_us: np.ndarray
) -> np.ndarray:
    """amount_us[k] spread over the `host` gaps of group k in proportion to their length, each
    group's capped at its gaps' idle; nothing on the other gaps."""
    idle = np.bincount(group[host], weights=dur[host], minlength=len(amount_us))
    share = np.divide(
        np.minimum(amount_us, idle), idle, out=np.zeros(len(amount_us)), where=idle > 0
    )
    return np.where(host, dur * share[group], 0.0)


def host_idle_at_high_profiler_share(frame: TraceFrame, *owners: str) -> float:
    """Idle µs of the gaps the `owners` report, had the profiler cost the host its highest
    measured share (PROFILER_SHARE_OF_HOST_OP_HIGH) rather than the median: the part no
    plausible profiler cost explains. Spread over host-caused gaps in proportion, as idle_gaps
    does."""
    gaps = idle_gaps(frame)
    if not len(gaps):
        return 0.0
    dur = gaps["dur"].to_numpy() - gaps["slowed_us"].to_numpy()
    exposed = dur - _profiler_us_at_share(frame, PROFILER_SHARE_OF_HOST_OP_HIGH)
    return float(exposed[np.isin(gap_owners(frame), owners)].sum())


def _profiler_us_at_share(frame: TraceFrame, profiler_share: float) -> np.ndarray:
    """Each idle gap's part the profiler made, had it cost the host `profiler_share` of its
    working time (idle_gaps' profiler_us is this at PROFILER_SHARE_OF_HOST_OP)."""
    gaps = idle_gaps(frame)
    x = profiler_share / PROFILER_SHARE_OF_HOST_OP
    return _profiler_us_of_gaps(
        np.maximum(gaps["dur"] - gaps["slowed_us"] - gaps["unrecorded_us"], 0.0).to_numpy(),
        gaps["cause"].to_numpy(),
        gaps["in_startup"].to_numpy(dtype=bool),
        gaps["in_round_trip"].to_numpy(dtype=bool),
        x * profiler_us_per_op(frame) * ops_in_steps(frame),
    )


def idle_outside_optimizer(frame: TraceFrame, owner: str, longest_us: float = np.inf) -> float:
    """Idle µs (less the profiler's share) of the gaps `owner` reports outside Optimizer.step,
    each no longer than `longest_us`, over all steps."""
    gaps = idle_gaps(frame)
    if not len(gaps):
        return 0.0
    os_, oe = optimizer_spans(frame)
    in_opt = iv.overlap_with(os_, oe, gaps["start"].to_numpy(), gaps["end"].to_numpy()) > 0
    mine = (gap_owners(frame) == owner) & (gaps["dur"].to_numpy() <= longest_us) & ~in_opt
    return float(gaps["exposed_us"].to_numpy()[mine].sum())


def idle_by_cause(frame: TraceFrame) -> dict[str, float]:
    """Total idle µs per cause on the main device, over all steps."""
    gaps = idle_gaps(frame)
    totals = gaps.groupby("cause")["dur"].sum().to_dict() if len(gaps) else {}
    return {c: float(totals.get(c, 0.0)) for c in CAUSES}


def host_ops_in(frame: TraceFrame, start: float, end: float, top: int = 3) -> list[dict]:
    """Top-level CPU ops of the launching process that overlap [start, end], by overlapped time."""
    mt = main_thread(frame)
    ops = frame.cpu_ops
    if mt is None or not len(ops):
        return []
    # Only the outermost ops of each thread: children would repeat their parents' time.
    sel = ops.loc[
        (ops["pid"] == mt[0]) & (ops["depth"] == 0) & (ops["ts"] < end) & (ops["end"] > start)
    ]
    if not len(sel):
        return []
    overlap = np.minimum(sel["end"], end) - np.maximum(sel["ts"], start)
    by_name = overlap.groupby(sel["name"].astype(object)).sum().sort_values(ascending=False)
    return [{"op": n, "overlap_us": round(float(v), 1)} for n, v in by_name.head(top).items()]


def kernels(frame: TraceFrame, device: int | None = None) -> pd.DataFrame:
    """Kernels (no copies or memsets), of one device when given. Cached per frame: summary and
    detectors ask for the main device's several times, each a copy of most of gpu_ops (callers
    only read it)."""
    c = _cache(frame).setdefault("kernels", {})
    if device not in c:
        g = frame.gpu_ops
        mask = g["kind"] == "kernel"
        if device is not None:
            mask &= g["device"] == device
        c[device] = g.loc[mask]
    return c[device]


def collectives_and_compute(
    frame: TraceFrame, device: int | None
) -> tuple[pd.DataFrame, np.ndarray, np.ndarray]:
    """The device's NCCL/RCCL kernels inside the steps, and the spans (sorted, disjoint) when
    any of its other kernels runs: a collective's time outside them is exposed communication."""
    k = kernels(frame, device)
    is_comm = name_mask(k["name"], COLLECTIVE)
    compute = k.loc[~is_comm]
    starts, ends = iv.union(compute["ts"].to_numpy(), compute["end"].to_numpy())
    comm = is_comm & (k["step"].to_numpy() >= 0)
    launched = k["launch"].to_numpy() >= 0
    if (comm & launched).any():
        # one the trace holds no launch of was issued before the profiler started: its wait and
        # transfer belong to a step not recorded, and no other rank's trace holds its match
        comm &= launched
    return k.loc[comm], starts, ends


def queued_compute(frame: TraceFrame, device: int | None) -> tuple[np.ndarray, np.ndarray] | None:
    """When the device had compute queued and not running: from each non-collective kernel's
    launch returning to its start (sorted, disjoint). None when under half of those kernels have
    a recorded launch: the trace cannot tell."""
    k = kernels(frame, device)
    compute = k.loc[~name_mask(k["name"], COLLECTIVE)]
    launch = compute["launch"].to_numpy()
    linked = launch >= 0
    if not len(compute) or linked.mean() < 0.5:
        return None
    returned = frame.runtime["end"].to_numpy()[launch[linked]]
    starts = compute["ts"].to_numpy()[linked]
    waiting = starts > returned
    return iv.union(returned[waiting], starts[waiting])


DDP_FORWARD = "DistributedDataParallel.forward"


def gradient_sync_rounds(frame: TraceFrame) -> int | None:
    """How many times a step DDP all-reduces the whole gradient where it needs to once: in every
    step, k >= 2 DDP forwards (micro-batches), fewer optimizer steps than that, and the step's
    all-reduces (record_param_comms, by message size) the same bucket sequence k times over,
    once per backward. That is gradient accumulation without model.no_sync(): all but the last
    round are wasted. The median k over steps, else None (a step with one round, no DDP
    forwards or no Optimizer.step annotation to count on cannot tell)."""
    cache = _cache(frame)
    if "sync_rounds" in cache:
        return cache["sync_rounds"]
    cache["sync_rounds"] = None
    ann = frame.annotations
    if not len(ann) or not len(frame.cpu_ops) or "input_dims" not in frame.cpu_ops:
        return None
    host = ann.loc[~ann["on_gpu"].to_numpy()]
    fwd = host.loc[host["name"].astype(object) == DDP_FORWARD].groupby("step").size()
    opt = host.loc[name_mask(host["name"], OPTIMIZER_STEP)].groupby("step").size()
    ops = frame.cpu_ops
    comms = ops.loc[ops["name"].astype(object) == "record_param_comms"]
    rounds = []
    for step in range(len(frame.steps)):
        k, n_opt = int(fwd.get(step, 0)), int(opt.get(step, 0))
        if k < 2 or not 0 < n_opt < k:
            return None
        dims = comms.loc[comms["step"] == step, "input_dims"].tolist()
        if not dims or not all(isinstance(d, list) and d for d in dims):
            return None  # no recorded message sizes (captured without record_shapes)
        sizes = [str(d) for d in dims]
        if len(sizes) % k or sizes != sizes[: len(sizes) // k] * k:
            return None
        rounds.append(k)
    cache["sync_rounds"] = int(np.median(rounds)) if rounds else None
    return cache["sync_rounds"]


# The DDP reducer's own host work, recorded under these names: the gradients scaled into their
# buckets (reducer::mul_out), the all-reduce calls, the buckets copied back (copy_bucket_to_grad).
REDUCER_OPS = re.compile(r"reducer::|^c10d::allreduce_$")
# The reducer's hooks run inside autograd's evaluation of each parameter's AccumulateGrad, after
# the accumulation itself: its bookkeeping there records no op of its own.
ACCUMULATE_GRAD_EVAL = "autograd::engine::evaluate_function: torch::autograd::AccumulateGrad"
ACCUMULATE_GRAD = "torch::autograd::AccumulateGrad"


def reducer_host_us(frame: TraceFrame) -> float:
    """µs per step the host spent in the DDP reducer's work, less the profiler's per-op cost of
    the ops recorded in it: the REDUCER_OPS, and the rest of each AccumulateGrad evaluation after
    the accumulation (the reducer's hook). It runs in backward, once per gradient all-reduce
    round (HF GPT-2 medium under DDP on an H200 host, without the profiler's per-op cost: 67.0 ms
    a step in 4 rounds, 16.8 in the one round no_sync leaves)."""
    ops = frame.cpu_ops
    if not len(ops) or not len(frame.steps):
        return 0.0
    names = ops["name"].astype(object).to_numpy()
    tids = ops["tid"].to_numpy()
    in_step = ops["step"].to_numpy() >= 0
    reducer = in_step & name_mask(ops["name"], REDUCER_OPS)
    starts, ends = ops["ts"].to_numpy(dtype=float), ops["end"].to_numpy(dtype=float)
    lo, hi = float(starts.min()), float(ends.max())
    total, recorded = 0.0, 0
    for tid in np.unique(tids[reducer]):
        on = in_step & (tids == tid)
        evals, accs = (on & (names == n) for n in (ACCUMULATE_GRAD_EVAL, ACCUMULATE_GRAD))
        hooks = iv.intersect(
            *iv.union(starts[evals], ends[evals]),
            *iv.gaps(*iv.union(starts[accs], ends[accs]), lo, hi),
        )
        red = reducer & (tids == tid)
        s, e = iv.union(
            np.concatenate([hooks[0], starts[red]]), np.concatenate([hooks[1], ends[red]])
        )
        total += iv.total(s, e)
        ts = np.sort(starts[on])
        recorded += int((np.searchsorted(ts, e) - np.searchsorted(ts, s)).sum())
    n = max(step_stats(frame).count, 1)
    return max(total - profiler_us_per_op(frame) * recorded, 0.0) / n


# FSDP2's hook spans (record_function in torch.distributed.fsdp._fully_shard): pre/post forward and
# backward, all-gather copy-in and copy-out, reduce-scatter, once per unit; a unit made with
# fully_shard(module) names it in parentheses, the root's own spans carry no name.
FSDP_HOOK = re.compile(r"^FSDP::")
FSDP_UNIT = re.compile(r"^FSDP::pre_forward(?: \((.*)\))?$")


def fsdp_hooks(frame: TraceFrame) -> tuple[float, int]:
    """(µs per step the host spent inside FSDP2's hooks, less the profiler's per-op cost of the
    ops recorded in them; the number of FSDP2 units run, the root included). Each unit runs its
    hooks four times a step whatever its size: HF GPT-2 large under FSDP2, one unit per block (37
    units), spent 127.8 ms a step in them on an H200 host, the root alone as one unit 28.3."""
    a = frame.annotations
    if not len(a) or not len(frame.steps):
        return 0.0, 0
    a = a.loc[~a["on_gpu"].to_numpy(dtype=bool) & (a["step"].to_numpy() >= 0)]
    hook = name_mask(a["name"], FSDP_HOOK)
    if not hook.any():
        return 0.0, 0
    names = a["name"].astype(object)[hook]
    units = names.str.extract(FSDP_UNIT.pattern, expand=False)
    n_units = int(units.dropna().nunique()) + int(names.isin(["FSDP::pre_forward"]).any())
    s, e = iv.union(a["ts"].to_numpy(dtype=float)[hook], a["end"].to_numpy(dtype=float)[hook])
    ops = frame.cpu_ops
    ts = np.sort(ops["ts"].to_numpy(dtype=float)[ops["step"].to_numpy() >= 0])
    recorded = int((np.searchsorted(ts, e) - np.searchsorted(ts, s)).sum())
    n = max(step_stats(frame).count, 1)
    return max(iv.total(s, e) - profiler_us_per_op(frame) * recorded, 0.0) / n, n_units


@dataclass(frozen=True)
class HeldCollectives:
    """µs over all steps that the main device's collectives ran with no compute beside them
    (`exposed`); of that, with compute queued behind them waiting for them to end (`held`: where
    nothing was queued the GPU would have idled anyway, for the host), and the part of `held`
    that was transfer rather than waiting for a peer (`held_transfer`, collective_transfer_us).
    Without launch links `held` is `exposed`."""

    exposed: float
    held: float
    held_transfer: float


def held_collectives(frame: TraceFrame) -> HeldCollectives:
    c = _cache(frame)
    if "held_collectives" not in c:
        c["held_collectives"] = _held_collectives(frame)
    return c["held_collectives"]


def _held_collectives(frame: TraceFrame) -> HeldCollectives:
    dev = main_device(frame)
    comm, ks, ke = collectives_and_compute(frame, dev)
    if not len(comm):
        return HeldCollectives(0.0, 0.0, 0.0)
    starts, ends = comm["ts"].to_numpy(), comm["end"].to_numpy()
    cs, ce = iv.union(starts, ends)
    exposed = iv.total(cs, ce) - float(iv.overlap_with(ks, ke, cs, ce).sum())
    # collectives running with no compute beside them
    hs, he = iv.intersect(*iv.gaps(ks, ke, float(cs[0]), float(ce[-1])), cs, ce)
    queued = queued_compute(frame, dev)
    if queued is not None and len(ks):
        hs, he = iv.intersect(*queued, hs, he)  # and compute queued behind them
    held_each = iv.overlap_with(hs, he, starts, ends)
    # a collective's transfer comes last, once every rank has joined it
    transfer = float(np.minimum(held_each, collective_transfer_us(frame, comm)).sum())
    return HeldCollectives(exposed, iv.total(hs, he), transfer)


def collective_transfer_us(frame: TraceFrame, comm: pd.DataFrame) -> np.ndarray:
    """Each collective's transfer time, from this trace alone: the shortest run of the same
    kernel on a message of the same size (its launching op's first input). A collective cannot
    end on any rank before the last joins it, so the rest of a longer run was waiting for a peer
    (HF GPT-2 large, FSDP2 one unit per block: each block's all-gather of 9,838,720 elements ran
    92.6 µs at shortest, 1.23 ms at the median). A kernel run once counts whole as transfer."""
    ops = frame.cpu_ops
    op = comm["op"].to_numpy()
    size = np.full(len(comm), -1.0)
    if "input_dims" in ops and len(ops):
        dims = ops["input_dims"].to_numpy()[np.maximum(op, 0)]
        size = np.array(
            [
                float(np.prod(d[0])) if o >= 0 and isinstance(d, list) and d and d[0] else -1.0
                for o, d in zip(op, dims)
            ]
        )
    key = pd.Series(comm["name"].astype(object).to_numpy()) + "|" + pd.Series(size).astype(str)
    return pd.Series(comm["dur"].to_numpy()).groupby(key).transform("min").to_numpy()


def compute_us(frame: TraceFrame) -> float:
    """µs per step the main device ran kernels other than collectives."""
    _, ks, ke = collectives_and_compute(frame, main_device(frame))
    ws, we = step_windows(frame)
    return iv.total(*iv.intersect(ks, ke, ws, we)) / max(len(frame.steps), 1)


def underfilled_share(frame: TraceFrame) -> float | None:
    """Share of kernel time in kernels whose grid has fewer blocks than the GPU has SMs."""
    sms = sm_count(frame)
    k = kernels(frame, main_device(frame))
    k = k.loc[k["grid"].notna()]
    if not sms or not len(k) or k["dur"].sum() <= 0:
        return None
    return float(k.loc[k["grid"] < sms, "dur"].sum() / k["dur"].sum())


GEMM_OPS = ("aten::mm", "aten::addmm", "aten::bmm", "aten::baddbmm", "aten::_scaled_mm")


def median_gemm_rows(frame: TraceFrame) -> float | None:
    """Median M (rows of the left operand) of matrix products, from recorded shapes."""
    ops = frame.cpu_ops
    if "input_dims" not in ops or not len(ops):
        return None
    sel = ops.loc[ops["name"].isin(GEMM_OPS)]
    rows = []
    for name, dims in zip(sel["name"].astype(object), sel["input_dims"]):
        if not isinstance(dims, list) or not dims:
            continue
        a = dims[1] if name in ("aten::addmm", "aten::baddbmm") and len(dims) > 1 else dims[0]
        if isinstance(a, list) and len(a) >= 2 and all(isinstance(x, int) for x in a):
            rows.append(a[-2] * (a[0] if len(a) == 3 else 1))
    return float(np.median(rows)) if rows else None


# Below this many rows (batch x sequence) per matrix product, each kernel has too little work to
# fill a data-centre GPU, and per-step host costs are spread over too few samples.
SMALL_GEMM_ROWS = 512


def batch_is_small(frame: TraceFrame) -> bool | None:
    """Does the trace show a small batch? From the matrix work where it tells
    (_matrix_work_is_small). Else from most kernel time being in grids smaller than the SM
    count. None when neither can be told."""
    small = _matrix_work_is_small(frame)
    if small is not None:
        return small
    under = underfilled_share(frame)
    return None if under is None else under >= 0.5


# Most of the math in products whose output tiles leave at least this share of the SMs idle
# (op_flops.median_fill under 1 - this) shows a small batch. A tenth, as a finding needs a tenth:
# a DLRM-style model at batch 4096 (holdout 33) had its FLOP-weighted median product at 128
# tiles for 132 SMs (97% of them busy in one wave) and was called small; of the labelled runs
# with the median under 1, all that small_batch fits had it at 73% or under.
SMALL_BATCH_IDLE_SMS = 0.1


# A batch of one is small whatever its products fill: most of the matrix FLOPs whose calls tell
# their batch (op_flops.one_sample_share) in calls of one sample, where calls that tell it carry
# at least this share of the matrix FLOPs. A training step tells it in its forward's calls only
# (the backward's products are flattened to 2-D): 41% of Granite's at one sequence of 1,024
# tokens (holdout 64), whose products fill the SMs while its host sets the step.
ONE_SAMPLE_TOLD_MIN = 0.25


def runs_one_sample_a_call(frame: TraceFrame) -> bool:
    """Does most matrix work run one sample a call (one image, one sequence)? Then every per-step
    cost (the host's work between ops, launches, the optimizer) is paid for that one sample."""
    share = one_sample_share(frame)
    return share is not None and share[0] >= ONE_SAMPLE_TOLD_MIN and share[1] > 0.5


def _matrix_work_is_small(frame: TraceFrame) -> bool | None:
    """From recorded shapes when there is matrix work: most FLOPs in products whose output tiles
    leave a tenth of the SMs idle or more (op_flops.median_fill; convolutions as implicit GEMMs
    of batch x output positions rows), or in calls of one sample (runs_one_sample_a_call). Where
    GEMM kernels the shapes do not describe (a cuDNN RNN's per-timestep products) take more time
    than those they do, and the products the shapes do describe carry under half the matrix
    FLOPs, from most of those kernels' time being in grids (output tiles) under the SM count.
    None when the matrix work tells neither."""
    c = _cache(frame)
    if "matrix_work_is_small" not in c:
        fill = judging_fill(frame)
        under = unshaped_gemm_underfilled_share(frame)
        if fill is not None and fill < 1.0 - SMALL_BATCH_IDLE_SMS:
            small = True
        elif runs_one_sample_a_call(frame):
            small = True
        elif under is not None:
            small = under > 0.5
        else:
            small = None if fill is None else False
        c["matrix_work_is_small"] = small
    return c["matrix_work_is_small"]


# Kernel names of cuBLAS/cuBLASLt/CUTLASS/cuDNN matrix products, old and new naming.
GEMM_KERNEL = re.compile(
    r"gemm|gemv|nvjet|cutlass|xmma|gmma|hmma|s1688|s16816|h1688|h16816|Kernel2$", re.IGNORECASE
)


def unshaped_gemm_underfilled_share(frame: TraceFrame) -> float | None:
    """Outside the optimizer, when GEMM kernels that no recorded shape describes take more time
    than the matrix work recorded shapes do: the share of their time in grids under the SM
    count. A GEMM's grid is its output tiles (times split-K), so fewer blocks than SMs leaves SMs
    with nothing to do. None when shaped work dominates or there are no such kernels."""
    c = _cache(frame)
    if "unshaped_gemm_underfilled" in c:
        return c["unshaped_gemm_underfilled"]
    sms = sm_count(frame)
    k = kernels(frame, main_device(frame))
    k = k.loc[k["step"].to_numpy() >= 0]
    k = k.loc[~launched_in_optimizer(frame, k)]
    share = None
    if sms and len(k):
        wf = work_fill(frame)
        described = wf.loc[np.isfinite(wf["fill"].to_numpy()), "row"].to_numpy()
        shaped = np.isin(matrix_owner(frame)[k.index.to_numpy()], described)
        grid = k["grid"].to_numpy()
        gemm = name_mask(k["name"], GEMM_KERNEL) & ~shaped & np.isfinite(grid)
        dur = k["dur"].to_numpy()
        if dur[gemm].sum() > dur[shaped].sum():  # never when there are none
            share = float(dur[gemm & (grid < sms)].sum() / dur[gemm].sum())
    c["unshaped_gemm_underfilled"] = share
    return share


def judging_fill(frame: TraceFrame) -> float | None:
    """The FLOP-weighted median fill (op_flops.median_fill) where it speaks for the matrix work;
    None where GEMM kernels no shape describes outweigh the described ones in time and the
    described products carry under half the matrix FLOPs (a cuDNN LSTM beside a small head):
    then those kernels' grids judge the batch."""
    if unshaped_gemm_underfilled_share(frame) is not None and (told_fill_share(frame) or 0.0) < 0.5:
        return None
    return _median_fill(frame)


def _median_fill(frame: TraceFrame) -> float | None:
    c = _cache(frame)
    if "median_fill" not in c:
        c["median_fill"] = median_fill(frame) if sm_count(frame) else None
    return c["median_fill"]


def small_batch_owns_host_idle(frame: TraceFrame) -> bool:
    """With a small batch, per-step host work (Python between ops) is paid for too few samples,
    and the first fix is a bigger batch: small_batch then owns the short host-bound gaps outside
    the optimizer. Launch-bound gaps stay launch_overhead's, whose fix then names a bigger batch
    beside CUDA graphs. Only when recorded shapes, or the grids of GEMM kernels no shape
    describes (batch_is_small), show it: other kernels' grids alone cannot tell a small batch
    from narrow layers."""
    return _matrix_work_is_small(frame) is True


OPTIMIZER_STEP = re.compile(r"^Optimizer\.step#(\w+)\.step")


def launched_in_optimizer(frame: TraceFrame, gpu_ops: pd.DataFrame) -> np.ndarray:
    """For rows of frame.gpu_ops: launched by a CPU op that began inside Optimizer.step."""
    op = gpu_ops["op"].to_numpy()
    if not len(gpu_ops) or not len(frame.cpu_ops):
        return np.zeros(len(gpu_ops), dtype=bool)
    return (op >= 0) & ops_in_optimizer(frame)[np.maximum(op, 0)]


def ops_in_optimizer(frame: TraceFrame) -> np.ndarray:
    """For rows of frame.cpu_ops: began inside an Optimizer.step span."""
    os_, oe = optimizer_spans(frame)
    ts = frame.cpu_ops["ts"].to_numpy()
    if not len(os_):
        return np.zeros(len(ts), dtype=bool)
    i = np.searchsorted(os_, ts, side="right") - 1
    return (i >= 0) & (ts < oe[np.maximum(i, 0)])


FOREACH_OP = re.compile(r"^aten::_foreach_\w+")


def optimizer_foreach_groups(frame: TraceFrame) -> tuple[float, float | None]:
    """(calls, few): how many times a step Optimizer.step calls each of its foreach ops (the
    median over op names: one call per parameter group, device and dtype), and the share of those
    calls whose tensor list holds one or two tensors (from recorded shapes; None without them).
    The profiler records a long tensor list as [], so such a call counts as many. (0.0, None)
    where the optimizer runs no foreach op."""
    c = _cache(frame)
    if "optimizer_foreach_groups" not in c:
        c["optimizer_foreach_groups"] = _optimizer_foreach_groups(frame)
    return c["optimizer_foreach_groups"]


def _optimizer_foreach_groups(frame: TraceFrame) -> tuple[float, float | None]:
    ops = frame.cpu_ops
    mine = ops_in_optimizer(frame) & name_mask(ops["name"], FOREACH_OP)
    if not mine.any():
        return 0.0, None
    counts = ops.loc[mine, "name"].astype(str).value_counts()
    calls = float(counts.median()) / max(len(frame.steps), 1)
    dims = ops.loc[mine, "input_dims"].dropna().astype(str)
    # the first argument's list of shapes: "[[[1, 768], [768]], ..." holds 2 tensors
    first = dims.str.extract(r"^\[(\[(?:\[[^\]]*\],?\s*)*\])")[0].dropna()
    tensors = first.str.count(r"\[[^\[\]]*\]").where(first != "[]", 0)
    few = float(tensors.between(1, 2).mean()) if len(tensors) else None
    return calls, few


# From this many foreach calls of each kind a step, most of them on one or two tensors, the
# optimizer's parameter groups are what splits its work: foreach and fused kernels batch tensors
# only within a group (holdout 40's ViT-B with one group per parameter for layer-wise LR decay:
# 152 calls a step of one tensor each; 28 groups, one per depth and decay setting, measured
# 35.9% faster). Every other trace shipped or external calls each foreach op 1 to 3.5 times a
# step.
FRAGMENTED_OPTIMIZER_CALLS = 10.0


def optimizer_groups_fragmented(frame: TraceFrame) -> float:
    """Foreach calls of each kind a step where the optimizer's groups split its foreach work
    into calls on one or two tensors (FRAGMENTED_OPTIMIZER_CALLS), else 0."""
    calls, few = optimizer_foreach_groups(frame)
    fragmented = calls >= FRAGMENTED_OPTIMIZER_CALLS and few is not None and few >= 0.5
    return calls if fragmented else 0.0


def optimizer_spans(frame: TraceFrame) -> tuple[np.ndarray, np.ndarray]:
    """Host spans of Optimizer.step (sorted, disjoint)."""
    ann = frame.annotations
    opt = ann.loc[name_mask(ann["name"], OPTIMIZER_STEP) & ~ann["on_gpu"].to_numpy()]
    return iv.union(opt["ts"].to_numpy(), opt["end"].to_numpy())
