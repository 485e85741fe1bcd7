"""One-off start-up in the profiled window: found where a trace shows it (a real ResNet-50 profiled
from its first step, the external traces that start with CUDA's initialisation), nowhere in the
steady-state traces the project ships, and not for slow calls that recur every step."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import EXTERNAL_TRACES

from bottleneck_lab import facts
from bottleneck_lab.analyze import diagnose
from bottleneck_lab.detectors._examples import STEP_US, STEPS, launch
from bottleneck_lab.detectors.cold_start import CONTEXT, FIRST_CALLS, example
from bottleneck_lab.trace.load import load_trace
from bottleneck_lab.trace.synth import TraceBuilder, load

TRACES = Path(__file__).resolve().parents[2] / "traces"
COLD = TRACES / "zoo" / "cold_start" / "cold.json.gz"
# a new sequence length every step (holdout 33): its first profiled step met a length the warm-up
# had not, and cuDNN's attention built a plan for it (tested below)
DYNAMIC = TRACES / "zoo" / "bert_dynamic_padding_healthy" / "healthy.json.gz"
STEADY = sorted(
    p for p in TRACES.glob("*/*/*.json.gz") if p.parent.name != "cold_start" and p != DYNAMIC
)


def cold_finding(path, frames=None):
    d = diagnose(frames or load_trace(path), path=str(path))
    return d, next((f for f in d.findings if f.code == "cold-start"), None)


def test_a_resnet50_profiled_from_its_first_step_is_diagnosed_as_start_up():
    # measured on the H100 (cold.meta.json): the three profiled steps took 1377, 74 and 55 ms
    # synchronised, a steady step 35 ms: ~1.3 s of the 1.5 s window is one-off
    d, f = cold_finding(COLD)
    assert d.verdict is f and f.severity == "high"
    assert 80 <= f.share_pct <= 100
    what = f.evidence["us_by_what"]
    assert next(iter(what)) == FIRST_CALLS  # cuDNN's first conv2d calls dominate
    assert f.evidence["slow_first_calls"][0]["op"].startswith("aten::")
    # what is left for host_bound is the step's own host work, not start-up
    host = next((x for x in d.findings if x.code == "host-bound"), None)
    assert host is None or host.share_pct < 10


@pytest.mark.parametrize("path", sorted(COLD.parent.glob("*.json.gz")), ids=lambda p: p.name)
def test_the_start_up_share_matches_the_measured_one_off_time(path):
    # the sidecar: the profiled steps' synchronised times and the steady step after them; what
    # the window spent beyond n steady steps was one-off. ResNet-50 and GPT-2 under a schedule
    # (marked steps, the first cold) and ResNet-50 without one (one window)
    meta = json.loads(path.with_name(path.name.replace(".json.gz", ".meta.json")).read_text())
    profiled = meta["profiled_step_ms_synchronised"]
    one_off_pct = 100 * (1 - len(profiled) * meta["step_time_ms"]["median"] / sum(profiled))
    d, f = cold_finding(path)
    assert d.verdict is f
    assert abs(f.share_pct - one_off_pct) <= 10, (f.share_pct, one_off_pct)


@pytest.mark.parametrize("path", STEADY, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_no_start_up_in_steady_state_traces(path):
    # captured after warm-up steps under a wait/warmup/active schedule: at most a launch the OS
    # held up once (55 µs in bert_small_batch/fixed), never a finding. A one-off host stall in
    # the first profiled step is no first call there (6.1 ms in NllLossBackward0 of
    # audio_mel_loader/fixed, 10% of its window, was a medium cold-start finding before the
    # step's number said the loop had run already)
    frames = load_trace(path)  # loaded once: the diagnosis and the facts below share it
    d, f = cold_finding(path, frames)
    assert f is None
    frame = frames[0]
    assert facts.startup_us(frame) < 0.02 * facts.step_stats(frame).total_us


def test_a_long_launch_of_a_kernel_that_already_ran_is_no_module_loading():
    # a kernel's module loads on its first launch; a launch held up once after the kernel had
    # run is a stall, not start-up (HF UperNet, holdout 58: the 147th launch of its first
    # profiled step, a BF16 copy kernel run 106 times before it, took 47 ms with the GPU idle and
    # was a medium "module loading" finding; Qwen2's FP32-head run the same at 37 ms, a low one)
    def trace(ran_before: bool) -> TraceBuilder:
        b = TraceBuilder()
        for i in range(STEPS):
            t0 = i * STEP_US
            b.step(i + 1, t0, 700 if i == 0 else 60)
            launch(b, t0 + 10, t0 + 20, 180, kernel="gemm_b" if ran_before else "gemm_a")
            if i == 0:
                launch(b, t0 + 40, t0 + 530, 100, kernel="gemm_b", op_us=640)
            else:
                launch(b, t0 + 40, t0 + 200, 100, kernel="gemm_b")
        return b

    _, first = cold_finding("first", [load(trace(ran_before=False))])
    assert first is not None
    assert list(first.evidence["us_by_what"]) == ["module loading on first launch"]
    _, again = cold_finding("again", [load(trace(ran_before=True))])
    assert again is None


def test_cuda_initialisation_in_an_external_trace_is_start_up():
    path = (
        EXTERNAL_TRACES
        / "a100_param_alexnet_cuda_sync"
        / "benchmark_result_2869224_1695835535_trace.json.gz"
    )
    if not path.is_file():
        pytest.skip(f"{path} is absent")
    d, f = cold_finding(path)
    assert d.verdict is f
    assert next(iter(f.evidence["us_by_what"])) == CONTEXT  # 29.9 s in the first CUDA call
    assert f.evidence["largest_calls"][0]["call"] == "cudaDeviceGetStreamPriorityRange"


def test_a_slow_call_in_every_step_is_the_steps_own_cost():
    once = diagnose([load(example(True))])
    every = diagnose([load(example(True, every_step=True))])
    assert any(f.code == "cold-start" for f in once.findings)
    assert not any(f.code == "cold-start" for f in every.findings)
    assert every.verdict is not None  # the recurring idle stays another finding's


def test_a_launch_about_as_long_in_every_step_is_no_start_up():
    """A CUDA graph's launch takes 70-100 µs every step (a graphed MLP's: 97, 79, 73); the
    first, with the GPU idle, is no module loading, though the later ones ran while the GPU was
    busy with the step's first kernel: it is 21 µs over its repeats' median."""
    b = TraceBuilder()
    for i, launch_us in enumerate((97.0, 79.0, 73.0)):
        t0 = i * STEP_US
        b.step(i + 1, t0, 400)
        if i:  # the GPU busy through the later launches
            launch(b, t0 + 1, t0 + 4, 300, kernel="busy_k", op_us=2)
        end = t0 + 10 + launch_us * 2
        launch(
            b, t0 + 10, end + 200, 100, kernel="graph_k", op_us=2 * launch_us, api="cudaGraphLaunch"
        )
    frame = load(b)
    assert facts.startup_us(frame) == 0.0
    assert not any(f.code == "cold-start" for f in diagnose([frame]).findings)


def test_a_slow_first_op_waiting_on_a_busy_gpu_is_no_start_up():
    # the first call of an op takes 2 ms, but the GPU is busy all along (a sync waiting on a
    # long kernel): that is the queue draining, not set-up
    b = TraceBuilder()
    for i in range(STEPS):
        t0 = i * STEP_US * 4
        b.step(i + 1, t0, 2500)
        launch(b, t0 + 10, t0 + 20, 2400, kernel="gemm_a")
        b.cpu_op("aten::item", t0 + 40, 2300 if i == 0 else 20)
    frame = load(b)
    assert facts.first_call_ops(frame).empty
    assert facts.startup_us(frame) == 0.0


def _later_first_call(cold: bool) -> TraceBuilder:
    """Four steps; from the second on, an aten::_foreach_mul_ (an optimizer's momentum, first
    used in its second step) whose first call takes 2 ms with the GPU idle and 20 µs after. When
    cold, the first step's launch of gemm_b loads its module (320 µs, GPU idle)."""
    b = TraceBuilder()
    for i in range(4):
        t0 = i * STEP_US * 4
        b.step(i + 1, t0, 3000)
        launch(b, t0 + 10, t0 + 20, 180, kernel="gemm_a")
        if i == 0 and cold:
            launch(b, t0 + 40, t0 + 530, 100, kernel="gemm_b", op_us=640)
        else:
            launch(b, t0 + 40, t0 + 200, 100, kernel="gemm_b")
        if i > 0:
            b.cpu_op("aten::_foreach_mul_", t0 + 700, 2000 if i == 1 else 20)
    return b


def test_a_first_call_after_the_first_step_is_start_up_only_in_a_cold_trace():
    cold = load(_later_first_call(cold=True))
    assert list(facts.first_call_ops(cold)["name"]) == ["aten::_foreach_mul_"]
    # a trace whose first step shows no start-up was warm already: one slow call is not set-up
    warm = load(_later_first_call(cold=False))
    assert facts.first_call_ops(warm).empty and facts.startup_us(warm) == 0.0


def _stall_in_first_step(first_step: int) -> TraceBuilder:
    """Three steps numbered from first_step; in the first, an aten::nll_loss_backward takes 6 ms
    with the GPU idle (20 µs in the others); no CUDA start-up call anywhere."""
    b = TraceBuilder()
    for i in range(STEPS):
        t0 = i * STEP_US * 8
        b.step(first_step + i, t0, 6500 if i == 0 else 300)
        launch(b, t0 + 10, t0 + 20, 180, kernel="gemm_a")
        b.cpu_op("aten::nll_loss_backward", t0 + 220, 6000 if i == 0 else 20)
        launch(b, t0 + (6240 if i == 0 else 260), t0 + (6250 if i == 0 else 270), 100)
    return b


def test_a_stall_in_a_step_after_the_profilers_warm_up_is_no_first_call():
    # ProfilerStep#2 first: the schedule's wait and warm-up steps (#0, #1) ran the same ops, so
    # the slow call is the step's own stall; numbered from #0 it may be the process's first
    cold = load(_stall_in_first_step(0))
    assert list(facts.first_call_ops(cold)["name"]) == ["aten::nll_loss_backward"]
    warm = load(_stall_in_first_step(2))
    assert facts.first_call_ops(warm).empty and facts.startup_us(warm) == 0.0
    d, f = cold_finding(None, [warm])
    assert f is None


def test_first_calls_at_shapes_that_change_every_step_are_no_one_off():
    # HF BERT-base padded per batch: 94 ms of first calls (cuDNN attention's backward planning
    # for a new sequence length) in the first profiled step; every step has its own length, so a
    # run pays it once per length, and the finding says to bucket the shapes, not to warm up
    if not DYNAMIC.is_file():
        pytest.skip(f"{DYNAMIC} is absent")
    _, f = cold_finding(DYNAMIC)
    assert f is not None and f.evidence["ops_whose_shapes_change_between_steps"]
    assert f.title.startswith("Slow first calls at new input shapes")
    assert "bucket" in f.fix and "steady-state" not in f.fix
    # a ResNet-50 profiled from its first step, the same shapes every step: start-up
    _, cold = cold_finding(COLD)
    assert cold.title.startswith("One-off start-up")
    assert cold.evidence["ops_whose_shapes_change_between_steps"] == []
