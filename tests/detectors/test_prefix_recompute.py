"""prefix-recompute on hand-written traces: which row-count patterns are a generation loop without
a KV cache, and what the fix is promised where the GPU sets the step. The real traces (the
lecture GPT's sampling loop, HF generate with its cache) are in test_real_traces.py."""

from __future__ import annotations

import numpy as np

from bottleneck_lab.detectors import prefix_recompute as pr
from bottleneck_lab.detectors._examples import BF16, BF16_GEMM, launch, steps
from bottleneck_lab.trace.synth import TraceBuilder, load


def _step_of_passes(tokens: list[int], backward: bool = False, us_per_token: float = 3.0):
    """One step per STEPS, each running len(tokens) passes of one aten::linear on [t, 1024] x
    [3072, 1024]^T, its GEMM us_per_token a row; with `backward`, an autograd node after them
    (a training step)."""
    b = TraceBuilder()
    for t0 in steps(b, cpu_us=60.0 + 10.0 * len(tokens)):
        t = gpu_free = t0 + 10
        for n in tokens:
            args = {
                "Input Dims": [[n, 1024], [3072, 1024], []],
                "Input type": [BF16, BF16, ""],
                "Concrete Inputs": ["", "", ""],
            }
            start = max(t + 4, gpu_free)
            launch(b, t, start, us_per_token * n, kernel=BF16_GEMM, op_args=args)
            gpu_free = start + us_per_token * n
            t += 10
        if backward:
            b.cpu_op("autograd::engine::evaluate_function: AddmmBackward0", t, 5.0)
    return pr.detect(load(b), pr.Config())


def test_passes_growing_by_one_token_are_found_and_priced_where_the_gpu_sets_the_step():
    (f,) = _step_of_passes(list(range(16, 28)))
    assert f.code == "prefix-recompute" and f.kind == "recompute"
    assert f.evidence["passes_per_step"] == 12 and f.evidence["tokens_per_sequence"] == [16, 27]
    # every pass after the prefill costs one token's 3 µs with the cache: 774 -> 81 µs of kernels
    assert f.evidence["cached_kernel_us_per_step_est"] == 81.0
    assert f.evidence["gpu_time_saved_us_per_step"] == 693.0
    assert f.severity == "high" and "host sets the step" not in f.title


def test_a_batch_of_prompts_rises_by_the_batch_each_pass():
    (f,) = _step_of_passes([8 * n for n in range(16, 28)])
    assert f.evidence["rows_added_per_pass"] == 8 and f.evidence["tokens_per_sequence"] == [16, 27]


def test_no_finding_for_a_cache_a_training_step_or_sizes_that_change_at_random():
    assert not _step_of_passes([64] + [1] * 11)  # the KV cache: prefill, then one token each
    assert not _step_of_passes(list(range(16, 28)), backward=True)  # training: no generation
    rng = np.random.default_rng(0)
    assert not _step_of_passes(sorted(rng.choice(np.arange(16, 400), 12, replace=False).tolist()))
    assert not _step_of_passes(list(range(16, 23)))  # 7 passes: fewer than min_passes_count


def test_a_run_broken_by_another_rise_still_counts_its_longest_stretch():
    # a length jump (a second prompt batch) in the middle: the longer of the two runs is taken
    (f,) = _step_of_passes(list(range(16, 20)) + list(range(100, 110)))
    assert f.evidence["passes_per_step"] == 10 and f.evidence["tokens_per_sequence"] == [100, 109]
