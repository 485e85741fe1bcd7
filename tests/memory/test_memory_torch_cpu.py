"""CPU profiles made here with torch: checkpointed and plain runs of one model are told apart from
their traces alone, and the peak read from the trace matches a known allocation pattern.

On CPU the [memory] events have Device Type 0, and their totals count only blocks allocated
while a profiler recorded, never deducting those freed after it stopped: the origin drifts from
one profiling session to the next in one process, so peaks are read above each trace's first
level (`MemoryCurve.initial`).
"""

import pytest

torch = pytest.importorskip("torch")
import torch.nn as nn  # noqa: E402
from torch.profiler import ProfilerActivity, profile, schedule  # noqa: E402
from torch.utils.checkpoint import checkpoint  # noqa: E402

from bottleneck_lab import memory  # noqa: E402
from bottleneck_lab.detectors import activation_memory, recompute  # noqa: E402
from bottleneck_lab.trace import load_frame  # noqa: E402

TOLERANCE = 0.02
WIDTH, HIDDEN, BATCH, BLOCKS = 128, 512, 256, 4


def _train_trace(path, mode: str):
    torch.manual_seed(0)
    stem = nn.Linear(WIDTH, WIDTH)
    blocks = nn.ModuleList(
        nn.Sequential(nn.Linear(WIDTH, HIDDEN), nn.GELU(), nn.Linear(HIDDEN, WIDTH))
        for _ in range(BLOCKS)
    )
    opt = torch.optim.AdamW([*stem.parameters(), *blocks.parameters()])
    x0 = torch.randn(BATCH, WIDTH)

    def step():
        x = stem(x0)
        for b in blocks:
            x = b(x) if mode == "plain" else checkpoint(b, x, use_reentrant=(mode == "reentrant"))
        loss = x.square().mean()
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()

    step()
    with profile(
        activities=[ProfilerActivity.CPU],
        profile_memory=True,
        record_shapes=True,
        schedule=schedule(wait=0, warmup=1, active=2, repeat=1),
        on_trace_ready=lambda p: p.export_chrome_trace(str(path)),
    ) as prof:
        for _ in range(3):
            step()
            prof.step()
    return load_frame(path)


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    d = tmp_path_factory.mktemp("cpu_traces")
    return {
        mode: _train_trace(d / f"{mode}.json", mode)
        for mode in ("plain", "checkpoint", "reentrant")
    }


def test_checkpointed_runs_are_told_apart(runs):
    for mode, frame in runs.items():
        found = recompute.detect(frame, recompute.Config())
        assert bool(found) is (mode != "plain"), mode
        assert memory.recompute(frame).present is (mode != "plain")
        if found:
            ev = found[0].evidence
            # Every block's forward re-runs: two linears and a GELU each.
            assert ev["recompute_ops_per_step"] == pytest.approx(3 * BLOCKS, abs=1)
            assert found[0].time_lost_us_per_step > 0
            # The FLOP model counts the two matmuls of every block (2*m*n*k each).
            gemm = 2 * BLOCKS * 2 * BATCH * WIDTH * HIDDEN
            assert ev["extra_flops_per_step"] == pytest.approx(gemm, rel=TOLERANCE)
    assert "CheckpointFunction" in memory.recompute(runs["reentrant"]).markers


def test_checkpointing_lowers_the_peak_and_the_trace_estimates_by_how_much(runs):
    for mode in ("checkpoint", "reentrant"):
        cmp = memory.compare_checkpointing(runs[mode], runs["plain"])
        assert cmp.saved_bytes > 0.3 * cmp.baseline_peak_bytes
        # From the checkpointed trace alone: re-materialised bytes less one block's worth. The
        # CPU allocator's totals drift between profiling sessions (the two measured savings of
        # identical runs range over 2.4-5.0 MB), so the estimate is held to the model's own
        # arithmetic: each block frees its two BATCH x HIDDEN fp32 intermediates, one block's
        # worth stays live during recompute.
        (f,) = recompute.detect(runs[mode], recompute.Config())
        intermediates = (BLOCKS - 1) * 2 * BATCH * HIDDEN * 4
        assert f.evidence["saved_bytes_estimate"] == pytest.approx(intermediates, rel=0.25)


def test_activation_advice_only_without_checkpointing(runs):
    (f,) = activation_memory.detect(runs["plain"], activation_memory.Config())
    assert f.severity == "info"  # no capacity on CPU: never more than info
    assert f.evidence["checkpointing_estimate"]["saved_bytes"] > 0
    for mode in ("checkpoint", "reentrant"):
        found = activation_memory.detect(runs[mode], activation_memory.Config())
        assert not found or found[0].evidence["checkpointing_present"]


def test_phases_and_peak_op_in_a_cpu_trace(runs):
    r = memory.analyze(runs["plain"])
    assert r.device_type == memory.CPU
    for s in r.steps:
        assert [p.name for p in s.phases] == ["forward", "backward", "optimizer"]
        assert s.forward_growth_bytes > 0 and s.peak_op
        # The model's activations: per block BATCH x HIDDEN twice (linear, gelu) + BATCH x WIDTH.
        per_block = 4 * BATCH * (2 * HIDDEN + WIDTH)
        assert s.activation_tensor_bytes >= BLOCKS * per_block


def test_peak_matches_a_known_allocation_pattern(tmp_path):
    mib = 1 << 20
    path = tmp_path / "pattern.json"
    with profile(activities=[ProfilerActivity.CPU], profile_memory=True) as prof:
        a = torch.empty(4 * mib, dtype=torch.uint8)
        b = torch.empty(8 * mib, dtype=torch.uint8)
        del a
        c = torch.empty(2 * mib, dtype=torch.uint8)
        d = torch.empty(3 * mib, dtype=torch.uint8)  # 8 + 2 + 3 = 13 MiB: the peak
        del b, c, d
    prof.export_chrome_trace(str(path))
    frame = load_frame(path)
    origin = memory.curve(frame).initial
    assert memory.peak_memory_bytes(frame) - origin == pytest.approx(13 * mib, rel=TOLERANCE)
    assert memory.curve(frame).allocated[-1] - origin == pytest.approx(0, abs=0.01 * mib)
