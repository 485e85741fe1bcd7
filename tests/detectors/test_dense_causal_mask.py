"""Fused attention handed a dense causal mask inside a compiled graph (dense-causal-mask): what
makes one (a one-head square mask, is_causal=False, inside CompiledFunction, a generated kernel
that compares positions), what does not (eager masks, per-head biases, is_causal=True, decode's
one query, a compiled graph with no causal mask built), what it promises against the fix measured
on an H200, and that the zoo's eager masks stay silent."""

from __future__ import annotations

import pytest
from conftest import REPO

from bottleneck_lab.analyze import diagnose
from bottleneck_lab.detectors import dense_causal_mask as ma
from bottleneck_lab.detectors._examples import BF16, launch, steps
from bottleneck_lab.trace.load import load_trace
from bottleneck_lab.trace.synth import TraceBuilder, load

MASK_KERNEL = "triton_poi_fused_add_arange_expand_le_scalar_tensor_unsqueeze_where_5"
PADDING_KERNEL = "triton_poi_fused__to_copy_expand_index_mul_rsub_1"
Q = [4, 16, 1024, 64]


def cudnn_forward(mask: list, is_causal: str) -> dict:
    dims = [Q, Q, Q, mask, [], [], [], [], []]
    return {
        "Input Dims": dims,
        "Input type": [BF16, BF16, BF16, BF16 if mask else "", "Scalar", "Scalar", "Scalar"],
        "Concrete Inputs": ["", "", "", "", "True", "0.", is_causal, "False", ""],
    }


def efficient_backward(mask: list, is_causal: str) -> dict:
    """_scaled_dot_product_efficient_attention_backward: attn_bias at 4, is_causal at 11."""
    dims = [Q, Q, Q, Q, mask, Q, [4, 16, 1024], [], [], [], [], [], []]
    concrete = [""] * 9 + ["0.", "[True, True, True, False]", is_causal, ""]
    return {"Input Dims": dims, "Input type": [BF16] * 6 + [""] * 7, "Concrete Inputs": concrete}


def trace(
    mask: list | None = None,
    is_causal: str = "False",
    mask_kernel: str = MASK_KERNEL,
    compiled: bool = True,
    backward: bool = False,
):
    """A step of 1,000 µs: 100 µs of other kernels, the mask built by mask_kernel (20 µs), and
    one attention op whose kernel runs 400 µs; inside CompiledFunction unless compiled is False."""
    mask = [4, 1, 1024, 1024] if mask is None else mask
    if backward:
        op, op_args = "aten::_scaled_dot_product_efficient_attention_backward", None
        op_args = efficient_backward(mask, is_causal)
    else:
        op, op_args = "aten::_scaled_dot_product_cudnn_attention", cudnn_forward(mask, is_causal)
    b = TraceBuilder()
    for t0 in steps(b, cpu_us=120):
        if compiled:
            b.cpu_op("CompiledFunctionBackward" if backward else "CompiledFunction", t0 + 5, 100)
        launch(b, t0 + 10, t0 + 30, 100, name="aten::mm", kernel="nvjet_gemm")
        launch(b, t0 + 30, t0 + 130, 20, name=mask_kernel, kernel=mask_kernel)
        launch(b, t0 + 50, t0 + 150, 400, name=op, kernel="cudnn_sdpa_fprop", op_args=op_args)
    return load(b)


def found(frame) -> list:
    return ma.detect(frame, ma.Config())


def test_a_dense_causal_mask_in_a_compiled_graph_is_priced_at_half_its_kernels():
    (f,) = found(trace())
    assert f.code == "dense-causal-mask" and f.kind == "fusion"
    assert f.evidence["mask_shape"] == "4x1x1024x1024"
    assert f.evidence["masked_kernel_us_per_step"] == pytest.approx(400, abs=1)
    assert f.evidence["gpu_time_saved_us_per_step"] == pytest.approx(200, abs=1)
    assert f.evidence["causal_mask_kernel"] == MASK_KERNEL
    assert "is_causal=False" in f.title and 'set_attn_implementation("sdpa_causal")' in f.fix


def test_the_memory_efficient_backward_reads_its_mask_and_flag_at_their_own_places():
    (f,) = found(trace(backward=True))
    assert f.evidence["masked_kernel_us_per_step"] == pytest.approx(400, abs=1)
    assert "memory-efficient" in f.title
    assert not found(trace(backward=True, is_causal="True"))


def test_a_tril_built_in_the_graph_is_a_causal_mask_too():
    assert found(trace(mask_kernel="triton_poi_fused_ones_tril_0"))


@pytest.mark.parametrize(
    "why, kwargs",
    [
        ("eager: the mask is a real one (padding, windows)", {"compiled": False}),
        ("is_causal already set", {"is_causal": "True"}),
        ("a per-head bias, not a mask", {"mask": [4, 16, 1024, 1024]}),
        ("one query (decode): no tiles to skip", {"mask": [4, 1, 1, 1024]}),
        ("no mask at all", {"mask": []}),
        (
            "a padding mask built in the graph, no positions compared",
            {"mask_kernel": PADDING_KERNEL},
        ),
    ],
)
def test_no_finding_where_is_causal_is_not_the_fix(why, kwargs):
    assert not found(trace(**kwargs)), why


def shipped(folder: str, run: str):
    path = REPO / "traces" / folder / f"{run}.json.gz"
    if not path.is_file():
        pytest.skip(f"{path} is absent")
    return load_trace(path)


def test_compiled_llama_long_context_is_diagnosed_within_15_points_of_the_measured_fix():
    """HF Llama (8 x 1024) at 2 x 8,192 tokens under torch.compile(model), an H200: cuDNN's
    fused attention took a [2, 1, 8192, 8192] mask with is_causal=False. Handing SDPA no mask
    measured 89.94 -> 50.78 ms a step (43.5%); compiling the decoder layers instead, 55.35 ms
    (38.5% less than the whole model compiled). Compiling around attention measured 21.2% less
    (the forty-third session's rule). The promise holds to each within 15 points."""
    d = diagnose(shipped("compiled", "llama_long_context_healthy/healthy"))
    top = next(x for x in d.findings if x.severity in ("medium", "high"))
    assert top.code == ma.CODE and top.severity == "high"
    assert top.evidence["mask_shape"] == "2x1x8192x8192"
    for measured in (43.5, 38.5, 21.2):
        assert abs(top.share_pct - measured) <= 15


def test_compiled_llama_at_1024_tokens_gets_a_low_finding_its_fix_measured_below_ten():
    """llama_compile's compiled run (8 x 1,024 tokens): no mask measured 21.05 -> 18.99 ms
    (9.8%). Labelled healthy: the finding stays below medium and near the measurement."""
    (f,) = [
        x for x in diagnose(shipped("zoo", "llama_compile/fixed")).findings if x.code == ma.CODE
    ]
    assert f.severity == "low" and abs(f.share_pct - 9.8) <= 5


@pytest.mark.parametrize(
    "folder, run, measured",
    [
        # compile_savings.py --causal on an H200: the whole model compiled, then its SDPA handed
        # no mask; GPT-NeoX at Pythia-160M's sizes on 8 x 1,024 tokens (holdout 73) and HF
        # StableLM on 4 x 2,048 (captured compiled, for study)
        ("zoo", "pythia_compiled_healthy/healthy", 11.5),
        ("compiled", "stablelm_healthy/healthy", 13.5),
    ],
)
def test_compiled_decoders_are_diagnosed_within_5_points_of_the_mask_dropped(folder, run, measured):
    d = diagnose(shipped(folder, run))
    top = next(x for x in d.findings if x.severity in ("medium", "high"))
    assert top.code == ma.CODE and top.severity == "medium"
    assert abs(top.share_pct - measured) <= 5


def test_gpt2_compiled_whose_profiled_host_doubled_the_step_promises_low():
    """gpt2_compiled_train: the mask dropped measured 8.9%; the trace's step is 50.85 ms against
    25.87 synchronised, the GPU not busy through it, so the host's work bounds the promise."""
    (f,) = [
        x
        for x in diagnose(shipped("zoo", "gpt2_compiled_train/healthy")).findings
        if x.code == ma.CODE
    ]
    assert f.severity == "low" and f.share_pct < 8.9
    assert f.evidence["gpu_sets_step"] is False


@pytest.mark.parametrize(
    "run",
    [
        "bert_dynamic_padding_healthy/healthy",  # eager BERT, padding masks
        "gemma2_healthy/healthy",  # eager sliding windows
        "modernbert_healthy/healthy",
        "falcon_healthy/healthy",
        "llama_compile/bad",  # eager: is_causal=True, no mask
    ],
)
def test_eager_masks_on_fused_attention_raise_nothing(run):
    assert not [x for x in diagnose(shipped("zoo", run)).findings if x.code == ma.CODE]
