"""Traces captured without record_shapes=True: precision reads the precision from kernel names
(op_flops.kernel_dtype_by_name), fusion takes a kernel's time for its bytes, and both must
promise what they promise with the shapes."""

from __future__ import annotations

import pandas as pd
import pytest
from conftest import EXTERNAL_TRACES, REPO

from bottleneck_lab.analyze import diagnose
from bottleneck_lab.detectors import fusion, precision
from bottleneck_lab.efficiency import kernel_flops, memory_bound_kernels
from bottleneck_lab.op_flops import (
    kernel_dtype_by_name,
    named_matrix_kernels,
    named_memory_bound_ops,
    op_costs,
)
from bottleneck_lab.trace.load import load_frame

ZOO = REPO / "traces" / "zoo"


# Kernel names from the H100 traces of traces/zoo and the V100 external trace, and the
# precision they compute in.
NAMED = {
    "nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_NNT": "bf16",
    "nvjet_sm90_hsh_192x128_64x5_1x2_h_bz_coopB_bias_TNT": "fp16",
    "sm90_xmma_fprop_implicit_gemm_bf16bf16_bf16f32_f32_nhwckrsc_nhwc_tilesize128x128x64": "bf16",
    "void implicit_convolve_sgemm<__nv_bfloat16, __nv_bfloat16, 128, 6, 7, 3, 3, 5, 1>": "bf16",
    "cudnn_generated_fort_native_sdpa_sm90_flash_fprop_wgmma_f16_knob_7_64x128x64": "fp16",
    "sm90_xmma_gemm_f32f32_tf32f32_f32_tn_n_tilesize128x64x32_warpgroupsize1x1x1": "tf32",
    "void cutlass::Kernel2<cutlass_80_tensorop_s1688gemm_128x128_32x3_nt_align4>": "tf32",
    "sm80_xmma_gemm_f32f32_f32f32_f32_tn_n_tilesize128x128x8_stage3_warpsize2x2x1_ffma": "fp32",
    "void cutlass::Kernel2<cutlass_80_simt_sgemm_128x256_8x4_nt_align1>": "fp32",
    "fmha_cutlassB_f32_aligned_64x64_k64_sm80": "fp32",
    "volta_sgemm_64x64_nt": "fp32",
    "cudnn_infer_volta_scudnn_128x64_relu_medium_nn_v1": "fp32",
    "void cudnn::detail::dgrad_engine<float, 512, 6, 5, 3, 3, 3, false>": "fp32",
    "dgrad2d_c1_k1_nhwc_specialized": None,
    # a model made .double() (holdout 38): FP64 tensor-core kernels, Hopper's and Ampere's
    "sm90_xmma_gemm_f64f64_f64f64_f64_nn_n_tilesize128x64x16_stage3_warpsize2x2x1_tensor16x8x8_"
    "execute_kernel__5x_cublas": "fp64",
    "void cutlass::Kernel2<cutlass_80_tensorop_d884gemm_128x64_16x3_tn_align1>": "fp64",
}


def test_kernel_names_tell_the_precision():
    names = pd.Series(list(NAMED), dtype="category")
    assert dict(zip(NAMED, kernel_dtype_by_name(names))) == NAMED


def _frames(run: str):
    """The zoo run as captured, and as a capture without record_shapes=True gives it."""
    path = ZOO / f"{run}.json.gz"
    if not path.is_file():
        pytest.skip(f"{path} is absent")
    shaped, bare = load_frame(path), load_frame(path)
    bare.cpu_ops[["input_dims", "input_type", "concrete_inputs"]] = None
    return shaped, bare


def _found_both_ways(detector, run: str):
    """The detector's one finding on the run with its shapes and without, the latter saying it
    had none, at the same severity."""
    shaped, bare = _frames(run)
    (with_shapes,) = detector.detect(shaped, detector.Config())
    (without,) = detector.detect(bare, detector.Config())
    assert "no recorded shapes" in without.title
    assert without.severity == with_shapes.severity
    return with_shapes, without


# FP32 runs: plain FP32 matmuls in a LayerNorm transformer (Swin-T), TF32 convolutions in a
# BatchNorm CNN whose activations BF16 halves (ResNet-50), plain FP32 in an HF decoder (GPT-2);
# FP64 in an MLP made .double() (its kernels' names say f64f64 and d884gemm)
@pytest.mark.parametrize(
    "run",
    [
        "swin_t_fp32_precision/bad",
        "resnet50_precision/bad",
        "gpt2_fp32_precision/bad",
        "mlp_float64/bad",
    ],
)
def test_precision_without_shapes_promises_what_it_does_with_them(run):
    with_shapes, without = _found_both_ways(precision, run)
    assert with_shapes.evidence["flops_source"] == "recorded shapes"
    assert without.evidence["flops_source"].startswith("kernel names")
    saved = [f.evidence["gpu_time_saved_us_per_step"] for f in (with_shapes, without)]
    assert saved[1] == pytest.approx(saved[0], rel=0.1)
    assert without.share_pct == pytest.approx(with_shapes.share_pct, abs=3.0)


def test_fp64_kernels_without_shapes_are_fp64_flops():
    _, bare = _frames("mlp_float64/bad")
    (f,) = precision.detect(bare, precision.Config())
    assert f.evidence["fp64_flops_pct"] >= 90 and "FP64" in f.title


@pytest.mark.parametrize(
    "run",
    [
        "swin_t_fp32_precision/fixed",  # the same models in BF16
        "resnet50_precision/fixed",
        "gpt2_fp32_precision/fixed",
        "llama_compile/bad",  # BF16, with RMSNorm's FP32 upcasts
        "vit_b16_healthy/healthy",
    ],
)
def test_no_precision_finding_without_shapes_on_half_precision_runs(run):
    _, bare = _frames(run)
    assert precision.detect(bare, precision.Config()) == []


def test_matrix_and_memory_bound_kernels_without_shapes_match_the_recorded_ones():
    shaped, bare = _frames("swin_t_fp32_precision/bad")
    named = named_matrix_kernels(bare)
    assert set(named["dtype"].dropna()) == {"fp32"}
    # every kernel with recorded matrix FLOPs is found by its op's name alone
    k = kernel_flops(shaped)
    recorded = k.index[(k["flops"] > 0).to_numpy() & (k["step"] >= 0).to_numpy()]
    assert set(recorded) <= set(named.index)
    mb_shaped, mb_bare = memory_bound_kernels(shaped), memory_bound_kernels(bare)
    assert mb_bare["bytes"].isna().all()
    fp32 = [float(m.loc[m["dtype"] == "fp32", "dur"].sum()) for m in (mb_shaped, mb_bare)]
    assert fp32[1] == pytest.approx(fp32[0], rel=0.1)


def test_the_fp32_v100_cnn_without_shapes_is_told_to_use_fp16():
    """A DDP CNN on V100s in FP32, traced without shapes (an external trace): its SIMT
    convolutions and sgemms carry the step, and V100 has FP16 tensor cores, not BF16."""
    path = next((EXTERNAL_TRACES / "v100_cnn_ddp_ns_resolution").glob("*.json*"), None)
    if path is None:
        pytest.skip("external V100 trace absent")
    d = diagnose([load_frame(path)])
    (f,) = [x for x in d.findings if x.kind == "precision"]
    assert f.evidence["target_dtype"] == "fp16"
    assert f.evidence["flops_source"].startswith("kernel names")
    assert f.evidence["fp32_flops_pct"] >= 90.0
    assert "GradScaler" in f.fix


def test_memory_bound_ops_by_name_are_the_ones_the_shapes_count():
    """named_memory_bound_ops follows counted_op_costs' nesting rule: under autocast the cast
    inside aten::layer_norm counts, not the norm (ViT-B/16 in BF16)."""
    shaped, bare = _frames("vit_b16_healthy/healthy")
    oc = op_costs(shaped)
    recorded = oc.loc[oc["category"].isin(("elementwise", "norm", "other")) & (oc["bytes"] > 0)]
    named = named_memory_bound_ops(bare)
    assert set(recorded["row"]) <= set(named["row"])
    extra = sorted(set(named["row"]) - set(recorded["row"]))
    # only the optimizer's foreach ops, which memory_bound_kernels leaves out
    assert {str(n) for n in bare.cpu_ops["name"].to_numpy()[extra]} == {"aten::_foreach_add_"}
    categories = dict(zip(named["row"], named["category"]))
    assert all(categories[r] == c for r, c in zip(recorded["row"], recorded["category"]))


# Eager runs whose fusion finding (torch.compile measured 31-50% on them) rests on chains
# (GPT-2's tanh GELU), layout copies (Swin-T's window partition) and chains beside fused
# attention (Llama's RoPE)
@pytest.mark.parametrize(
    "run", ["gpt2_gelu_fusion/bad", "swin_t_compile/bad", "llama_compile/bad", "t5_compile/bad"]
)
def test_fusion_without_shapes_promises_what_it_does_with_them(run):
    with_shapes, without = _found_both_ways(fusion, run)
    assert with_shapes.evidence["bytes_source"] == "recorded shapes"
    assert without.evidence["bytes_source"].startswith("kernel time")
    assert without.evidence["bytes_moved_per_step"] is None
    assert without.share_pct == pytest.approx(with_shapes.share_pct, abs=3.0)
    # layout copies told by PyTorch's same-dtype copy kernel, attention by its ops' names
    for key in ("layout_copy_us_per_step", "attention_us_per_step"):
        assert without.evidence[key] == with_shapes.evidence[key]
