"""Each memory detector on hand-written traces: a positive and a negative case."""

import pytest

from bottleneck_lab import facts
from bottleneck_lab.detectors import activation_memory, memory_capacity, recompute
from bottleneck_lab.trace.synth import load
from bottleneck_lab.trace.synth_memory import MemTrace

MiB, GiB = 1 << 20, 1 << 30


def run(mod, frame, **cfg):
    return mod.detect(frame, mod.Config(**cfg))


# -- activation_memory --------------------------------------------------------------------------


def test_activations_dominating_the_peak_are_reported_as_info():
    frame = load(MemTrace(layers=16, act_bytes=100 * MiB, baseline_bytes=200 * MiB).b)
    (f,) = run(activation_memory, frame)
    assert f.kind == "activation_memory" and f.severity == "info"
    ev = f.evidence
    assert ev["activation_bytes"] == 1600 * MiB
    assert ev["activation_share_of_peak_pct"] == pytest.approx(100 * 1600 / 1810, abs=0.01)
    assert ev["activation_tensors"] == 16
    est = ev["checkpointing_estimate"]
    # sqrt(n) checkpointing keeps 2*sqrt(16) = 8 of 16 tensors: half the activations.
    assert est["saved_bytes"] == 800 * MiB
    assert est["recompute_us_per_step"] == pytest.approx(16 * 60)  # the forward's GPU time
    assert f.time_lost_us_per_step is None


def test_activations_near_capacity_are_medium():
    t = MemTrace(
        layers=16, act_bytes=100 * MiB, baseline_bytes=200 * MiB, capacity_bytes=1900 * MiB
    )
    (f,) = run(activation_memory, load(t.b))
    assert f.severity == "medium"
    assert f.evidence["peak_pct_of_capacity"] > 90


def test_small_activations_are_not_reported():
    frame = load(MemTrace(layers=4, act_bytes=10 * MiB, baseline_bytes=2 * GiB).b)
    assert run(activation_memory, frame) == []


def test_checkpointed_run_gets_no_checkpointing_advice():
    frame = load(
        MemTrace(layers=16, act_bytes=100 * MiB, baseline_bytes=100 * MiB, checkpoint=True).b
    )
    found = run(activation_memory, frame, min_activation_share_pct=1.0)
    assert found and found[0].evidence["checkpointing_present"] is True
    assert found[0].evidence["checkpointing_estimate"] is None


def test_an_evaluation_with_autograd_on_is_told_to_drop_it_not_to_checkpoint():
    """A forward autograd recorded (sequence numbers) with no backward in any step keeps its
    activations for nothing: the fix is inference_mode, with no recompute cost to promise."""
    frame = load(
        MemTrace(layers=16, act_bytes=100 * MiB, baseline_bytes=200 * MiB, backward=False).b
    )
    (f,) = run(activation_memory, frame)
    ev = f.evidence
    assert ev["backward_present"] is False and ev["checkpointing_estimate"] is None
    assert ev["activation_bytes"] == 1600 * MiB
    assert "no step runs backward" in f.title and "1.56 GiB" in f.title
    assert "inference_mode" in f.fix and "checkpoint" not in f.fix
    assert f.severity == "info"
    near = MemTrace(
        layers=16,
        act_bytes=100 * MiB,
        baseline_bytes=200 * MiB,
        capacity_bytes=1900 * MiB,
        backward=False,
    )
    (g,) = run(activation_memory, load(near.b))
    assert g.severity == "medium" and "inference_mode" in g.fix
    # the same forward followed by backward keeps the checkpointing advice
    (t,) = run(
        activation_memory,
        load(MemTrace(layers=16, act_bytes=100 * MiB, baseline_bytes=200 * MiB).b),
    )
    assert t.evidence["backward_present"] is True and "checkpoint" in t.fix


# -- recompute ----------------------------------------------------------------------------------


def test_recompute_is_found_with_its_time_and_saving():
    t = MemTrace(layers=6, act_bytes=100 * MiB, checkpoint=True)
    (f,) = run(recompute, load(t.b))
    assert f.kind == "recompute"
    ev = f.evidence
    assert ev["recompute_ops_per_step"] == 6
    assert ev["recompute_gpu_us_per_step"] == pytest.approx(360)
    # each backward node (380 µs) re-runs its layer (150 µs) beside its own matmul (100 µs):
    # 280 µs of it go with checkpointing; non-reentrant (no CheckpointFunction), so whole
    assert ev["recompute_node_host_us_per_step"] == pytest.approx(6 * 280)
    # the forward's linear (80 µs) is faster than its re-run (150 µs): no hook time to add
    assert ev["forward_hook_us_per_step"] == 0
    host_saved = 6 * 280
    assert ev["host_time_saved_us_per_step"] == pytest.approx(host_saved, abs=0.1)
    # the GPU idles most of this step: the host sets its length, so its saving is the promise
    assert f.time_lost_us_per_step == pytest.approx(host_saved, abs=0.1)
    assert ev["rematerialised_bytes_per_step"] == 600 * MiB
    assert ev["saved_bytes_estimate"] == 500 * MiB  # all re-materialised but one layer's
    assert f.severity in ("low", "medium", "high")  # plenty of room: the time is worth saving


def test_reentrant_recompute_keeps_the_profilers_share():
    """Reentrant checkpointing (its CheckpointFunction in the trace) has no pack hooks, and the
    profiler's share of its recorded host time comes off as for ordinary ops."""
    t = MemTrace(layers=6, act_bytes=100 * MiB, checkpoint=True)
    t.b.cpu_op("CheckpointFunctionBackward", 1_000_010.0, 1.0, tid=99)
    (f,) = run(recompute, load(t.b))
    ev = f.evidence
    assert ev["recompute_node_host_us_per_step"] == pytest.approx(6 * 280)
    host_saved = 6 * 280 * (1 - facts.PROFILER_SHARE_OF_HOST_OP)
    assert ev["host_time_saved_us_per_step"] == pytest.approx(host_saved, abs=0.1)


def test_recompute_needed_for_memory_is_info():
    t = MemTrace(layers=6, act_bytes=100 * MiB, checkpoint=True, capacity_bytes=700 * MiB)
    (f,) = run(recompute, load(t.b))
    assert f.severity == "info"
    assert f.evidence["peak_without_checkpointing_pct_of_capacity"] > 90
    assert "Keep checkpointing" in f.fix


def test_no_recompute_without_checkpointing():
    assert run(recompute, load(MemTrace(layers=6).b)) == []


# -- memory_capacity ----------------------------------------------------------------------------


def test_near_capacity():
    t = MemTrace(
        layers=6,
        act_bytes=100 * MiB,
        baseline_bytes=200 * MiB,
        capacity_bytes=850 * MiB,
        reserved_bytes=820 * MiB,
    )
    (f,) = run(memory_capacity, load(t.b))
    assert f.kind == "memory_capacity" and f.severity == "medium"
    assert f.evidence["peak_pct_of_capacity"] == pytest.approx(100 * 810 / 850, abs=0.01)
    assert "peak memory" in f.title


def test_reserved_far_above_allocated():
    t = MemTrace(layers=6, act_bytes=100 * MiB, baseline_bytes=200 * MiB, reserved_bytes=4 * GiB)
    (f,) = run(memory_capacity, load(t.b))
    assert f.severity == "info"
    assert f.evidence["reserved_over_allocated_ratio"] == pytest.approx(4096 / 810, abs=0.01)
    assert "expandable_segments" in f.fix


def test_allocator_calls_in_steady_state():
    t = MemTrace(steps=3, malloc_steps=(1, 2), reserved_bytes=1 * GiB)
    (f,) = run(memory_capacity, load(t.b))
    assert f.evidence["allocator_calls_per_steady_step"] == 2
    assert f.evidence["allocator_us_per_steady_step"] == pytest.approx(500)
    assert f.time_lost_us_per_step == pytest.approx(500)
    assert f.severity != "info"


def test_allocator_calls_in_the_first_step_only_are_warm_up():
    t = MemTrace(steps=3, malloc_steps=(0,), reserved_bytes=1 * GiB)
    assert run(memory_capacity, load(t.b)) == []


def test_healthy_memory_has_no_capacity_finding():
    assert run(memory_capacity, load(MemTrace(reserved_bytes=1 * GiB).b)) == []


def test_allocator_churn_is_found_without_memory_events():
    t = MemTrace(steps=3, malloc_steps=(1, 2), memory_events=False)
    (f,) = run(memory_capacity, load(t.b))
    assert f.evidence["peak_allocated_bytes"] is None
    assert f.evidence["allocator_calls_per_steady_step"] == 2
