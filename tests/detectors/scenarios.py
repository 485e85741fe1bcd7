"""Hand-written traces for the detector tests: one bottleneck each (`bad`) and its cure (`good`).

The single-detector scenarios are the detectors' own examples (`example(bad)` beside each
detector, conventions in bottleneck_lab/detectors/_examples.py); the traces below mix causes,
threads and ranks for the engine tests.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import TYPE_CHECKING

from bottleneck_lab.detectors._examples import (
    BF16,
    BF16_GEMM,
    FULL_GRID,
    SMALL_GRID,
    STEP_US,
    STEPS,
    SYNC_NAME,
    TINY_KERNELS,
    TINY_PERIOD_US,
    launch,
    mm_args,
    steps,
    tiny_kernels,
)
from bottleneck_lab.detectors.cold_start import example as cold_start
from bottleneck_lab.detectors.communication import COMM_STREAM, NCCL_KERNEL
from bottleneck_lab.detectors.communication import example as communication
from bottleneck_lab.detectors.data_loading import MULTI_WORKER_NEXT
from bottleneck_lab.detectors.data_loading import example as data_loading
from bottleneck_lab.detectors.expert_loop import example as expert_loop
from bottleneck_lab.detectors.host_bound import example as host_bound
from bottleneck_lab.detectors.idle_gaps import example as gpu_idle
from bottleneck_lab.detectors.launch_overhead import OPTIMIZER_STEP
from bottleneck_lab.detectors.launch_overhead import example as launch_overhead
from bottleneck_lab.detectors.memcpy import example as memcpy
from bottleneck_lab.detectors.precision import FP32_SIMT_GEMM, GEMM_N, TF32_GEMM
from bottleneck_lab.detectors.precision import example as precision
from bottleneck_lab.detectors.prefix_recompute import example as prefix_recompute
from bottleneck_lab.detectors.small_batch import example as small_batch
from bottleneck_lab.detectors.sync_stall import example as sync_stall
from bottleneck_lab.trace.synth import TraceBuilder, load

if TYPE_CHECKING:
    from bottleneck_lab.diagnosis import Diagnosis, Finding

# The detectors' own examples (each module's `example(bad)`), under the names the tests use.
SCENARIOS: dict[str, Callable[[bool], TraceBuilder]] = {
    "gpu-idle": gpu_idle,
    "host-bound": host_bound,
    "data-loading": data_loading,
    "sync-stall": sync_stall,
    "launch-overhead": launch_overhead,
    "small-batch": small_batch,
    "memcpy": memcpy,
    "communication": communication,
    "precision": precision,
    "cold-start": cold_start,
    "expert-loop": expert_loop,
    "prefix-recompute": prefix_recompute,
}
__all__ = [
    "BF16",
    "BF16_GEMM",
    "COMM_STREAM",
    "FP32_SIMT_GEMM",
    "FULL_GRID",
    "GEMM_N",
    "MULTI_WORKER_NEXT",
    "NCCL_KERNEL",
    "OPTIMIZER_STEP",
    "SMALL_GRID",
    "STEP_US",
    "STEPS",
    "SYNC_NAME",
    "TF32_GEMM",
    "TINY_KERNELS",
    "TINY_PERIOD_US",
    "mm_args",
    "tiny_kernels",
]


# --- every idle cause in one step; traces for the engine tests ---------------------------------


def mixed(n_steps: int = STEPS) -> TraceBuilder:
    """Steps 2000 µs apart, each with one gap of each cause, in this order:

    data_loading     0-310   DataLoader __next__ 0-300, then k1 runs 310-400
    sync_stall     600-860   k2 (queued) runs 400-600 while .item() blocks in
                             cudaStreamSynchronize 332-603; Python until k3 is launched at 850
    host_bound     900-1070  a CPU aten::copy_ 860-1060 after k3 (860-900); k4 at 1070-1100
    launch_overhead ~79 µs   10 tiny full-grid kernels launched back to back 1100-1200
    gpu_idle      1300-1420  k6 is queued at ~1207 behind k5 (1210-1300) but starts at 1420
    """
    b = TraceBuilder()
    for i in range(n_steps):
        t0 = i * 2000.0
        b.step(i + 1, t0, 1210)
        b.dataloader(t0, 300)
        launch(b, t0 + 302, t0 + 310, 90, kernel="gemm_k1")
        launch(b, t0 + 320, t0 + 400, 200, kernel="gemm_k2")
        b.cpu_op("aten::item", t0 + 330, 275)
        b.cpu_op("aten::_local_scalar_dense", t0 + 331, 273)
        b.runtime(SYNC_NAME, t0 + 332, 271, correlation=None)
        launch(b, t0 + 848, t0 + 860, 40, kernel="gemm_k3")
        b.cpu_op("aten::copy_", t0 + 860, 200)
        launch(b, t0 + 1062, t0 + 1070, 30, kernel="gemm_k4")
        for j in range(10):
            t = t0 + 1100 + j * TINY_PERIOD_US
            launch(b, t, t + 7, 2)
        launch(b, t0 + 1200, t0 + 1210, 90, kernel="gemm_k5")
        launch(b, t0 + 1202, t0 + 1420, 80, kernel="gemm_k6")
    return b


def cpu_only(bad: bool = True) -> TraceBuilder:
    """No GPU at all: ops, steps and (500 µs when bad) DataLoader fetches on the CPU."""
    b = TraceBuilder(gpus=[])
    for t0 in steps(b, cpu_us=900):
        b.dataloader(t0, 500 if bad else 5)
        b.cpu_op("aten::mm", t0 + 510, 300)
    return b


def kernels_without_runtime() -> TraceBuilder:
    """Kernels and steps but no runtime (launch) calls, as in a trace cut down to GPU events."""
    b = TraceBuilder(flows=False)
    for t0 in steps(b):
        b.kernel("gemm_a", t0 + 10, 290, correlation=None, grid=FULL_GRID)
        b.kernel("gemm_b", t0 + 600, 300, correlation=None, grid=FULL_GRID)
    return b


def rocm_small_grid() -> TraceBuilder:
    """The small_batch trace as ROCm writes it: the grid is an arg of hipLaunchKernel, and the
    kernel event carries none (see the MI250 external trace)."""
    b = TraceBuilder(rocm=True)
    for t0 in steps(b, cpu_us=TINY_KERNELS * TINY_PERIOD_US):
        for i in range(TINY_KERNELS):
            t = t0 + 5 + i * TINY_PERIOD_US
            ext = b.cpu_op("aten::mm", t, 8, args=mm_args(16, BF16))
            corr = b.runtime(
                "hipLaunchKernel",
                t + 2,
                4,
                external_id=ext,
                args={"grid": list(SMALL_GRID), "block": [256, 1, 1]},
            )
            b.kernel(
                "Cijk_Alik_Bljk_BBS_BH_MT16x16x64", t + 7, 2, correlation=corr, external_id=ext
            )
    return b


# --- two threads, two ranks -------------------------------------------------------------------


def split_idle(rank: int, host_bound_us: float, gpu_idle_us: float) -> TraceBuilder:
    """One rank of a 2-rank job whose steps idle host_bound_us + gpu_idle_us (+10 µs of launch)
    per step: k2 is queued at ~12 but starts gpu_idle_us after k1 ends (at 100); after k2 the host
    sits in a CPU aten::copy_ and launches k3 host_bound_us after k2 ended."""
    b = TraceBuilder(rank=rank, world_size=2)
    for t0 in steps(b, cpu_us=700):
        launch(b, t0, t0 + 10, 90, kernel="gemm_a")
        launch(b, t0 + 10, t0 + 100 + gpu_idle_us, 50, kernel="gemm_b")
        k2_end = t0 + 150 + gpu_idle_us
        b.cpu_op("aten::copy_", t0 + 20, k2_end + host_bound_us - 10 - (t0 + 20))
        launch(b, k2_end + host_bound_us - 8, k2_end + host_bound_us, 100, kernel="gemm_c")
    return b


AUTOGRAD_TID = 4243  # PyTorch runs backward on its own thread


def two_threads() -> TraceBuilder:
    """Backward on the autograd thread launches 3 kernels per step (10-190); the Python thread,
    which launches fewer, then runs a 300 µs CPU aten::_foreach_add_ (40-340) and launches the
    optimizer's kernel at ~344 (runs 350-550): the GPU idles 190-350 waiting on the Python thread."""
    b = TraceBuilder()
    for t0 in steps(b, cpu_us=600):
        for j in range(3):
            launch(
                b,
                t0 + j * 10,
                t0 + 10 + j * 60,
                60,
                tid=AUTOGRAD_TID,
                name="autograd::engine::evaluate_function: AddmmBackward0",
                kernel="gemm_bwd",
            )
        b.cpu_op("aten::_foreach_add_", t0 + 40, 300)
        launch(
            b,
            t0 + 342,
            t0 + 350,
            200,
            name="aten::_foreach_mul_",
            kernel="multi_tensor_apply_kernel",
        )
    return b


# --- running them ------------------------------------------------------------------------------


def diagnose_trace(b: TraceBuilder, **kw) -> Diagnosis:
    """Write, load and diagnose one builder's trace (kw go to analyze.diagnose)."""
    from bottleneck_lab.analyze import diagnose

    return diagnose([load(b)], **kw)


@cache
def diagnosed(name: str, bad: bool) -> Diagnosis:
    """The diagnosis of SCENARIOS[name](bad), computed once per session (do not modify it)."""
    return diagnose_trace(SCENARIOS[name](bad))


def finding(d: Diagnosis, code: str) -> Finding | None:
    return next((f for f in d.findings if f.code == code), None)


def serious(d: Diagnosis) -> list[Finding]:
    """Findings of severity medium or high, in ranked order."""
    return [f for f in d.findings if f.severity in ("medium", "high")]
