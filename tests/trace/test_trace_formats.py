"""The loader survives what real trace files contain: gzip, old category names, integer or
fractional timestamps, NaN/Infinity, invalid escapes, zero and overlapping durations."""

from __future__ import annotations

import gzip
import math

import numpy as np
import pandas as pd
import pytest

from bottleneck_lab.trace import load_frame, load_trace
from bottleneck_lab.trace.synth import TraceBuilder, load, training_trace, write_text

TABLES = ("gpu_ops", "runtime", "cpu_ops", "annotations", "memory", "steps")


def assert_same_frames(a, b) -> None:
    for name in TABLES:
        pd.testing.assert_frame_equal(
            getattr(a, name), getattr(b, name), obj=name, check_categorical=False
        )


def test_json_and_json_gz_load_the_same(tmp_path):
    b = training_trace()
    plain = load_trace(b.write(tmp_path / "t.json"))
    packed = load_trace(b.write(tmp_path / "t.json.gz"))
    assert len(plain) == len(packed) == 1
    assert plain[0].events == packed[0].events > 0
    assert_same_frames(plain[0], packed[0])


def test_gzip_is_recognised_by_content_not_by_name(tmp_path):
    text = training_trace().dumps()
    path = tmp_path / "looks_plain.json"
    path.write_bytes(gzip.compress(text.encode()))
    assert_same_frames(load_frame(path), load(training_trace()))


def test_training_trace_tables_have_the_expected_rows():
    f = load(training_trace(steps=3, kernels_per_step=4))
    assert len(f.steps) == 3 and f.has_steps and f.has_gpu
    assert f.gpu_ops["kind"].value_counts().to_dict() == {"kernel": 12, "memcpy": 3, "memset": 0}
    assert (
        len(f.runtime) == 15 and (f.gpu_ops["launch"] >= 0).all() and (f.gpu_ops["op"] >= 0).all()
    )
    assert len(f.memory) == 3
    assert f.warnings == []


@pytest.mark.parametrize("version", [1, 2])
def test_torch_1_and_2_category_names_give_the_same_frame(version):
    f = load(training_trace(torch_version=version))
    assert_same_frames(f, load(training_trace(torch_version=2)))


def test_torch_1_category_names_are_really_written():
    cats = {
        e["cat"] for e in training_trace(torch_version=1).to_dict()["traceEvents"] if "cat" in e
    }
    assert {"Operator", "Runtime", "Kernel", "Memcpy"} <= cats
    assert not cats & {"cpu_op", "cuda_runtime", "kernel", "gpu_memcpy"}


def test_profiler_step_as_cpu_op_is_an_annotation_not_an_op():
    f = load(training_trace(steps=2, step_as_cpu_op=True))
    assert list(f.steps["name"]) == ["ProfilerStep#1", "ProfilerStep#2"]
    assert not f.cpu_ops["name"].astype(str).str.startswith("ProfilerStep").any()
    assert f.annotations["name"].astype(str).str.startswith("ProfilerStep").sum() == 2


def test_a_step_left_open_when_the_profiler_stopped_ends_with_its_window():
    b = training_trace(steps=2)  # steps of 700 µs: 0-699, 700-1399
    b.event("Trace", "PyTorch Profiler (0)", -5, 1405)
    # the last ProfilerStep, as written after the profiler stopped
    next(e for e in b.events if e["name"] == "ProfilerStep#2")["dur"] = 13e6
    f = load(b)
    assert f.steps["cpu_end"].max() == pytest.approx(1400)
    assert f.steps["dur"].max() < 701
    # the profiler's span is the window, not an annotation the analysis reads
    assert not f.annotations["name"].astype(str).str.startswith("PyTorch Profiler").any()


def test_integer_microsecond_timestamps():
    b = training_trace(int_us=True, slot_us=10.0)
    ts = [e["ts"] for e in b.to_dict()["traceEvents"]]
    assert all(type(t) is int for t in ts)
    f = load(b)
    assert (f.gpu_ops["ts"] == np.round(f.gpu_ops["ts"])).all()
    assert f.gpu_ops["dur"].tolist() == [5.0] + [8.0] * 4 + [5.0] + [8.0] * 4 + [5.0] + [8.0] * 4
    assert (f.gpu_ops["launch"] >= 0).all() and (f.gpu_ops["op"] >= 0).all()


def test_fractional_timestamps_keep_nanoseconds_at_real_magnitudes():
    base = 4_203_669_603_187.0  # a real trace's clock
    b = TraceBuilder(base_us=base)
    corr = b.op_with_kernel(
        "aten::add", 10.125, 4.5, kernel="add", kernel_ts=20.001, kernel_dur=1.234
    )
    f = load(b)
    k = f.gpu_ops.iloc[0]
    assert k["ts"] - base == pytest.approx(20.001, abs=1e-3)
    assert k["dur"] == pytest.approx(1.234, abs=1e-9)
    assert f.runtime["correlation"].tolist() == [corr]
    assert f.cpu_ops["ts"].iloc[0] - base == pytest.approx(10.125, abs=1e-3)


def _with_bad_numbers() -> TraceBuilder:
    b = TraceBuilder()
    b.step(1, 0, 100)
    b.op_with_kernel(
        "aten::mm",
        10,
        10,
        kernel="gemm",
        kernel_ts=30,
        kernel_dur=20,
        args={
            "est. achieved occupancy %": math.nan,
            "blocks per SM": math.inf,
            "warps per SM": -math.inf,
        },
    )
    b.cpu_op("aten::relu", 40, math.nan)
    return b


def test_nan_and_infinity_literals_are_read():
    b = _with_bad_numbers()
    text = b.dumps()
    assert "NaN" in text and "-Infinity" in text  # json.dumps writes the literals
    f = load(b)
    assert f.gpu_ops["name"].tolist() == ["gemm"]
    assert math.isnan(f.gpu_ops["occupancy_pct"].iloc[0])
    assert f.gpu_ops["op"].iloc[0] >= 0
    relu = f.cpu_ops.loc[f.cpu_ops["name"] == "aten::relu"]
    assert relu["dur"].tolist() == [0.0]  # a NaN duration reads as zero, the op is kept
    assert any("NaN" in w for w in f.warnings)


def test_nan_literals_in_compact_json(tmp_path):
    f = load_frame(write_text(tmp_path / "t.json", _with_bad_numbers().dumps(compact=True)))
    assert f.gpu_ops["name"].tolist() == ["gemm"] and len(f.cpu_ops) == 2


def test_invalid_string_escapes_are_read_literally(tmp_path):
    b = TraceBuilder()
    b.step(1, 0, 100)
    b.op_with_kernel(
        "PLACEHOLDER_OP", 10, 10, kernel="PLACEHOLDER_KERNEL", kernel_ts=30, kernel_dur=5
    )
    text = (
        b.dumps()
        .replace("PLACEHOLDER_OP", r"aten::weird\x41\'op")
        .replace("PLACEHOLDER_KERNEL", r"kern\q \u00e9\n")
    )
    f = load_frame(write_text(tmp_path / "t.json", text))
    assert f.cpu_ops["name"].tolist() == [r"aten::weird\x41\'op"]
    assert f.gpu_ops["name"].tolist() == ["kern\\q \u00e9\n"]  # valid escapes still decode
    assert f.gpu_ops["op"].tolist() == [0]
    assert any("escape" in w for w in f.warnings)


def test_zero_and_overlapping_durations():
    b = TraceBuilder()
    b.step(1, 0, 100)
    outer = b.cpu_op("aten::outer", 10, 40)
    b.cpu_op("aten::zero", 20, 0)
    b.cpu_op("aten::straddle", 45, 20)  # starts inside outer, ends after it: overlap, not nesting
    c1 = b.runtime("cudaLaunchKernel", 12, 2, external_id=outer)
    c2 = b.runtime("cudaLaunchKernel", 14, 2, external_id=outer)
    b.kernel("k_zero", 30, 0, correlation=c1)
    b.kernel("k_long", 30, 40, correlation=c2, stream=8)
    c3 = b.runtime("cudaLaunchKernel", 16, 2, external_id=outer)
    b.kernel("k_overlap", 50, 30, correlation=c3, stream=9)
    f = load(b)
    assert len(f.cpu_ops) == 3 and len(f.gpu_ops) == 3
    ops = f.cpu_ops.set_index(f.cpu_ops["name"].astype(str))
    assert ops.loc["aten::zero", "dur"] == 0 and ops.loc["aten::zero", "depth"] == 1
    assert (f.gpu_ops["launch"] >= 0).all()
    starts, ends = f.busy_intervals(0)
    assert starts.tolist() == [30.0] and ends.tolist() == [80.0]
    assert f.steps["end"].tolist() == [100.0]


def test_negative_duration_is_clamped_to_zero():
    b = TraceBuilder()
    b.cpu_op("aten::broken", 10, -5)
    b.cpu_op("aten::fine", 20, 5)
    f = load(b)
    assert f.cpu_ops["dur"].tolist() == [0.0, 5.0]


def test_bare_array_of_events_is_read_as_a_trace(tmp_path):
    """The Chrome trace format also allows a bare JSON array of events (tools other than the
    PyTorch profiler write it): read it like traceEvents."""
    import json

    from bottleneck_lab.trace import load_frame
    from bottleneck_lab.trace.synth import training_trace

    trace = training_trace(steps=2).to_dict()
    path = tmp_path / "array.json"
    path.write_text(json.dumps(trace["traceEvents"]))
    frame = load_frame(path)
    assert len(frame.steps) == 2 and frame.has_gpu
