"""Unit tests of the per-op FLOP and byte formulas, with hand-written trace arguments."""

from math import prod

import pytest

from bottleneck_lab.flops.models import (
    COMPUTE_CATEGORIES,
    OpCost,
    count_step_flops,
    counted_op_costs,
    op_cost,
)

F32 = "float"
BF16 = "c10::BFloat16"


def cost(name, dims, types, concrete=None) -> OpCost:
    got = op_cost(name, dims, types, concrete)
    assert got is not None, name
    return got


# --- matmul ---------------------------------------------------------------------------------


def test_mm_counts_2mnk_and_reads_inputs_writes_output():
    c = cost("aten::mm", [[32, 64], [64, 16]], [F32, F32], ["", ""])
    assert c.flops == 2 * 32 * 64 * 16
    assert c.bytes == 4 * (32 * 64 + 64 * 16 + 32 * 16)
    assert (c.dtype, c.category) == ("fp32", "gemm")


def test_addmm_ignores_bias_flops_but_counts_its_bytes():
    # exactly as a Kineto trace records nn.Linear(64, 192) on a (32, 64) input
    c = cost(
        "aten::addmm",
        [[192], [32, 64], [64, 192], [], []],
        [F32, F32, F32, "Scalar", "Scalar"],
        ["", "", "", "1", "1"],
    )
    assert c.flops == 2 * 32 * 64 * 192
    assert c.bytes == 4 * (192 + 32 * 64 + 64 * 192 + 32 * 192)


def test_bmm_and_baddbmm():
    assert cost("aten::bmm", [[8, 16, 32], [8, 32, 4]], [BF16, BF16]).flops == 8 * 16 * 4 * 2 * 32
    c = cost(
        "aten::baddbmm",
        [[8, 16, 4], [8, 16, 32], [8, 32, 4], [], []],
        [BF16, BF16, BF16, "Scalar", "Scalar"],
    )
    assert c.flops == 8 * 16 * 4 * 2 * 32
    assert c.dtype == "bf16"
    assert c.bytes == 2 * (8 * 16 * 4 * 2 + 8 * 16 * 32 + 8 * 32 * 4)


def test_scaled_mm_is_fp8_and_writes_out_dtype():
    c = cost(
        "aten::_scaled_mm",
        [[64, 128], [128, 32], [], [], [], [], [], []],
        ["c10::Float8_e4m3fn", "c10::Float8_e4m3fn", F32, F32, "", "", "Scalar", "Scalar"],
        ["", "", "", "", "", "", "15", "False"],
    )
    assert c.flops == 2 * 64 * 128 * 32
    assert c.dtype == "fp8"
    assert c.bytes == 64 * 128 + 128 * 32 + 4 + 4 + 2 * 64 * 32  # bf16 output


# an experts layer of 8 experts over 4096 routed rows (tokens x top-k), as the Mixtral holdout's
# trace records torch._grouped_mm: forward [rows, k] x [experts, k, n], the input gradient the
# same way, the weight gradient [k, rows] x [rows, n] into one [k, n] per expert
GROUPED = [BF16, BF16, "int", "", ""]


@pytest.mark.parametrize(
    ("dims", "flops", "out_numel"),
    [
        ([[4096, 1024], [8, 1024, 3584], [8], [], []], 2 * 4096 * 1024 * 3584, 4096 * 3584),
        ([[1024, 4096], [4096, 1792], [8], [], []], 2 * 1024 * 4096 * 1792, 8 * 1024 * 1792),
        ([[8, 64, 1024], [1024, 512], [8], [], []], 2 * 64 * 1024 * 512, 64 * 512),
        ([[8, 64, 1024], [8, 1024, 512], [], [], []], 2 * 8 * 64 * 1024 * 512, 8 * 64 * 512),
    ],
    ids=["rows-split", "inner-split", "columns-split", "batched"],
)
def test_grouped_mm_counts_every_row_through_one_matrix(dims, flops, out_numel):
    types = GROUPED if dims[2] else [BF16, BF16, "", "", ""]  # no offsets: a batched product
    c = cost("aten::_grouped_mm", dims, types)
    assert c.flops == flops and (c.dtype, c.category) == ("bf16", "gemm")
    a, b = dims[0], dims[1]
    offs = 4 * dims[2][0] if dims[2] else 0
    assert c.bytes == 2 * (prod(a) + prod(b) + out_numel) + offs


def test_scaled_grouped_mm_reads_its_offsets_after_the_scales():
    fp8 = "c10::Float8_e4m3fn"
    c = cost(
        "aten::_scaled_grouped_mm",
        [[4096, 1024], [8, 1024, 3584], [4096], [8, 3584], [8], [], [], [], []],
        [fp8, fp8, F32, F32, "int", "", "", "", ""],
    )
    assert c.flops == 2 * 4096 * 1024 * 3584 and c.dtype == "fp8"
    # a weight gradient: one [1024, 1792] output per group, the groups read from offs (index 4)
    wgrad = cost(
        "aten::_scaled_grouped_mm",
        [[1024, 4096], [4096, 1792], [1024], [1792], [8], [], [], [], []],
        [fp8, fp8, F32, F32, "int", "", "", "", ""],
    )
    assert wgrad.bytes == 1024 * 4096 + 4096 * 1792 + 4 * (1024 + 1792 + 8) + 2 * 8 * 1024 * 1792


def test_grouped_mm_with_mismatched_inner_dims_is_rejected():
    assert (
        op_cost("aten::_grouped_mm", [[16, 1024], [8, 999, 3584], [8]], GROUPED[:3], None) is None
    )
    assert op_cost("aten::_grouped_mm", [[4, 64, 32], [8, 32, 16]], [BF16, BF16], None) is None


def test_gemm_with_mismatched_inner_dim_is_rejected():
    assert op_cost("aten::mm", [[32, 64], [65, 16]], [F32, F32], None) is None


@pytest.mark.parametrize(
    "name",
    [
        "aten::linear",
        "aten::matmul",
        "aten::conv2d",
        "aten::einsum",
        "aten::scaled_dot_product_attention",
        "aten::t",
        "aten::view",
    ],
)
def test_composite_wrappers_carry_no_cost(name):
    # counted once at the leaf op they call (addmm, mm, convolution, ...)
    assert op_cost(name, [[32, 64], [16, 64], [16]], [F32, F32, F32], ["", "", ""]) is None


@pytest.mark.parametrize(
    "name", ["aten::frobnicate", "fbgemm::permute_2D_sparse_data", "ProfilerStep#3", "", None]
)
def test_unknown_ops_are_none(name):
    assert op_cost(name, [[4]], [F32], [""]) is None


@pytest.mark.parametrize(
    "dims,types",
    [
        (None, None),
        ([], []),
        ([[32, 64]], [F32]),
        ([[32, 64], "junk"], [F32, F32]),
        ([[32, 64], [64, 16]], [F32, "Scalar"]),
    ],
)
def test_missing_or_damaged_args_give_none(dims, types):
    assert op_cost("aten::mm", dims, types, None) is None


# --- convolution ----------------------------------------------------------------------------

CONV_TYPES = [
    F32,
    F32,
    F32,
    "ScalarList",
    "ScalarList",
    "ScalarList",
    "Scalar",
    "ScalarList",
    "Scalar",
]


def conv_args(x, w, stride, padding, dilation, transposed=False, output_padding=(0, 0), groups=1):
    dims = [x, w, [w[1] * groups if transposed else w[0]], [], [], [], [], [], []]
    concrete = [
        "",
        "",
        "",
        str(list(stride)),
        str(list(padding)),
        str(list(dilation)),
        str(transposed),
        str(list(output_padding)),
        str(groups),
    ]
    return dims, CONV_TYPES, concrete


def test_convolution_uses_output_spatial_size():
    # 3x3, stride 2, padding 1 on 32x32 -> 16x16
    c = cost("aten::convolution", *conv_args([4, 3, 32, 32], [16, 3, 3, 3], [2, 2], [1, 1], [1, 1]))
    assert c.flops == 16 * 16 * 9 * 4 * 16 * 3 * 2
    assert c.bytes == 4 * (4 * 3 * 32 * 32 + 16 * 3 * 9 + 16 + 4 * 16 * 16 * 16)
    assert c.category == "conv"


def test_convolution_with_dilation_and_groups():
    # dilation 2 makes a 3x3 kernel span 5: 20 -> 16; groups=4 shows in the weight's c_in
    c = cost(
        "aten::convolution",
        *conv_args([2, 8, 20, 20], [8, 2, 3, 3], [1, 1], [0, 0], [2, 2], groups=4),
    )
    assert c.flops == 16 * 16 * 9 * 2 * 8 * 2 * 2


def test_transposed_convolution_counts_input_spatial_size():
    c = cost(
        "aten::convolution",
        *conv_args([2, 16, 7, 7], [16, 4, 2, 2], [2, 2], [0, 0], [1, 1], transposed=True),
    )
    assert c.flops == 7 * 7 * 4 * 2 * 16 * 4 * 2
    assert c.bytes == 4 * (2 * 16 * 49 + 16 * 4 * 4 + 4 + 2 * 4 * 14 * 14)  # output 14x14


def test_backend_convolutions_read_their_own_argument_order():
    # mkldnn_convolution(self, weight, bias, padding, stride, dilation, groups)
    mkldnn = cost(
        "aten::mkldnn_convolution",
        [[4, 3, 32, 32], [16, 3, 3, 3], [16], [], [], [], []],
        [F32, F32, F32, "ScalarList", "ScalarList", "ScalarList", "Scalar"],
        ["", "", "", "[1, 1]", "[2, 2]", "[1, 1]", "1"],
    )
    # cudnn_convolution(self, weight, padding, stride, dilation, groups, benchmark, deterministic, tf32)
    cudnn = cost(
        "aten::cudnn_convolution",
        [[4, 3, 32, 32], [16, 3, 3, 3], [], [], [], [], [], [], []],
        [
            F32,
            F32,
            "ScalarList",
            "ScalarList",
            "ScalarList",
            "Scalar",
            "Scalar",
            "Scalar",
            "Scalar",
        ],
        ["", "", "[1, 1]", "[2, 2]", "[1, 1]", "1", "False", "False", "True"],
    )
    generic = cost(
        "aten::convolution", *conv_args([4, 3, 32, 32], [16, 3, 3, 3], [2, 2], [1, 1], [1, 1])
    )
    assert mkldnn.flops == cudnn.flops == generic.flops


def test_convolution_without_concrete_inputs_assumes_op_defaults():
    # old traces: stride 1, padding 0, dilation 1
    c = cost(
        "aten::convolution",
        [[1, 3, 10, 10], [8, 3, 3, 3], [8], [], [], [], [], [], []],
        CONV_TYPES,
        None,
    )
    assert c.flops == 8 * 8 * 9 * 1 * 8 * 3 * 2


BWD_TYPES = [
    F32,
    F32,
    F32,
    "ScalarList",
    "ScalarList",
    "ScalarList",
    "ScalarList",
    "Scalar",
    "ScalarList",
    "Scalar",
    "ScalarList",
]


def conv_bwd(grad_out, x, w, mask, transposed=False):
    dims = [grad_out, x, w, [], [], [], [], [], [], [], []]
    concrete = [
        "",
        "",
        "",
        f"[{grad_out[1]}]",
        "[1, 1]",
        "[1, 1]",
        "[1, 1]",
        str(transposed),
        "[0, 0]",
        "1",
        str(list(mask)),
    ]
    return cost("aten::convolution_backward", dims, BWD_TYPES, concrete)


def test_convolution_backward_honours_output_mask():
    go, x, w = [2, 8, 16, 16], [2, 3, 16, 16], [8, 3, 3, 3]
    forward = 16 * 16 * 9 * 2 * 8 * 3 * 2
    grad_input = conv_bwd(go, x, w, [True, False, False])
    grad_weight = conv_bwd(go, x, w, [False, True, False])
    both = conv_bwd(go, x, w, [True, True, True])
    assert grad_input.flops == forward
    assert grad_weight.flops == forward
    assert both.flops == 2 * forward
    assert conv_bwd(go, x, w, [False, False, True]).flops == 0  # bias grad: no FLOPs counted
    reads = 4 * (2 * 8 * 256 + 2 * 3 * 256 + 8 * 27)
    assert grad_input.bytes == reads + 4 * 2 * 3 * 256
    assert both.bytes == reads + 4 * (2 * 3 * 256 + 8 * 27 + 8)


# --- attention ------------------------------------------------------------------------------


def sdpa_fwd(b, h, s, d):
    return 4 * b * h * s * s * d  # two matmuls of 2*s*s*d per head


def test_sdpa_forward_counts_two_matmuls_causal_or_not():
    q = [2, 8, 128, 64]
    for causal in ("True", "False"):
        c = cost(
            "aten::_scaled_dot_product_flash_attention",
            [q, q, q, [], [], [], []],
            [BF16, BF16, BF16, "Scalar", "Scalar", "Scalar", ""],
            ["", "", "", "0.", causal, "False", ""],
        )
        assert c.flops == sdpa_fwd(2, 8, 128, 64)
        assert (c.category, c.dtype) == ("attention", "bf16")
        assert c.bytes == 2 * 4 * (2 * 8 * 128 * 64)  # q, k, v read, out written


def test_sdpa_backward_is_two_and_a_half_times_forward():
    q = [2, 8, 128, 64]
    for name in (
        "aten::_scaled_dot_product_flash_attention_backward",
        "aten::_scaled_dot_product_efficient_attention_backward",
        "aten::_scaled_dot_product_cudnn_attention_backward",
        "aten::_scaled_dot_product_flash_attention_for_cpu_backward",
    ):
        c = cost(name, [q, q, q, q, q, [2, 8, 128]], [BF16] * 5 + [F32])
        assert c.flops == 2.5 * sdpa_fwd(2, 8, 128, 64), name


def test_flash_kernel_layout_matches_sdpa_layout():
    # _scaled_dot_product_flash_attention hands (b, s, h, d) tensors to _flash_attention_forward;
    # counting both the same lets the innermost one stand for the pair.
    bhsd, bshd = [2, 8, 128, 64], [2, 128, 8, 64]
    outer = cost("aten::_scaled_dot_product_flash_attention", [bhsd] * 3, [BF16] * 3)
    inner = cost(
        "aten::_flash_attention_forward",
        [bshd, bshd, bshd, [], [], [], []],
        [BF16] * 3 + ["", "", "Scalar", "Scalar"],
        ["", "", "", "", "", "128", "128"],
    )
    eff = cost(
        "aten::_efficient_attention_forward", [bshd, bshd, bshd, [], [], []], [BF16] * 3 + [""] * 3
    )
    assert outer.flops == inner.flops == eff.flops == sdpa_fwd(2, 8, 128, 64)
    grad = cost("aten::_flash_attention_backward", [bshd] * 5 + [[2, 8, 128]], [BF16] * 5 + [F32])
    assert grad.flops == 2.5 * outer.flops


def test_grouped_query_attention_counts_query_heads():
    q, kv = [1, 32, 256, 128], [1, 8, 256, 128]
    c = cost("aten::_scaled_dot_product_efficient_attention", [q, kv, kv, []], [BF16] * 3 + [""])
    assert c.flops == sdpa_fwd(1, 32, 256, 128)


def test_varlen_flash_splits_tokens_evenly_over_sequences():
    # three sequences packed as (total_tokens, heads, dim) with cum_seq_q of 4 entries
    t = [3 * 100, 4, 64]
    c = cost(
        "aten::_flash_attention_forward",
        [t, t, t, [4], [4], [], []],
        [BF16] * 3 + ["int", "int", "Scalar", "Scalar"],
        ["", "", "", "", "", "100", "100"],
    )
    assert c.flops == pytest.approx(sdpa_fwd(3, 4, 100, 64))


def test_cross_attention_with_different_lengths_and_value_dim():
    q, k, v = [1, 2, 10, 16], [1, 2, 30, 16], [1, 2, 30, 8]
    c = cost("aten::_scaled_dot_product_flash_attention_for_cpu", [q, k, v], [F32] * 3)
    assert c.flops == 2 * 2 * 10 * 30 * 16 + 2 * 2 * 10 * 30 * 8


# --- norms, elementwise, others -------------------------------------------------------------


def test_layer_norm_forward_and_backward():
    x = [2, 16, 64]
    fwd = cost(
        "aten::native_layer_norm",
        [x, [], [64], [64], []],
        [F32, "ScalarList", F32, F32, "Scalar"],
        ["", "[64]", "", "", "1e-05"],
    )
    assert fwd.category == "norm"
    assert fwd.flops == 5 * 2048
    assert fwd.bytes == 4 * (2048 + 64 + 64 + 2048)
    bwd = cost(
        "aten::native_layer_norm_backward",
        [x, x, [], [2, 16, 1], [2, 16, 1], [64], [64], []],
        [F32, F32, "ScalarList", F32, F32, F32, F32, "ScalarList"],
        ["", "", "[64]", "", "", "", "", "[False, True, True]"],
    )
    assert bwd.flops == 2 * fwd.flops
    assert bwd.bytes == 4 * (2 * 2048 + 32 + 32 + 64 + 64) + 4 * 2 * 64  # no grad_input


def test_batch_norm_training_and_eval():
    x, c = [2, 8, 16, 16], [8]
    types = [F32, F32, F32, F32, F32, "Scalar", "Scalar", "Scalar"]
    train = cost(
        "aten::native_batch_norm",
        [x, c, c, c, c, [], [], []],
        types,
        ["", "", "", "", "", "True", "0.1", "1e-05"],
    )
    evaluate = cost(
        "aten::native_batch_norm",
        [x, c, c, c, c, [], [], []],
        types,
        ["", "", "", "", "", "False", "0.1", "1e-05"],
    )
    assert train.flops == 5 * 4096
    assert evaluate.flops == 2 * 4096
    assert train.bytes == evaluate.bytes == 4 * (2 * 4096 + 4 * 8)
    # eval mode is a per-channel scale and shift: elementwise, not a reduction
    assert (train.category, evaluate.category) == ("norm", "elementwise")
    cudnn = cost("aten::cudnn_batch_norm", [x, c, c, c, c, [], [], []], types, None)
    assert cudnn.flops == train.flops


def test_group_norm_and_rms_norm():
    gn = cost(
        "aten::native_group_norm",
        [[2, 16, 7, 7], [16], [16], [], [], [], [], []],
        [F32, F32, F32] + ["Scalar"] * 5,
        ["", "", "", "2", "16", "49", "4", "1e-05"],
    )
    assert gn.flops == 5 * 2 * 16 * 49
    rms = cost(
        "aten::_fused_rms_norm", [[4, 128], [], [128], []], [BF16, "ScalarList", BF16, "Scalar"]
    )
    assert (rms.flops, rms.dtype) == (4 * 512, "bf16")
    assert rms.bytes == 2 * (512 + 128 + 512)
    no_weight = cost("aten::rms_norm", [[4, 128], [], [], []], [BF16, "ScalarList", "", "Scalar"])
    assert no_weight.flops == 3 * 512


def test_elementwise_broadcasts_and_counts_input_plus_output_bytes():
    add = cost("aten::add", [[2, 16, 64], [64], []], [F32, F32, "Scalar"], ["", "", "1"])
    assert (add.flops, add.category) == (2048, "elementwise")
    assert add.bytes == 4 * (2048 + 64 + 2048)
    inplace = cost("aten::add_", [[64], [64], []], [F32, F32, "Scalar"], ["", "", "1"])
    assert inplace.bytes == 4 * 3 * 64  # read self and other, write self
    gelu = cost("aten::gelu", [[2, 16, 256], []], [BF16, ""])
    assert (gelu.flops, gelu.bytes, gelu.dtype) == (8192, 2 * 2 * 8192, "bf16")


def test_where_writes_the_value_dtype_not_the_mask_dtype():
    c = cost("aten::where", [[64], [64], [64]], ["bool", BF16, BF16])
    assert c.dtype == "bf16"
    assert c.bytes == 64 + 2 * 64 * 2 + 2 * 64


def test_data_movement_has_bytes_but_no_flops():
    copy = cost("aten::copy_", [[32, 192], [32, 192], []], [F32, F32, "Scalar"], ["", "", "False"])
    assert (copy.flops, copy.bytes) == (0, 2 * 4 * 32 * 192)  # self is overwritten, not read
    fill = cost("aten::fill_", [[1024], []], [F32, "Scalar"], ["", "0."])
    assert (fill.flops, fill.bytes) == (0, 4 * 1024)


def test_foreach_ops_sum_over_tensor_lists():
    # optimizer step: params[i] += -lr * grads[i]
    c = cost(
        "aten::_foreach_add_",
        [[[128, 128], [128]], [[128, 128], [128]], []],
        ["TensorList", "TensorList", "Scalar"],
        ["", "", "-0.001"],
    )
    n = 128 * 128 + 128
    assert c.flops == n
    assert c.bytes == 3 * 4 * n


def test_softmax_and_reductions_are_other():
    sm = cost("aten::_softmax", [[4, 128], [], []], [F32, "Scalar", "Scalar"], ["", "-1", "False"])
    assert (sm.category, sm.flops, sm.bytes) == ("other", 0, 2 * 4 * 512)
    total = cost("aten::sum", [[2, 10], []], [F32, ""])
    assert (total.category, total.flops, total.bytes) == ("other", 20, 80)


def test_fp64_and_old_type_names():
    assert cost("aten::mm", [[2, 2], [2, 2]], ["double", "double"]).dtype == "fp64"
    assert cost("aten::add_", [[], [], []], ["long", "long", "Scalar"]).dtype is None


# --- counting a step --------------------------------------------------------------------------


def op(name, ts, dur, dims=None, types=None, concrete=None, tid=1):
    return (name, ts, dur, tid, dims, types, concrete)


MM = ([[8, 8], [8, 8]], [F32, F32])  # 1024 FLOPs
CONV = (
    [[1, 1, 3, 3], [1, 1, 3, 3], [1], [], [], [], [], [], []],
    CONV_TYPES,
    ["", "", "", "[1, 1]", "[0, 0]", "[1, 1]", "False", "[0, 0]", "1"],
)  # 18 FLOPs


def test_nested_conv_chain_counts_once_at_innermost():
    ops = [
        op("aten::conv2d", 0, 100),
        op("aten::convolution", 1, 98, *CONV),
        op(
            "aten::_convolution",
            2,
            96,
            CONV[0] + [[]] * 4,
            CONV[1] + ["Scalar"] * 4,
            CONV[2] + ["False"] * 4,
        ),
        op(
            "aten::mkldnn_convolution",
            3,
            90,
            [[1, 1, 3, 3], [1, 1, 3, 3], [1], [], [], [], []],
            [F32, F32, F32, "ScalarList", "ScalarList", "ScalarList", "Scalar"],
            ["", "", "", "[0, 0]", "[1, 1]", "[1, 1]", "1"],
        ),
    ]
    totals = count_step_flops(ops)
    assert totals.flops_by_category == {"conv": 18}
    assert totals.ops_counted == 1


def test_work_inside_a_gemm_belongs_to_the_gemm():
    ops = [
        op("aten::linear", 0, 100, [[8, 8], [8, 8], [8]], [F32] * 3),
        op("aten::t", 1, 5, [[8, 8]], [F32]),
        op("aten::addmm", 10, 80, [[8], [8, 8], [8, 8], [], []], [F32] * 3 + ["Scalar"] * 2),
        op("aten::copy_", 12, 5, [[8, 8], [8, 8], []], [F32, F32, "Scalar"]),  # bias broadcast
        op("aten::relu", 100, 10, [[8, 8]], [F32]),
        op("aten::clamp_min", 101, 8, [[8, 8], []], [F32, "Scalar"]),
    ]
    totals = count_step_flops(ops)
    assert totals.flops_by_category == {"gemm": 1024, "elementwise": 64}
    assert totals.compute_flops == 1024
    assert totals.ops_counted == 2  # addmm and clamp_min; relu has clamp_min inside


def test_a_batch_norm_counts_once_and_its_running_statistics_copy_is_its_own():
    # torch 2.11, inference_mode: aten::batch_norm -> _batch_norm_impl_index ->
    # native_batch_norm, which copies the 8 running-statistic floats in a child aten::copy_.
    # That copy had hidden the norm (a costed op inside), so no batch norm counted at all.
    x, c = [2, 8, 16, 16], [8]
    types = [F32, F32, F32, F32, F32, "Scalar", "Scalar", "Scalar"]
    conc = ["", "", "", "", "", "False", "0.1", "1e-05"]
    dims = [x, c, c, c, c, [], [], []]
    ops = [
        op("aten::batch_norm", 0, 100, dims + [[]], types + ["Scalar"], conc + ["True"]),
        op("aten::_batch_norm_impl_index", 1, 98, dims + [[]], types + ["Scalar"], conc + ["True"]),
        op("aten::native_batch_norm", 2, 90, dims, types, conc),
        op("aten::copy_", 10, 5, [c, c, []], [F32, F32, "Scalar"]),
        op("aten::relu", 100, 10, [x], [F32]),
    ]
    counted = counted_op_costs(ops)
    assert [i for i, _ in counted] == [2, 4]  # native_batch_norm and relu
    assert counted[0][1].flops == 2 * 4096


def test_same_op_on_two_threads_counts_twice_and_sequential_ops_do_not_nest():
    ops = [
        op("aten::mm", 0, 10, *MM, tid=1),
        op("aten::mm", 5, 10, *MM, tid=2),
        op("aten::mm", 10, 10, *MM, tid=1),
        op("aten::mm", 20, 0, *MM, tid=1),
    ]
    assert count_step_flops(ops).compute_flops == 4 * 1024


def test_dtype_totals_cover_compute_ops_only():
    ops = [
        op("aten::mm", 0, 10, [[8, 8], [8, 8]], [BF16, BF16]),
        op("aten::mm", 20, 10, *MM),
        op("aten::add", 40, 10, [[8], [8], []], [BF16, BF16, "Scalar"]),
    ]
    totals = count_step_flops(ops)
    assert totals.compute_flops_by_dtype == {"bf16": 1024, "fp32": 1024}
    assert set(totals.flops_by_category) - COMPUTE_CATEGORIES == {"elementwise"}
    assert totals.total_bytes == sum(totals.bytes_by_category.values())


def test_bad_timestamps_and_empty_input_survive():
    assert count_step_flops([]).compute_flops == 0
    # unreadable times read as 0: the ops still count, they just cannot nest
    ops = [
        op("aten::mm", None, "x", *MM),
        op("aten::mm", float("nan"), 5, *MM, tid=2),
        op("aten::mm", 100, 5, *MM),
    ]
    assert count_step_flops(ops).compute_flops == 3 * 1024


def test_compute_op_that_launched_nothing_is_dropped():
    # 8th field: did the op launch device work? An aborted op (checkpoint early stop) did not.
    ops = [
        op("aten::mm", 0, 10, *MM) + (True,),
        op("aten::mm", 20, 1, *MM) + (False,),
        op("aten::mm", 40, 10, *MM) + (None,),
    ]
    assert count_step_flops(ops).compute_flops == 2 * 1024
