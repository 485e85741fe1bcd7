"""The memory curve, read from the trace's `[memory]` events (`profile_memory=True`).

Every allocation and free the caching allocator makes is one instant event carrying the
allocator's `Total Allocated` and `Total Reserved` after it, so the curve is exact at every
event: its maximum is what `torch.cuda.max_memory_allocated()` reports over the same steps.

Per step the curve is cut into phases, found from the trace alone:

    forward    ops recorded with a Sequence number (autograd records one for every op run with
               grad enabled) before the backward pass, outside Optimizer.* ranges
    backward   the span of `autograd::engine::evaluate_function: ...` ops (the backward thread
               on GPU, the calling thread on CPU)
    optimizer  the `Optimizer.step#...` ranges

and reported as plain values: the baseline when forward begins (parameters, gradients,
optimizer state), the peak and the op running at it, the growth during forward (activations
kept for backward) and the release during backward.

Activation checkpointing shows up as forward ops re-run inside the backward pass: ops with a
Sequence number (grad enabled) inside an evaluate_function span that are not the autograd node
itself. The backward pass runs with grad disabled, so its own ops carry none.

Times are µs on the trace's clock, sizes are bytes. Curves hold numpy arrays; everything else
is ints, floats, strings and tuples of them. Results are cached on the frame.
"""

from .allocations import (
    CPU,
    CUDA,
    MemoryCurve,
    capacity_bytes,
    curve,
    default_device,
    memory_devices,
    peak_memory_bytes,
)
from .checkpointing import Recompute, StepRecompute, forward_hook_us, recompute, recompute_rows
from .comparison import CheckpointComparison, compare_checkpointing
from .steps import PHASES, MemoryReport, Phase, StepMemory, analyze, op_stack_at, phases

__all__ = [
    "CPU",
    "CUDA",
    "PHASES",
    "CheckpointComparison",
    "MemoryCurve",
    "MemoryReport",
    "Phase",
    "Recompute",
    "StepMemory",
    "StepRecompute",
    "analyze",
    "capacity_bytes",
    "compare_checkpointing",
    "curve",
    "default_device",
    "forward_hook_us",
    "memory_devices",
    "op_stack_at",
    "peak_memory_bytes",
    "phases",
    "recompute",
    "recompute_rows",
]
