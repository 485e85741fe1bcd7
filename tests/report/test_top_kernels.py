"""The top-kernels table: each kernel's median grid in thread blocks beside the device's SM count
(summary.extra.top_kernels' `median_grid_blocks` and `sm_count`), marked in the text and HTML
reports where its blocks leave a tenth of the SMs or more without work (`underfills_sms`), a
collective's aside. Checked on hand-written traces and on holdout 63's SegFormer at one image a
call, whose top kernel runs 16 blocks on 132 SMs."""

from __future__ import annotations

from pathlib import Path

import pytest

from bottleneck_lab.analyze import diagnose
from bottleneck_lab.detectors._examples import launch, steps
from bottleneck_lab.report import render
from bottleneck_lab.trace.load import load_trace
from bottleneck_lab.trace.synth import TraceBuilder, load

ZOO = Path(__file__).resolve().parents[2] / "traces" / "zoo"


def two_kernels(gpus: list[dict] | None = None) -> TraceBuilder:
    """Each step: a 50 µs kernel on a 4 x 2 grid (8 blocks), a 30 µs one on 216 blocks, a 20 µs
    one on 100 (a GEMM of 100 tiles: 8 of the 108 SMs idle, under a tenth) and a 10 µs NCCL
    kernel on 8 (a collective's few blocks are by design)."""
    b = TraceBuilder(gpus=gpus)
    for t0 in steps(b, cpu_us=200):
        launch(b, t0 + 5, t0 + 20, 50, kernel="narrow_kernel", grid=(4, 2, 1))
        launch(b, t0 + 20, t0 + 80, 30, kernel="wide_kernel", grid=(216, 1, 1))
        launch(b, t0 + 40, t0 + 120, 20, kernel="gemm_100_tiles", grid=(100, 1, 1))
        launch(b, t0 + 60, t0 + 150, 10, kernel="ncclDevKernel_AllReduce_Sum", grid=(8, 1, 1))
    return b


def rows(d) -> dict[str, dict]:
    return {k["kernel"]: k for k in d.summary.extra["top_kernels"]}


def test_grid_blocks_are_the_product_of_the_grid_beside_the_sm_count():
    d = diagnose([load(two_kernels())])
    top = rows(d)
    assert top["narrow_kernel"]["median_grid_blocks"] == 8  # 4 x 2 x 1
    assert top["wide_kernel"]["median_grid_blocks"] == 216
    assert top["narrow_kernel"]["sm_count"] == 108  # the builder's A100
    assert {k for k, r in top.items() if r["underfills_sms"]} == {"narrow_kernel"}
    text = render(d, "text")
    table = text[text.index("Top kernels by GPU time") :].splitlines()

    def cell(kernel: str) -> str:
        return next(line for line in table if kernel in line).split()[-3]  # blocks, TFLOP/s, % peak

    assert [cell(k) for k in ("narrow_kernel", "wide_kernel", "gemm_100_tiles")] == [
        "8*",
        "216",
        "100",
    ]
    assert cell("ncclDevKernel") == "8"
    assert any("of the GPU's 108 SMs no thread block" in line for line in table)
    html = render(d, "html")
    assert html.count('class="num worse"') == 1 and "of the GPU's 108 SMs no thread" in html


def test_without_an_sm_count_nothing_is_marked():
    d = diagnose([load(two_kernels(gpus=[]))])
    top = rows(d)
    assert top["narrow_kernel"]["median_grid_blocks"] == 8
    assert top["narrow_kernel"]["sm_count"] is None
    text = render(d, "text")
    assert "8*" not in text and "SMs" not in text[text.index("Top kernels by GPU time") :]
    assert 'class="num worse"' not in render(d, "html")


def test_segformer_at_one_image_shows_its_upsample_on_16_blocks():
    path = ZOO / "segformer_infer_b1" / "bad.json.gz"
    if not path.is_file():
        pytest.skip(f"{path} not shipped")
    d = diagnose(load_trace(path))
    first = d.summary.extra["top_kernels"][0]
    assert "upsample_bilinear2d_out_frame" in first["kernel"]
    assert first["median_grid_blocks"] == 16 and first["sm_count"] == 132
    assert first["pct_of_kernel_time"] > 30
    text = render(d, "text")
    line = next(x for x in text.splitlines() if "upsample_bilinear2d_out_frame" in x)
    assert "16*" in line.split()
