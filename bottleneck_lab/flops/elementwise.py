"""Elementwise math, foreach and fused optimizer ops, softmax/dropout and reductions: one FLOP per
output element (0 for pure data movement), bytes for everything; estimates reported apart from
the FlopCounterMode-comparable total."""

from __future__ import annotations

from collections.abc import Iterable
from math import prod

from .args import OpCost, _Args, _sum_bytes

# FLOPs per output element; 0 marks pure data movement.
_ELEMENTWISE_FLOPS: dict[str, int] = {
    **dict.fromkeys(
        [
            "add",
            "sub",
            "rsub",
            "mul",
            "div",
            "neg",
            "abs",
            "reciprocal",
            "sqrt",
            "rsqrt",
            "exp",
            "log",
            "pow",
            "sign",
            "maximum",
            "minimum",
            "clamp",
            "clamp_min",
            "clamp_max",
            "where",
            "masked_fill",
            "relu",
            "threshold",
            "threshold_backward",
            "gelu",
            "gelu_backward",
            "silu",
            "silu_backward",
            "sigmoid",
            "sigmoid_backward",
            "tanh",
            "tanh_backward",
            "hardtanh",
            "hardtanh_backward",
            "leaky_relu",
            "leaky_relu_backward",
            "elu",
            "elu_backward",
            "mish",
            "softplus",
            "sin",
            "cos",
            "erf",
        ],
        1,
    ),
    **dict.fromkeys(["addcmul", "addcdiv", "lerp"], 2),
    **dict.fromkeys(["copy", "fill", "zero"], 0),
}


# The output overwrites self without reading it.
_OVERWRITE = frozenset({"copy", "fill", "zero"})


# Bytes only: reading the input and writing an output of the same size.
_SOFTMAX = frozenset(
    {
        "softmax",
        "_softmax",
        "log_softmax",
        "_log_softmax",
        "_softmax_backward_data",
        "_log_softmax_backward_data",
        "native_dropout",
        "native_dropout_backward",
    }
)


_REDUCTIONS = frozenset({"sum", "mean"})


def _broadcast(shapes: Iterable[tuple[int, ...]]) -> tuple[int, ...]:
    shapes = list(shapes)
    ndim = max((len(s) for s in shapes), default=0)
    padded = [(1,) * (ndim - len(s)) + s for s in shapes]
    return tuple(max(dims) if 0 not in dims else 0 for dims in zip(*padded))


def _elementwise_cost(args: _Args, base: str) -> OpCost | None:
    tensors = args.tensors()
    if not tensors:
        return None
    # the result takes the first floating dtype: where(bool_mask, x, y) writes x's dtype
    result = next((t for t in tensors if t.dtype is not None), tensors[0])
    out_numel = prod(_broadcast(t.shape for t in tensors))
    read = _sum_bytes(tensors[1:]) if base in _OVERWRITE else _sum_bytes(tensors)
    flops = out_numel * _ELEMENTWISE_FLOPS[base]
    return OpCost(flops, read + out_numel * result.itemsize, result.dtype, "elementwise")


def _foreach_cost(args: _Args, base: str) -> OpCost | None:
    # _foreach_add_(self[], other[] | scalar, ...): the first list is the output (or its shape).
    out = args.tensor_list(0)
    if not out:
        return None
    read = _sum_bytes(args.tensors(1)) + (0 if base in _OVERWRITE else _sum_bytes(out))
    flops = sum(t.numel for t in out) * _ELEMENTWISE_FLOPS[base]
    return OpCost(flops, read + _sum_bytes(out), out[0].dtype, "elementwise")


def _fused_optimizer_cost(args: _Args, written_lists: tuple[int, ...]) -> OpCost | None:
    # _fused_adam_(params, grads, exp_avgs, exp_avg_sqs, ...) updates lists in place.
    if not args.tensor_list(0):
        return None
    written = sum(_sum_bytes(args.tensor_list(i)) for i in written_lists)
    return OpCost(0, args.bytes_in() + written, args.tensor_list(0)[0].dtype, "other")


def _bytes_only_cost(args: _Args, base: str) -> OpCost | None:
    x = args.tensor(0)
    if x is None:
        return None
    if base in _REDUCTIONS:  # output is small next to the input: count the read only
        return OpCost(x.numel, args.bytes_in(), x.dtype, "other")
    return OpCost(0, args.bytes_in() + x.nbytes, x.dtype, "other")
