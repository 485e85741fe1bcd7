"""FLOPs of cuDNN's fused recurrent layers (aten::_cudnn_rnn and its backward), which
FlopCounterMode counts as zero: against FlopCounterMode on the CPU's unrolled LSTM, GRU and RNN
(the same products written out), against hand arithmetic on the arguments a real H100 trace
recorded, and on zoo traces against their builders' sizes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bottleneck_lab.analyze import diagnose
from bottleneck_lab.flops import op_cost
from bottleneck_lab.op_flops import op_costs
from bottleneck_lab.trace import load_trace

ZOO = Path(__file__).resolve().parents[2] / "traces" / "zoo"
MODES = {"RNN": 1, "LSTM": 2, "GRU": 3}  # cudnnRNNMode_t (RNN_TANH for nn.RNN's default)


def cudnn_args(mode, t, b, i, h, layers, bidirectional=False, proj=0):
    """The recorded arguments of _cudnn_rnn for input [t, b, i] (no weight shapes: the model
    reads sizes from the scalars, as the backward's flattened weight list requires)."""
    d = 2 if bidirectional else 1
    hx = [layers * d, b, proj or h]
    dims = [[t, b, i], [], [], [1], hx, [layers * d, b, h]] + [[]] * 10
    types = ["float", "TensorList", "Scalar", "float", "float", "float"] + ["Scalar"] * 8 + [""] * 2
    concrete = ["", "", "4", "", "", "", str(mode), str(h), str(proj), str(layers), "False"]
    concrete += ["0.", "True", str(bidirectional), "", ""]
    return dims, types, concrete


def cudnn_backward_args(mode, t, b, i, h, layers, bidirectional=False, proj=0, mask=None):
    dims, types, concrete = cudnn_args(mode, t, b, i, h, layers, bidirectional, proj)
    out = [t, b, (proj or h) * (2 if bidirectional else 1)]
    dims = dims[:6] + [out, out, [], []] + [[]] * 12
    types = types[:6] + ["float"] * 4 + ["Scalar"] * 8 + ["", "", "unsigned char", "ScalarList"]
    mask = mask or [True, False, False, True]
    concrete = concrete[:6] + [""] * 4 + concrete[6:14] + ["", "", "", str(mask)]
    return dims, types, concrete


CASES = [
    ("LSTM", dict(layers=2)),
    ("LSTM", dict(layers=2, bidirectional=True)),
    ("LSTM", dict(layers=2, proj=16)),
    ("GRU", dict(layers=1)),
    ("GRU", dict(layers=3, bidirectional=True)),
    ("RNN", dict(layers=2)),
]


@pytest.mark.parametrize("cell,kw", CASES, ids=[f"{c}-{k}" for c, k in CASES])
def test_cudnn_rnn_flops_match_flopcountermode_on_the_unrolled_layer(cell, kw):
    torch = pytest.importorskip("torch")
    from torch.utils.flop_counter import FlopCounterMode

    t, b, i, h = 8, 4, 16, 32
    extra = {"proj_size": kw["proj"]} if kw.get("proj") else {}
    layer = getattr(torch.nn, cell)(
        i, h, num_layers=kw["layers"], bidirectional=kw.get("bidirectional", False), **extra
    )
    x = torch.randn(t, b, i, requires_grad=True)  # cuDNN's data pass always yields dx
    with torch.backends.mkldnn.flags(enabled=False):  # the unrolled products, not oneDNN's RNN
        with FlopCounterMode(display=False) as forward:
            out = layer(x)[0]
        with FlopCounterMode(display=False) as backward:
            out.sum().backward()
    mode = MODES[cell]
    fwd = op_cost("aten::_cudnn_rnn", *cudnn_args(mode, t, b, i, h, **kw))
    bwd = op_cost("aten::_cudnn_rnn_backward", *cudnn_backward_args(mode, t, b, i, h, **kw))
    assert fwd.flops == forward.get_total_flops() > 0
    assert bwd.flops == backward.get_total_flops()
    assert fwd.category == bwd.category == "rnn" and fwd.dtype == "fp32"


def test_backward_without_weight_gradients_is_the_data_pass_alone():
    args = dict(mode=2, t=8, b=4, i=16, h=32, layers=1)
    fwd = op_cost("aten::_cudnn_rnn", *cudnn_args(**args)).flops
    first_step = 2 * 4 * 4 * 32 * 32  # h0 @ W_hh^T: batch x 4 gates x hidden x hidden
    assert op_cost(
        "aten::_cudnn_rnn_backward", *cudnn_backward_args(**args, mask=[True, False, False, False])
    ).flops == pytest.approx(fwd - first_step)
    assert op_cost(
        "aten::_cudnn_rnn_backward", *cudnn_backward_args(**args, mask=[True, True, True, True])
    ).flops == pytest.approx(2 * fwd)


# aten::_cudnn_rnn as the H100 recorded it (traces/zoo/lstm_pack_lengths_on_gpu): a packed batch
# of 64 sequences, 10,624 tokens of 1024 features, 2 LSTM layers of 1024, in FP16 under autocast
RECORDED = (
    [
        [10624, 1024],
        [[4096, 1024], [4096, 1024], [4096], [4096], [4096, 1024], [4096, 1024], [4096], [4096]],
        [],
        [16793600],
        [2, 64, 1024],
        [2, 64, 1024],
    ]
    + [[]] * 10,
    ["c10::Half", "TensorList", "Scalar", "c10::Half", "c10::Half", "c10::Half"]
    + ["Scalar"] * 8
    + ["", ""],
    ["", "", "4", "", "", "", "2", "1024", "0", "2", "False", "0.", "True", "False", "", ""],
)


def test_recorded_cudnn_lstm_counts_both_products_per_layer_and_token():
    cost = op_cost("aten::_cudnn_rnn", *RECORDED)
    per_layer = 2 * 10624 * (4 * 1024) * (1024 + 1024)  # [x, h] @ the 4 gates' weights
    assert cost.flops == 2 * per_layer
    assert cost.dtype == "fp16"


def test_unreadable_arguments_count_nothing_rather_than_guess():
    dims, types, concrete = RECORDED
    assert op_cost("aten::_cudnn_rnn", dims, types, concrete[:6] + ["9"] + concrete[7:]) is None
    assert op_cost("aten::_cudnn_rnn", [[]] + dims[1:], types, concrete) is None
    assert op_cost("aten::_cudnn_rnn", dims, types, concrete[:7] + [""] + concrete[8:]) is None


@pytest.mark.parametrize(
    "run,layers,hidden,gates,tokens,batch",
    [
        ("lstm_lm_batch/bad", 2, 1024, 4, 256, 32),
        ("lstm_lm_batch/fixed", 2, 1024, 4, 256, 256),
        ("gru_lm_batch/fixed", 1, 768, 3, 128, 128),
    ],
)
def test_zoo_recurrent_lms_count_their_layers_work(run, layers, hidden, gates, tokens, batch):
    """benchmarks/zoo/scenarios.py _recurrent_lm: embeddings of `hidden` features into `layers`
    cuDNN layers, trained: forward, data pass (no initial-state gradient) and weight pass."""
    path = ZOO / f"{run}.json.gz"
    if not path.exists():
        pytest.skip("trace not shipped")
    frame = load_trace(path)[0]
    oc = op_costs(frame)
    rnn = oc.loc[oc["category"] == "rnn"]
    forward = layers * 2 * tokens * batch * gates * hidden * (2 * hidden)
    first_step = layers * 2 * batch * gates * hidden * hidden
    assert rnn["flops"].sum() / len(frame.steps) == pytest.approx(3 * forward - first_step)
    summary = diagnose([frame], path=str(path)).summary
    # the step's FLOPs are FlopCounterMode's count in the sidecar (the embedding's head and
    # loss; it counts the layers as zero) plus the layers by hand, and MFU reads them all
    counted = json.loads(path.with_name(path.name.replace(".json.gz", ".meta.json")).read_text())
    assert summary.flops_per_step == pytest.approx(
        counted["flops_per_step"] + 3 * forward - first_step, rel=0.001
    )
    assert summary.mfu_pct > 0


def test_bytes_count_the_weights_once_and_each_output_once():
    """The weight list views weight_buf: read once. Forward writes the output (tokens x
    directions x hidden) and the final hidden and cell states."""
    cost = op_cost("aten::_cudnn_rnn", *RECORDED)
    fp16 = 2
    x = 10624 * 1024 * fp16
    weights = 16793600 * fp16
    states = 2 * (2 * 64 * 1024 * fp16)  # hx, cx
    output = 10624 * 1024 * fp16
    assert cost.bytes == x + weights + states + output + states
