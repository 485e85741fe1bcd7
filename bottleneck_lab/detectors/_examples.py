"""What the detectors' examples share: each is a `TraceBuilder` on the default A100 (108 SMs)
with STEPS ProfilerSteps, one every STEP_US µs. Each step's CPU side is short; the step is
extended to the end of the GPU work it launched, so idle time after its last kernel does not
belong to any step. Kernels get grids of FULL_GRID blocks (>= the SM count) unless an example is
about small kernels, so that small_batch stays out of the way. Times are offsets from the start
of the step. Each detector module's `example(bad)` builds its positive (bad=True: the
bottleneck) and negative (bad=False: its cure) trace."""

from __future__ import annotations

from ..trace.synth import TraceBuilder

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
    name: str = "aten::linear",
    kernel: str = "vectorized_elementwise_kernel",
    grid: tuple = FULL_GRID,
    op_us: float = 8.0,
    **kw,
) -> int | None:
    """An op at t (op_us long) that launches one kernel at t + op_us/4, run at kernel_ts."""
    return b.op_with_kernel(
        name, t, op_us, kernel=kernel, kernel_ts=kernel_ts, kernel_dur=kernel_dur, grid=grid, **kw
    )


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


def mm_args(rows: int, dtype: str = "float", k: int = 1024, n: int = 1024) -> dict:
    """Recorded shapes of `aten::mm` on [rows, k] x [k, n] (record_shapes=True)."""
    return {
        "Input Dims": [[rows, k], [k, n]],
        "Input type": [dtype, dtype],
        "Input Strides": [[k, 1], [n, 1]],
        "Concrete Inputs": ["", ""],
    }
