"""Real traces from other GPUs and PyTorch versions (../shared/external-traces or
$BOTTLENECK_LAB_EXTERNAL_TRACES); skipped when that folder is absent."""

import gzip
import json

import pytest
from conftest import EXTERNAL_TRACES as EXTERNAL

from bottleneck_lab.flops import count_step_flops, match_device

pytestmark = pytest.mark.skipif(not EXTERNAL.is_dir(), reason="no external traces")


def load(relative):
    path = EXTERNAL / relative
    if not path.exists():
        pytest.skip(f"{relative} missing")
    with gzip.open(path) as f:
        return json.load(f)


def cpu_ops(trace):
    return [
        (
            e["name"],
            e.get("ts"),
            e.get("dur"),
            e.get("tid"),
            e["args"].get("Input Dims"),
            e["args"].get("Input type"),
            e["args"].get("Concrete Inputs"),
        )
        for e in trace["traceEvents"]
        if e.get("cat") in ("cpu_op", "Operator") and e.get("ph") == "X" and "args" in e
    ]


@pytest.mark.parametrize(
    "relative,expected",
    [
        ("a100_80gb_torchrec_16rank_record_shapes/rank0.json.gz", "NVIDIA A100 80GB SXM4"),
        ("a100_cnn_ddp2_nccl_collective_args/nccl_data.json.gz", "NVIDIA A100 40GB SXM4"),
        ("v100_ddp2_sgd_profile_memory/df_index_resolver.json.gz", "NVIDIA V100 SXM2"),
        ("gp100_gpu_user_annotation/step_based_trace_2543932.json.gz", "NVIDIA Quadro GP100"),
        (
            "amd_mi250_rocm62_toy_train/mi250_minitoy_train_ROCm6_2_kineto.json.gz",
            "AMD Instinct MI250 (one GCD) / MI210",
        ),
    ],
)
def test_device_properties_match_the_table(relative, expected):
    props = load(relative)["deviceProperties"]
    assert match_device(props[0]).name == expected


def test_torchrec_trace_without_concrete_inputs():
    # 2023 trace: record_shapes but no "Concrete Inputs", old type names ("long", "int")
    totals = count_step_flops(
        cpu_ops(load("a100_80gb_torchrec_16rank_record_shapes/rank0.json.gz"))
    )
    assert totals.flops_by_category.get("gemm", 0) > 1e9
    assert set(totals.compute_flops_by_dtype) == {"fp32"}


def test_mi250_toy_train_counts_its_matmuls():
    totals = count_step_flops(
        cpu_ops(load("amd_mi250_rocm62_toy_train/mi250_minitoy_train_ROCm6_2_kineto.json.gz"))
    )
    assert totals.flops_by_category["gemm"] > 0
    assert totals.flops_by_category["elementwise"] > 0  # relu, optimizer _foreach_add_
