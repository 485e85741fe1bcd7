"""The memory curve and per-step breakdown on hand-written traces whose numbers are known."""

import json

import pytest

from bottleneck_lab import memory
from bottleneck_lab.diagnosis import Finding
from bottleneck_lab.trace.synth import TraceBuilder, load
from bottleneck_lab.trace.synth_memory import BACKWARD, MemTrace

MiB = 1 << 20


@pytest.fixture(scope="module")
def plain():
    t = MemTrace(
        steps=3, layers=6, act_bytes=100 * MiB, grad_bytes=10 * MiB, baseline_bytes=200 * MiB
    )
    return t, load(t.b)


@pytest.fixture(scope="module")
def checkpointed():
    t = MemTrace(
        steps=3,
        layers=6,
        act_bytes=100 * MiB,
        grad_bytes=10 * MiB,
        baseline_bytes=200 * MiB,
        checkpoint=True,
    )
    return t, load(t.b)


def test_peak_is_the_highest_total_allocated(plain):
    t, frame = plain
    assert memory.peak_memory_bytes(frame) == t.totals.peak == (200 + 600 + 10) * MiB


def test_no_memory_events_means_no_peak():
    t = MemTrace(memory_events=False)
    frame = load(t.b)
    assert memory.peak_memory_bytes(frame) is None
    assert memory.analyze(frame) is None
    assert memory.curve(frame) is None


def test_curve_is_per_device_and_type():
    t = MemTrace(steps=1)
    # Host-side events and a second GPU must not leak into device 0's curve.
    t.b.memory(50.0, 4 * MiB, total_allocated=4 * MiB, total_reserved=0, device=-1, device_type=0)
    t.b.memory(60.0, 3 << 30, total_allocated=3 << 30, total_reserved=4 << 30, device=1)
    frame = load(t.b)
    cv = memory.curve(frame)
    assert (cv.device_type, cv.device_id) == (1, 0)
    assert cv.allocated.max() == t.totals.peak
    host = memory.curve(frame, device_type=memory.CPU, device_id=-1)
    assert list(host.allocated) == [4 * MiB]
    assert memory.curve(frame, memory.CUDA, 1).allocated.max() == 3 << 30
    assert (1, 1) in memory.memory_devices(frame) and (0, -1) in memory.memory_devices(frame)


def test_phases_from_sequence_numbers_backward_ops_and_optimizer(plain):
    t, frame = plain
    ph = memory.phases(frame)
    assert len(ph) == 3
    for i, phases in ph.items():
        names = [p.name for p in phases]
        assert names == ["forward", "backward", "optimizer"]
        fw, bw, opt = phases
        t0 = frame.steps["ts"].iat[i]
        assert fw.start == pytest.approx(t0 + 100)
        assert fw.end <= bw.start
        assert opt.start == pytest.approx(t0 + t.opt_offset)


def test_step_breakdown(plain):
    t, frame = plain
    r = memory.analyze(frame)
    assert [s.step for s in r.steps] == [1, 2, 3]
    assert r.capacity_bytes == 80 << 30
    for s in r.steps:
        assert s.baseline_bytes == 200 * MiB
        assert s.forward_growth_bytes == 600 * MiB
        assert s.activation_tensors == 6 and s.activation_tensor_bytes == 600 * MiB
        assert s.backward_release_bytes == 600 * MiB
        assert s.peak_bytes == 810 * MiB
        assert s.peak_phase == "backward"
        assert s.peak_op == "aten::mm"
        assert s.peak_op_stack == (
            "autograd::engine::evaluate_function: AddmmBackward0",
            "AddmmBackward0",
            "aten::mm",
        )
        assert s.end_bytes == 200 * MiB
        assert s.forward_gpu_us == pytest.approx(6 * 60)


def test_peak_op_is_on_the_allocating_thread(checkpointed):
    t, frame = checkpointed
    s = memory.analyze(frame).peak_step
    # Peak: baseline + 6 kept boundaries + one recomputed activation + one gradient.
    assert s.peak_bytes == t.totals.peak == (200 + 6 * 25 + 100 + 10) * MiB
    assert s.peak_op == "aten::mm" and s.peak_phase == "backward"
    assert s.forward_growth_bytes == 150 * MiB


def test_recompute_found_only_when_forward_ops_rerun_in_backward(plain, checkpointed):
    assert not memory.recompute(plain[1]).present
    rc = memory.recompute(checkpointed[1])
    assert rc.present
    assert [s.ops for s in rc.steps] == [6, 6, 6]
    assert rc.op_names[0] == ("aten::linear", 18)
    for s in rc.steps:
        assert s.host_us == pytest.approx(6 * 150)
        assert s.gpu_us == pytest.approx(6 * 60)
        assert s.alloc_bytes == 600 * MiB
        assert s.largest_segment_bytes == 100 * MiB


def test_compare_checkpointing_measures_the_saving(plain, checkpointed):
    cmp = memory.compare_checkpointing(checkpointed[1], plain[1])
    assert cmp.baseline_peak_bytes == 810 * MiB
    assert cmp.checkpointed_peak_bytes == 460 * MiB
    assert cmp.saved_bytes == 350 * MiB
    assert cmp.recompute_us_per_step == pytest.approx(6 * 60)


def test_results_are_plain_values(plain):
    _, frame = plain
    r = memory.analyze(frame)
    from dataclasses import asdict

    json.dumps(asdict(r))  # no numpy scalars, no frames
    json.dumps(asdict(memory.recompute(frame)))


def test_inference_trace_has_forward_only():
    b = TraceBuilder(base_us=1e6)
    b.step(1, 0, 1000)
    b.cpu_op("aten::linear", 100, 200, args={"Sequence number": 3})
    b.memory(150, 4 * MiB, total_allocated=4 * MiB, total_reserved=8 * MiB)
    frame = load(b)
    s = memory.analyze(frame).steps[0]
    assert [p.name for p in s.phases] == ["forward"]
    assert s.peak_op == "aten::linear" and s.backward_release_bytes is None


def test_findings_carry_plain_evidence(plain, checkpointed):
    from bottleneck_lab.detectors import activation_memory, memory_capacity, recompute

    for mod in (activation_memory, recompute, memory_capacity):
        for frame in (plain[1], checkpointed[1]):
            for f in mod.detect(frame, mod.Config()):
                assert isinstance(f, Finding)
                json.dumps(f.evidence)


def test_backward_thread_constant_matches_trace(checkpointed):
    _, frame = checkpointed
    ops = frame.cpu_ops
    rows = memory.recompute_rows(frame)
    assert set(ops.loc[rows, "tid"]) == {BACKWARD}
