"""Work inside a custom autograd Function's backward (torch.autograd.Function written in Python):
it runs outside the autocast region its forward ran in, and what it recomputes is the Function's
own design, not a checkpointing setting. HF Reformer's reversible layers do both (holdout 56)."""

from __future__ import annotations

import pytest
from conftest import REPO
from scenarios import diagnose_trace, finding

from bottleneck_lab.analyze import diagnose
from bottleneck_lab.detectors._examples import BF16, BF16_GEMM, launch, mm_args
from bottleneck_lab.detectors.precision import FP32_SIMT_GEMM, GEMM_N
from bottleneck_lab.trace.load import load_trace
from bottleneck_lab.trace.synth import TraceBuilder

REFORMER = REPO / "traces" / "zoo" / "reformer_healthy" / "healthy.json.gz"
REFORMER_FIXED = REPO / "traces" / "zoo" / "reformer_autocast_backward" / "fixed.json.gz"
CHECKPOINTED = REPO / "traces" / "zoo" / "gpt2_grad_checkpointing" / "bad.json.gz"


def fp32_backward_under(node: str, half_forward: bool = True) -> TraceBuilder:
    """Steps 8000 µs apart: a BF16 4096^3 matmul in the forward (500 µs; left out without
    `half_forward`), then a backward node `node` whose FP32 4096^3 matmul runs on SIMT cores for
    7000 µs, and a sync: the GPU sets the step."""
    b = TraceBuilder()
    for i in range(3):
        t0 = i * 8000.0
        b.step(i + 1, t0, 60)
        if half_forward:
            launch(
                b, t0, t0 + 10, 500, name="aten::mm", kernel=BF16_GEMM, grid=(32, 32, 1),
                op_args=mm_args(GEMM_N, BF16, GEMM_N, GEMM_N),
            )  # fmt: skip
        b.cpu_op(f"autograd::engine::evaluate_function: {node}", t0 + 20, 30)
        launch(
            b, t0 + 22, t0 + 520, 7000, name="aten::mm", kernel=FP32_SIMT_GEMM, grid=(32, 32, 1),
            op_args=mm_args(GEMM_N, "float", GEMM_N, GEMM_N),
        )  # fmt: skip
        b.runtime("cudaStreamSynchronize", t0 + 52, 7400)
    return b


def test_fp32_in_a_custom_functions_backward_names_custom_bwd():
    f = finding(diagnose_trace(fp32_backward_under("_ReversibleFunctionBackward")), "precision")
    assert f is not None and f.severity in ("medium", "high")
    assert f.evidence["custom_function"] == "_ReversibleFunction"
    assert f.evidence["fp32_kernel_time_in_custom_function_backward_pct"] == 100.0
    assert "_ReversibleFunction" in f.title and "outside autocast" in f.title
    assert "torch.amp.custom_bwd" in f.fix and "custom_fwd" in f.fix


@pytest.mark.parametrize(
    ("node", "half_forward"),
    [
        ("MmBackward0", True),  # PyTorch's own node: autocast's own FP32 choice or none at all
        ("CompiledFunctionBackward", True),  # torch.compile keeps the forward's autocast state
        ("_ReversibleFunctionBackward", False),  # no half-precision work: autocast is off
    ],
)
def test_fp32_elsewhere_keeps_the_autocast_fix(node, half_forward):
    f = finding(diagnose_trace(fp32_backward_under(node, half_forward)), "precision")
    assert f is not None and f.evidence["custom_function"] is None
    assert "custom_bwd" not in f.fix and "torch.autocast" in f.fix
    # beside half-precision work, the fix says part of the step runs outside autocast
    assert ("outside autocast" in f.title) == half_forward


def test_reformer_fp32_backward_is_its_reversible_function():
    d = diagnose(load_trace(REFORMER), path=str(REFORMER))
    f = finding(d, "precision")
    # 74% of its FLOPs run FP32, all of them in the reversible layers' backward; decorating that
    # Function measured 137.64 -> 72.38 ms (47.4%, reformer_autocast_backward)
    assert f.evidence["custom_function"] == "_ReversibleFunction"
    assert f.evidence["fp32_kernel_time_in_custom_function_backward_pct"] > 95
    assert "custom_bwd" in f.fix
    fixed = finding(diagnose(load_trace(REFORMER_FIXED), path=str(REFORMER_FIXED)), "precision")
    assert fixed is None or fixed.severity in ("info", "low")


def test_recompute_inside_a_custom_function_is_not_a_setting_to_turn_off():
    r = finding(diagnose(load_trace(REFORMER), path=str(REFORMER)), "recompute")
    assert r.evidence["custom_function"] == "_ReversibleFunction"
    assert r.severity == "low" and "_ReversibleFunction" in r.title
    assert "turn it off" not in r.fix and "not a checkpointing setting" in r.fix
    # gradient checkpointing (non-reentrant: the recompute runs under PyTorch's own nodes) keeps
    # its verdict and its fix
    c = finding(diagnose(load_trace(CHECKPOINTED), path=str(CHECKPOINTED)), "recompute")
    assert c.evidence["custom_function"] is None and "checkpoint" in c.fix
    assert c.severity in ("medium", "high")
