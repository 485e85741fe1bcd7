"""Mixture-of-experts grouped matmuls in FP32 under autocast: torch._grouped_mm is not an
autocast op, so it runs in the weights' dtype, and in FP32 PyTorch runs it as one product per
expert after reading the group offsets to the host (precision and sync_stall both name it). HF GraniteMoE trained under BF16 autocast
with FP32 weights does this (holdout 85): its experts cast to BF16 measured 42.5% less time."""

from __future__ import annotations

from conftest import REPO
from scenarios import diagnose_trace, finding

from bottleneck_lab.analyze import diagnose
from bottleneck_lab.detectors._examples import BF16, BF16_GEMM, launch, mm_args
from bottleneck_lab.detectors.precision import FP32_SIMT_GEMM, GEMM_N
from bottleneck_lab.trace.load import load_trace
from bottleneck_lab.trace.synth import TraceBuilder

GRANITEMOE = REPO / "traces" / "zoo" / "granitemoe_healthy" / "healthy.json.gz"


def experts_under(op: str, fp32_us: float = 1500.0) -> TraceBuilder:
    """Steps 8000 µs apart: four BF16 4096^3 matmuls (500 µs each), then `op` whose aten::mm
    child runs a 2048 x 4096 x 4096 FP32 product on SIMT cores for fp32_us (a tenth of the
    step's FLOPs, far more of its matrix time), and a sync: the GPU sets the step."""
    b = TraceBuilder()
    for i in range(3):
        t0 = i * 8000.0
        b.step(i + 1, t0, 200)
        for j in range(4):
            launch(
                b, t0 + 5 * j, t0 + 30 + 510 * j, 500, name="aten::mm", kernel=BF16_GEMM,
                grid=(32, 32, 1), op_args=mm_args(GEMM_N, BF16, GEMM_N, GEMM_N), op_us=4,
            )  # fmt: skip
        b.cpu_op(op, t0 + 40, 20)
        launch(
            b, t0 + 42, t0 + 2100, fp32_us, name="aten::mm", kernel=FP32_SIMT_GEMM,
            grid=(16, 32, 1), op_args=mm_args(GEMM_N // 2, "float", GEMM_N, GEMM_N), op_us=8,
        )  # fmt: skip
        b.runtime("cudaStreamSynchronize", t0 + 60, 3700)
    return b


def test_fp32_grouped_matmuls_name_the_experts_not_autocast():
    f = finding(diagnose_trace(experts_under("aten::_grouped_mm")), "precision")
    # 11% of the FLOPs but 43% of the matrix kernels' time: reported on the time
    assert f.evidence["fp32_flops_pct"] < 20 < f.evidence["fp32_kernel_time_pct"]
    assert f.evidence["fp32_kernel_time_in_grouped_matmuls_pct"] == 100.0
    assert "grouped matmuls" in f.title and "autocast does not cover" in f.title
    assert "experts' weights in BF16" in f.fix and "torch.autocast('cuda'" not in f.fix


def test_fp32_outside_grouped_matmuls_keeps_the_autocast_fix():
    f = finding(diagnose_trace(experts_under("aten::linear")), "precision")
    assert f is not None and f.evidence["fp32_kernel_time_in_grouped_matmuls_pct"] == 0.0
    assert "torch.autocast('cuda'" in f.fix and "experts' weights" not in f.fix


def test_a_small_fp32_share_of_flops_and_time_raises_nothing():
    f = finding(diagnose_trace(experts_under("aten::_grouped_mm", fp32_us=100.0)), "precision")
    assert f is None or f.severity == "info"


def test_granitemoe_fp32_experts_are_named():
    d = diagnose(load_trace(GRANITEMOE), path=str(GRANITEMOE))
    f = finding(d, "precision")
    assert f.evidence["fp32_flops_pct"] < 20 and f.evidence["fp32_kernel_time_pct"] > 70
    assert f.evidence["fp32_kernel_time_in_grouped_matmuls_pct"] > 95
    assert "experts' weights in BF16" in f.fix


def test_granitemoe_reads_inside_grouped_matmuls_point_at_the_experts():
    d = diagnose(load_trace(GRANITEMOE), path=str(GRANITEMOE))
    f = finding(d, "sync-stall")
    # every read is the FP32 fallback's offsets (forward once, backward twice, 8 layers x 4)
    assert f.evidence["reads_in_grouped_matmuls_per_step"] == f.evidence["sync_calls_per_step"]
    assert f.fix.startswith("96 of these reads a step are inside torch._grouped_mm")
    assert "experts' weights in BF16" in f.fix
