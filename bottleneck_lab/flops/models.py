"""FLOP and byte model of aten ops, computed from what a Kineto trace records.

A cpu_op event recorded with ``record_shapes=True`` carries ``Input Dims``, ``Input type`` and
``Concrete Inputs``. ``op_cost`` turns those into an ``OpCost``; ``count_step_flops`` sums the
costs of a step without counting nested ops twice.

This module is the registry (aten name -> model) and the op walk. Each op family's model lives
in its own module: matmul, conv, attention, rnn, norm, elementwise; args reads an op's arguments.

Conventions (chosen so totals compare with ``torch.utils.flop_counter.FlopCounterMode``):

- Only leaf compute ops carry FLOPs. ``aten::linear``, ``aten::matmul``, ``aten::conv2d``,
  ``aten::scaled_dot_product_attention`` and other composite wrappers return ``None``: their work
  is counted once, at the op below them that launches the kernel (``aten::addmm``, ``aten::mm``,
  ``aten::bmm``, ``aten::convolution`` ...).
- The "gemm", "conv" and "attention" categories use FlopCounterMode's formulas exactly: 2*m*n*k
  per matmul, bias and scaling ignored; convolution counted from the output (input for transposed)
  spatial size; convolution backward honours ``output_mask`` (grad_input, grad_weight; the bias
  gradient carries no FLOPs); attention counts the two batched matmuls (Q@K^T, P@V), backward
  counts five (2.5x forward). Their sum is the FlopCounterMode-comparable total, but for a
  grouped convolution's weight gradient, which FlopCounterMode counts `groups` times over
  (flops/conv.py; ``flopcountermode_flops`` adds that back for comparisons).
- On GPUs SDPA ops call ``_flash_attention_*`` / ``_efficient_attention_*`` with q, k, v
  transposed to (batch, seq, heads, dim). Those inner ops are read in that layout so they agree
  with the SDPA op above them, which is the one FlopCounterMode counts. (FlopCounterMode's own
  formula for the inner ops, used only when they are called directly, reads them as
  (batch, heads, seq, dim).)
- Attention is counted as if unmasked, like FlopCounterMode: a causal mask does not halve the
  count, even though flash kernels skip the masked half.
- Attention ops FlopCounterMode does not register but which do the same work are counted too:
  the CPU kernels ``_scaled_dot_product_flash_attention_for_cpu`` (+backward). On a CPU trace the
  total is then higher than a plain FlopCounterMode count by exactly that attention work.
- cuDNN's recurrent layers (``_cudnn_rnn`` and its backward: nn.LSTM, nn.GRU, nn.RNN on a GPU)
  are matrix work FlopCounterMode counts as zero; their own category "rnn" counts them as it
  counts the same products written out (flops/rnn.py). ``compute_flops`` includes them,
  ``flopcountermode_flops`` is the FlopCounterMode-comparable total without them.
- "norm", "elementwise" and "other" FLOPs are estimates reported apart from that total: one FLOP
  per output element for elementwise math (a transcendental counts as one), 4 per element for a
  normalisation (5 with an affine weight, fvcore's convention; 1 or 2 for batch norm in eval),
  backward twice the forward. Data movement (copy_, fill_) and softmax carry bytes only.
- Bytes are a minimum-traffic model: every tensor input read once plus every output written
  once. Small statistics outputs (mean, rstd, logsumexp) are left out. TensorList elements
  carry no dtype in the trace; they take the op's first known tensor dtype (else 4 bytes).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from .args import CATEGORIES, COMPUTE_CATEGORIES, FLOPCOUNTERMODE_CATEGORIES, OpCost, _Args
from .attention import _ATTENTION_SPECS, _attention_cost
from .conv import _CONV_SPECS, _conv_backward_cost, _conv_cost
from .elementwise import (
    _ELEMENTWISE_FLOPS,
    _REDUCTIONS,
    _SOFTMAX,
    _bytes_only_cost,
    _elementwise_cost,
    _foreach_cost,
    _fused_optimizer_cost,
)
from .matmul import _gemm_cost, _grouped_mm_cost
from .norm import _NORM_SPECS, _norm_cost
from .rnn import _rnn_cost

__all__ = [
    "ATTENTION_OPS",
    "BATCH_NORM_OPS",
    "CATEGORIES",
    "COMPUTE_CATEGORIES",
    "FlopTotals",
    "MATRIX_OPS",
    "OpCost",
    "OpRecord",
    "count_step_flops",
    "counted_op_costs",
    "memory_bound_category",
    "op_cost",
]


# --- dispatch ------------------------------------------------------------------------------------

_GEMM_OPS: dict[str, Callable[[_Args], OpCost | None]] = {
    "mm": lambda a: _gemm_cost(a, 0, batched=False),
    "addmm": lambda a: _gemm_cost(a, 1, batched=False),
    "bmm": lambda a: _gemm_cost(a, 0, batched=True),
    "baddbmm": lambda a: _gemm_cost(a, 1, batched=True),
    "_scaled_mm": lambda a: _gemm_cost(a, 0, batched=False, out_dtype_idx=6),
    "_grouped_mm": lambda a: _grouped_mm_cost(a, offs_idx=2),
    "_scaled_grouped_mm": lambda a: _grouped_mm_cost(a, offs_idx=4),
}
_OPS: dict[str, Callable[[_Args], OpCost | None]] = {
    **_GEMM_OPS,
    "convolution_backward": _conv_backward_cost,
    "_fused_adam_": lambda a: _fused_optimizer_cost(a, (0, 2, 3)),
    "_fused_adamw_": lambda a: _fused_optimizer_cost(a, (0, 2, 3)),
    "_fused_sgd_": lambda a: _fused_optimizer_cost(a, (0, 2)),
    "_cudnn_rnn": lambda a: _rnn_cost(a, backward=False),
    "_cudnn_rnn_backward": lambda a: _rnn_cost(a, backward=True),
}
for _name, _conv_spec in _CONV_SPECS.items():
    _OPS[_name] = lambda a, s=_conv_spec: _conv_cost(a, s)
for _name, _attn_spec in _ATTENTION_SPECS.items():
    _OPS[_name] = lambda a, s=_attn_spec: _attention_cost(a, s)
for _name, _norm_spec in _NORM_SPECS.items():
    _OPS[_name] = lambda a, s=_norm_spec: _norm_cost(a, s)
for _name in _ELEMENTWISE_FLOPS:
    for _variant in (_name, _name + "_"):  # in-place add_ costs what add costs
        _OPS[_variant] = lambda a, b=_name: _elementwise_cost(a, b)
        _OPS["_foreach_" + _variant] = lambda a, b=_name: _foreach_cost(a, b)
for _name in _SOFTMAX | _REDUCTIONS:
    _OPS[_name] = lambda a, b=_name: _bytes_only_cost(a, b)

# The category op_cost gives elementwise, normalisation and bytes-only ops, by name alone (a
# trace without recorded shapes). Batch norm in eval mode, "elementwise" from its shapes, is
# "norm" here.
_MEMORY_BOUND_CATEGORY = {
    **{
        f"aten::{prefix}{name}{suffix}": "elementwise"
        for name in _ELEMENTWISE_FLOPS
        for prefix in ("", "_foreach_")
        for suffix in ("", "_")
    },
    **{"aten::" + name: "norm" for name in _NORM_SPECS},
    **{"aten::" + name: "other" for name in _SOFTMAX | _REDUCTIONS},
}


def memory_bound_category(name: str) -> str | None:
    """The category ("elementwise", "norm" or "other") of an op op_cost models as memory-bound
    work, None for any other op."""
    return _MEMORY_BOUND_CATEGORY.get(name)


# The attention ops (fused SDPA and its flash, memory-efficient and cuDNN kernels' ops), by name.
ATTENTION_OPS = frozenset("aten::" + name for name in _ATTENTION_SPECS)

# The ops whose kernels do matmul, convolution or attention work, by name: a trace without
# recorded shapes still names them, so their kernels are known to be matrix work.
MATRIX_OPS = frozenset(
    "aten::" + name
    for name in (
        *_GEMM_OPS,
        "convolution_backward",
        *_CONV_SPECS,
        *_ATTENTION_SPECS,
        "_cudnn_rnn",
        "_cudnn_rnn_backward",
    )
)


def op_cost(
    name: str,
    input_dims: list | None,
    input_types: list | None,
    concrete_inputs: list | None,
) -> OpCost | None:
    """FLOPs and bytes of one aten op from its recorded shapes; None for ops without a model
    (composite wrappers such as aten::linear, non-aten ops, or arguments that make no sense)."""
    if not isinstance(name, str) or not name.startswith("aten::"):
        return None
    model = _OPS.get(name[len("aten::") :])
    if model is None:
        return None
    try:
        return model(_Args(input_dims, input_types, concrete_inputs))
    except (ValueError, TypeError, IndexError, ZeroDivisionError):
        return None  # shapes that do not fit the op: a damaged or unusual trace, not a crash


# --- a step's total, counting nested ops once ----------------------------------------------------


@dataclass(frozen=True)
class FlopTotals:
    flops_by_category: dict[str, float]
    bytes_by_category: dict[str, float]
    # gemm + conv + attention + rnn FLOPs by dtype ("unknown" when the trace gives none)
    compute_flops_by_dtype: dict[str, float]
    ops_counted: int
    # what FlopCounterMode counts beyond these ops' work (grouped convolutions' weight gradients)
    flopcountermode_extra: float = 0.0

    @property
    def compute_flops(self) -> float:
        """All matrix work: FlopCounterMode's categories plus cuDNN recurrent layers'."""
        return sum(v for k, v in self.flops_by_category.items() if k in COMPUTE_CATEGORIES)

    @property
    def flopcountermode_flops(self) -> float:
        """The total comparable with FlopCounterMode.get_total_flops(): its categories, and what
        it counts beyond their work."""
        counted = sum(
            v for k, v in self.flops_by_category.items() if k in FLOPCOUNTERMODE_CATEGORIES
        )
        return counted + self.flopcountermode_extra

    @property
    def total_bytes(self) -> float:
        return sum(self.bytes_by_category.values())


# (name, ts_us, dur_us, tid, input_dims, input_types, concrete_inputs[, launched])
# launched, optional: whether the op or anything inside it launched device work (a kernel,
# memcpy or memset); None or absent when unknown, e.g. in a CPU-only trace.
OpRecord = tuple[Any, ...]


def _number(value: Any) -> float:
    try:
        number = float(value)
    except (TypeError, ValueError):
        return 0.0
    return number if number == number else 0.0  # NaN -> 0


# Batch norm ops copy their running statistics in child ops (aten::copy_ of C floats in eval
# mode): bookkeeping inside one kernel's op, which must not hide the op's own cost.
BATCH_NORM_OPS = frozenset(f"aten::{name}" for name in _NORM_SPECS if "batch_norm" in name)


def counted_op_costs(ops: Sequence[OpRecord]) -> list[tuple[int, OpCost]]:
    """(index into ops, cost) of the ops whose cost enters a step total.

    Ops nest by time on each thread. A compute op (gemm, conv, attention, rnn with FLOPs) counts
    unless another compute op runs inside it: aten::convolution -> aten::_convolution ->
    aten::mkldnn_convolution counts once, at the innermost. A batch norm op does the same among
    batch norm ops (aten::batch_norm -> aten::native_batch_norm), and what runs inside it is its
    own bookkeeping (eval mode's copy_ of the running statistics). Any other costed op counts
    only if no costed op runs inside it and it does not run inside a compute or batch norm op
    (the bias copy_ inside aten::addmm is part of the addmm).

    A compute op whose ``launched`` field is False is dropped: the profiler also records ops
    that raised before their kernel ran, such as the last op of a checkpointed region that
    non-reentrant checkpointing's early stop aborts during recompute. FlopCounterMode never
    sees those. Without that field (CPU-only traces) they are counted."""
    costs = [op_cost(op[0], op[4], op[5], op[6]) for op in ops]
    for i, op in enumerate(ops):
        cost = costs[i]
        if (
            len(op) > 7
            and op[7] is False
            and cost is not None
            and cost.category in COMPUTE_CATEGORIES
        ):
            costs[i] = None
    compute = [c is not None and c.category in COMPUTE_CATEGORIES and c.flops > 0 for c in costs]
    batch_norm = [c is not None and op[0] in BATCH_NORM_OPS for c, op in zip(costs, ops)]
    has_compute_inside = [False] * len(ops)
    has_batch_norm_inside = [False] * len(ops)
    has_cost_inside = [False] * len(ops)
    inside_compute = [False] * len(ops)
    inside_batch_norm = [False] * len(ops)

    starts = [_number(op[1]) for op in ops]
    ends = [s + max(_number(op[2]), 0.0) for s, op in zip(starts, ops)]
    by_thread: dict[Any, list[int]] = defaultdict(list)
    for i, op in enumerate(ops):
        by_thread[op[3]].append(i)
    for indices in by_thread.values():
        # parents first: earlier start, then longer span (ties keep trace order)
        indices.sort(key=lambda i: (starts[i], -ends[i]))
        stack: list[int] = []

        def pop(stack: list[int]) -> None:
            child = stack.pop()
            if stack:  # tell the parent what ran inside it
                parent = stack[-1]
                has_compute_inside[parent] |= compute[child] or has_compute_inside[child]
                has_batch_norm_inside[parent] |= batch_norm[child] or has_batch_norm_inside[child]
                has_cost_inside[parent] |= costs[child] is not None or has_cost_inside[child]

        for i in indices:
            while stack and starts[i] >= ends[stack[-1]]:
                pop(stack)
            if stack:
                top = stack[-1]
                inside_compute[i] = compute[top] or inside_compute[top]
                inside_batch_norm[i] = batch_norm[top] or inside_batch_norm[top]
            stack.append(i)
        while stack:
            pop(stack)

    counted = []
    for i, cost in enumerate(costs):
        if cost is None:
            continue
        if compute[i]:
            keep = not has_compute_inside[i]
        elif batch_norm[i]:
            keep = not has_batch_norm_inside[i] and not inside_compute[i]
        else:
            keep = not has_cost_inside[i] and not inside_compute[i] and not inside_batch_norm[i]
        if keep:
            counted.append((i, cost))
    return counted


def count_step_flops(ops: Iterable[OpRecord]) -> FlopTotals:
    """Sum op costs over a step (or any window) of cpu_op records, each op counted once."""
    ops = list(ops)
    flops: dict[str, float] = defaultdict(float)
    nbytes: dict[str, float] = defaultdict(float)
    by_dtype: dict[str, float] = defaultdict(float)
    counted = counted_op_costs(ops)
    extra = 0.0
    for _, cost in counted:
        flops[cost.category] += cost.flops
        nbytes[cost.category] += cost.bytes
        extra += cost.flopcountermode_extra
        if cost.category in COMPUTE_CATEGORIES:
            by_dtype[cost.dtype or "unknown"] += cost.flops
    return FlopTotals(dict(flops), dict(nbytes), dict(by_dtype), len(counted), extra)
