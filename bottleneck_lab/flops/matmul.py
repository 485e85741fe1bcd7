"""Matrix products: mm, addmm, bmm, baddbmm, _scaled_mm (FlopCounterMode's mm_flop, bmm_flop)."""

from __future__ import annotations

from math import prod

from .args import _SCALAR_TYPE_CODES, OpCost, _Args


def _mm_flops(a: tuple[int, ...], b: tuple[int, ...]) -> int:
    m, k = a
    k2, n = b
    if k != k2:
        raise ValueError("inner dimensions differ")
    return m * n * 2 * k


def _bmm_flops(a: tuple[int, ...], b: tuple[int, ...]) -> int:
    batch, m, k = a
    batch2, k2, n = b
    if batch != batch2 or k != k2:
        raise ValueError("bmm shapes differ")
    return batch * m * n * 2 * k


def _gemm_cost(
    args: _Args, a_idx: int, batched: bool, out_dtype_idx: int | None = None
) -> OpCost | None:
    a, b = args.tensor(a_idx), args.tensor(a_idx + 1)
    if a is None or b is None:
        return None
    flops = _bmm_flops(a.shape, b.shape) if batched else _mm_flops(a.shape, b.shape)
    out_itemsize = a.itemsize
    if out_dtype_idx is not None:  # _scaled_mm writes out_dtype (bf16 typically), not fp8
        out_itemsize = _SCALAR_TYPE_CODES.get(args.value(out_dtype_idx), (None, a.itemsize))[1]
    out_numel = prod(a.shape[:-1]) * b.shape[-1]
    return OpCost(flops, args.bytes_in() + out_numel * out_itemsize, a.dtype, "gemm")
