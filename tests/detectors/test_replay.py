"""The replay (bottleneck_lab/replay.py): what dropping the syncs saves, on a hand-written trace
whose answer follows from its timings, and on GPU traces whose fix was measured."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from bottleneck_lab import facts, replay
from bottleneck_lab.detectors import sync_stall
from bottleneck_lab.detectors._examples import SYNC_NAME, launch
from bottleneck_lab.trace import load_trace
from bottleneck_lab.trace.synth import TraceBuilder, load

ROOT = Path(__file__).resolve().parents[2]
STEP_US, LONG_US, SHORT_US, GAP_US, SHORTS = 1000.0, 600.0, 20.0, 40.0, 10


def lost_lead(sync: bool) -> TraceBuilder:
    """Each 1000 µs step launches a 600 µs kernel, then ten 20 µs kernels one every 40 µs.
    With `sync`, the host waits for the long kernel before the short ones, so they run at the
    host's pace: 600 + 400 µs a step. Without, they queue behind it while the host is ahead, and
    the GPU sets the pace: 600 + 10 x 20 = 800 µs a step."""
    b = TraceBuilder()
    gpu = 0.0  # when the GPU is next free in the trace as written
    for i in range(4):
        t0 = i * STEP_US
        b.step(i + 1, t0, STEP_US)
        start = max(t0 + 2, gpu)
        launch(b, t0, start, LONG_US, name="aten::mm", kernel="gemm")
        gpu = start + LONG_US
        t = t0 + 10
        if sync:
            b.runtime(SYNC_NAME, t, gpu - t)
            t = gpu + 5
        for _ in range(SHORTS):
            start = max(t + 2, gpu)
            launch(b, t, start, SHORT_US)
            gpu, t = start + SHORT_US, t + GAP_US
    return b


def test_a_sync_costs_the_lead_the_host_had_built():
    with_sync = load(lost_lead(sync=True))
    # in the trace the GPU idles only while the host launches the short kernels, but the sync
    # puts the whole 400 µs of launching after the long kernel
    assert replay.step_us(with_sync) == pytest.approx(1000.0, rel=0.03)
    assert replay.step_us(with_sync, without_syncs=True) == pytest.approx(800.0, rel=0.03)
    assert replay.sync_saving_us(with_sync) == pytest.approx(200.0, rel=0.1)
    [finding] = sync_stall.detect(with_sync, sync_stall.Config())
    assert finding.share_pct == pytest.approx(20.0, abs=2.0)
    no_sync = load(lost_lead(sync=False))
    assert replay.sync_saving_us(no_sync) == 0.0
    assert sync_stall.detect(no_sync, sync_stall.Config()) == []


def test_gpu_time_saved_shortens_only_the_stretches_the_gpu_sets():
    """Halving the short kernels saves nothing where a sync made them run at the host's pace,
    and their whole saving where they queue behind the long kernel; shortening the long kernel,
    which the host waits for, saves all of it either way."""
    share = facts.PROFILER_SHARE_OF_HOST_OP
    for sync, shorts_saving in ((True, 0.0), (False, SHORTS * SHORT_US / 2)):
        frame = load(lost_lead(sync))
        dur = frame.gpu_ops["dur"]
        short, long = dur.loc[dur == SHORT_US], dur.loc[dur == LONG_US]
        assert replay.gpu_saving_us(frame, short / 2, share) == pytest.approx(
            shorts_saving, abs=SHORT_US / 2 + 1
        ), sync
        assert replay.gpu_saving_us(frame, long / 2, share) == pytest.approx(
            LONG_US / 2, rel=0.05
        ), sync


QUEUED, QUEUED_US, PAUSE_US = 40, 20.0, 2.0


def queued_behind_a_long_kernel() -> TraceBuilder:
    """Each step launches a 600 µs kernel, then forty 20 µs kernels while it runs: they wait in
    the queue and the GPU starts each 2 µs after the one before ends, as a real GPU does."""
    b = TraceBuilder()
    for i in range(3):
        t0 = i * 2000.0
        b.step(i + 1, t0, 2000.0)
        launch(b, t0, t0 + 10, LONG_US, name="aten::mm", kernel="gemm")
        gpu = t0 + 10 + LONG_US
        for j in range(QUEUED):
            launch(b, t0 + 20 + 5 * j, gpu + PAUSE_US, QUEUED_US)
            gpu += PAUSE_US + QUEUED_US
    return b


def test_the_replay_keeps_the_pause_between_queued_kernels():
    # the first kernel starts 10 µs into the step; the kernels' durations then give
    # 600 + 40 x 20 = 1400 µs, and the GPU took 80 µs more
    frame = load(queued_behind_a_long_kernel())
    assert replay.step_us(frame, without_syncs=True) == pytest.approx(
        10 + LONG_US + QUEUED * (QUEUED_US + PAUSE_US), abs=PAUSE_US
    )


def test_a_device_to_device_copy_that_ends_inside_its_call_is_no_sync():
    """A cudaMemcpyAsync D2D on an idle GPU can finish before its call returns: async all the
    same (DDP copies its gradient buckets this way). A D2H copy that does is a host read."""
    for direction, is_sync in (("DtoD", False), ("DtoH", True)):
        b = TraceBuilder()
        b.step(1, 0.0, 200.0)
        launch(b, 0.0, 2.0, 50.0, kernel="gemm")
        corr = b.runtime("cudaMemcpyAsync", 60.0, 20.0)
        b.memcpy(65.0, 5.0, correlation=corr, direction=direction, src="Device", dst="Device")
        assert len(facts.sync_calls(load(b))) == int(is_sync), direction


sys.path[:0] = [str(ROOT / "benchmarks" / "zoo")]
ZOO = ROOT / "traces" / "zoo"


@pytest.mark.skipif(not (ZOO / "gpt2_clip_sync").exists(), reason="zoo traces not present")
def test_a_sync_mid_step_is_found_where_the_trace_shows_no_wait():
    """HF GPT-2 with clip_grad_norm_(error_if_nonfinite=True): the host reads the norm between
    backward and the optimizer. Under the profiler the host is slower than the GPU all step, so
    the sync waits 17 µs and the GPU idles 0.5 ms a step after it; dropping the check measured
    18.9% faster (67.52 -> 54.79 ms). At the profiler's median share of host time the replay
    sees it (10.1%); at its highest share the host is fast enough that it does not (3.0%), and
    sync_stall promises the smaller (tests/zoo: a strict xfail on this pair). Reading the loss
    after every micro-batch of a host-bound step measured no faster to drop (-0.5%), and the
    replay says so."""
    bad = load_trace(ZOO / "gpt2_clip_sync" / "bad.json.gz")[0]
    saving_pct = 100 * replay.sync_saving_us(bad) / facts.step_time_without_profiler_us(bad)
    assert 18.9 - 15 <= saving_pct <= 18.9 + 15
    fixed = load_trace(ZOO / "gpt2_clip_sync" / "fixed.json.gz")[0]
    assert sync_stall.detect(fixed, sync_stall.Config()) == []
    per_micro = load_trace(ZOO / "gpt2_item_per_microbatch" / "bad.json.gz")[0]
    assert replay.sync_saving_us(per_micro) < 0.03 * replay.step_us(per_micro)


@pytest.mark.skipif(not (ZOO / "gpt2_loss_item").exists(), reason="zoo traces not present")
def test_without_the_sync_the_replay_runs_as_long_as_the_measured_fix():
    """HF GPT-2 reading loss.item() after each step: without the read the step is GPU-bound, and
    the fixed run measured 53.47 ms synchronised. Its kernels add up to 51.78 ms; the other
    1.7 ms is the GPU's pause of about 1.4 µs between each of 1,227 queued ops. The read costs
    5.4% (56.52 ms measured), under the 10% that makes a sync_stall medium."""
    bad = load_trace(ZOO / "gpt2_loss_item" / "bad.json.gz")[0]
    assert replay.step_us(bad, without_syncs=True) == pytest.approx(53467, rel=0.01)
    [finding] = sync_stall.detect(bad, sync_stall.Config())
    assert finding.severity == "low"


RECAPTURE = ROOT / "traces" / "recapture"


@pytest.mark.skipif(
    not (RECAPTURE / "resnet50_loss_item").exists(), reason="recaptured traces not present"
)
def test_a_sync_is_priced_at_the_fastest_plausible_host_too():
    """ResNet-50 logging loss.item() after each step, captured again: the host's work (30.6 ms
    a step at the profiler's median share) is close to the GPU's (32.8 ms), so the read's price
    swings with the host's speed: 15.7% of the step at the median share, 6.6% at the highest.
    Dropping the read measured 2.3% (34.89 -> 34.09 ms): the smaller is promised, and low."""
    bad = load_trace(RECAPTURE / "resnet50_loss_item" / "bad.json.gz")[0]
    [finding] = sync_stall.detect(bad, sync_stall.Config())
    by_share = finding.evidence["replay_saving_us_by_profiler_share"]
    median, high = by_share["median (0.43)"], by_share["high (0.58)"]
    assert high < median
    assert finding.time_lost_us_per_step == pytest.approx(high, abs=0.5)
    assert finding.severity == "low"
