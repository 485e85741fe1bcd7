"""The roofline facts the HTML report draws (`summary.roofline` points, `summary.roofline_roofs`
roofs), checked without a browser: against arithmetic from a hand-written trace's shapes, for
consistency on a real H100 trace, and the reason given when no roofline can be drawn."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

import bottleneck_lab
from bottleneck_lab.flops.peaks import match_device
from bottleneck_lab.report import render
from bottleneck_lab.trace.synth import TraceBuilder, device_properties, training_trace

ZOO = Path(__file__).resolve().parents[2] / "traces" / "zoo"


def test_roofline_point_of_a_hand_written_matmul(tmp_path):
    # Each step: four aten::mm (256x512 @ 512x1024, fp32) whose kernels run 80 µs each.
    d = bottleneck_lab.analyze(str(training_trace(steps=3).write(tmp_path / "t.json")))
    (row,) = d.summary.extra["roofline"]
    flops = 2 * 256 * 512 * 1024
    nbytes = 4 * (256 * 512 + 512 * 1024 + 256 * 1024)  # read A and B, write C
    peak = match_device(device_properties())
    assert row["op"] == "aten::mm" and row["dtype"] == "fp32"
    assert row["flop_per_byte"] == pytest.approx(flops / nbytes, rel=1e-3)
    assert row["tflops"] == pytest.approx(flops / 80e-6 / 1e12, rel=1e-3)
    assert row["bound"] == "compute"  # 73 FLOP/byte, right of the A100's FP32 ridge (~9.6)
    assert row["roof_tflops"] == pytest.approx(peak.peak_for("fp32"))
    assert row["pct_of_roof"] == pytest.approx(100 * row["tflops"] / row["roof_tflops"], abs=0.1)
    roofs = d.summary.extra["roofline_roofs"]
    assert roofs["compute_tflops"] == {"fp32": peak.peak_for("fp32")}
    assert roofs["mem_bw_gbps"] == peak.mem_bw_gbps
    assert roofs["ridge_flop_per_byte"]["fp32"] == pytest.approx(
        peak.peak_for("fp32") * 1e3 / peak.mem_bw_gbps, abs=0.05
    )


def test_no_roofline_says_why(tmp_path):
    # No recorded shapes: nothing to place on the plot.
    b = TraceBuilder()
    b.step(1, 0, 1000)
    b.op_with_kernel("aten::mm", 10, 8, kernel="gemm", kernel_ts=20, kernel_dur=900)
    d = bottleneck_lab.analyze(str(b.write(tmp_path / "noshapes.json")))
    assert "record_shapes=True" in d.summary.extra["roofline_roofs"]["unavailable"]
    html = render(d, "html")
    assert (
        'id="roofline"' in html and "No roofline:" in html and '<svg class="roofline"' not in html
    )
    # A FLOP/s override has no memory bandwidth, so no slanted roof.
    t = training_trace(steps=2).write(tmp_path / "t.json")
    over = bottleneck_lab.analyze(str(t), peak_tflops=100)
    assert "memory bandwidth" in over.summary.extra["roofline_roofs"]["unavailable"]
    # An NVIDIA GPU the table does not list gets a theoretical FLOP/s figure, no bandwidth either.
    odd = training_trace(steps=2, gpus=[device_properties(name="NVIDIA Mystery 9000")])
    d = bottleneck_lab.analyze(str(odd.write(tmp_path / "odd.json")))
    assert "NVIDIA Mystery 9000" in d.summary.extra["roofline_roofs"]["unavailable"]
    assert "--peaks-file" in d.summary.extra["roofline_roofs"]["unavailable"]
    # CPU-only: no GPU, no roofline section at all.
    cpu = TraceBuilder(gpus=[])
    cpu.step(1, 0, 100)
    cpu.cpu_op("aten::add", 10, 20)
    d = bottleneck_lab.analyze(str(cpu.write(tmp_path / "cpu.json")))
    assert "roofline_roofs" not in d.summary.extra and 'id="roofline"' not in render(d, "html")


def test_roofline_of_a_real_trace_is_consistent():
    path = ZOO / "resnet50_precision" / "bad.json.gz"
    if not path.is_file():
        pytest.skip(f"{path} not shipped")
    d = bottleneck_lab.analyze(str(path))
    rows, roofs = d.summary.extra["roofline"], d.summary.extra["roofline_roofs"]
    bw = roofs["mem_bw_gbps"]
    # cuDNN runs this FP32 model's convolutions on TF32 tensor cores: those points are measured
    # against the TF32 roof, as MFU is (FLOPs by dtype in the summary say the same).
    assert (
        "tf32" in roofs["compute_tflops"] and "tf32" in d.summary.extra["flops_per_step_by_dtype"]
    )
    assert any(r["dtype"] == "tf32" and "convolution" in r["op"] for r in rows)
    drawn = [r for r in rows if r["roof_tflops"]]
    assert len(drawn) >= 5
    for r in drawn:
        peak = roofs["compute_tflops"][r["dtype"]]
        # the roof above a point: the lower of the compute peak and intensity x bandwidth
        assert r["roof_tflops"] == pytest.approx(min(peak, r["flop_per_byte"] * bw / 1e3), rel=2e-3)
        assert r["bound"] == (
            "compute" if r["flop_per_byte"] >= r["ridge_flop_per_byte"] else "memory"
        )
        # the FLOP rate and byte rate of one op's kernels imply its intensity
        assert r["tflops"] * 1e3 / r["gb_per_s"] == pytest.approx(r["flop_per_byte"], rel=1e-2)
        assert math.isclose(r["pct_of_roof"], 100 * r["tflops"] / r["roof_tflops"], abs_tol=0.1)
    # Elementwise ops stream memory near the bandwidth roof; that is what they can do.
    adds = [r for r in drawn if r["op"] == "aten::add_" and r["dtype"] == "fp32"]
    assert adds and adds[0]["bound"] == "memory" and adds[0]["pct_of_roof"] > 80
