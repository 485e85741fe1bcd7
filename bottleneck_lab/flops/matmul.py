"""Matrix products: mm, addmm, bmm, baddbmm, _scaled_mm (FlopCounterMode's mm_flop, bmm_flop), and
the grouped products of mixture-of-experts layers (_grouped_mm, _scaled_grouped_mm), which
FlopCounterMode does not count."""

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


def _grouped_mm_flops(a: tuple[int, ...], b: tuple[int, ...]) -> int:
    """A grouped product (torch._grouped_mm): groups split the rows of a 2-D `a` against a 3-D
    `b` of one matrix per group (an experts layer's forward), the inner dimension of two 2-D
    operands (its weight gradient, one output per group), or the columns of a 2-D `b`; two 3-D
    operands are a batched product. Every row meets one group's matrix, so the FLOPs are those of
    one product of the whole rows, whatever the split."""
    if a[-1] != b[-2] or (len(a) == len(b) == 3 and a[0] != b[0]):
        raise ValueError("grouped_mm shapes differ")
    if len(a) == 2 and len(b) == 3:  # [tokens, k] x [groups, k, n]
        return 2 * a[0] * a[1] * b[2]
    if len(a) == 2 and len(b) == 2:  # [m, tokens] x [tokens, n] -> [groups, m, n]
        return 2 * a[0] * a[1] * b[1]
    if len(a) == 3 and len(b) == 2:  # [groups, m, k] x [k, columns]
        return 2 * a[1] * a[2] * b[1]
    if len(a) == 3 and len(b) == 3:  # [groups, m, k] x [groups, k, n]
        return 2 * a[0] * a[1] * a[2] * b[2]
    raise ValueError("grouped_mm operands are 2-D or 3-D")


def _grouped_mm_cost(args: _Args, offs_idx: int) -> OpCost | None:
    """aten::_grouped_mm(a, b, offs, ...) and aten::_scaled_grouped_mm(a, b, scale_a, scale_b,
    offs, ...): FLOPs as _grouped_mm_flops; bytes read plus the output, in a's dtype (BF16
    where FP8 inputs are scaled)."""
    a, b = args.tensor(0), args.tensor(1)
    if a is None or b is None:
        return None
    flops = _grouped_mm_flops(a.shape, b.shape)
    offs = args.tensor(offs_idx)
    groups = offs.shape[0] if offs is not None and offs.shape else 1
    rows = prod(a.shape[:-1]) if len(a.shape) == len(b.shape) == 3 else a.shape[-2]
    out_numel = rows * b.shape[-1] * (groups if len(a.shape) == len(b.shape) == 2 else 1)
    return OpCost(flops, args.bytes_in() + out_numel * max(a.itemsize, 2), a.dtype, "gemm")
