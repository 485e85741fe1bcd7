"""Every owner of idle time (facts.OWNERS) has a label and a colour in the reports; numbers that
span decades keep a unit and their significant digits."""

from pathlib import Path

import pytest
from conftest import EXTERNAL_TRACES

import bottleneck_lab
from bottleneck_lab import facts
from bottleneck_lab.report import render
from bottleneck_lab.report.format import (
    OWNER_COLOURS,
    OWNER_LABELS,
    fmt_flop,
    fmt_pct,
    fmt_rate,
    fmt_us,
)


def test_every_idle_owner_has_a_label_and_a_colour():
    assert set(facts.OWNERS) | {"busy"} <= set(OWNER_LABELS)
    assert set(OWNER_LABELS) == set(OWNER_COLOURS)


def test_flops_and_shares_keep_their_meaning():
    assert fmt_flop(3.31e12) == "3.31 TFLOP" and fmt_flop(4.51e9) == "4.51 GFLOP"
    assert fmt_flop(2.5e15) == "2.5 PFLOP" and fmt_flop(163_840) == "163,840 FLOP"
    assert fmt_pct(13.77) == "13.8%" and fmt_pct(0.0437) == "0.044%" and fmt_pct(0) == "0.0%"
    assert fmt_pct(7.8e-5) == "<0.001%"
    assert fmt_rate(0.0213) == "0.0213" and fmt_rate(101.91) == "101.9" and fmt_rate(None) == "-"
    assert (
        fmt_us(11_843_640) == "11.84 s" and fmt_us(57_390) == "57.39 ms" and fmt_us(825) == "825 µs"
    )


def test_summary_of_a_recommender_with_tiny_mfu():
    # TorchRec on an A100: 4.5 GFLOP per 216 ms step, so MFU and the FLOP rate are far below 1;
    # the summary must show them, not round them to zero.
    path = EXTERNAL_TRACES / "a100_80gb_torchrec_16rank_record_shapes"
    if not path.is_dir():
        pytest.skip(f"{path} absent")
    d = bottleneck_lab.analyze(str(path))
    text = " ".join(render(d, "text").split())  # lines wrap at 100 columns
    assert 0 < d.summary.mfu_pct < 0.1 and 0 < d.summary.achieved_tflops < 0.1
    assert f"MFU {fmt_pct(d.summary.mfu_pct)} of" in text and "0.0%" not in text
    assert f"achieved {d.summary.achieved_tflops * 1e3:.3g} GFLOP/s" in text
    assert fmt_flop(d.summary.flops_per_step) in text and "e+09" not in text
    # idle by the finding that owns it; the profiler's share, which no finding counts, apart
    # (this sync-bound trace's host barely works, so the profiler made little of its idle)
    profiler = d.summary.extra["profiler_overhead"]["idle_us_per_step"]
    assert ("the profiler's own recording" in text) == (profiler >= 1)


def _zoo_diagnosis(scenario: str, variant: str):
    """The diagnosis of a shipped zoo trace (the test skips where it is not shipped)."""
    path = Path(__file__).resolve().parents[2] / "traces" / "zoo" / scenario / f"{variant}.json.gz"
    if not path.is_file():
        pytest.skip(f"{path} not shipped")
    return bottleneck_lab.analyze(str(path))


def test_the_profilers_share_of_idle_is_said_apart():
    # GPT-2 with a per-tensor AdamW: host-bound, and the profiler doubled the host's op cost
    d = _zoo_diagnosis("gpt2_adamw_foreach", "bad")
    text = " ".join(render(d, "text").split())
    profiler = d.summary.extra["profiler_overhead"]["idle_us_per_step"]
    assert profiler > 1000
    assert f"the profiler's own recording {fmt_us(profiler)}" in text


def test_idle_per_step_agrees_with_the_findings():
    # torch.compile recompiling every step: the gaps are host_bound by cause but the compile
    # finding reports them, and the summary's idle row must say so in the same numbers.
    d = _zoo_diagnosis("compile_dynamic_shapes", "bad")
    owned = d.summary.extra["idle_us_per_step_by_owner"]
    top = d.findings[0]
    assert top.code == "recompilation"
    assert owned["recompilation"] == pytest.approx(top.time_lost_us_per_step, rel=0.01)
    row = next(
        ln for ln in render(d, "text").splitlines() if ln.strip().startswith("idle per step")
    )
    assert f"torch.compile compiling {fmt_us(owned['recompilation'])}" in row


def test_idle_per_step_names_the_slowed_host_and_leaves_out_what_rounds_to_nothing():
    # ResNet-50 -> ResNet-18 distillation (holdout 14): two of three steps ran the same ops at
    # twice the host time; their idle is said apart, and a cause under half a µs per step (its
    # host-device sync, 0.3 µs) is not printed as "0 µs".
    d = _zoo_diagnosis("distillation_healthy", "healthy")
    text = " ".join(render(d, "text").split())
    slowed = d.summary.extra["profiler_overhead"]["slowed_host_idle_us_per_step"]
    assert slowed > 10_000
    assert f"steps whose host ran the same ops slower {fmt_us(slowed)}" in text
    owned = d.summary.extra["idle_us_per_step_by_owner"]
    assert 0 < owned["sync_stall"] < 0.5
    assert " 0 µs" not in text
