"""HTA beside bottleneck-lab (issue 4, part 5): our GPU idle time per device against Holistic Trace
Analysis' temporal breakdown, on every external trace HTA can read.

The contract: ours agrees with HTA's idle within 2% of the trace span, where the span is HTA's
window (first to last GPU event of the rank). Our plain definition (every kernel, memcpy and memset
of the device, as traced) meets it on 8 of the 14 traces HTA runs on. Where it does not, or where
it meets it with a gap, HTA_QUIRKS below says which of HTA's input quirks explains the gap, and
how big the gap is (measured with HolisticTraceAnalysis 0.5.0); with exactly those quirks
mimicked (bottleneck_lab.hta_bridge.our_idle_like_hta) our number equals HTA's to the microsecond,
over the same window, and leaving out any one of them breaks the equality. The quirks:

- last_step: with 2+ ProfilerSteps HTA drops the last step: it keeps only GPU work whose launch
  starts before the last ProfilerStep starts. Our plain window runs to the end of the trace.
- rounding: on traces with fractional (ns) timestamps HTA rounds every event inward to whole µs
  (ts = ceil(ts), end = floor(ts + dur)); each op shrinks by up to 2 µs, which HTA counts as idle.
- cuda_sync: HTA counts every event with a `stream` arg as GPU work, so cuda_sync events (the
  GPU-side view of a synchronisation) are busy time for HTA and widen its window; we count them
  as what they are, the GPU waiting.

Two quirks that could have mattered do not: no external trace runs work on two devices in one
rank (HTA merges the devices of a rank; test_hta_merges_the_devices_of_a_rank shows the effect on a
built trace), and no launch API is missed on either side (the last-step mimic keeps exactly the
ops whose launch is linked in our frame, and matches HTA exactly).

Where HTA cannot run at all (no GPU kernels, not a Kineto trace), HTA_FAILS holds what it says,
and bottleneck-lab still diagnoses the trace, or rejects a non-trace with its one-line error.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import pytest
from conftest import EXTERNAL_TRACES, REPO, external_trace_paths

from bottleneck_lab.commands.cli import main
from bottleneck_lab.hta_bridge import (
    LABEL,
    busy_like_hta,
    hta_report,
    our_idle_like_hta,
    render_hta_text,
)
from bottleneck_lab.trace import TraceFrame, intervals, load_trace
from bottleneck_lab.trace.synth import TraceBuilder, training_trace

TOLERANCE_PCT = 2.0
SLOW = ("v100_ddp2_sgd_profile_memory",)  # 54 MB raw: HTA and our loader take ~5 s on it
ALL_QUIRKS = frozenset({"last_step", "rounding", "cuda_sync"})


@dataclass(frozen=True)
class Quirks:
    """Why our plain idle differs from HTA's on one trace, as measured."""

    quirks: frozenset[str]
    plain_gap_us: float  # ours plain - HTA's idle, µs
    why: str
    same_window: bool = True  # False: HTA's window is not made of GPU ops (see the trace's why)


# trace -> the HTA quirks that explain the gap between our plain idle and HTA's, and the gap.
# "% of span" is the gap over HTA's window; "pass"/"FAIL" is the 2% contract on plain numbers.
HTA_QUIRKS: dict[str, Quirks] = {
    "a100_80gb_torchrec_16rank_record_shapes/rank0.json.gz": Quirks(
        frozenset({"last_step"}),
        +87_184.0,
        "FAIL +8.58% of span: HTA drops ProfilerStep#554; our window is 1,231,461 µs, HTA's "
        "1,016,554 µs, and that step holds 87,184 µs of idle. Integer-µs trace: no rounding.",
    ),
    "a100_cnn_ddp2_nccl_collective_args/nccl_data.json.gz": Quirks(
        frozenset({"last_step", "rounding"}),
        +164_269.9,
        "FAIL +37.71%: the last of 3 steps (window 660,551 -> 435,588 µs) holds 166,631 µs of "
        "idle (-38.25%); then rounding the 3,774 ns-resolution GPU ops inward adds 2,361 µs of "
        "idle on HTA's side (+0.54%).",
    ),
    "a100_cuda_event_sync/event_sync_trace.json.gz": Quirks(
        frozenset({"cuda_sync"}),
        +5.0,
        "pass +1.90% (of a 263 µs span): HTA counts the 4 cuda_sync events as GPU busy, "
        "which covers 5 µs we call idle.",
    ),
    "a100_cuda_event_sync_multi_stream/event_sync_trace.json.gz": Quirks(
        frozenset({"cuda_sync"}),
        +2.0,
        "pass +0.01%: HTA counts the 5 cuda_sync events as busy (2 µs).",
    ),
    "a100_param_alexnet_cuda_sync/benchmark_result_2869224_1695835535_trace.json.gz": Quirks(
        frozenset({"cuda_sync"}),
        -75_581.0,
        "pass -0.58%: the 41 cuda_sync events widen HTA's window from 12,920,244 to "
        "12,996,011 µs, and that extra 75,767 µs is mostly idle for HTA.",
    ),
    "a100_simple_add_with_execution_trace/benchmark_simple_add_trace.json.gz": Quirks(
        frozenset(), 0.0, "pass, exact: one step, integer µs, no cuda_sync."
    ),
    "a100_torch_compile_triton/triton_example.json.gz": Quirks(
        frozenset(),
        0.0,
        "pass, 0 = 0 by different routes: HTA's 94 µs window is the cpu_op "
        "triton_poi_fused_add_cos_sin_0, which Inductor's launcher writes with a `stream` arg, so "
        "HTA counts the CPU op as GPU busy; ours is the one 1.76 µs kernel. Both find no idle.",
        same_window=False,
    ),
    "a100_torchrec_8rank_tracediff_control/control.json.gz": Quirks(
        frozenset({"last_step"}),
        +13_888.0,
        "FAIL +3.62%: HTA drops ProfilerStep#1014 (window 464,594 -> 383,404 µs), which holds "
        "13,888 µs of idle. Integer-µs trace.",
    ),
    "amd_mi250_rocm62_toy_train/mi250_minitoy_train_ROCm6_2_kineto.json.gz": Quirks(
        frozenset({"rounding"}),
        -17.2,
        "pass -0.19%: rounding the 16 ns-resolution ops inward adds 17.2 µs of idle on HTA's "
        "side. HTA drops ProfilerStep#2 too, but all GPU work was launched in step #1. (ROCm "
        "runtime calls carry `stream` as a hex string, which HTA reads as -1, so they stay CPU.)",
    ),
    "gp100_gpu_user_annotation/step_based_trace_2543932.json.gz": Quirks(
        frozenset(), 0.0, "pass, exact: no steps, integer µs; gpu_user_annotation has no stream."
    ),
    "multirank_128rank_sampled_rank0_rank1/sampled_rank-0.json.gz": Quirks(
        frozenset({"last_step"}),
        +353_813.0,
        "FAIL +58.96%: HTA drops ProfilerStep#552 of 2 (window 1,222,847 -> 600,058 µs), which "
        "holds 353,813 µs of idle.",
    ),
    "multirank_128rank_sampled_rank0_rank1/sampled_rank-1.json.gz": Quirks(
        frozenset({"last_step"}),
        +322_465.0,
        "FAIL +53.68%: HTA drops ProfilerStep#552 of 2 (window 1,231,186 -> 600,674 µs), which "
        "holds 322,465 µs of idle.",
    ),
    "v100_cnn_ddp_ns_resolution/rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz": Quirks(
        frozenset({"last_step", "rounding"}),
        -2_546.2,
        "pass -0.66%, two effects that partly cancel: dropping the last of 5 steps (window "
        "480,029 -> 384,635 µs) removes 1,122 µs of idle (-0.29%), then rounding 6,095 "
        "ns-resolution ops inward adds 3,668 µs of idle on HTA's side (+0.95%).",
    ),
    "v100_ddp2_sgd_profile_memory/df_index_resolver.json.gz": Quirks(
        frozenset({"last_step"}),
        +88_740.0,
        "FAIL +6.35%: HTA drops ProfilerStep#6 (window 1,732,965 -> 1,396,669 µs), which holds "
        "88,740 µs of idle. Integer-µs trace.",
    ),
}

# trace -> (what HTA's one-line reason says, what bottleneck-lab does with the trace)
HTA_FAILS: dict[str, tuple[str, str]] = {
    "a100_param_alexnet_cupti_counters/benchmark_result_924719_1679055439_trace.json.gz": (
        r"^get_temporal_breakdown: IndexError: .*without GPU kernels",
        "diagnoses",
    ),
    "cpu_only_negative_case/rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz": (
        r"^get_temporal_breakdown: IndexError: .*without GPU kernels",
        "diagnoses",
    ),
    "a100_simple_add_with_execution_trace/benchmark_simple_add_et.json.gz": (
        r"^TraceAnalysis \(load\): AttributeError: ",
        "rejects",
    ),
    "memory_timeline_raw_not_chrome_trace/memory_timeline.raw.gz": (
        r"^TraceAnalysis \(load\): AttributeError: ",
        "rejects",
    ),
}


def external_id(path: Path) -> str:
    return str(path.relative_to(EXTERNAL_TRACES))


def _cases() -> list[Path]:
    """Every external trace file, and every directory of more than one file (per-rank sets)."""
    paths = external_trace_paths()
    return [p for p in paths if p.is_file() or sum(1 for f in p.iterdir() if f.is_file()) > 1]


def _param(p: Path):
    slow = any(s in str(p) for s in SLOW)
    return pytest.param(p, id=external_id(p), marks=[pytest.mark.slow] if slow else [])


RUNS = [_param(p) for p in _cases() if external_id(p) not in HTA_FAILS]
FAILS = [_param(p) for p in _cases() if external_id(p) in HTA_FAILS]


@cache
def frames_of(path: Path) -> tuple[TraceFrame, ...]:
    return tuple(load_trace(path))


@cache
def hta_of(path: Path) -> dict:
    # For a directory, HTA reads exactly the files our loader read (HTA alone would also read an
    # execution trace lying beside them, as rank 0).
    files = [f.path for f in frames_of(path)] if path.is_dir() else None
    return hta_report(path, files=files)


@dataclass(frozen=True)
class Row:
    trace: str
    rank: int
    device: int
    hta_idle_us: float
    span_us: float  # HTA's window
    quirks: Quirks | None
    frame: TraceFrame

    def ours(self, quirks: frozenset[str] = frozenset()) -> float:
        idle = our_idle_like_hta(
            self.frame,
            drop_last_step="last_step" in quirks,
            round_ns="rounding" in quirks,
            count_syncs="cuda_sync" in quirks,
        )
        return idle[self.device]

    def window(self, quirks: frozenset[str]) -> float:
        ((s, e),) = busy_like_hta(
            self.frame,
            drop_last_step="last_step" in quirks,
            round_ns="rounding" in quirks,
            count_syncs="cuda_sync" in quirks,
        ).values()
        return float(e[-1] - s[0])

    def gap_pct(self, ours: float) -> float:
        return 100.0 * (ours - self.hta_idle_us) / self.span_us


def rows(path: Path) -> list[Row]:
    """One row per rank: HTA's temporal breakdown beside our frame of the same rank."""
    report = hta_of(path)
    assert report["available"], report["reason"]
    frames = {f.rank: f for f in frames_of(path)}
    assert sorted(report["ranks"]) == sorted(frames), "HTA and bottleneck-lab see different ranks"
    out = []
    for t in report["temporal"]:
        frame = frames[t["rank"]]
        assert len(frame.devices) == 1, (
            f"rank {t['rank']} ran on devices {frame.devices}: HTA merges them (see "
            "test_hta_merges_the_devices_of_a_rank); compare against their union instead"
        )
        rel = external_id(Path(frame.path)) if path.is_dir() else external_id(path)
        out.append(
            Row(
                rel,
                t["rank"],
                frame.devices[0],
                t["idle_time_us"],
                t["window_us"],
                HTA_QUIRKS.get(rel),
                frame,
            )
        )
    return out


# -- agreement on every external trace HTA can read ------------------------------------------


@pytest.mark.parametrize("path", RUNS)
def test_plain_idle_agrees_with_hta(path: Path) -> None:
    """Our plain idle within 2% of span, except on the traces HTA_QUIRKS marks FAIL."""
    for r in rows(path):
        gap = r.gap_pct(r.ours())
        if r.quirks is None:  # a trace added to the folder since this table was measured
            assert abs(gap) <= TOLERANCE_PCT, (
                f"{r.trace} rank {r.rank}: ours {r.ours():.0f} µs vs HTA {r.hta_idle_us:.0f} µs "
                f"= {gap:+.2f}% of span; find which HTA quirk explains it and add it to HTA_QUIRKS"
            )
        elif r.quirks.why.startswith("pass"):
            assert abs(gap) <= TOLERANCE_PCT, (r.trace, gap, r.quirks.why)
        else:
            assert abs(gap) > TOLERANCE_PCT, f"{r.trace} now agrees plainly: update HTA_QUIRKS"


@pytest.mark.parametrize("path", RUNS)
def test_plain_gap_is_the_measured_one(path: Path) -> None:
    """The gap HTA_QUIRKS documents is the gap there is (to 1 µs), so the explanations stay true."""
    for r in rows(path):
        if r.quirks is None:
            continue
        assert r.ours() - r.hta_idle_us == pytest.approx(r.quirks.plain_gap_us, abs=1.0), (
            r.quirks.why
        )


@pytest.mark.parametrize("path", RUNS)
def test_idle_matches_hta_with_its_quirks_mimicked(path: Path) -> None:
    """With the documented quirks mimicked, our idle is HTA's to the µs, over the same window."""
    for r in rows(path):
        quirks = r.quirks.quirks if r.quirks else ALL_QUIRKS
        ours = r.ours(quirks)
        assert abs(r.gap_pct(ours)) <= TOLERANCE_PCT
        assert ours == pytest.approx(r.hta_idle_us, abs=1.0), (r.trace, r.rank, sorted(quirks))
        if r.quirks is None or r.quirks.same_window:
            assert r.window(quirks) == pytest.approx(r.span_us, abs=1.0), (r.trace, r.rank)
        else:
            assert r.window(quirks) < r.span_us  # HTA's window holds a CPU op (see why)


@pytest.mark.parametrize("path", RUNS)
def test_every_documented_quirk_is_needed(path: Path) -> None:
    """Leaving out any one documented quirk breaks the µs match: each is a real cause."""
    for r in rows(path):
        if r.quirks is None:
            continue
        for q in r.quirks.quirks:
            ours = r.ours(r.quirks.quirks - {q})
            assert abs(ours - r.hta_idle_us) > 1.0, f"{r.trace}: {q} is not needed"


def test_every_external_trace_is_classified() -> None:
    """A trace added to the folder gets measured and documented here, not silently compared."""
    if not EXTERNAL_TRACES.is_dir():
        pytest.skip("no external traces")
    files = {external_id(p) for p in external_trace_paths() if p.is_file()}
    assert files == set(HTA_QUIRKS) | set(HTA_FAILS)


# -- where HTA cannot run ------------------------------------------------------------------------


@pytest.mark.parametrize("path", FAILS)
def test_hta_fails_and_bottleneck_lab_does_not(path: Path, capsys: pytest.CaptureFixture) -> None:
    says, ours = HTA_FAILS[external_id(path)]
    report = hta_report(path)
    assert report["available"] is False
    assert "\n" not in report["reason"]
    assert re.search(says, report["reason"]), report["reason"]
    assert "could not run" in render_hta_text(report)
    rc = main(["analyze", str(path), "--format", "json"])
    out, err = capsys.readouterr()
    if ours == "diagnoses":
        assert rc == 0, err
        d = json.loads(out)
        assert d["schema"] == "bottleneck-lab/diagnosis/1" and d["trace"]["has_gpu"] is False
        assert not d["detectors"]["errors"]
    else:  # not a Kineto trace: one line naming the file, exit 2
        assert rc == 2 and out == ""
        assert err.count("\n") == 1 and path.name in err


def test_a_failed_hta_check_is_named_in_its_reason() -> None:
    """HTA 0.5.0's temporal breakdown asserts non-negative non-compute time, which a real trace
    (HF DistilBERT training, traces/zoo) breaks; the assert carries no message, so the reason
    names the check and where it failed instead of "(no message)"."""
    report = hta_report(REPO / "traces" / "zoo" / "distilbert_healthy" / "healthy.json.gz")
    assert report["available"] is False and "\n" not in report["reason"]
    assert report["reason"] == (
        "get_temporal_breakdown: AssertionError: `assert non_compute_time >= 0` failed in "
        "idle_time_per_rank"
    )


def test_hta_report_on_cpu_only_trace_says_why() -> None:
    path = EXTERNAL_TRACES / "cpu_only_negative_case"
    if not path.is_dir():
        pytest.skip("no external traces")
    report = hta_report(path)
    assert set(report) == {"available", "reason"} and report["available"] is False
    assert report["reason"].startswith("get_temporal_breakdown: IndexError: ")


# -- hta_report itself, on built traces (no external folder needed) ---------------------------


def test_hta_report_is_plain_json_and_labelled(tmp_path: Path) -> None:
    path = training_trace(steps=3, rank=0).write(tmp_path / "rank0.json")
    report = hta_report(path)
    assert report["available"], report.get("reason")
    json.dumps(report, allow_nan=False)  # plain values only
    assert report["ranks"] == [0]
    assert {
        "rank",
        "idle_time_us",
        "compute_time_us",
        "non_compute_time_us",
        "window_us",
        "idle_time_pct",
    } <= set(report["temporal"][0])
    assert {"rank", "stream", "idle_category", "idle_time_us", "idle_time_ratio"} == set(
        report["idle_time"][0]
    )
    assert report["kernels"] and all(k["kernel_type"] for k in report["kernels"])
    assert any("last ProfilerStep" in n for n in report["notes"])
    text = render_hta_text(report)
    assert text.startswith(LABEL) and "not by bottleneck-lab" in LABEL
    assert "Temporal breakdown" in text and "Idle time per rank and stream" in text
    # and it agrees with ours once the last step is dropped, as on the external traces
    (frame,) = load_trace(path)
    ours = our_idle_like_hta(frame, drop_last_step=True, round_ns=True)
    assert ours[0] == pytest.approx(report["temporal"][0]["idle_time_us"], abs=1.0)


def test_hta_report_is_quiet_and_never_imports_torch(tmp_path: Path) -> None:
    path = training_trace(steps=2).write(tmp_path / "t.json")
    code = (
        "import sys; from bottleneck_lab.hta_bridge import hta_report; "
        f"r = hta_report({str(path)!r}); assert r['available'], r; "
        "bad = hta_report('/nonexistent/t.json'); assert not bad['available']; "
        "assert 'torch' not in sys.modules, 'torch imported'"
    )
    run = subprocess.run(
        [sys.executable, "-c", code],
        cwd=REPO,
        capture_output=True,
        text=True,
        env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"},
        timeout=120,
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout == "" and run.stderr == ""  # HTA logs and warns a lot: none of it shows


def test_hta_report_on_missing_path_is_a_reason_not_an_exception() -> None:
    report = hta_report("/nonexistent/trace.json")
    assert report == {"available": False, "reason": report["reason"]}
    assert "FileNotFoundError" in report["reason"]


def test_hta_reads_compact_json_ranks_as_rank_0(tmp_path: Path) -> None:
    """HTA's rank regex needs a space after "rank":, so two compact rank files collapse to one."""
    for rank in (0, 1):
        training_trace(steps=2, rank=rank, world_size=2).write(
            tmp_path / f"r{rank}.json", compact=True
        )
    report = hta_report(tmp_path)
    assert report["available"] and report["ranks"] == [0]
    assert any("2 files as 1 rank" in n for n in report["notes"])
    assert [f.rank for f in load_trace(tmp_path)] == [0, 1]


def test_hta_merges_the_devices_of_a_rank(tmp_path: Path) -> None:
    """multi-device: HTA's idle is one number per rank over all devices' ops merged; ours is per
    device. Built trace, one step (so no step is dropped), integer µs (so nothing is rounded):
    device 0 runs [100,200) and [400,500), device 1 [150,250) and [600,700)."""
    b = TraceBuilder(int_us=True, rank=0)
    b.step(1, 0, 800)
    for dev, (ts, dur) in [(0, (100, 100)), (0, (400, 100)), (1, (150, 100)), (1, (600, 100))]:
        b.op_with_kernel(
            "aten::mm", ts - 60, 40, kernel=f"gemm_d{dev}", kernel_ts=ts, kernel_dur=dur, device=dev
        )
    path = b.write(tmp_path / "two_devices.json")
    report = hta_report(path)
    assert report["available"], report.get("reason")
    hta = report["temporal"][0]
    (frame,) = load_trace(path)
    ours = our_idle_like_hta(frame, drop_last_step=True, round_ns=True, count_syncs=True)
    assert ours == {0: 200.0, 1: 350.0}  # windows 400 and 550 µs, 200 µs busy each
    assert (hta["idle_time_us"], hta["window_us"]) == (250.0, 600.0)  # both merged
    g = frame.gpu_ops
    s, e = intervals.union(g["ts"].to_numpy(), g["end"].to_numpy())
    assert float(e[-1] - s[0]) - intervals.total(s, e) == hta["idle_time_us"]
