"""Where a launch-bound step's kernels come from (launch_overhead's kernels_by_call): each kernel
counted under the call the code made, the outermost aten op above it or, in the backward, the
autograd node that ran it. Checked on a hand-written trace and on two loops of holdout 58 whose
call counts follow from how they were built."""

from __future__ import annotations

from pathlib import Path

import pytest

from bottleneck_lab.analyze import diagnose
from bottleneck_lab.detectors._common import kernels_by_call
from bottleneck_lab.detectors._examples import launch
from bottleneck_lab.trace.load import load_trace
from bottleneck_lab.trace.synth import TraceBuilder, load

ZOO = Path(__file__).resolve().parents[2] / "traces" / "zoo"


def test_kernels_count_under_the_outermost_op_or_the_backward_node():
    b = TraceBuilder()
    b.step(1, 0, 1000)
    for i in range(4):  # logsumexp called four times, each launching amax and exp
        t = 10 + 100 * i
        b.cpu_op("aten::logsumexp", t, 30)
        launch(b, t + 2, t + 500, 2, name="aten::amax", op_us=8)
        launch(b, t + 12, t + 503, 2, name="aten::exp", op_us=8)
    b.cpu_op("autograd::engine::evaluate_function: LogsumexpBackward0", 450, 30)
    launch(b, 452, 900, 2, name="aten::mul", op_us=8)
    frame = load(b)
    g = frame.gpu_ops
    kernels = g.loc[(g["kind"] == "kernel") & (g["step"] >= 0)]
    assert kernels_by_call(frame, kernels) == [
        {"call": "aten::logsumexp", "calls_per_step": 4.0, "kernels_per_step": 8.0},
        {"call": "LogsumexpBackward0", "calls_per_step": 1.0, "kernels_per_step": 1.0},
    ]


def launch_finding(path: Path):
    if not path.is_file():
        pytest.skip(f"{path} is absent")
    d = diagnose(load_trace(path), path=str(path))
    return next((f for f in d.findings if f.code == "launch-overhead"), None)


def test_the_crf_loop_is_named_with_one_call_per_position():
    # BERT-CRF tagging 128-token sentences: the forward algorithm's logsumexp once per position
    # after the first (127) and once for the partition function
    f = launch_finding(ZOO / "bert_crf_ner_healthy" / "healthy.json.gz")
    top = f.evidence["kernels_by_call"][0]
    assert top["call"] == "aten::logsumexp" and top["calls_per_step"] == 128
    assert "aten::logsumexp (128 calls" in f.fix and "Python loop" in f.fix


def test_the_contrastive_loss_loop_is_named_with_one_call_per_anchor():
    # SimCLR's NT-Xent written anchor by anchor over 2 x 128 embeddings: one logsumexp each
    f = launch_finding(ZOO / "simclr_ntxent_loop" / "bad.json.gz")
    top = f.evidence["kernels_by_call"][0]
    assert top["call"] == "aten::logsumexp" and top["calls_per_step"] == 256
