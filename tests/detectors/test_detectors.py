"""Each detector on hand-written traces (scenarios.py): the bad trace makes it fire with its kind,
severity at least medium and evidence a person can find in Perfetto; the good twin leaves it
silent or below medium. Expected numbers come from the traces as written, not from a run."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import scenarios as sc
from scenarios import SCENARIOS, diagnose_trace, diagnosed, finding, serious

from bottleneck_lab import facts
from bottleneck_lab.analyze import diagnose
from bottleneck_lab.detectors import REGISTRY
from bottleneck_lab.detectors._examples import (
    FULL_GRID,
    SYNC_NAME,
    TINY_KERNELS,
    TINY_PERIOD_US,
    launch,
    steps,
    tiny_kernels,
)
from bottleneck_lab.detectors.data_loading import MULTI_WORKER_NEXT
from bottleneck_lab.diagnosis import SEVERITIES, severity_for_share
from bottleneck_lab.op_flops import median_fill, one_sample_share
from bottleneck_lab.trace import load_trace
from bottleneck_lab.trace.synth import TraceBuilder, load


def bad_finding(code: str):
    f = finding(diagnosed(code, True), code)
    assert f is not None, f"{code} did not fire on its bad trace"
    return f


def first_gap(f) -> dict:
    return f.evidence["largest_gaps"][0]


# --- every detector: positive and negative ------------------------------------------------------

MEMORY_DETECTORS = {"activation-memory", "recompute", "memory-capacity"}  # tests/memory
# Positive and negative cases on real traces (bad/fixed pairs): tests/zoo/test_zoo_labels.py
# (eager-attention also in tests/detectors/test_eager_attention.py; dense-causal-mask on compiled
# captures and hand-written traces in tests/detectors/test_dense_causal_mask.py)
ZOO_TESTED = {"recompilation", "unfused-elementwise", "eager-attention", "dense-causal-mask"}


def test_every_registered_detector_has_a_scenario():
    assert set(SCENARIOS) == set(REGISTRY) - MEMORY_DETECTORS - ZOO_TESTED


@pytest.mark.parametrize("code", SCENARIOS)
def test_bad_trace_is_diagnosed_as_this_detector(code):
    d = diagnosed(code, True)
    f = bad_finding(code)
    assert d.errors == {}
    assert f.kind == REGISTRY[code].kind
    assert f.severity in ("medium", "high")
    assert f.share_pct >= 10 and f.time_lost_us_per_step > 0
    assert serious(d)[0].code == code, "another finding outranks the planted bottleneck"


@pytest.mark.parametrize("code", SCENARIOS)
def test_good_trace_raises_nothing_at_medium_or_above(code):
    d = diagnosed(code, False)
    f = finding(d, code)
    assert f is None or f.severity in ("info", "low")
    assert serious(d) == [] and d.errors == {}


# Keys under which evidence names something a person can search for in Perfetto.
NAME_KEYS = {
    "next_gpu_op",
    "call",
    "op_chain",
    "op",
    "name",
    "kernel",
    "calls_by_origin",
    "time_by_kernel_us_per_step",
    "optimizer",
}


def evidence_keys(obj) -> set[str]:
    """Every key in a nested evidence dict (lists of dicts included)."""
    if isinstance(obj, dict):
        return set(obj) | {k for v in obj.values() for k in evidence_keys(v)}
    if isinstance(obj, list):
        return {k for v in obj for k in evidence_keys(v)}
    return set()


@pytest.mark.parametrize("code", SCENARIOS)
def test_evidence_has_durations_and_names(code):
    keys = evidence_keys(bad_finding(code).evidence)
    assert any(k.endswith("_us") or "_us_" in k for k in keys), keys
    assert keys & NAME_KEYS, keys


@pytest.mark.parametrize("code", list(SCENARIOS))
def test_evidence_has_timestamps(code):
    keys = evidence_keys(bad_finding(code).evidence)
    assert {"ts", "at_ms"} <= keys, keys


def test_evidence_timestamps_are_on_the_files_clock():
    base = 1_700_000_000_000.0  # real traces start near 1e12 µs
    f = finding(diagnose_trace(sc.gpu_idle(True, base_us=base)), "gpu-idle")
    assert first_gap(f)["ts"] == base + 300  # as written in the file
    assert first_gap(f)["at_ms"] == 0.3  # from the first step, as Perfetto shows it


# --- gpu-idle -----------------------------------------------------------------------------------


def test_gpu_idle_names_the_late_kernel_that_was_queued():
    f = bad_finding("gpu-idle")
    assert first_gap(f) == {
        "at_ms": 0.3,
        "ts": 300.0,
        "idle_us": 300.0,
        "step": 1,
        "next_gpu_op": "gemm_b",
    }
    assert f.evidence["gaps_per_step"] == 1.0
    assert f.evidence["idle_us_by_cause"]["gpu_idle"] == 900.0
    assert f.time_lost_us_per_step == 300.0
    assert finding(diagnosed("gpu-idle", True), "host-bound") is None


# --- host-bound ---------------------------------------------------------------------------------


@pytest.mark.parametrize("python", [False, True], ids=["cpu-op", "unrecorded-python"])
def test_host_bound_gap_lists_the_host_work(python):
    d = diagnose_trace(sc.host_bound(True, python=python))
    f = finding(d, "host-bound")
    assert f is not None and f.severity == "high"
    gap = first_gap(f)
    assert (gap["ts"], gap["idle_us"], gap["next_gpu_op"], gap["launches_in_gap"]) == (
        200,
        370,
        "gemm_b",
        1,
    )
    ops = {o["op"]: o["overlap_us"] for o in gap["host_ops"]}
    if python:
        assert "aten::copy_" not in ops  # nothing recorded: the gap is Python between ops
    else:
        assert ops["aten::copy_"] == 360.0
    assert finding(d, "gpu-idle") is None and finding(d, "launch-overhead") is None


def test_host_bound_gap_shows_the_thread_the_gpu_waited_on():
    gap = first_gap(finding(diagnose_trace(sc.two_threads()), "host-bound"))
    assert (gap["ts"], gap["idle_us"], gap["next_gpu_op"]) == (
        190.0,
        160.0,
        "multi_tensor_apply_kernel",
    )
    assert gap["launches_in_gap"] == 1
    assert gap["host_ops"][0] == {"op": "aten::_foreach_add_", "overlap_us": 150.0}


# --- data-loading -------------------------------------------------------------------------------


def test_data_loading_evidence_and_fix():
    f = bad_finding("data-loading")
    ev = f.evidence
    assert (
        ev["dataloader_us_per_step"] == 500.0 and ev["calls"] == 3 and ev["median_next_us"] == 500.0
    )
    assert ev["gpu_idle_caused_us_per_step"] == f.time_lost_us_per_step == 508.0
    assert ev["loader"] == "single-process (num_workers=0)"
    assert first_gap(f) == {
        "at_ms": 0.0,
        "ts": 0.0,
        "idle_us": 508.0,
        "step": 1,
        "next_gpu_op": "gemm_a",
        "dataloader_us": 500.0,
    }
    for knob in ("num_workers", "pin_memory", "persistent_workers", "prefetch_factor"):
        assert knob in f.fix


def test_data_loading_with_workers_says_when_more_workers_will_not_help():
    f = finding(diagnose_trace(sc.data_loading(True, workers=True)), "data-loading")
    assert f.evidence["loader"] == "multi-process"
    assert "will not help" in f.fix and "num_workers" in f.fix


def test_data_loading_title_spells_gpu():
    assert bad_finding("data-loading").title.startswith("GPU waits on the DataLoader")


def test_data_loading_on_a_cpu_only_trace_is_the_step_waiting():
    d = diagnose_trace(sc.cpu_only(True))
    f = finding(d, "data-loading")
    assert f.kind == "data_loading" and f.severity == "high"
    assert f.title.startswith("Step waits on the DataLoader")
    assert f.time_lost_us_per_step == 500.0
    assert finding(diagnose_trace(sc.cpu_only(False)), "data-loading") is None


def _loader_waits(waits_us: list[float], workers: bool = True) -> TraceBuilder:
    """Steps of a multi-worker loader (a single-process one where workers=False): each waits
    waits_us[i] in __next__ (5 µs when the batch was ready), then launches a 400 µs kernel; the
    step ends with the kernel."""
    b = TraceBuilder()
    t0 = 0.0
    for i, wait in enumerate(waits_us):
        fetch = max(wait, 5.0)
        b.step(i + 2, t0, fetch + 20)
        if workers:
            b.annotation(MULTI_WORKER_NEXT, t0, fetch)
        else:
            b.dataloader(t0, fetch)
        launch(b, t0 + fetch + 1, t0 + fetch + 8, 400, kernel="gemm_a")
        t0 += fetch + 420
    return b


def test_data_loading_leaves_out_steps_served_from_the_loaders_buffer():
    # the first step's batch was buffered while the profiler started; the loader then holds up
    # every step by 500 µs: that is the steady cost, not its mean over the three steps (335)
    f = finding(diagnose_trace(_loader_waits([5, 500, 500])), "data-loading")
    assert f.evidence["steps_served_from_buffer"] == 1
    assert f.time_lost_us_per_step == pytest.approx(508.0, abs=1.0)
    assert "from step 3 on: the first step's batch was already buffered" in f.title


@pytest.mark.parametrize("waits", [[500, 5, 5], [5, 5, 500], [5, 500, 5]])
def test_data_loading_counts_every_step_when_waits_come_and_go(waits):
    # a wait at an epoch's start, or now and then: no steady pace shows, so the mean it is, and
    # the workers' pace is not read from one wait
    f = finding(diagnose_trace(_loader_waits(waits)), "data-loading")
    assert f.evidence["steps_served_from_buffer"] == 0
    assert "workers_pace_us" not in f.evidence
    assert f.time_lost_us_per_step == pytest.approx(508.0 / 3, abs=1.0)


def test_data_loading_reads_the_workers_pace_where_the_loop_waits_on_them_a_tenth_of_its_step():
    # waits of 25 µs in steps of about 430 (under a tenth) could be a hand-over or an odd slow
    # batch; waits of 200 in steps of about 620 show the workers setting the pace
    short = finding(diagnose_trace(_loader_waits([25, 25, 25])), "data-loading")
    assert "workers_pace_us" not in short.evidence
    assert "deliver a batch" not in short.title
    frame = load(_loader_waits([200, 200, 200]))
    paced = finding(diagnose([frame]), "data-loading")
    assert paced.evidence["workers_pace_us"] == pytest.approx(frame.steps["dur"].mean(), abs=0.1)
    # no profiler cost in these steps: the pace less the step's own work is the wait
    assert paced.time_lost_us_per_step == pytest.approx(208.0, abs=1.0)
    assert "its workers deliver a batch every 0.61 ms" in paced.title
    # a loader in the training process sets no pace beside the loop: its time is the step's
    serial = finding(diagnose_trace(_loader_waits([200, 200, 200], workers=False)), "data-loading")
    assert "workers_pace_us" not in serial.evidence


def test_data_loading_takes_bursty_waits_as_a_share_of_the_average_step():
    # one long wait in three steps: the median step shows none of it, so the share is of the
    # median step plus the waits it does not show
    f = finding(diagnose_trace(_loader_waits([5, 900, 5], workers=False)), "data-loading")
    e = f.evidence
    assert np.median(e["wait_us_by_step"]) == 0 < max(e["wait_us_by_step"])
    assert e["step_with_waits_us"] > f.time_lost_us_per_step
    assert f.share_pct == pytest.approx(
        100 * f.time_lost_us_per_step / e["step_with_waits_us"], abs=0.1
    )
    assert "the waits come in bursts" in f.title


def test_data_loading_promises_the_whole_wait_of_a_host_bound_loop():
    """The loop waits 600 µs in __next__ each step while the GPU runs the rest of the 200 µs
    kernel it queued last: the GPU idles only 420 µs of it, but with the batch ready that kernel
    would run under the next step's host work (ten 60 µs ops launching 20 µs kernels), so the
    step saves all 600."""
    b = TraceBuilder()
    t0 = 0.0
    for i in range(4):
        b.step(i + 1, t0, 1220)
        b.annotation(MULTI_WORKER_NEXT, t0, 600)
        for j in range(10):
            t = t0 + 600 + j * 60
            launch(b, t, t + 10, 20, name="aten::mul", kernel="elementwise_a", op_us=50)
        launch(b, t0 + 1200, t0 + 1210, 200, name="aten::mm", kernel="gemm_a", op_us=15)
        t0 += 1220
    frame = load(b)
    f = finding(diagnose([frame]), "data-loading")
    gpu_idle = facts.idle_gaps(frame)
    in_next = gpu_idle.loc[facts.gap_owners(frame) == "data_loading", "dur"]
    assert in_next.min() == pytest.approx(420.0, abs=1.0)  # the GPU idles 420 of the 600
    assert f.time_lost_us_per_step == pytest.approx(600.0, abs=5.0)


# --- sync-stall ---------------------------------------------------------------------------------

NO_OP = "(no enclosing op: explicit synchronize or Python)"


@pytest.mark.parametrize(
    ("call", "ops", "origin"),
    [
        (
            "cudaStreamSynchronize",
            ("aten::item", "aten::_local_scalar_dense"),
            "aten::_local_scalar_dense <- aten::item",
        ),
        ("cudaDeviceSynchronize", (), NO_OP),
        ("cudaEventSynchronize", ("aten::nonzero",), "aten::nonzero"),
        (
            "cudaMemcpy",
            ("aten::to", "aten::_to_copy", "aten::copy_"),
            "aten::copy_ <- aten::_to_copy",
        ),
    ],
    ids=["item", "explicit", "nonzero", "blocking-cpu-copy"],
)
def test_sync_stall_names_the_call_and_the_ops_behind_it(call, ops, origin):
    f = finding(diagnose_trace(sc.sync_stall(True, call=call, ops=ops)), "sync-stall")
    assert f is not None and f.severity == "high"
    ev = f.evidence
    assert ev["sync_calls_per_step"] == 1.0 and ev["host_blocked_us_per_step"] == 382.0
    assert ev["calls_by_origin"] == {origin: 3}
    longest = ev["longest_calls"][0]
    assert (longest["ts"], longest["call"], longest["blocked_us"]) == (20.0, call, 382.0)
    assert longest["op_chain"] == list(reversed(ops))  # innermost first
    gap = first_gap(f)
    assert gap["sync_call"] == call and gap["next_gpu_op"] == "gemm_b"
    assert 400 <= gap["ts"] <= 401 and 319 <= gap["idle_us"] <= 320  # the copy runs 400-401


ENGINE_NODE = "autograd::engine::evaluate_function: ConvolutionBackward0"


def _engine_read(isnan: bool, parent: str = ENGINE_NODE) -> TraceBuilder:
    """Steps whose `parent` op reads a value on the host (item under it, the read blocking
    20-402 while gemm_a runs 10-400), after an aten::isnan under the same op where `isnan`:
    under a backward node of the autograd engine, anomaly detection's NaN check."""
    b = TraceBuilder()
    for t0 in steps(b, cpu_us=720):
        launch(b, t0, t0 + 10, 390, kernel="gemm_a")
        b.cpu_op(parent, t0 + 11, 600)
        if isnan:
            b.cpu_op("aten::isnan", t0 + 12, 2)
        b.cpu_op("aten::item", t0 + 15, 390)
        b.cpu_op("aten::_local_scalar_dense", t0 + 16, 388)
        b.runtime(SYNC_NAME, t0 + 20, 382)
        launch(b, t0 + 710, t0 + 720, 200, kernel="gemm_b")
    return b


def test_sync_stall_names_anomaly_detection_where_the_engine_reads_each_node_for_nan():
    # the engine's own read after isnan under a backward node is anomaly detection's NaN check;
    # a read under a node with no isnan beside it is some other code's (a custom backward), and
    # a user's torch.isnan(loss).any().item() runs under the user's own op
    on = finding(diagnose_trace(_engine_read(isnan=True)), "sync-stall")
    assert on.evidence["anomaly_detection_reads_per_step"] == 1.0
    assert "set_detect_anomaly(True)" in on.fix
    for other in (_engine_read(isnan=False), _engine_read(isnan=True, parent="loss_check")):
        f = finding(diagnose_trace(other), "sync-stall")
        assert f.evidence["anomaly_detection_reads_per_step"] == 0
        assert "anomaly" not in f.fix


def _truth_test(tested: tuple[str, ...]) -> TraceBuilder:
    """Steps that run the `tested` ops, then truth-test their result in Python (aten::is_nonzero
    over item: the read blocks 20-402 while gemm_a runs 10-400); none where `tested` is empty,
    the read then a plain .item()."""
    b = TraceBuilder()
    for t0 in steps(b, cpu_us=720):
        launch(b, t0, t0 + 10, 390, kernel="gemm_a")
        for i, op in enumerate(tested):  # 11-13.4, before the test
            b.cpu_op(op, t0 + 11 + 0.5 * i, 0.4)
        if tested:
            b.cpu_op("aten::is_nonzero", t0 + 14, 392)
        b.cpu_op("aten::item", t0 + 15, 390)
        b.cpu_op("aten::_local_scalar_dense", t0 + 16, 388)
        b.runtime(SYNC_NAME, t0 + 20, 382)
        launch(b, t0 + 710, t0 + 720, 200, kernel="gemm_b")
    return b


def test_sync_stall_lists_truth_tests_with_the_ops_that_computed_the_tested_value():
    # transformers 5.x's packed-sequence check, as its ops appear before the test: the finding
    # lists them, and the fix says a library may make such tests
    packed = ("aten::diff", "aten::ne", "aten::cumsum", "aten::eq", "aten::all")
    f = finding(diagnose_trace(_truth_test(packed)), "sync-stall")
    assert f.evidence["truth_tests_per_step"] == 1.0
    assert f.evidence["truth_tests"] == [{"ops_before_test": list(packed), "reads": 3}]
    assert "truth tests" in f.fix and "transformers" in f.fix
    plain = finding(diagnose_trace(_truth_test(())), "sync-stall")
    assert plain.evidence["truth_tests_per_step"] == 0 and plain.evidence["truth_tests"] == []
    assert "transformers" not in plain.fix


def _launches(blocking: bool, kernels: int = 20, kernel_us: float = 100.0, host_us: float = 30.0):
    """Three steps of `kernels` ops, each `host_us` of host work then a launch (4 µs) of a
    `kernel_us` kernel. blocking: every launch call returns only when its kernel has finished
    (CUDA_LAUNCH_BLOCKING=1), so the host and the GPU take turns; else launches return at once
    and the kernels queue back to back."""
    b = TraceBuilder()
    t, gpu_free = 0.0, 0.0
    for n in range(1, 4):
        start = t
        for _ in range(kernels):
            t += host_us
            k0 = max(t + 4.0, gpu_free)
            gpu_free = k0 + kernel_us
            back = gpu_free + 1.0 if blocking else t + 4.0
            ext = b.cpu_op("aten::linear", t, back - t + 1.0)
            corr = b.runtime("cudaLaunchKernel", t, back - t, external_id=ext)
            b.kernel("gemm_a", k0, kernel_us, correlation=corr, external_id=ext)
            t = back + 1.0
        b.step(n, start, t - start)
    return load(b)


def test_sync_stall_names_launches_that_wait_for_their_kernels():
    # every launch returned after its kernel ended: the host and the GPU take turns. Without the
    # waits the host (35 µs an op) keeps ahead of the GPU (100 µs a kernel), so the step goes
    # from ~20 x 137 to ~20 x 100 µs: the promise is the replay's, not the idle after each
    # launch, which is host work the fix overlaps rather than removes
    frame = _launches(blocking=True)
    assert len(facts.blocking_launches(frame)) == 60
    f = finding(diagnose([frame]), "sync-stall")
    assert f is not None and f.kind == "sync_stall"
    assert "Kernel launches wait for their kernels" in f.title and "CUDA_LAUNCH_BLOCKING" in f.fix
    assert f.evidence["blocking_launches_per_step"] == 20.0
    assert 15 <= f.share_pct <= 35
    # the same launches returning at once: nothing waits, nothing is a sync
    frame = _launches(blocking=False)
    assert len(facts.blocking_launches(frame)) == 0
    assert finding(diagnose([frame]), "sync-stall") is None


def test_a_few_launches_that_outlast_tiny_kernels_are_not_blocking():
    # a launch onto an idle GPU can return after a 3 µs kernel has run: no wait in that, and with
    # no long kernel that waited, the trace's launches are not judged to block
    frame = _launches(blocking=True, kernel_us=3.0)
    assert len(facts.blocking_launches(frame)) == 0


def test_sync_stall_idle_is_not_also_host_bound():
    d = diagnosed("sync-stall", True)
    assert finding(d, "host-bound") is None and finding(d, "gpu-idle") is None


# --- launch-overhead ----------------------------------------------------------------------------


def test_launch_overhead_evidence_and_fix():
    f = bad_finding("launch-overhead")
    ev = f.evidence
    assert ev["kernels_per_step"] == 90.0
    assert ev["median_kernel_us"] == 2.0 and ev["median_launch_us"] == 4.0
    assert ev["kernels_shorter_than_launch_pct"] == 100.0
    assert ev["gpu_busy_pct"] < 25
    assert first_gap(f)["launches_in_gap"] == 1
    assert "CUDA graphs" in f.fix and "torch.compile" in f.fix
    assert finding(diagnosed("launch-overhead", True), "small-batch") is None  # grids are full
    # full grids hide no small batch, but 2 µs kernels behind 4 µs launches carry too little
    # work each: the fix names a bigger batch too (the LSTM's measured fix, cuDNN hiding shapes)
    assert "batch_is_small" not in ev and "bigger batch" in f.fix


def test_launch_overhead_from_a_for_loop_optimizer_points_at_fused():
    f = finding(diagnose_trace(sc.launch_overhead(True, optimizer=True)), "launch-overhead")
    assert f.evidence["launches_in_optimizer_pct"] == 100.0 and f.evidence["optimizer"] == "AdamW"
    assert "fused=True" in f.fix and "foreach=True" in f.fix and "AdamW" in f.fix
    assert "bigger batch" not in f.fix  # per-parameter kernels do not grow with the batch


def _graph_replayed_step(eager: bool) -> TraceBuilder:
    """Each step one cudaGraphLaunch that runs 40 2 µs kernels back to back, then (eager) the
    tiny kernels of _examples launched one by one, each after the last ended."""
    b = TraceBuilder()
    for t0 in steps(b, cpu_us=TINY_KERNELS * TINY_PERIOD_US + 200 if eager else 300):
        corr = b.runtime("cudaGraphLaunch", t0 + 2, 20)
        for i in range(40):
            b.kernel("triton_poi_fused_add_0", t0 + 25 + 2 * i, 2, correlation=corr, grid=FULL_GRID)
        if eager:
            tiny_kernels(b, t0 + 150, FULL_GRID)
    return b


def test_launch_overhead_counts_graph_replayed_kernels_apart():
    # kernels a CUDA graph replays cost the host no launch each: the finding counts them apart
    # and tells a user who already has graphs that the launches left are the code around them
    f = finding(diagnose_trace(_graph_replayed_step(eager=True)), "launch-overhead")
    ev = f.evidence
    assert ev["kernels_from_cuda_graphs_per_step"] == 40.0
    assert ev["cuda_graph_launches_per_step"] == 1.0
    assert ev["kernels_per_step"] == 40.0 + TINY_KERNELS
    assert ev["kernels_shorter_than_launch_pct"] == 100.0  # the tiny kernels only
    assert f"{TINY_KERNELS} kernels per step launched one by one" in f.title
    assert "already replays 40 kernels a step from 1 CUDA graph launch " in f.fix
    assert "around them" in f.fix


def test_a_graph_replayed_step_raises_no_launch_overhead_at_medium():
    d = diagnose_trace(_graph_replayed_step(eager=False))
    f = finding(d, "launch-overhead")
    assert f is None or SEVERITIES.index(f.severity) < SEVERITIES.index("medium")


# --- small-batch --------------------------------------------------------------------------------


def test_small_batch_evidence_and_fix():
    d = diagnosed("small-batch", True)
    f = bad_finding("small-batch")
    ev = f.evidence
    assert ev["sm_count"] == 108 and ev["median_grid_blocks"] == 8.0
    assert ev["median_matmul_rows"] == 16.0
    assert ev["kernel_time_in_grids_under_sm_count_pct"] == 100.0
    assert ev["gpu_time_in_kernels_under_10us_pct"] == 100.0
    assert ev["kernels_per_step"] == 90.0 and ev["median_kernel_us"] == 2.0
    assert first_gap(f)["next_gpu_op"] == "vectorized_elementwise_kernel"
    assert "of the" in f.title and "SMs" in f.title
    assert "batch size" in f.fix and "gradient accumulation" in f.fix
    # The launch-bound idle stays launch-overhead's (whose fix names a bigger batch too); the
    # small batch's estimate counts it as a fixed per-step cost a bigger batch amortises.
    lo = finding(d, "launch-overhead")
    assert lo is not None and "bigger batch" in lo.fix and lo.evidence["batch_is_small"]
    assert ev["host_idle_us_per_step"] == 0
    assert ev["launch_bound_idle_us_per_step_also_in_launch_overhead"] == pytest.approx(
        724, abs=1
    )  # 2172 µs / 3
    assert f.time_lost_us_per_step >= 724


RNN_GEMM = "nvjet_sm90_hsh_64x32_64x16_4x1_v_bz_splitK_NNT"


def _rnn_trace(rnn_grid: tuple, mm_us: float) -> TraceBuilder:
    """Each step: one 4096-row BF16 matmul (recorded shapes, fills the GPU) of mm_us, then a
    cuDNN RNN op whose 90 per-timestep GEMM kernels (2 µs each, grid rnn_grid) no recorded
    shape describes, queued ahead and run with 3 µs between each kernel and the next."""
    b = TraceBuilder()
    for t0 in sc.steps(b, cpu_us=700):
        sc.launch(
            b, t0, t0 + 10, mm_us, name="aten::mm", kernel=sc.BF16_GEMM,
            op_args=sc.mm_args(4096, sc.BF16),
        )  # fmt: skip
        start = t0 + 13 + mm_us
        b.cpu_op("aten::_cudnn_rnn", t0 + 12, 600)
        for i in range(90):
            t = t0 + 14 + i * 4
            sc.launch(b, t, start + i * 5, 2, name="cudnn_rnn_step", kernel=RNN_GEMM, grid=rnn_grid)
    return b


def test_small_batch_judged_from_gemm_kernels_no_shape_describes():
    """A cuDNN LSTM's recurrent products run inside one op the trace gives no per-product
    shapes for: when those GEMM kernels take more time than the shaped matrix work, their
    grids (output tiles) judge the batch."""
    under = load(_rnn_trace(sc.SMALL_GRID, mm_us=50))
    assert facts.batch_is_small(under) is True
    f = finding(diagnose([under]), "small-batch")
    assert f is not None and f.severity in ("medium", "high")
    assert f.evidence["queued_kernel_gap_us_per_step"] == pytest.approx(90 * 3, abs=1)
    # the title says what judged it, not the shaped matmul's full fill
    assert f.evidence["unshaped_gemm_time_in_grids_under_sm_count_pct"] == 100.0
    assert "100% of the time of GEMM kernels no recorded shape describes" in f.title
    # the same kernels with full grids: nothing says the batch is small
    full = load(_rnn_trace(sc.FULL_GRID, mm_us=50))
    assert facts.batch_is_small(full) is False
    assert finding(diagnose([full]), "small-batch") is None
    # small unshaped GEMMs beside shaped matrix work that takes longer: the shapes judge
    shaped = load(_rnn_trace(sc.SMALL_GRID, mm_us=400))
    assert facts.batch_is_small(shaped) is False


def test_a_small_head_does_not_speak_for_a_recurrent_layers_flops():
    """The packed LSTM classifier of holdout 43 (traces/zoo/lstm_pack_lengths_on_gpu): its FLOPs
    are all but 4 MFLOP in cuDNN's LSTM, whose products no recorded shape sizes one by one; the
    64 x 10 head is the only matrix work with a told fill (6%). The title judges the batch by
    the LSTM's GEMM grids, not by the head."""
    path = Path(__file__).resolve().parents[2] / "traces/zoo/lstm_pack_lengths_on_gpu/fixed.json.gz"
    if not path.exists():
        pytest.skip("trace not shipped")
    f = finding(diagnose(load_trace(path)), "small-batch")
    assert f.evidence["matrix_flops_with_known_fill_pct"] < 1
    assert f.evidence["flop_weighted_median_tiles_per_sm"] < 0.1  # the head's
    assert "GEMM kernels no recorded shape describes is in grids under the 132 SMs" in f.title
    assert "most matrix work fills" not in f.title


def test_small_batch_needs_a_tenth_of_the_sms_idle_in_most_of_the_math():
    """A BF16 matmul with 104 output tiles for the example device's 108 SMs keeps 96% of them
    busy in one wave: no small batch (a DLRM-style model at batch 4096 had its median product
    at 128 tiles for 132 SMs and was called small). With 64 tiles (59%) it is."""

    def trace(rows: int) -> TraceBuilder:
        b = TraceBuilder()
        for t0 in sc.steps(b, cpu_us=300):
            sc.launch(
                b, t0, t0 + 10, 200, name="aten::mm", kernel=sc.BF16_GEMM,
                op_args=sc.mm_args(rows, sc.BF16),
            )  # fmt: skip
        return b

    nearly_full = load(trace(13 * 128))
    assert median_fill(nearly_full) == pytest.approx(104 / 108)
    assert facts.batch_is_small(nearly_full) is False
    assert finding(diagnose([nearly_full]), "small-batch") is None
    assert facts.batch_is_small(load(trace(8 * 128))) is True


def _forward_of(batch: int) -> TraceBuilder:
    """Each step, a host-bound forward: four aten::linear calls on [batch, 4096 / batch, 1024]
    tokens, each over the 2-D aten::mm it flattens to (4096 rows: the grid is full whatever the
    batch), 200 µs kernels in a 3 ms step whose host sets the pace."""
    b = TraceBuilder()
    for t0 in sc.steps(b, cpu_us=3000):
        for i in range(4):
            t = t0 + 20 + i * 700
            dims = [[batch, 4096 // batch, 1024], [1024, 1024]]
            b.cpu_op("aten::linear", t, 30, args={"Input Dims": dims, "Input type": [sc.BF16] * 2})
            sc.launch(
                b, t + 5, t + 40, 200, name="aten::mm", kernel=sc.BF16_GEMM,
                op_args=sc.mm_args(4096, sc.BF16),
            )  # fmt: skip
    return b


def test_one_sample_a_call_is_a_small_batch_however_full_its_products():
    """One sequence of 4,096 tokens a call fills the GPU's SMs, but every per-step cost (the
    host's work between ops, launches) falls on that one sample: a bigger batch spreads it.
    HF Granite trained on one sequence a step (holdout 64) measured 83.5% less time a sequence
    at eight. The same tokens as eight sequences of 512 are not called small."""
    one = load(_forward_of(1))
    assert one_sample_share(one) == (1.0, 1.0)
    assert median_fill(one) >= 1.0 and facts.batch_is_small(one) is True
    f = finding(diagnose([one]), "small-batch")
    assert f is not None and f.severity in ("medium", "high")
    assert "one sample a call" in f.title and "SMs" not in f.title
    assert f.evidence["matrix_flops_in_one_sample_calls_pct"] == 100.0
    eight = load(_forward_of(8))
    assert one_sample_share(eight) == (1.0, 0.0)
    assert facts.batch_is_small(eight) is False
    assert finding(diagnose([eight]), "small-batch") is None


def test_flattened_products_do_not_tell_a_batch():
    """A 2-D aten::mm with no caller of more dimensions (the backward's products) tells no
    batch: no share of one-sample calls is read from it."""
    b = TraceBuilder()
    for t0 in sc.steps(b, cpu_us=300):
        sc.launch(
            b, t0, t0 + 10, 200, name="aten::mm", kernel=sc.BF16_GEMM,
            op_args=sc.mm_args(4096, sc.BF16),
        )  # fmt: skip
    assert one_sample_share(load(b)) == (0.0, 0.0)


def test_small_batch_reads_rocm_grids_from_the_launch():
    d = diagnose_trace(sc.rocm_small_grid())
    assert serious(d)[0].code == "small-batch"  # from the 16-row shapes
    ev = finding(d, "small-batch").evidence
    assert (
        ev["median_grid_blocks"] == 8.0 and ev["kernel_time_in_grids_under_sm_count_pct"] == 100.0
    )


# --- memcpy -------------------------------------------------------------------------------------


def test_memcpy_names_the_pageable_copies():
    f = bad_finding("memcpy")
    ev = f.evidence
    assert ev["pageable_copies_per_step"] == 1.0 and ev["pageable_us_per_step"] == 400.0
    copy = ev["largest_copies"][0]
    assert (copy["name"], copy["ts"], copy["us"], copy["bytes"]) == (
        "Memcpy HtoD (Pageable -> Device)",
        5.0,
        400.0,
        2 << 20,
    )
    assert "pin_memory" in f.fix and "non_blocking" in f.fix


def round_trip(
    down_bytes=8 << 20, up_bytes=8 << 20, kernel_between=False, split_steps=False, loading=False
):
    """Each step: a 300 µs kernel, then `.cpu()` of its output (a blocking 200 µs copy down),
    300 µs of host work with no op recorded (numpy), `.cuda()` of the result (a blocking 100 µs
    copy up), then a 200 µs kernel that reads it. kernel_between: a kernel runs between the
    copies; split_steps: the copy up begins the next step; loading: the host spends 300 µs of the
    wait in DataLoader.__next__."""
    b = TraceBuilder()
    starts = (0.0, 2000.0, 4000.0)
    for i, t0 in enumerate(starts):
        if loading:
            b.dataloader(t0 + 525, 300)
        b.step(i + 1, t0, 1160 if not split_steps else 720)
        b.op_with_kernel("aten::mm", t0 + 5, 10, kernel="gemm", kernel_ts=t0 + 20, kernel_dur=300)
        down = b.cpu_op("aten::copy_", t0 + 20, 505)
        corr = b.runtime("cudaMemcpyAsync", t0 + 25, 500, external_id=down)
        b.memcpy(t0 + 320, 200, correlation=corr, external_id=down, direction="DtoH",
                 src="Device", dst="Pageable", nbytes=down_bytes)  # fmt: skip
        if kernel_between:
            b.op_with_kernel(
                "aten::add", t0 + 600, 5, kernel="add", kernel_ts=t0 + 610, kernel_dur=20
            )
        t_up = t0 + 830 if not split_steps else t0 + 2000 - 10
        up = b.cpu_op("aten::copy_", t_up, 110)
        corr = b.runtime("cudaMemcpyAsync", t_up + 2, 105, external_id=up)
        b.memcpy(t_up + 5, 100, correlation=corr, external_id=up, nbytes=up_bytes)
        if not split_steps:
            b.op_with_kernel("aten::relu", t0 + 945, 5, kernel="relu", kernel_ts=t0 + 955,
                             kernel_dur=200)  # fmt: skip
    return load(b)


def _optimizer_after_pageable_copies(optimizer_on_gpu: bool) -> TraceBuilder:
    """Steps that copy 2 MiB from pageable memory (5-405, blocking), run a 300 µs kernel, then
    an Optimizer.step span (450-550) doing tensor work on the host: aten::add_ (455-505) that
    launches nothing, or, `optimizer_on_gpu`, a fused kernel besides."""
    b = TraceBuilder()
    for t0 in steps(b, cpu_us=600):
        ext = b.cpu_op("aten::copy_", t0 + 1, 404)
        corr = b.runtime("cudaMemcpy", t0 + 2, 403, external_id=ext)
        b.memcpy(t0 + 5, 400, correlation=corr, external_id=ext, nbytes=2 << 20)
        launch(b, t0 + 406, t0 + 410, 300, kernel="gemm_a")
        b.annotation("Optimizer.step#AdamW.step", t0 + 450, 100)
        b.cpu_op("aten::add_", t0 + 455, 50)
        if optimizer_on_gpu:
            launch(b, t0 + 510, t0 + 715, 20, name="aten::_fused_adamw_")
    return b


def test_memcpy_says_where_the_optimizer_runs_on_the_cpu():
    # an optimizer on the CPU makes these copies (its gradients down, its weights up): running
    # it on the GPU removes both, which pinning does not say
    cpu = finding(diagnose_trace(_optimizer_after_pageable_copies(False)), "memcpy")
    assert cpu.evidence["cpu_optimizer_us_per_step"] == 100.0
    assert cpu.fix.startswith("The optimizer runs on the CPU: Optimizer.step took 0.1 ms")
    gpu = finding(diagnose_trace(_optimizer_after_pageable_copies(True)), "memcpy")
    assert gpu.evidence["cpu_optimizer_us_per_step"] == 0.0
    assert "optimizer" not in gpu.fix


def _saved_tensors_on_the_host(peak_bytes: int) -> TraceBuilder:
    """Each step (2000 µs, host 1000): a convolution (autograd sequence number 7) whose saved
    input goes to pageable host memory (aten::to -> _to_copy -> copy_, a blocking 300 µs copy of
    8 MiB down), its 100 µs kernel, then on the backward thread ConvolutionBackward0 bringing the
    tensor back (a blocking 300 µs copy up) before its 100 µs kernel; `peak_bytes` allocated at
    the first step's start (an A100 80GB: 85 GB of memory)."""
    b = TraceBuilder()
    b.memory(1.0, peak_bytes, total_allocated=peak_bytes, total_reserved=peak_bytes)
    for i, t0 in enumerate((0.0, 2000.0, 4000.0)):
        b.step(i + 1, t0, 1000)
        b.cpu_op("aten::convolution", t0 + 10, 400, args={"Sequence number": 7})
        launch(b, t0 + 15, t0 + 20, 100, name="aten::cudnn_convolution", kernel="conv")
        b.cpu_op("aten::to", t0 + 30, 370)
        b.cpu_op("aten::_to_copy", t0 + 31, 368)
        down = b.cpu_op("aten::copy_", t0 + 32, 366)
        corr = b.runtime("cudaMemcpyAsync", t0 + 33, 365, external_id=down)
        b.memcpy(t0 + 130, 300, correlation=corr, external_id=down, direction="DtoH",
                 src="Device", dst="Pageable", nbytes=8 << 20)  # fmt: skip
        node = "autograd::engine::evaluate_function: ConvolutionBackward0"
        b.cpu_op(node, t0 + 500, 450, tid=2)
        b.cpu_op("ConvolutionBackward0", t0 + 501, 448, tid=2)
        b.cpu_op("aten::to", t0 + 505, 340, tid=2)
        up = b.cpu_op("aten::copy_", t0 + 506, 338, tid=2)
        corr = b.runtime("cudaMemcpyAsync", t0 + 507, 336, tid=2, external_id=up)
        b.memcpy(t0 + 510, 300, correlation=corr, external_id=up, nbytes=8 << 20)
        launch(b, t0 + 850, t0 + 855, 100, name="aten::convolution_backward", kernel="dgrad")
    return b


def test_memcpy_names_saved_tensors_moved_to_the_host_and_back():
    # save_on_cpu: the copy down runs inside the op that saves the tensor, the copy up inside
    # the backward node that reads it; with memory to spare, keeping them on the GPU removes
    # both copies and the host's wait in them, more than pinning them would
    roomy = finding(diagnose_trace(_saved_tensors_on_the_host(1 << 30)), "memcpy")
    ev = roomy.evidence
    assert ev["saved_tensor_copies_per_step"] == 2.0
    assert ev["saved_tensor_bytes_to_host_per_step"] == 8 << 20
    assert ev["saved_tensors_fit_on_gpu"] is True
    assert roomy.title.startswith("Autograd's saved tensors go to the host and back")
    assert "drop the offloading" in roomy.fix and "pin_memory=True" in roomy.fix
    # near capacity, the promise is pinning's: each copy at 45 GB/s instead of its 300 µs
    full = finding(diagnose_trace(_saved_tensors_on_the_host(84 << 30)), "memcpy")
    assert full.evidence["saved_tensors_fit_on_gpu"] is False
    assert "drop the offloading" not in full.fix
    assert full.time_lost_us_per_step < roomy.time_lost_us_per_step


def test_memcpy_finds_a_tensor_that_goes_to_the_host_and_back():
    from checks import assert_idle_partitioned, assert_no_idle_counted_twice

    frame = round_trip()
    trips = facts.round_trips(frame)
    assert len(trips) == 3 and set(trips["bytes_down"]) == {8 << 20}
    d = diagnose([frame])
    top = finding(d, "memcpy")
    assert top.severity == "high" and "goes to the host and back" in top.title
    ev = top.evidence
    assert ev["round_trips_per_step"] == 1.0 and ev["round_trip_copy_us_per_step"] == 300.0
    assert ev["saved_tensor_copies_per_step"] == 0.0  # the user's .cpu(), not autograd's
    trip = ev["round_trips"][0]
    assert (trip["down_us"], trip["host_us"], trip["up_us"]) == (200.0, 315.0, 100.0)
    # the copies and the host's wait between them go whole, none of it left to sync-stall
    # the host's 315 µs between the copies, and 20 µs after the blocking copy up
    assert ev["gpu_idle_in_round_trips_us_per_step"] == 315.0
    assert ev["gpu_idle_in_blocking_h2d_copies_us_per_step"] == 20.0
    assert top.time_lost_us_per_step == pytest.approx(300.0 + 315.0 + 20.0)
    assert finding(d, "sync-stall") is None
    assert "on the GPU" in top.fix and "pin_memory" not in top.fix
    assert_idle_partitioned(frame)
    assert_no_idle_counted_twice(d, frame)


def test_the_hosts_work_in_a_round_trip_is_no_dispatch_a_cuda_graph_removes():
    frame = round_trip()
    wait = 315.0  # numpy between the copies: a graph keeps it
    assert facts.host_dispatch_us(frame) <= facts.host_time_us(frame) - wait + 0.1


def test_a_round_trip_leaves_the_loaders_wait_to_data_loading():
    """Time in the wait that another finding owns (the DataLoader's) is not the trip's too."""
    d = diagnose([round_trip(loading=True)])
    loader, trip = finding(d, "data-loading"), finding(d, "memcpy")
    assert loader.time_lost_us_per_step == pytest.approx(315.0)
    # the copies (300 µs) and the 20 µs after the blocking copy up; none of the loader's wait
    assert trip.time_lost_us_per_step == pytest.approx(320.0)


def test_copies_overlapped_by_kernels_are_no_round_trip():
    """An asynchronous copy down and an unrelated copy up on side streams, both under a long
    kernel: the GPU never waited, so there is no trip and nothing to promise for one."""
    b = TraceBuilder()
    for i, t0 in enumerate((0.0, 2000.0, 4000.0)):
        b.step(i + 1, t0, 1900)
        b.op_with_kernel("aten::mm", t0 + 5, 10, kernel="gemm", kernel_ts=t0 + 20, kernel_dur=1800)
        for op_ts, copy_ts, direction, stream in ((30, 100, "DtoH", 20), (40, 500, "HtoD", 21)):
            op = b.cpu_op("aten::copy_", t0 + op_ts, 10)
            corr = b.runtime("cudaMemcpyAsync", t0 + op_ts + 1, 5, external_id=op)
            src, dst = ("Device", "Pinned") if direction == "DtoH" else ("Pinned", "Device")
            b.memcpy(t0 + copy_ts, 200, correlation=corr, external_id=op, direction=direction,
                     src=src, dst=dst, nbytes=8 << 20, stream=stream)  # fmt: skip
    frame = load(b)
    assert not len(facts.round_trips(frame))
    f = finding(diagnose([frame]), "memcpy")
    assert f is None or "host and back" not in f.title


def test_a_frame_with_one_op_in_its_step_keeps_its_memcpy_finding():
    """A kernel launched before the first step and one pageable copy inside it: the copy pairs
    are empty, and memcpy still reports the copy (it had crashed on the empty pairs' dtypes)."""
    b = TraceBuilder()
    op = b.cpu_op("aten::mm", -500, 10)
    b.kernel("gemm", -490, 5000, correlation=b.runtime("cudaLaunchKernel", -498, 5, external_id=op))
    b.step(1, 0, 1000)
    op = b.cpu_op("aten::copy_", 10, 500)
    corr = b.runtime("cudaMemcpyAsync", 12, 495, external_id=op)
    b.memcpy(6000, 400, correlation=corr, external_id=op, nbytes=2 << 20)
    d = diagnose_trace(b, overrides={"memcpy": {"min_share_pct": 0.0}})
    assert not d.errors and finding(d, "memcpy") is not None


def test_a_blocking_copys_wait_counts_once_in_the_hosts_time():
    """A blocking copy is a launch and a sync: the host's own work leaves its wait out once."""
    b = TraceBuilder()
    for i, t0 in enumerate((0.0, 2000.0, 4000.0)):
        b.step(i + 1, t0, 1500)
        b.op_with_kernel("aten::mm", t0 + 5, 10, kernel="gemm", kernel_ts=t0 + 20, kernel_dur=900)
        op = b.cpu_op("aten::copy_", t0 + 20, 905)
        corr = b.runtime("cudaMemcpyAsync", t0 + 25, 900, external_id=op)  # waits for the mm
        b.memcpy(t0 + 920, 5, correlation=corr, external_id=op, direction="DtoH",
                 src="Device", dst="Pageable", nbytes=512)  # fmt: skip
    frame = load(b)
    assert facts.host_time_us(frame) == pytest.approx(1500.0 - 900.0, abs=1.0)


@pytest.mark.parametrize("up_bytes, answer", [(512, True), (8 << 20, False)])
def test_an_answer_copied_back_after_a_read_is_the_reads(up_bytes, answer):
    """A read of a few values whose next GPU work is a small copy up (indices chosen on the
    host) is one decision: the copy up's wait goes with the read's sync (sync_stall), not to
    memcpy. A batch-sized copy up after a small read stays a copy problem."""
    frame = round_trip(down_bytes=512, up_bytes=up_bytes)
    assert len(facts.answer_trips(frame)) == (3 if answer else 0)
    assert not len(facts.round_trips(frame))
    sy = facts.sync_calls(frame)
    up_calls = sy.loc[sy["ts"] % 2000 > 800]  # the copy up's call, 832 µs into each step
    assert len(up_calls) == 3 and set(up_calls["copy_owned"]) == {not answer}


@pytest.mark.parametrize("name", ["resnet50_host_mixup", "vit_host_augment"])
def test_a_round_trips_promise_leaves_the_models_kernels(name):
    """On the zoo's two host round trips (numpy mixup, numpy crop + flip back as uint8), the
    promise takes out the copies and the host's work between them, never the model's kernels:
    the step left is at least the kernels' time per step (ViT-S had been promised 100%, then
    93.6%, which left it 16 of its 25.5 ms of kernels)."""
    path = Path(__file__).resolve().parents[2] / "traces" / "zoo" / name / "bad.json.gz"
    frame = load_trace(path)[0]
    f = finding(diagnose([frame]), "memcpy")
    assert "goes to the host and back" in f.title
    k = facts.kernels(frame, facts.main_device(frame))
    kernels_us = float(k.loc[k["step"] >= 0, "dur"].sum()) / len(frame.steps)
    left = facts.step_time_without_profiler_us(frame) - f.time_lost_us_per_step
    assert left >= 0.95 * kernels_us, (left, kernels_us)


@pytest.mark.parametrize(
    "kw",
    [
        {"down_bytes": 4},  # .item(), then a batch's copy up: no round trip
        {"down_bytes": 8 << 20, "up_bytes": 64 << 20},  # the copy up is not what went down
        {"kernel_between": True},  # the GPU had work between the copies
        {"split_steps": True},  # the copy up begins the next step (its batch)
    ],
)
def test_copies_down_and_up_that_are_no_round_trip(kw):
    frame = round_trip(**kw)
    assert not len(facts.round_trips(frame))
    f = finding(diagnose([frame]), "memcpy")
    assert f is None or "goes to the host and back" not in f.title


# --- communication ------------------------------------------------------------------------------


def test_communication_exposed_all_reduce():
    f = bad_finding("communication")
    ev = f.evidence
    assert ev["collective_us_per_step"] == 400.0 and ev["exposed_us_per_step"] == 400.0
    assert ev["overlapped_pct"] == 0.0
    assert ev["time_by_kernel_us_per_step"] == {"ncclKernel_AllReduce_RING_LL_Sum_float": 400.0}


def test_communication_nothing_waits_for_is_the_hosts_time():
    # the bad example's all-reduce (510-910, no compute beside it), but the optimizer's kernel is
    # launched only at 950, after it: the GPU would have idled for the host anyway
    b = TraceBuilder(rank=0, world_size=2)
    for t0 in steps(b, cpu_us=40):
        launch(b, t0, t0 + 10, 490, kernel="gemm_a")
        launch(
            b,
            t0 + 10,
            t0 + 510,
            400,
            name="c10d::allreduce_",
            kernel="ncclKernel_AllReduce_RING_LL_Sum_float",
            stream=20,
        )
        launch(b, t0 + 950, t0 + 960, 20, name="aten::_fused_adamw_")
    frame = load(b)
    comm, ks, ke = facts.collectives_and_compute(frame, facts.main_device(frame))
    assert len(comm) == 3 and len(ks) == 6  # every all-reduce runs with no compute beside it
    assert finding(diagnose([frame]), "communication") is None


def test_real_slow_transfers_that_nothing_waits_for_are_not_exposed_communication():
    # ViT-B/16 DDP with NCCL_P2P_DISABLE=1 on two H200s: transfers 9x slower (13.41 ms a step
    # against 1.50), 8.87 ms a step of them with no compute beside on rank 0, but 0.77 ms with
    # compute queued behind them; without the variable the step measured no shorter (sidecars
    # 31.45 -> 32.71 ms)
    zoo = Path(__file__).resolve().parents[2] / "traces" / "zoo" / "vit_ddp_p2p_disabled"
    d = diagnose(load_trace(zoo / "bad" / "rank0.json.gz"))
    assert finding(d, "communication") is None
    whole = diagnose(load_trace(zoo / "bad"))
    assert not [f for f in whole.findings if f.kind == "communication" and f.severity != "info"]


def test_communication_overlapped_is_silent_although_nccl_ran():
    d = diagnosed("communication", False)
    assert "communication" not in d.skipped and finding(d, "communication") is None


def _accumulating(k: int, rounds: int, sizes=((1024,), (4096,))) -> TraceBuilder:
    """Two steps of k DDP micro-batches and one optimizer step; the gradient buckets (`sizes`)
    all-reduced after `rounds` of the micro-batches' backwards, each round exposed."""
    b = TraceBuilder(rank=0, world_size=2)
    for n, t0 in enumerate((0.0, 10_000.0)):
        b.step(n + 1, t0, 10_000)
        for i in range(k):
            t = t0 + i * 2000
            b.annotation(facts.DDP_FORWARD, t, 500)
            launch(b, t + 10, t + 20, 900, kernel="gemm_a")
            if i >= k - rounds:
                for j, size in enumerate(sizes):
                    b.cpu_op(
                        "record_param_comms",
                        t + 1000 + j * 300,
                        5,
                        args={"Input Dims": [[list(size)]], "Collective name": "allreduce"},
                    )
                    launch(
                        b,
                        t + 1000 + j * 300,
                        t + 1000 + j * 300,
                        250,
                        name="c10d::allreduce_",
                        kernel="ncclDevKernel_AllReduce_Sum_f32_RING_LL",
                        stream=20,
                    )
        # the optimizer, launched with the last micro-batch, waits for the last round
        b.annotation("Optimizer.step#AdamW.step", t0 + (k - 1) * 2000 + 30, 300)
        launch(b, t0 + (k - 1) * 2000 + 40, t0 + (k - 1) * 2000 + 1900, 50, name="aten::add_")
    return b


def test_all_reduce_on_every_micro_batch_names_no_sync():
    f = finding(diagnose([load(_accumulating(4, 4))]), "communication")
    assert f.evidence["gradient_sync_rounds_per_step"] == 4
    assert "all-reduced 4 times a step, once per micro-batch" in f.title
    assert f.fix.startswith("Under gradient accumulation") and "model.no_sync()" in f.fix


def test_all_reduce_once_per_optimizer_step_is_not_called_wasted():
    # the same micro-batches under no_sync: one round, after the last backward
    assert facts.gradient_sync_rounds(load(_accumulating(4, 1))) is None
    f = finding(diagnose([load(_accumulating(4, 1))]), "communication")
    assert f is None or "no_sync" not in f.fix.split("Overlap")[0]


def test_real_ddp_accumulation_all_reduces_once_per_micro_batch_only_when_bad():
    zoo = Path(__file__).resolve().parents[2] / "traces" / "zoo" / "gpt2_ddp_accum_no_sync"
    for variant, rounds in (("bad", 4), ("fixed", None)):
        for frame in load_trace(zoo / variant):
            assert facts.gradient_sync_rounds(frame) == rounds


def test_no_sync_price_is_the_extra_rounds_of_reducer_work():
    # HF GPT-2 medium under DDP, 4 micro-batches: the reducer's host work per round is the same
    # with and without no_sync, so 3/4 of the bad run's is what no_sync removes (the traces'
    # own difference, bad less fixed); the sidecars measured 49.2 ms saved a step
    zoo = Path(__file__).resolve().parents[2] / "traces" / "zoo" / "gpt2_ddp_accum_no_sync"
    bad, fixed = (load_trace(zoo / v) for v in ("bad", "fixed"))
    for b, f in zip(bad, fixed):
        extra = 0.75 * facts.reducer_host_us(b)
        assert extra == pytest.approx(facts.reducer_host_us(b) - facts.reducer_host_us(f), rel=0.1)
    d = diagnose(bad)
    comm = d.findings[0]
    assert comm.code == "communication" and comm.fix.startswith("Under gradient accumulation")
    assert comm.time_lost_us_per_step == comm.evidence["no_sync_saving_us_per_step"]
    assert 40_000 < comm.time_lost_us_per_step < 60_000
    assert "straggler" not in {f.code for f in d.findings}  # rank 1 is late only by the profiler


def test_fsdp2_per_unit_hooks_are_priced_as_one_unit():
    # Holdout 79: HF GPT-2 large under FSDP2, one unit per block (37 with the root) vs the root
    # alone. Per block, both GPUs wait in NCCL kernels for the hosts; the root alone measured
    # 47.8% faster (the sidecars) and 49.1% (benchmarks/zoo/fsdp_units.py).
    zoo = Path(__file__).resolve().parents[2] / "traces" / "zoo" / "gpt2_fsdp2_root_only"
    per_block, root_only = (load_trace(zoo / v) for v in ("fixed", "bad"))
    for frame in per_block:
        hooks, units = facts.fsdp_hooks(frame)
        assert units == 37 and 100_000 < hooks < 160_000  # µs a step
    for frame in root_only:
        hooks, units = facts.fsdp_hooks(frame)
        assert units == 1 and hooks < 40_000
    top = diagnose(per_block).findings[0]
    assert top.kind == "host_bound" and top.title.startswith("FSDP2's per-unit hooks")
    assert top.evidence["fsdp_units"] == 37
    assert 35.0 < top.share_pct < 50.0
    assert "fsdp_units" not in {
        k for f in diagnose(root_only).findings if f.kind == "host_bound" for k in f.evidence
    }


def test_collective_transfer_is_the_shortest_run_of_the_same_message():
    # per block, each all-gather of 9,838,720 BF16 elements moves ~20 MB: its shortest run is
    # its transfer (~0.1 ms over NVLink), the rest of a longer run waits for the peer
    zoo = Path(__file__).resolve().parents[2] / "traces" / "zoo" / "gpt2_fsdp2_root_only"
    frame = load_trace(zoo / "fixed")[1]
    comm, _, _ = facts.collectives_and_compute(frame, facts.main_device(frame))
    transfer = facts.collective_transfer_us(frame, comm)
    assert (transfer <= comm["dur"].to_numpy()).all()
    assert 50 < float(np.median(transfer)) < 500 < float(comm["dur"].median())
    held = facts.held_collectives(frame)
    assert 0 < held.held_transfer < 0.2 * held.held <= held.exposed


# --- precision ----------------------------------------------------------------------------------


def test_precision_fp32_sgemm():
    f = bad_finding("precision")
    ev = f.evidence
    assert ev["fp32_flops_pct"] == 100.0 and ev["target_dtype"] == "bf16"
    assert ev["fp32_kernel_us_per_step"] == 7000.0
    assert ev["fp32_kernel_us_per_step_at_target_peak"] == pytest.approx(
        2 * 4096**3 / 312e6, abs=0.1
    )
    assert ev["slowest_fp32_kernels"][0]["kernel"] == sc.FP32_SIMT_GEMM
    assert "autocast" in f.fix and "bfloat16" in f.fix


def test_precision_prices_half_precision_kernels_below_the_datasheet_peak():
    """BF16 kernels of real steps reach a share of the datasheet peak, not all of it: the GPU
    time saved is the FP32 time less the FLOPs at that share (one SIMT GEMM, nothing else)."""
    from bottleneck_lab.detectors.precision import HALF_PEAK_REACHED

    ev = bad_finding("precision").evidence
    at_peak = ev["fp32_kernel_us_per_step_at_target_peak"]
    assert ev["fp32_kernel_us_per_step_in_target_dtype"] == pytest.approx(
        at_peak / HALF_PEAK_REACHED, abs=0.2
    )
    assert ev["gpu_time_saved_us_per_step"] == pytest.approx(
        7000.0 - at_peak / HALF_PEAK_REACHED, abs=0.2
    )


def _fp32_net(norm: str):
    """The precision example's FP32 GEMM step plus, in each step's 30 µs of host work before its
    sync, four `norm` ops and an FP32 elementwise multiply of 64M-element tensors that runs
    500 µs on a side stream."""
    b = sc.precision(True)
    big = {"Input Dims": [[8192, 8192], [8192, 8192]], "Input type": ["float", "float"]}
    for i in range(3):
        t0 = i * 8000.0
        for j in range(4):
            b.cpu_op(norm, t0 + 8.2 + j * 0.7, 0.5, args={"Input Dims": [[8192, 8192]]})
        launch(b, t0 + 11, t0 + 1000, 500.0, name="aten::mul", op_args=big, op_us=0.8, stream=8)
    return load(b)


def test_precision_halves_elementwise_bytes_only_where_batchnorm_keeps_them_bf16():
    """autocast keeps LayerNorm in FP32, so a LayerNorm network's elementwise work stays FP32
    and saves nothing; a BatchNorm network's activations turn BF16 and move half the bytes."""
    from bottleneck_lab.detectors import precision

    bn, ln = _fp32_net("aten::cudnn_batch_norm"), _fp32_net("aten::native_layer_norm")
    assert not precision._activations_stay_fp32(bn) and precision._activations_stay_fp32(ln)
    saved = {
        name: precision.detect(frame, precision.Config())[0].evidence["gpu_time_saved_us_per_step"]
        for name, frame in (("bn", bn), ("ln", ln))
    }
    assert saved["bn"] - saved["ln"] == pytest.approx(250.0, abs=1.0)


def test_precision_prices_float64_math_and_says_to_make_it_float32():
    """A model made .double() (NumPy's float64 data): its matmuls run as FP64 (an A100's DMMA
    kernel, 19.5 TFLOP/s at most). Priced as FP32 work is, against the BF16 rate, and the fix
    first says to make model and data float32; TF32 is no answer to FP64."""
    dgemm = "ampere_fp64_d884gemm_64x64_16x4_nn"
    f = finding(diagnose_trace(sc.precision(True, kernel=dgemm, dtype="double")), "precision")
    ev = f.evidence
    assert ev["fp64_flops_pct"] == 100.0 and ev["fp32_flops_pct"] == 0.0
    assert "FP64" in f.title and f.severity == "high"
    assert ev["gpu_time_saved_us_per_step"] == pytest.approx(
        7000.0 - 2 * 4096**3 / 312e6 / 0.4, abs=0.5
    )
    assert f.fix.startswith("Make the model and its inputs float32") and "bfloat16" in f.fix
    assert "allow TF32" not in f.fix
    # FP32 work keeps its title and fix
    fp32 = bad_finding("precision")
    assert "FP64" not in fp32.title and not fp32.fix.startswith("Make the model")


def tf32_finding():
    return finding(
        diagnose_trace(sc.precision(True, kernel=sc.TF32_GEMM, kernel_us=1000)), "precision"
    )


def test_precision_already_tf32_is_one_severity_lower():
    f = tf32_finding()
    assert "TF32" in f.title
    assert SEVERITIES.index(f.severity) == SEVERITIES.index(severity_for_share(f.share_pct)) - 1


def test_precision_already_tf32_does_not_advise_allowing_tf32():
    assert "allow TF32" not in tf32_finding().fix


# --- the idle gaps behind all of this -----------------------------------------------------------


def test_each_scenario_idle_is_attributed_to_its_cause():
    expect = {
        "gpu-idle": "gpu_idle",
        "host-bound": "host_bound",
        "data-loading": "data_loading",
        "sync-stall": "sync_stall",
        "launch-overhead": "launch_overhead",
        "small-batch": "launch_overhead",
    }
    for code, cause in expect.items():
        by_cause = facts.idle_by_cause(load(SCENARIOS[code](True)))
        assert max(by_cause, key=by_cause.get) == cause, (code, by_cause)


def test_small_batch_leaves_long_host_gaps_to_host_bound():
    """With a small batch, short host gaps are per-step overhead a bigger batch amortises
    (small-batch's); a 2 ms host stall (a logging call, say) stays a host-bound finding."""
    from scenarios import SMALL_GRID, launch, mm_args, tiny_kernels

    b = TraceBuilder()
    for i, t0 in enumerate((0.0, 4000.0, 8000.0)):
        b.step(i + 1, t0, 3000)
        tiny_kernels(b, t0, SMALL_GRID, op_args=mm_args(16, "c10::BFloat16"), name="aten::mm")
        b.cpu_op("aten::copy_", t0 + 950, 2000)  # the GPU idles while the host does this
        launch(b, t0 + 2960, t0 + 2970, 20, name="aten::mm", op_args=mm_args(16, "c10::BFloat16"))
    frame = load(b)
    owners = facts.idle_by_owner(frame)
    assert owners["launch_overhead"] > 0 and owners["host_bound"] >= 2 * 1900
    codes = {f.code: f for f in diagnose([frame]).findings}
    assert (
        "host-bound" in codes and codes["host-bound"].evidence["largest_gaps"][0]["idle_us"] >= 1900
    )
    assert "small-batch" in codes


@pytest.mark.parametrize(
    "kernel, on_tensor_cores",
    [
        (
            "sm80_xmma_gemm_f32f32_f32f32_f32_tn_n_tilesize128x128x8_stage3_warpsize2x2x1_ffma_aligna4",
            False,
        ),
        ("void cutlass::Kernel2<cutlass_80_simt_sgemm_256x128_8x4_nn_align1>", False),
        ("ampere_sgemm_128x64_nn", False),
        ("volta_sgemm_128x64_nn", False),
        ("nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_NNT", True),
        ("sm90_xmma_fprop_implicit_gemm_f32f32_tf32f32_f32_nhwckrsc_nhwc", True),
        ("cudnn_generated_fort_native_sdpa_sm90_flash_fprop_wgmma_f16_knob_7", True),
        ("sm80_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x32", True),
        ("void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_64x64_32x6_nn_align1>", True),
    ],
)
def test_tensor_core_kernels_are_told_by_name(kernel, on_tensor_cores):
    from bottleneck_lab.detectors.precision import TENSOR_CORE_KERNEL

    assert bool(TENSOR_CORE_KERNEL.search(kernel)) is on_tensor_cores


def test_blocking_copy_to_pageable_memory_is_a_sync_stall():
    """`.cpu()` into pageable memory issues a cudaMemcpyAsync that returns only after its copy
    ends: the GPU drains under it, like under cudaStreamSynchronize."""
    b = TraceBuilder()
    for i, t0 in enumerate((0.0, 1000.0, 2000.0)):
        b.step(i + 1, t0, 900)
        b.op_with_kernel("aten::mm", t0 + 5, 10, kernel="gemm", kernel_ts=t0 + 20, kernel_dur=300)
        corr = b.runtime("cudaMemcpyAsync", t0 + 20, 330)  # blocks until the copy (320-350) ends
        b.memcpy(t0 + 320, 30, correlation=corr, direction="DtoH", src="Device", dst="Pageable")
        # the host only now launches the next kernel: the GPU idled from 350 to 600
        b.op_with_kernel("aten::add", t0 + 590, 5, kernel="add", kernel_ts=t0 + 600, kernel_dur=250)
    frame = load(b)
    gaps = facts.idle_gaps(frame)
    drained = gaps.loc[(gaps["start"] % 1000 >= 349) & (gaps["start"] % 1000 <= 351)]
    assert len(drained) == 3 and set(drained["cause"]) == {"sync_stall"}
    assert set(drained["sync_call"]) == {"cudaMemcpyAsync"}
    codes = {f.code for f in diagnose([frame]).findings}
    assert "sync-stall" in codes


def test_verdict_without_a_time_estimate_renders():
    """A memory finding has no time estimate; as the verdict it must still render."""
    from bottleneck_lab.diagnosis import Diagnosis, Finding, Summary, TraceInfo
    from bottleneck_lab.report.text import render_markdown, render_text

    f = Finding(
        "memory-capacity",
        "memory_capacity",
        "high",
        "Peak memory at 97% of the GPU",
        None,
        None,
        {"peak_bytes": 1},
        "Checkpoint activations.",
    )
    d = Diagnosis(
        TraceInfo("t.json", [0], {"name": "GPU"}, True, 10),
        Summary(steps=1, step_time_us=100.0, gpu_busy_pct=50.0),
        [f],
    )
    text = " ".join(render_text(d).split())  # unwrap
    assert "Main bottleneck: Peak memory at 97% of the GPU." in text and "It costs" not in text
    assert "Peak memory" in render_markdown(d)


def test_gpu_idle_leaves_kernel_switch_gaps_out_of_its_promise():
    # 30 queued kernels of 15 µs, each 5 µs after the last: 145 µs of idle per 1 ms step, all
    # kernel-to-kernel latency (the GPU had the next kernel queued). A cuDNN LSTM at batch 32
    # looks like this; no stream or event explains it, so gpu-idle promises nothing for it.
    from bottleneck_lab.detectors._examples import launch, steps

    def trace(gap_us: float) -> TraceBuilder:
        b = TraceBuilder()
        for t0 in steps(b, cpu_us=40):
            for i in range(30):
                launch(b, t0 + i, t0 + 5 + i * (15 + gap_us), 15, kernel="gemm_a")
        return b

    d = diagnose_trace(trace(5.0))
    assert finding(d, "gpu-idle") is None
    frame = load(trace(5.0))
    assert facts.idle_by_owner(frame)["gpu_idle"] >= 0.14 * 1000 * len(frame.steps)
    # the same kernels 12 µs apart: longer than any kernel switch, so the wait is reported
    f = finding(diagnose_trace(trace(12.0)), "gpu-idle")
    assert f is not None and f.evidence["kernel_switch_gaps_per_step"] <= 1


def _expert_loop_trace(
    rows_of_expert: list[int],
    projections: int,
    tokens: int | None = None,
    dense: list[tuple[int, tuple[int, int]]] = (),
    backward: bool = False,
) -> TraceBuilder:
    """One MoE layer per step: a router (aten::linear of `tokens` rows, by default half the
    experts' rows: top-2), then per expert a 40 µs read of its token count and `projections`
    aten::linear on its rows (a SwiGLU expert's gate and up projections share them), then the
    `dense` products (rows, weight). backward: each forward product carries a sequence number
    and an autograd-engine node with the same number runs it back on another thread."""
    b = TraceBuilder()
    tokens = tokens if tokens is not None else sum(rows_of_expert) // 2
    seq = iter(range(1000, 100000))
    for t0 in steps(b, cpu_us=900.0):
        t = gpu_free = t0 + 10
        products = [(tokens, (8, 1024))]
        products += [(r, (2048, 1024)) for r in rows_of_expert for _ in range(projections)]
        numbers = []
        for i, (rows, weight) in enumerate(products + list(dense)):
            if 0 < i <= len(products) - 1 and (i - 1) % projections == 0:
                b.runtime(SYNC_NAME, t, max(gpu_free - t, 0.0) + 5)
                t = max(t, gpu_free) + 10
            numbers.append(next(seq))
            args = {
                "Input Dims": [[rows, weight[1]], list(weight), []],
                "Input type": [sc.BF16] * 2,
                "Sequence number": numbers[-1],
            }
            start = max(t + 4, gpu_free)
            launch(b, t, start, 30.0, name="aten::linear", kernel=sc.BF16_GEMM, op_args=args)
            gpu_free, t = start + 30.0, t + 12
        if backward:
            for number in reversed(numbers):
                name = "autograd::engine::evaluate_function: MmBackward0"
                b.cpu_op(name, t, 8.0, tid=2, args={"Sequence number": number})
                t += 10
    return b


EXPERT_ROWS = [700, 310, 520, 150, 880, 260]


@pytest.mark.parametrize(
    ("rows", "projections", "fires"),
    [
        (EXPERT_ROWS, 2, True),  # gate and up on each expert's rows
        (EXPERT_ROWS, 1, True),
        ([512, 512, 128, 128, 512, 512], 1, False),  # two row counts: an encoder and a decoder
        ([700, 310, 520], 2, False),  # three row counts: fewer than min_groups_count
        ([300] * 6 + [700, 310, 520, 150], 1, False),  # one row count in more than half
    ],
)
def test_expert_loop_needs_a_weight_at_many_row_counts(rows, projections, fires):
    f = finding(diagnose([load(_expert_loop_trace(rows, projections))]), "expert-loop")
    assert (f is not None) is fires
    if fires:
        assert f.evidence["loops_per_step"] == 1
        assert f.evidence["looped_matmuls_per_step"] == len(rows) * projections


def test_expert_loop_needs_groups_a_router_could_make():
    # the same groups, but the step's dense row count (the router's) divides none of their sums:
    # micro-batches padded to different lengths, or a ViT dropping tokens, not experts
    trace = _expert_loop_trace(EXPERT_ROWS, 1, tokens=1000)
    assert finding(diagnose([load(trace)]), "expert-loop") is None


def test_expert_loop_leaves_out_dense_products_of_an_experts_shape():
    # attention's projections can share an expert's weight shape: at the dense row count they
    # are no group, and the loop still ends before them
    tokens = sum(EXPERT_ROWS) // 2
    trace = _expert_loop_trace(EXPERT_ROWS, 1, dense=[(tokens, (2048, 1024))] * 4)
    f = finding(diagnose([load(trace)]), "expert-loop")
    assert f.evidence["rows_max"] == max(EXPERT_ROWS) < tokens
    assert f.evidence["looped_matmuls_per_step"] == len(EXPERT_ROWS)


def test_expert_loop_counts_the_backward_nodes_of_its_forward_ops():
    without = finding(diagnose([load(_expert_loop_trace(EXPERT_ROWS, 1))]), "expert-loop")
    with_bw = finding(
        diagnose([load(_expert_loop_trace(EXPERT_ROWS, 1, backward=True))]), "expert-loop"
    )
    assert without.evidence["backward_nodes_matched_per_step"] == 0
    # the experts' products but the first (the span starts at it; its number is in range too)
    assert with_bw.evidence["backward_nodes_matched_per_step"] == len(EXPERT_ROWS)
    assert with_bw.evidence["loop_ops_per_step"] > without.evidence["loop_ops_per_step"]
