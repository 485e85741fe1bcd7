"""Host-device synchronisation drains the GPU.

Symptom: the host blocks in cudaStreamSynchronize / cudaDeviceSynchronize / cudaEventSynchronize
or a blocking copy to the host; the GPU finishes its queue and then idles until the host launches
again. Or every launch blocks until its kernel ends (facts.blocking_launches:
CUDA_LAUNCH_BLOCKING=1 left set), so the host and the GPU take turns: the title and fix say so.
Likely cause: `.item()`, `.cpu()`, `.tolist()`, `print(tensor)`, `torch.nonzero` / boolean-mask
indexing (output size unknown until the GPU finishes), `if tensor:` conditions, or explicit
`torch.cuda.synchronize()` in the step.
Fix: keep values on the GPU (accumulate metrics in tensors and read them every N steps), replace
data-dependent shapes with masks (`torch.where`), and drop explicit synchronize calls.
Reads made by Python truth-testing a GPU tensor (`aten::is_nonzero` above the sync: `if t:`,
`bool(t)`, `assert t`) are listed with the ops that computed the tested value, since no line of
the user's code may show them: transformers 5.x makes such tests itself in every forward (a
decoder's packed-sequence check, an encoder's all-ones padding-mask check), and the fix says so.
Reads the autograd engine makes itself after each backward node (isnan, then item) are anomaly
detection left on (`torch.autograd.set_detect_anomaly(True)`): the fix names it. Reads made
inside torch.compile'd code (under a `Torch-Compiled Region`) break the graph there: the fix says
so, since the breaks cost host time that the wait after the read does not show.

Estimate: a sync costs more than the idle right after it. It empties the queue, so the lead the
host had built is gone and the GPU runs at the host's pace until the host is ahead again. The
profiled steps are replayed at the host's speed without the profiler, with and without the syncs
(bottleneck_lab/replay.py); the difference, within what any step allows, is the saving, and the
idle the trace shows after the syncs is its floor. What a sync costs hangs on how fast the host
really is, which the profiler hides: the replay runs at the profiler's median share of host time
and at its highest measured share (the host at its fastest, as host_bound takes it), and the
smaller saving is promised. Where the trace shows under a tenth of that promise as GPU idle after
the reads, the rest rests on that pace alone, and the finding is low however large its share,
until timed: the same read measured 2.0% outside the profiler and 19.9% under CUDA-only tracing.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .. import facts, replay
from ..diagnosis import Finding, severity_for_share
from ..trace import TraceFrame
from ..trace.frame import name_mask, nearest_ancestor
from ..trace.synth import AUTO, TraceBuilder
from ._common import cost, gap_evidence, when
from ._examples import SYNC_NAME, launch, steps

CODE = "sync-stall"
KIND = "sync_stall"
REQUIRES = {"kernels", "steps", "runtime"}

# Ops whose presence above a sync call names the Python that caused it.
CAUSE_OPS = (
    "aten::item",
    "aten::_local_scalar_dense",
    "aten::nonzero",
    "aten::to",
    "aten::_to_copy",
    "aten::copy_",
    "aten::masked_select",
    "aten::unique",
    "aten::is_nonzero",
    "aten::tolist",
    "aten::equal",
    "aten::index",
    "aten::repeat_interleave",
)


@dataclass(frozen=True)
class Config:
    min_share_pct: float = 3.0
    top_calls: int = 5
    # the part of the promise the trace must show as GPU idle after the reads for the finding to
    # rank above low: under it, the promise is the replay's lost lead (see detect)
    min_seen_ratio: float = 0.1


def _reads_under(frame: TraceFrame, op_rows: np.ndarray, pattern) -> int:
    """How many of the sync calls made under these ops (rows of cpu_ops; -1: none) ran inside an
    op whose name matches `pattern`: a torch.compile'd frame (facts.COMPILED_REGION), a grouped
    matmul (facts.GROUPED_MM)."""
    ops = frame.cpu_ops
    inside = name_mask(ops["name"], pattern)
    if not inside.any() or not len(op_rows):
        return 0
    return int((nearest_ancestor(ops["parent"].to_numpy(), op_rows, inside) >= 0).sum())


# PyTorch's FP32 grouped matmul is a loop over the groups, which needs their offsets on the host;
# its BF16 kernel takes them on the GPU (HF GraniteMoE, holdout 85: 96 such reads a step, gone
# with its experts in BF16, 42.5% less time a step)
GROUPED_READS = (
    "{n:.0f} of these reads a step are inside torch._grouped_mm (a mixture-of-experts layer's "
    "experts): PyTorch's fallback for it (FP32 inputs, or a GPU its grouped kernel does not run "
    "on) is one product per group after reading the group offsets to the host, where its BF16 "
    "kernel reads nothing. Keep the experts' weights in BF16 (see precision). "
)


def _truth_tests(frame: TraceFrame, sync_ops: np.ndarray, before: int = 5) -> list[dict]:
    """The host reads made by truth-testing a tensor (an aten::is_nonzero above the sync's op,
    rows of cpu_ops; -1: none), grouped by what was tested: the names of the `before` ops that
    ran just before the test on its thread at its level (its preceding siblings), with how many
    reads each group made. Most reads first."""
    parent, names = _parents_and_names(frame)
    tested = nearest_ancestor(parent, sync_ops, names == "aten::is_nonzero")
    tested = np.unique(tested[tested >= 0])
    if not len(tested):
        return []
    ops = frame.cpu_ops
    tid = ops["tid"].to_numpy()
    # ops in (thread, parent, time) order: a test's preceding siblings are the entries just
    # before it of its own thread and parent (one sort, however many tests a step makes)
    order = np.lexsort((ops["ts"].to_numpy(), parent, tid))
    at = np.empty(len(order), dtype=np.int64)
    at[order] = np.arange(len(order))
    groups: dict[tuple[str, ...], int] = {}
    for row in tested:
        window = order[max(at[row] - before, 0) : at[row]]
        last = window[(tid[window] == tid[row]) & (parent[window] == parent[row])]
        key = tuple(str(n) for n in names[last])
        groups[key] = groups.get(key, 0) + 1
    ranked = sorted(groups.items(), key=lambda kv: -kv[1])
    return [{"ops_before_test": list(k), "reads": v} for k, v in ranked]


def _op_chain(frame: TraceFrame, op_row: int, depth: int = 4) -> list[str]:
    """The op that made the call and its parents, innermost first."""
    chain = []
    parent, names = _parents_and_names(frame)
    while op_row >= 0 and len(chain) < depth:
        chain.append(str(names[op_row]))
        op_row = int(parent[op_row])
    return chain


def _parents_and_names(frame: TraceFrame) -> tuple[np.ndarray, np.ndarray]:
    """cpu_ops' parent rows and names as arrays, made once per frame: _op_chain runs per sync
    call, thousands of times on a long trace."""
    cached = frame.__dict__.get("_sync_stall_ops")
    if cached is None:
        ops = frame.cpu_ops
        cached = ops["parent"].to_numpy(), ops["name"].to_numpy()
        frame.__dict__["_sync_stall_ops"] = cached
    return cached


def detect(frame: TraceFrame, cfg: Config):
    syncs = facts.sync_calls(frame)
    in_steps = syncs.loc[syncs["step"] >= 0]
    if not len(in_steps):
        return []
    # The idle right after the syncs is the least of it: each sync also throws away the lead the
    # host had built, and the GPU then runs at the host's pace until the host is ahead again.
    # The profiled steps replayed at the host's profiler-free speed with and without the syncs
    # give that (replay.py: on GPT-2 with clip_grad_norm_(error_if_nonfinite=True) 11%, 18.9%
    # measured, where the trace shows 0.5 ms of idle after the syncs; on the sync demo 36%,
    # 43.4% measured). The idle the trace does show after them is the floor: the replay cannot
    # see what a sync waited for on other streams or ranks.
    # Where the host's and the GPU's work per step are close, the price swings with the host's
    # speed, which the profiler's share of it leaves within a range: ResNet-50 logging
    # loss.item(), recaptured, replayed at 15.7% at the median share and 6.6% at the highest,
    # and measured 2.3%. Promise what holds at both.
    n = max(len(frame.steps), 1)
    total = facts.idle_by_owner(frame)["sync_stall"]
    shares = {
        "median": facts.PROFILER_SHARE_OF_HOST_OP,
        "high": facts.PROFILER_SHARE_OF_HOST_OP_HIGH,
    }
    savings = {k: replay.sync_saving_us(frame, v) for k, v in shares.items()}
    # Launches that wait for their kernels (CUDA_LAUNCH_BLOCKING=1) leave the host no lead at
    # all: the idle after each is the host's own work up to the next launch, which the fix
    # overlaps with the GPU's rather than removes, so only the replay prices them (timm
    # Twins-SVT-S: 40.2% of the replayed step, 41.0% measured; the idle after them is 63%)
    blocking = np.isin(in_steps.index, facts.blocking_launches(frame))
    launches_block = blocking.mean() > 0.5
    floor = 0.0 if launches_block else total
    saving = max(floor, min(savings.values()) * n)
    per_step, share = cost(frame, saving)
    # The idle the trace shows after the reads is the part of the promise seen; the rest is the
    # lead the replay says they take, at a host pace without the profiler that the trace cannot
    # show, and near the GPU's own pace that cost swings widely: HF Qwen2's one mask check a step
    # measured 2.0% outside the profiler (hf_check_cost.py) and 19.9% with only the CUDA
    # activity traced (cuda_only.py), on one H200 in one lease, where the replay of its full
    # trace promised 11.1%. Where the trace shows under a tenth of the promise, the finding
    # stays low until timed.
    modelled = not launches_block and total < cfg.min_seen_ratio * saving
    if share < cfg.min_share_pct:
        return []
    gaps = facts.idle_gaps(frame)
    stalls = gaps.loc[gaps["cause"] == "sync_stall"]
    calls = []
    for s in in_steps.nlargest(cfg.top_calls, "dur").itertuples():
        chain = _op_chain(frame, int(s.op))
        calls.append(
            {
                **when(frame, s.ts),
                "call": str(s.name),
                "blocked_us": round(s.dur, 1),
                "op_chain": chain,
                "caused_by": next(
                    (c for c in chain if c in CAUSE_OPS), chain[0] if chain else None
                ),
            }
        )
    chains = [tuple(_op_chain(frame, int(o), 2)) for o in in_steps["op"]]
    by_origin: dict[str, int] = {}
    for ch in chains:
        key = " <- ".join(ch) if ch else "(no enclosing op: explicit synchronize or Python)"
        by_origin[key] = by_origin.get(key, 0) + 1
    n_steps = max(len(frame.steps), 1)
    evidence = {
        "sync_calls_per_step": round(len(in_steps) / n_steps, 1),
        "host_blocked_us_per_step": round(float(in_steps["dur"].sum()) / n_steps, 1),
        "gpu_idle_after_sync_us_per_step": cost(frame, total)[0],
        "stalls": int(len(stalls)),
        "median_idle_after_sync_us": round(float(np.median(stalls["dur"])), 1)
        if len(stalls)
        else 0.0,
        "calls_by_origin": dict(sorted(by_origin.items(), key=lambda kv: -kv[1])[:6]),
        "longest_calls": calls,
        "largest_gaps": gap_evidence(frame, "sync_stall"),
        # the replay behind the estimate, per step (None where nothing replays)
        "replay_step_us": _us(replay.step_us(frame)),
        "replay_step_without_syncs_us": _us(replay.step_us(frame, without_syncs=True)),
        # what dropping the syncs saves per step, the profiler taken at each share of host time
        "replay_saving_us_by_profiler_share": {
            f"{k} ({v:g})": _us(savings[k]) for k, v in shares.items()
        },
    }
    idle_share = cost(frame, total)[1]
    evidence["cost_seen_in_trace"] = not modelled
    title = (
        f"Host-device syncs drain the GPU: {len(in_steps) / n_steps:.0f} sync calls per step "
        f"cost ~{share:.1f}% of the step ({idle_share:.1f}% GPU idle after them"
        + (
            "; each also empties the queue, and the GPU then runs at the host's pace until the "
            "host is ahead again)"
            if share >= idle_share + 1.0
            else ")"
        )
    )
    fix = (
        "Remove the host reads named under calls_by_origin: keep metrics as GPU tensors and read "
        "them every N steps instead of .item()/.cpu() each step; replace nonzero/boolean indexing "
        "with torch.where or masks; delete explicit torch.cuda.synchronize() in the loop."
    )
    if modelled:
        title = (
            f"Host-device syncs may drain the GPU: {len(in_steps) / n_steps:.0f} sync calls per "
            f"step, ~{share:.1f}% of the step by the replay, though the trace shows "
            f"{idle_share:.1f}% GPU idle after them: the rest is the queue they empty, which "
            "the host refills at a pace the profiler hides"
        )
        fix = (
            "Low until timed: what these reads cost is the lead they take from the host, which "
            "hangs on how fast the host runs without the profiler, and near the GPU's own pace "
            "that swings widely (HF Qwen2's one mask check a step measured 2.0% of the step "
            "outside the profiler and 19.9% with only the CUDA activity traced). Drop the reads "
            "and time the step before counting on it. " + fix
        )
    blocking_per_step = float(blocking.sum()) / n_steps
    evidence["blocking_launches_per_step"] = round(blocking_per_step, 1)
    if launches_block:
        title = (
            f"Kernel launches wait for their kernels: {blocking_per_step:.0f} launches "
            "a step returned only after their kernel had finished (CUDA_LAUNCH_BLOCKING=1?), so "
            f"the host and the GPU take turns instead of overlapping; ~{share:.1f}% of the step"
        )
        fix = (
            "Launches are asynchronous unless something makes them wait: CUDA_LAUNCH_BLOCKING=1 "
            "in the environment (set to debug a device-side assert and left in a launcher "
            "script, Dockerfile or os.environ), or running under a tool that serialises kernels "
            "(compute-sanitizer, cuda-gdb). Unset it for training; keep it for the debugging run "
            "it was set for."
        )
    compiled = _reads_under(frame, in_steps["op"].to_numpy(), facts.COMPILED_REGION) / n_steps
    evidence["sync_calls_in_compiled_code_per_step"] = round(compiled, 1)
    if compiled >= 1:
        # a read inside torch.compile'd code is where Dynamo breaks the graph: the code around it
        # runs eagerly and each piece re-enters through guard checks (holdout 33's compiled
        # ViT-S: 15 graphs a step against 1, and 35.1% saved against this finding's 5.7%)
        fix = (
            f"{compiled:.0f} of these sync calls a step are made inside torch.compile'd code, "
            "where a host read breaks the graph (unless "
            "torch._dynamo.config.capture_scalar_outputs is set): the pieces between the breaks "
            "re-enter through Dynamo's guards and the code around the read runs eagerly, host "
            "time the wait itself does not show (host_bound reports it). Keep the value a "
            "tensor (write it into a GPU buffer) so the model compiles to one graph; "
            "TORCH_LOGS=graph_breaks lists the breaks. " + fix
        )
    tests = _truth_tests(frame, in_steps["op"].to_numpy())
    evidence["truth_tests_per_step"] = round(sum(t["reads"] for t in tests) / n_steps, 1)
    evidence["truth_tests"] = tests[: cfg.top_calls]
    if evidence["truth_tests_per_step"] >= 1:
        # transformers 5.17's masking_utils.find_packed_sequence_indices and
        # _ignore_bidirectional_mask_sdpa; each is skipped while torch.compile traces. Answered
        # without the read (benchmarks/zoo/hf_check_cost.py), HF Qwen2's check measured 2.9% of
        # its step and HF BERT's 13.4%
        fix = (
            "Python truth tests of a GPU tensor make "
            f"{evidence['truth_tests_per_step']:.0f} of these reads a step (aten::is_nonzero: "
            "`if t:`, `bool(t)`, `assert t`, `if mask.all():`); truth_tests lists the ops that "
            "computed each tested value. "
            "Where your code makes no such test, a library does: transformers 5.x tests, in "
            "every forward, whether a decoder's position ids pack several sequences (diff, "
            "cumsum, eq, all on the position ids) and whether an encoder's padding mask is all "
            "ones (all on the mask); both tests are skipped under torch.compile, and an encoder "
            "given no attention_mask where nothing is padded skips the mask's. Such a read "
            "costs what the GPU waits for the host to refill its queue after it: from 3% to 13% "
            "of the step, measured, on two HF models. " + fix
        )
    grouped = _reads_under(frame, in_steps["op"].to_numpy(), facts.GROUPED_MM) / n_steps
    evidence["reads_in_grouped_matmuls_per_step"] = round(grouped, 1)
    fix = (GROUPED_READS.format(n=grouped) if grouped >= 1 else "") + fix
    anomaly = facts.anomaly_checks_per_step(frame)
    evidence["anomaly_detection_reads_per_step"] = round(anomaly, 1)
    if anomaly >= 1:
        fix = (
            f"{anomaly:.0f} of these reads a step are autograd's anomaly detection "
            "(torch.autograd.set_detect_anomaly(True) or a detect_anomaly() block is on): after "
            "every backward node it reads the node's outputs on the host to check them for NaN, "
            "and it records a stack trace for every forward op (host time that host_bound "
            "reports). Turn it off outside a debugging run. " + fix
        )
    severity = severity_for_share(share)
    if modelled and severity in ("medium", "high"):
        severity = "low"
    return [Finding(CODE, KIND, severity, title, per_step, share, evidence, fix)]


def _us(x: float | None) -> float | None:
    return round(x, 1) if x is not None else None


# --- example: positive (bad=True) and negative trace; `bottleneck-lab explain` shows it -------
# .item() blocks in cudaStreamSynchronize until the GPU drains


def example(
    bad: bool,
    call: str = SYNC_NAME,
    ops: tuple[str, ...] = ("aten::item", "aten::_local_scalar_dense"),
) -> TraceBuilder:
    """k1 runs 10-400. When bad, the host blocks in `call` (20-402) inside `ops` (outermost first;
    `.item()` by default) until k1 ends; it then uses the value for 300 µs and launches k2 at
    ~712: the GPU idles 400-720. A blocking `cudaMemcpy` also copies 4 bytes DtoH at 400-401.
    When good, k2 is queued at ~22 and nothing syncs."""
    b = TraceBuilder()
    for t0 in steps(b, cpu_us=720 if bad else 30):
        launch(b, t0, t0 + 10, 390, kernel="gemm_a")
        if bad:
            for depth, op in enumerate(ops):
                b.cpu_op(op, t0 + 15 + depth, 390 - 2 * depth)
            corr = b.runtime(call, t0 + 20, 382, correlation=None if call != "cudaMemcpy" else AUTO)
            if call == "cudaMemcpy":
                b.memcpy(
                    t0 + 400,
                    1,
                    correlation=corr,
                    direction="DtoH",
                    src="Device",
                    dst="Pageable",
                    nbytes=4,
                )
            launch(b, t0 + 710, t0 + 720, 200, kernel="gemm_b")
        else:
            launch(b, t0 + 20, t0 + 400, 200, kernel="gemm_b")
    return b
