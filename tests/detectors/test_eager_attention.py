"""Eager attention (matmul, softmax, matmul): what makes one, what is not called replaceable
(a per-head bias added to the scores, SDPA's own math fallback for inputs the fused kernels
cannot take, a softmax over another dimension), what it is priced at, and that fusion leaves its
kernels to it. SDPA's math fallback for inputs they take is a user's backend setting: eager
attention with its own fix. Hand-written traces
with recorded shapes, and the zoo's two eager attention runs and their SDPA twins."""

from __future__ import annotations

import pytest
from conftest import REPO

from bottleneck_lab.analyze import diagnose
from bottleneck_lab.detectors import eager_attention as ea
from bottleneck_lab.detectors._attention import eager_attention
from bottleneck_lab.detectors._examples import BF16, launch, steps
from bottleneck_lab.trace.load import load_trace
from bottleneck_lab.trace.synth import TraceBuilder, device_properties, load

Q = [32, 8, 256, 64]
K_T = [32, 8, 64, 256]
SCORES = [32, 8, 256, 256]


def args(dims: list, concrete: list | None = None) -> dict:
    return {
        "Input Dims": dims,
        "Input type": [BF16 if d else "Scalar" for d in dims],
        "Concrete Inputs": concrete or [""] * len(dims),
    }


def softmax(dim: str = "-1", shape: list = SCORES) -> tuple[str, dict, int]:
    return ("aten::softmax", args([shape, [], []], ["", dim, ""]), 200)


QK = ("aten::matmul", args([Q, K_T]), 100)
AV = ("aten::matmul", args([SCORES, Q]), 100)


def frame(ops: list[tuple[str, dict, int]], backward: bool = False):
    """Steps whose ops launch early and whose kernels run back to back (kernel µs each as
    given), then, with `backward`, a softmax backward under its autograd node."""
    b = TraceBuilder()
    for t0 in steps(b, cpu_us=80):
        at = t0 + 40
        for i, (name, op_args, us) in enumerate(ops):
            launch(b, t0 + 2 + 6 * i, at, us, name=name, op_args=op_args, op_us=5)
            at += us
        if backward:
            b.cpu_op("autograd::engine::evaluate_function: SoftmaxBackward0", t0 + 60, 10)
            launch(
                b,
                t0 + 62,
                at,
                200,
                name="aten::_softmax_backward_data",
                op_args=args([SCORES, SCORES, [], []]),
                op_us=5,
            )
    return load(b)


def test_matmul_softmax_matmul_is_eager_attention_with_its_shapes():
    att = eager_attention(frame([QK, softmax(), AV]))
    assert att is not None and len(att.scores) == 1 and not att.trains
    (scores,) = att.scores
    assert scores.shape == tuple(SCORES) and scores.head_dim == 64
    assert scores.per_step == 1 and scores.dtype == "bf16"
    assert att.kernels.sum() == 3 * 3  # three kernels a step over three steps


def test_self_and_cross_attention_are_both_priced():
    """An encoder-decoder's cross-attention: 64 queries over the 256 keys of the encoder."""
    q_cross, scores_cross = [32, 8, 64, 64], [32, 8, 64, 256]
    cross = [
        ("aten::matmul", args([q_cross, K_T]), 50),
        softmax(shape=scores_cross),
        ("aten::matmul", args([scores_cross, Q]), 50),
    ]
    f = frame([QK, softmax(), AV, *cross])
    att = eager_attention(f)
    assert [s.shape for s in att.scores] == [tuple(SCORES), tuple(scores_cross)]
    assert att.kernels.sum() == 6 * 3
    (found,) = [x for x in diagnose([f]).findings if x.code == ea.CODE]
    per_shape = found.evidence["score_shapes"]
    assert [s["shape"] for s in per_shape] == [SCORES, scores_cross]
    # the cross-attention's FLOPs are a quarter of the self-attention's (64 queries, not 256)
    assert per_shape[1]["fused_flops_per_step"] == pytest.approx(
        per_shape[0]["fused_flops_per_step"] / 4
    )
    assert "32x8x256x256 and 32x8x64x256 score matrices (2 a step)" in found.title
    assert found.fix.count("peak on 256 keys") == 1  # both have 256 keys: said once


def test_a_mask_shared_across_heads_keeps_it_replaceable():
    mask = ("aten::add", args([SCORES, [32, 1, 1, 256], []]), 50)
    assert eager_attention(frame([QK, mask, softmax(), AV])) is not None


def test_a_per_head_bias_of_the_scores_size_is_not_called_replaceable():
    bias = ("aten::add", args([SCORES, [1, 8, 256, 256], []]), 50)  # Swin's relative positions
    assert eager_attention(frame([QK, bias, softmax(), AV])) is None


def test_a_softmax_over_another_dimension_is_not_attention():
    assert eager_attention(frame([QK, softmax(dim="1"), AV])) is None


def test_without_attn_at_v_a_softmax_is_not_attention():
    assert eager_attention(frame([QK, softmax()])) is None


def test_probabilities_an_iteration_of_matmuls_takes_are_not_attention():
    """Nystromformer's landmark kernels: softmax, then an iteration of matmuls on the
    probabilities (its pseudo-inverse: four a round, six rounds). SDPA computes one attn @ V a
    softmax."""
    scores, probs_t = [32, 8, 64, 256], [32, 8, 256, 64]
    kernel = [
        ("aten::matmul", args([[32, 8, 64, 64], [32, 8, 64, 256]]), 20),
        softmax(shape=scores),
    ]
    iteration = [("aten::matmul", args([scores, probs_t]), 20)] * 24
    assert eager_attention(frame(kernel + iteration)) is None
    # one attn @ V after it: attention as SDPA computes it
    assert eager_attention(frame(kernel + iteration[:1])) is not None


def test_nystromformer_is_not_called_eager_attention():
    path = REPO / "traces" / "zoo" / "nystromformer_healthy" / "healthy.json.gz"
    (frame_,) = load_trace(path)
    assert eager_attention(frame_) is None


def heads(apart: bool) -> TraceBuilder:
    """Steps of one layer's attention over 4 x 256 tokens of width 384, 6 heads of 64. Apart:
    per head, q, k and v projections (aten::linear, weight [64, 384]) and its own Q K^T,
    softmax and attn @ V on [4, 256, 256] scores (the lecture's Head modules). Else batch and
    heads as one (nn.MultiheadAttention's [24, 256, 256] scores), from one in-projection of
    weight [1152, 384]."""
    x = [4, 256, 384]
    if apart:
        q, k_t, scores = [4, 256, 64], [4, 64, 256], [4, 256, 256]
        head = [("aten::linear", args([x, [64, 384], []]), 20)] * 3
        per_head = 6
    else:
        q, k_t, scores = [24, 256, 64], [24, 64, 256], [24, 256, 256]
        head = [("aten::linear", args([x, [1152, 384], [1152]]), 60)]
        per_head = 1
    attention = [
        ("aten::bmm", args([q, k_t]), 20),
        softmax(shape=scores),
        ("aten::bmm", args([scores, q]), 20),
    ]
    b = TraceBuilder()
    for t0 in steps(b, cpu_us=900):
        t = t0 + 2
        for op in (head + attention) * per_head:
            launch(b, t, t + 400, op[2], name=op[0], op_args=op[1], op_us=5)
            t += 6
    return b


def test_attention_a_head_at_a_time_says_so_and_prices_every_heads_ops():
    (f,) = [x for x in diagnose([load(heads(apart=True))]).findings if x.code == ea.CODE]
    assert f.evidence["heads_apart"]["heads"] == 6 and f.evidence["heads_apart"]["width"] == 384
    assert f.evidence["heads_apart"]["projections_per_step"] == 18
    assert "one head at a time (6 heads of 64" in f.title
    assert f.fix.startswith("Compute all 6 heads at once: one Linear(384, 1152)")


def test_batch_and_heads_as_one_are_not_heads_apart():
    for apart in (False, True):
        f = load(heads(apart))
        att = eager_attention(f)
        assert att is not None and (ea._heads_apart(f, att) is not None) is apart


def test_the_lecture_gpts_head_modules_are_heads_apart():
    path = REPO / "traces" / "zoo" / "gpt_head_modules" / "bad.json.gz"
    d = diagnose(load_trace(path), path=str(path))
    (f,) = [x for x in d.findings if x.code == ea.CODE]
    # 6 layers of 6 Head modules; their own projections and attention ops, forward and
    # backward, are 56 ms of the 91 ms a step the host works (the fix measured 78.5%)
    assert f.evidence["heads_apart"]["heads"] == 6
    assert f.evidence["heads_apart"]["projections_per_step"] == 108
    assert d.findings[0].code == ea.CODE


MASK = [32, 1, 256, 256]
NO_MASK: list = []


def sdpa_fallback(sdpa_inputs: list, types: list | None = None, compute=(8, 0), backward=False):
    """Steps whose aten::scaled_dot_product_attention (inputs as given: query, key, value,
    attn_mask) runs its math fallback: a cast of Q to FP32 (an autograd op, sequence number
    7), then Q K^T, softmax and attn @ V; with `backward`, the cast's backward node (sequence
    number 7) launching one 50 µs kernel, and a softmax backward."""
    b = TraceBuilder(gpus=[device_properties(0, compute=compute)])
    sdpa_args = {
        "Input Dims": sdpa_inputs + [[], [], [], []],
        "Input type": (types or [BF16] * 3)
        + ["" if not sdpa_inputs[3] else BF16]
        + ["Scalar", "Scalar", "", "Scalar"],
        "Concrete Inputs": [""] * 8,
    }
    cast = ("aten::to", {**args([Q]), "Sequence number": 7, "Fwd thread id": 1}, 30)
    for t0 in steps(b, cpu_us=120):
        b.cpu_op("aten::scaled_dot_product_attention", t0 + 1, 70, args=sdpa_args)
        at = t0 + 40
        for i, (name, op_args, us) in enumerate([cast, QK, softmax(), AV]):
            launch(b, t0 + 2 + 6 * i, at, us, name=name, op_args=op_args, op_us=5)
            at += us
        if backward:
            b.cpu_op(
                "autograd::engine::evaluate_function: ToCopyBackward0",
                t0 + 80,
                10,
                args={"Sequence number": 7, "Fwd thread id": 1},
            )
            launch(b, t0 + 82, at, 50, name="aten::to", op_us=5)
            b.cpu_op("autograd::engine::evaluate_function: SoftmaxBackward0", t0 + 95, 10)
            launch(
                b,
                t0 + 97,
                at + 50,
                200,
                name="aten::_softmax_backward_data",
                op_args=args([SCORES, SCORES, [], []]),
                op_us=5,
            )
    return load(b)


def test_sdpa_math_fallback_for_inputs_the_fused_kernels_cannot_take_is_not_eager_attention():
    """A mask (T5's position bias), FP32, a head dimension over 128, or a GPU before sm80: the
    math fallback is SDPA's own choice, not the user's."""
    assert eager_attention(sdpa_fallback([Q, Q, Q, MASK])) is None
    assert eager_attention(sdpa_fallback([Q, Q, Q, NO_MASK], types=["float"] * 3)) is None
    wide = [32, 8, 256, 256]
    assert eager_attention(sdpa_fallback([wide, wide, wide, NO_MASK])) is None
    assert eager_attention(sdpa_fallback([Q, Q, Q, NO_MASK], compute=(7, 5))) is None


def test_sdpa_math_fallback_for_inputs_the_fused_kernels_take_is_eager_attention():
    """BF16, no mask, head dimension 64 on an A100: only a backend setting sends that to the
    math fallback. Everything the fallback ran is priced, its cast to FP32 and that cast's
    backward node included, at the dtype SDPA was given."""
    f = sdpa_fallback([Q, Q, Q, NO_MASK], backward=True)
    att = eager_attention(f)
    assert att is not None and att.sdpa_fallback and att.trains
    assert att.scores[0].dtype == "bf16"
    (found,) = [x for x in diagnose([f]).findings if x.code == ea.CODE]
    # the cast 30, Q K^T 100, softmax 200, attn @ V 100; the cast's backward 50, softmax's 200
    assert found.evidence["eager_kernel_us_per_step"] == pytest.approx(30 + 400 + 50 + 200)
    assert found.evidence["sdpa_math_fallback"] is True
    assert found.title.startswith("scaled_dot_product_attention runs its math fallback")
    assert "sdpa_kernel(SDPBackend.MATH)" in found.fix and "enable_flash_sdp(False)" in found.fix


def test_training_prices_the_backward_and_the_fused_kernel_at_the_fitted_share():
    f = frame([QK, softmax(), AV], backward=True)
    (found,) = [x for x in diagnose([f]).findings if x.code == ea.CODE]
    ev = found.evidence
    assert ev["trains"] is True
    forward = 4.0 * 32 * 8 * 256 * 256 * 64
    assert ev["fused_flops_per_step"] == pytest.approx(ea.TRAINING_FLOPS_X * forward)
    assert ev["score_shapes"][0]["fused_peak_share_assumed"] == pytest.approx(
        ea.fused_peak_share(256), abs=1e-3
    )
    # the A100's BF16 peak (312 TFLOP/s) at that share
    fused_us = ea.TRAINING_FLOPS_X * forward / (ea.fused_peak_share(256) * 312e12) * 1e6
    assert ev["fused_us_per_step"] == pytest.approx(fused_us, abs=0.2)
    assert ev["eager_kernel_us_per_step"] == pytest.approx(100 + 200 + 100 + 200)


def test_the_fused_share_grows_with_the_keys_and_stops_at_the_highest_measured():
    shares = [ea.fused_peak_share(k) for k in (64, 197, 1024, 8192, 65536)]
    assert shares == sorted(shares)
    assert shares[-1] == shares[-2] == ea.FUSED_PEAK_SHARE_MAX


def shipped(folder: str, run: str):
    path = REPO / "traces" / folder / f"{run}.json.gz"
    if not path.is_file():
        pytest.skip(f"{path} is absent")
    return load_trace(path)


def zoo(run: str):
    return shipped("zoo", run)


def test_gpt2_eager_attention_is_the_diagnosis_and_fusion_leaves_its_kernels():
    d = diagnose(zoo("gpt2_eager_attention/bad"))
    top = d.findings[0]
    assert top.code == ea.CODE and top.severity == "high"
    assert top.evidence["score_shape"] == [8, 12, 1024, 1024]
    assert top.evidence["head_dim"] == 64 and top.evidence["attentions_per_step"] == 12
    fusion = next(f for f in d.findings if f.code == "unfused-elementwise")
    chain_ops = {op for c in fusion.evidence["largest_chains"] for op in c["ops"]}
    assert not chain_ops & {"aten::softmax", "aten::_softmax", "aten::dropout"}


def test_its_sdpa_twin_has_none():
    assert eager_attention(zoo("gpt2_eager_attention/fixed")[0]) is None
    assert eager_attention(zoo("vit_b16_eager_attention/fixed")[0]) is None


def test_vit_says_what_the_gpu_time_alone_would_give_where_the_host_may_set_the_step():
    (found,) = [
        f for f in diagnose(zoo("vit_b16_eager_attention/bad")).findings if f.code == ea.CODE
    ]
    assert found.evidence["score_shape"] == [64, 12, 197, 197]
    assert found.evidence["gpu_bound_share_pct"] > found.share_pct + 5
    assert "if the GPU does" in found.title


@pytest.mark.parametrize(
    "run",
    [
        "swin_b_healthy/healthy",
        "deberta_v3_healthy/healthy",
        "t5_compile/bad",
        "hiera_healthy/healthy",
        "unet_fp32_precision/bad",
    ],
)
def test_biased_attention_and_sdpa_math_in_the_zoo_are_not_called_replaceable(run):
    """Swin adds a per-head relative position bias, DeBERTa its disentangled terms; T5's
    softmax runs inside SDPA's math fallback for its position bias (a mask), Hiera's for its
    5-D heads, the UNet's (FP32) for its dtype."""
    f = zoo(run)[0]
    assert (f.cpu_ops["name"].astype(str).str.endswith("softmax")).any()
    assert eager_attention(f) is None


def test_autocast_matmul_on_fp32_inputs_is_priced_in_the_bf16_its_bmm_runs():
    """Under autocast aten::matmul records the FP32 Q and K it casts (Qwen2's rotary
    embeddings leave them FP32), the aten::bmm inside it the BF16 it runs in."""
    fp32 = {"Input Dims": [Q, K_T], "Input type": ["float", "float"], "Concrete Inputs": ["", ""]}
    bmm = args([[256, 256, 64], [256, 64, 256]])
    b = TraceBuilder()
    for t0 in steps(b, cpu_us=80):
        b.cpu_op("aten::matmul", t0 + 1, 8, args=fp32)
        launch(b, t0 + 2, t0 + 40, 100, name="aten::bmm", op_args=bmm, op_us=5)
        for i, (name, op_args, us) in enumerate([softmax(), AV]):
            launch(b, t0 + 20 + 6 * i, t0 + 140 + 200 * i, us, name=name, op_args=op_args, op_us=5)
    att = eager_attention(load(b))
    assert att is not None and att.scores[0].dtype == "bf16"


def test_vit_pinned_to_sdpas_math_backend_is_told_to_let_sdpa_choose():
    """HF ViT-base trained under sdpa_kernel(SDPBackend.MATH) (holdout 53; 42.9% measured
    without it): BF16, no mask, head dimension 64. Its fixed twin ran cuDNN's fused kernel."""
    d = diagnose(zoo("vit_sdpa_math_backend/bad"))
    top = d.findings[0]
    assert top.code == ea.CODE and top.evidence["sdpa_math_fallback"] is True
    assert top.evidence["compiled_graph"] is False
    assert top.evidence["score_shape"] == [64, 12, 197, 197] and top.evidence["dtype"] == "bf16"
    assert "SDPBackend.MATH" in top.fix
    assert eager_attention(zoo("vit_sdpa_math_backend/fixed")[0]) is None


# --- attention decomposed inside a compiled graph -------------------------------------------

# Inductor names a generated kernel after the aten ops it fused, and the profiler records its
# launch as an op of that name with the kernel's inputs
INDUCTOR_SOFTMAX = "triton_red_fused__safe_softmax_add_exp_prepare_softmax_online_sub_where_3"


def bmm(a: list, b: list, us: int = 100) -> tuple[str, dict, int]:
    return ("aten::bmm", args([a, b]), us)


QK_BMM, AV_BMM = bmm([256, 256, 64], [256, 64, 256]), bmm([256, 256, 256], [256, 256, 64])
SCORES_3D = [256, 256, 256]


def inductor_softmax_3d(*extra: list) -> tuple[str, dict, int]:
    return (INDUCTOR_SOFTMAX, args([SCORES_3D, [1, 1, 256, 1], SCORES, *extra]), 200)


def test_a_compiled_graphs_softmax_kernel_between_two_bmms_is_attention():
    att = eager_attention(frame([QK_BMM, inductor_softmax_3d(), AV_BMM]))
    assert att is not None and att.compiled
    (scores,) = att.scores
    assert scores.shape == tuple(SCORES_3D) and scores.head_dim == 64
    assert att.kernels.sum() == 3 * 3


def test_a_compiled_softmax_that_reads_a_position_bias_is_not_called_replaceable():
    # T5's bias as the compiled graph reads it, [queries, keys, heads]; Swin's index of 49 x 49
    for extra in ([256, 256, 8], [256 * 256]):
        assert eager_attention(frame([QK_BMM, inductor_softmax_3d(extra), AV_BMM])) is None
    # a row statistic or a mask of one key column is no bias
    assert eager_attention(frame([QK_BMM, inductor_softmax_3d([256, 1]), AV_BMM])) is not None


def test_a_compiled_softmax_without_its_matmuls_is_not_attention():
    assert eager_attention(frame([inductor_softmax_3d()])) is None  # the loss's log-softmax, say
    backward_only = ("triton_poi_fused__softmax_backward_data_bmm_view_9", args([SCORES_3D]), 50)
    assert eager_attention(frame([QK_BMM, backward_only, AV_BMM])) is None


def test_compiled_vivit_is_told_its_attention_was_decomposed():
    """HF ViViT trained under torch.compile(model) (`scenarios.py --one vivit_healthy
    --compile-model`, forty-third session, an H200): Inductor ran its attention over 3,137
    tokens as FP32 matmuls and softmax kernels, 100 ms of kernels a step where cuDNN's fused
    kernels took 13.5 ms in the eager capture (traces/zoo/vivit_healthy). The same model not
    compiled measured 51.84 ms a step against 134.96 compiled (61.6% less), compiled around
    attention 40.60 against 51.31 eager (--blocks): the finding is held to the first, within
    15 points, and names both fixes."""
    d = diagnose(shipped("compiled", "vivit_healthy/healthy"))
    top = d.findings[0]
    assert top.code == ea.CODE and top.severity == "high"
    assert top.evidence["score_shape"] == [48, 3137, 3137] and top.evidence["dtype"] == "fp32"
    # the fused kernel is priced in the BF16 the rest of the step runs in, not FP32
    assert top.evidence["score_shapes"][0]["dtype"] == "bf16"
    assert abs(top.share_pct - 61.6) <= 15
    assert top.title.startswith("The compiled graph runs attention")
    assert top.evidence["compiled_graph"] is True and top.evidence["sdpa_math_fallback"] is False
    assert "module.compile()" in top.fix and "F.scaled_dot_product_attention" in top.fix


@pytest.mark.parametrize("run", ["swin_t_compile/fixed", "t5_compile/fixed"])
def test_compiled_attention_with_a_position_bias_in_the_zoo_is_not_called_replaceable(run):
    f = zoo(run)[0]
    assert f.cpu_ops["name"].astype(str).str.contains("triton_.*_softmax", regex=True).any()
    assert eager_attention(f) is None


@pytest.mark.parametrize(
    "run",
    ["vit_b16_healthy", "dinov2_healthy", "videomae_healthy", "siglip_healthy", "whisper_healthy"],
)
def test_compiled_graphs_that_kept_fused_attention_are_left_alone(run):
    """Five zoo models captured under torch.compile(model) (forty-fourth session, an H200): each
    compiled graph kept cuDNN's or flash's fused attention kernels, so there is nothing for the
    fused kernel to replace, whatever else Inductor put in Triton kernels."""
    f = shipped("compiled", f"{run}/healthy")[0]
    kernels = f.gpu_ops["name"].astype(str)
    assert kernels.str.contains("cudnn_generated_fort_native_sdpa|flash", regex=True).any()
    assert kernels.str.startswith("triton_").any()  # it did compile
    assert eager_attention(f) is None
