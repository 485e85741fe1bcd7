"""Hand-written traces for the detector tests: one bottleneck each (`bad`) and its cure (`good`).

Every scenario is a `TraceBuilder` on the default A100 (108 SMs) with STEPS ProfilerSteps, one
every STEP_US µs. Each step's CPU side is short; the step is extended to the end of the GPU work
it launched, so idle time after its last kernel does not belong to any step. Kernels get grids of
FULL_GRID blocks (>= the SM count) unless a scenario is about small kernels, so that small_batch
stays out of the way. Times below are offsets from the start of the step.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import TYPE_CHECKING

from bottleneck_lab.trace.synth import AUTO, TraceBuilder, load

if TYPE_CHECKING:
    from bottleneck_lab.diagnosis import Diagnosis, Finding

STEPS = 3
STEP_US = 1000.0
FULL_GRID = (216, 1, 1)  # two blocks per SM
SMALL_GRID = (8, 1, 1)  # 8 of 108 SMs
SYNC_NAME = "cudaStreamSynchronize"
BF16 = "c10::BFloat16"
BF16_GEMM = "sm80_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x32"


def steps(b: TraceBuilder, cpu_us: float = 60.0, n: int = STEPS) -> list[float]:
    """Mark n steps whose CPU side lasts cpu_us; return their start times."""
    starts = [i * STEP_US for i in range(n)]
    for i, t0 in enumerate(starts):
        b.step(i + 1, t0, cpu_us)
    return starts


def launch(
    b: TraceBuilder,
    t: float,
    kernel_ts: float,
    kernel_dur: float,
    *,
    name: str = "aten::mul",
    kernel: str = "vectorized_elementwise_kernel",
    grid: tuple = FULL_GRID,
    op_us: float = 8.0,
    **kw,
) -> int | None:
    """An op at t (op_us long) that launches one kernel at t + op_us/4, run at kernel_ts."""
    return b.op_with_kernel(
        name, t, op_us, kernel=kernel, kernel_ts=kernel_ts, kernel_dur=kernel_dur, grid=grid, **kw
    )


# --- gpu-idle: the next kernel was queued long before, yet started late -------------------------


def gpu_idle(bad: bool, **builder_kw) -> TraceBuilder:
    """k1 runs 10-300; k2 is launched at ~12 (queued behind k1) but starts at 600 when bad
    (a 300 µs gap with the queue full), at 300 when good."""
    b = TraceBuilder(**builder_kw)
    for t0 in steps(b, cpu_us=30):
        launch(b, t0, t0 + 10, 290, kernel="gemm_a")
        launch(b, t0 + 10, t0 + (600 if bad else 300), 300, kernel="gemm_b")
    return b


# --- host-bound: the GPU waits while the host runs a long non-launching op (or Python) ---------


def host_bound(bad: bool, python: bool = False) -> TraceBuilder:
    """k1 runs 10-200. When bad, the host then spends 500 µs in a CPU `aten::copy_` (or, with
    python=True, in unrecorded Python: no op at all) and only then launches k2 (~570): the GPU is
    idle 200-570 with nothing queued. When good, k2 is launched at ~22, queued behind k1."""
    b = TraceBuilder()
    for t0 in steps(b, cpu_us=600 if bad else 30):
        launch(b, t0, t0 + 10, 190, kernel="gemm_a")
        if bad:
            if not python:
                b.cpu_op("aten::copy_", t0 + 60, 500)
            launch(b, t0 + 560, t0 + 570, 330, kernel="gemm_b")
        else:
            launch(b, t0 + 20, t0 + 200, 330, kernel="gemm_b")
    return b


# --- data-loading: the GPU idles while the host waits in DataLoader __next__ -------------------

MULTI_WORKER_NEXT = "enumerate(DataLoader)#_MultiProcessingDataLoaderIter.__next__"


def data_loading(bad: bool, workers: bool = False) -> TraceBuilder:
    """Each step fetches a batch (500 µs when bad, 5 µs when good), then launches a 400 µs kernel.
    workers=True names the span as a DataLoader with worker processes does."""
    b = TraceBuilder()
    fetch = 500.0 if bad else 5.0
    for t0 in steps(b, cpu_us=fetch + 20):
        if workers:
            b.annotation(MULTI_WORKER_NEXT, t0, fetch)
        else:
            b.dataloader(t0, fetch)
        launch(b, t0 + fetch + 1, t0 + fetch + 8, 400, kernel="gemm_a")
    return b


# --- sync-stall: .item() blocks in cudaStreamSynchronize until the GPU drains ------------------


def sync_stall(
    bad: bool,
    call: str = SYNC_NAME,
    ops: tuple[str, ...] = ("aten::item", "aten::_local_scalar_dense"),
) -> TraceBuilder:
    """k1 runs 10-400. When bad, the host blocks in `call` (20-402) inside `ops` (outermost first;
    `.item()` by default) until k1 ends; it then uses the value for 300 µs and launches k2 at
    ~712: the GPU idles 400-720. A blocking `cudaMemcpy` also copies 4 bytes DtoH at 400-401.
    When good, k2 is queued at ~22 and nothing syncs."""
    b = TraceBuilder()
    for t0 in steps(b, cpu_us=720 if bad else 30):
        launch(b, t0, t0 + 10, 390, kernel="gemm_a")
        if bad:
            for depth, op in enumerate(ops):
                b.cpu_op(op, t0 + 15 + depth, 390 - 2 * depth)
            corr = b.runtime(call, t0 + 20, 382, correlation=None if call != "cudaMemcpy" else AUTO)
            if call == "cudaMemcpy":
                b.memcpy(
                    t0 + 400,
                    1,
                    correlation=corr,
                    direction="DtoH",
                    src="Device",
                    dst="Pageable",
                    nbytes=4,
                )
            launch(b, t0 + 710, t0 + 720, 200, kernel="gemm_b")
        else:
            launch(b, t0 + 20, t0 + 400, 200, kernel="gemm_b")
    return b


# --- launch-overhead / small-batch: hundreds of tiny kernels, each launched after the last ended --

TINY_KERNELS = 90
TINY_PERIOD_US = 10.0


def tiny_kernels(
    b: TraceBuilder, t0: float, grid: tuple, op_args: dict | None = None, name: str = "aten::add"
) -> None:
    """TINY_KERNELS ops back to back, one every 10 µs; each launches at +2 and its 2 µs kernel
    runs at +7, after the previous kernel ended: the queue is always empty."""
    for i in range(TINY_KERNELS):
        t = t0 + 5 + i * TINY_PERIOD_US
        launch(b, t, t + 7, 2, name=name, grid=grid, op_args=op_args)


OPTIMIZER_STEP = "Optimizer.step#AdamW.step"


def launch_overhead(bad: bool, optimizer: bool = False) -> TraceBuilder:
    """Bad: 90 tiny full-grid kernels per step launched back to back (GPU busy 20%), inside an
    `Optimizer.step#AdamW.step` range when optimizer=True (a for-loop optimizer). Good: the host
    launches as many in 90 µs and each kernel runs 10 µs, queued back to back."""
    b = TraceBuilder()
    for t0 in steps(b, cpu_us=TINY_KERNELS * TINY_PERIOD_US if bad else 100):
        if bad:
            if optimizer:
                b.annotation(OPTIMIZER_STEP, t0 + 1, TINY_KERNELS * TINY_PERIOD_US + 5)
            tiny_kernels(b, t0, FULL_GRID)
        else:
            for i in range(TINY_KERNELS):
                launch(b, t0 + i, t0 + 10 + i * 10, 10, name="aten::add", op_us=1)
    return b


def mm_args(rows: int, dtype: str = "float", k: int = 1024, n: int = 1024) -> dict:
    """Recorded shapes of `aten::mm` on [rows, k] x [k, n] (record_shapes=True)."""
    return {
        "Input Dims": [[rows, k], [k, n]],
        "Input type": [dtype, dtype],
        "Input Strides": [[k, 1], [n, 1]],
        "Concrete Inputs": ["", ""],
    }


def small_batch(bad: bool) -> TraceBuilder:
    """Bad: 16-row BF16 matmuls (aten::mm [[16, 1024], [1024, 1024]]) whose kernels use 8 of 108
    SMs, launched back to back as in launch_overhead. Good: 4096-row matmuls with full grids,
    queued back to back."""
    b = TraceBuilder()
    for t0 in steps(b, cpu_us=TINY_KERNELS * TINY_PERIOD_US if bad else 100):
        if bad:
            tiny_kernels(b, t0, SMALL_GRID, op_args=mm_args(16, BF16), name="aten::mm")
        else:
            for i in range(8):
                launch(
                    b,
                    t0 + i * 10,
                    t0 + 10 + i * 100,
                    100,
                    name="aten::mm",
                    kernel=BF16_GEMM,
                    op_args=mm_args(4096, BF16),
                )
    return b


# --- memcpy: batches copied from pageable host memory ------------------------------------------


def memcpy(bad: bool) -> TraceBuilder:
    """Each step copies a batch HtoD, then runs a 300 µs kernel. Bad: a 400 µs copy from pageable
    memory (2 MiB, ~5 GB/s). Good: a 5 µs copy from pinned memory (128 KiB, ~26 GB/s)."""
    b = TraceBuilder()
    copy_us = 400.0 if bad else 5.0
    for t0 in steps(b, cpu_us=30):
        ext = b.cpu_op("aten::copy_", t0 + 1, 10)
        corr = b.runtime("cudaMemcpyAsync", t0 + 2, 6, external_id=ext)
        b.memcpy(
            t0 + 5,
            copy_us,
            correlation=corr,
            external_id=ext,
            src="Pageable" if bad else "Pinned",
            nbytes=(2 << 20) if bad else (128 << 10),
        )
        launch(b, t0 + 12, t0 + 6 + copy_us, 300, kernel="gemm_a")
    return b


# --- communication: an all-reduce not hidden behind compute ------------------------------------

NCCL_KERNEL = "ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)"
COMM_STREAM = 20


def communication(bad: bool) -> TraceBuilder:
    """Compute runs 10-500 on stream 7; the all-reduce (400 µs, stream 20) runs after it, 510-910,
    when bad, and inside it, 50-450, when good."""
    b = TraceBuilder(rank=0, world_size=2)
    for t0 in steps(b, cpu_us=40):
        launch(b, t0, t0 + 10, 490, kernel="gemm_a")
        launch(
            b,
            t0 + 10,
            t0 + (510 if bad else 50),
            400,
            name="c10d::allreduce_",
            kernel=NCCL_KERNEL,
            stream=COMM_STREAM,
            grid=(2, 1, 1),
        )
    return b


# --- precision: a large FP32 matmul on SIMT cores ----------------------------------------------

GEMM_N = 4096  # 2 * 4096**3 = 137 GFLOP: ~440 µs at the A100's 312 TFLOP/s dense BF16 peak
FP32_SIMT_GEMM = "ampere_sgemm_128x64_nn"
TF32_GEMM = "ampere_tf32_s1688gemm_tf32_128x128_nn"


def precision(bad: bool, kernel: str = FP32_SIMT_GEMM, kernel_us: float = 7000.0) -> TraceBuilder:
    """One 4096^3 aten::mm per step (8000 µs apart). Bad: Input type float, `kernel` for
    kernel_us (7000 µs of ampere_sgemm is 19.6 TFLOP/s, the FP32 SIMT rate). Good: c10::BFloat16
    with an sm80_xmma_gemm_bf16bf16 kernel for 500 µs. The host then waits for the GPU in a
    cudaStreamSynchronize (a loss.item()), so the GPU, not the host, sets the step's length."""
    b = TraceBuilder()
    kernel, dur, dtype = (kernel, kernel_us, "float") if bad else (BF16_GEMM, 500.0, BF16)
    for i in range(STEPS):
        t0 = i * 8000.0
        b.step(i + 1, t0, 30)
        launch(
            b,
            t0,
            t0 + 10,
            dur,
            name="aten::mm",
            kernel=kernel,
            grid=(32, 32, 1),
            op_args=mm_args(GEMM_N, dtype, GEMM_N, GEMM_N),
        )
        b.runtime("cudaStreamSynchronize", t0 + 12, dur)
    return b


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
}


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
            launch(b, t, t + 7, 2, name="aten::add")
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
