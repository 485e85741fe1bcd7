"""Scaled dot-product attention, forward and backward (FlopCounterMode's sdpa_flop_count,
sdpa_backward_flop_count): the two batched matmuls Q@K^T and P@V, five in backward."""

from __future__ import annotations

from typing import NamedTuple

from .args import OpCost, _Args


def _sdpa_flops(b: float, h_q: float, s_q: float, s_k: float, d_q: float, d_v: float) -> float:
    # scores = Q @ K^T, then out = scores @ V
    return 2 * b * h_q * s_q * s_k * d_q + 2 * b * h_q * s_q * s_k * d_v


def _sdpa_backward_flops(
    b: float, h_q: float, s_q: float, s_k: float, d_q: float, d_v: float
) -> float:
    # recompute scores; grad_scores = dO @ V^T; dV = P^T @ dO; dQ = dS @ K; dK = dS^T @ Q
    return 2 * b * h_q * s_q * s_k * (d_q + d_v + d_v + d_q + d_q)


class _AttentionSpec(NamedTuple):
    backward: bool
    # "bhsd": (batch, heads, seq, dim) as SDPA takes it. "bshd": the layout the SDPA kernels
    # hand to _flash_attention_* / _efficient_attention_* (they transpose(1, 2) first).
    layout: str
    cu_seq: int | None = None  # position of cum_seq_q / cu_seqlens_q (varlen batches)


_ATTENTION_SPECS: dict[str, _AttentionSpec] = {
    "_scaled_dot_product_flash_attention": _AttentionSpec(False, "bhsd"),
    "_scaled_dot_product_efficient_attention": _AttentionSpec(False, "bhsd"),
    "_scaled_dot_product_cudnn_attention": _AttentionSpec(False, "bhsd"),
    "_scaled_dot_product_flash_attention_for_cpu": _AttentionSpec(False, "bhsd"),
    "_flash_attention_forward": _AttentionSpec(False, "bshd", 3),
    "_efficient_attention_forward": _AttentionSpec(False, "bshd", 4),
    "_scaled_dot_product_flash_attention_backward": _AttentionSpec(True, "bhsd"),
    "_scaled_dot_product_efficient_attention_backward": _AttentionSpec(True, "bhsd"),
    "_scaled_dot_product_cudnn_attention_backward": _AttentionSpec(True, "bhsd"),
    "_scaled_dot_product_flash_attention_for_cpu_backward": _AttentionSpec(True, "bhsd"),
    "_flash_attention_backward": _AttentionSpec(True, "bshd", 6),
    "_efficient_attention_backward": _AttentionSpec(True, "bshd", 6),
}


def _attention_cost(args: _Args, spec: _AttentionSpec) -> OpCost | None:
    first = 1 if spec.backward else 0  # backward ops take grad_out first
    q, k, v = args.tensor(first), args.tensor(first + 1), args.tensor(first + 2)
    if q is None or k is None or v is None:
        return None
    shapes = [q.shape, k.shape, v.shape]
    if spec.layout == "bshd" and all(len(s) == 3 for s in shapes):
        shapes = [(1, *s) for s in shapes]  # varlen flash: (total_tokens, heads, dim)
    if not all(len(s) == 4 for s in shapes):
        return None
    if spec.layout == "bshd":
        shapes = [(s[0], s[2], s[1], s[3]) for s in shapes]
    (b, h_q, s_q, d_q), (_, _, s_k, _), (_, _, _, d_v) = shapes
    cu_seq = args.tensor(spec.cu_seq) if spec.cu_seq is not None else None
    if cu_seq is not None and b == 1 and cu_seq.numel > 2:
        # Varlen batch packed in one row: the lengths are not in the trace, so split the tokens
        # evenly (exact for equal lengths, a lower bound otherwise).
        b = cu_seq.numel - 1
        s_q, s_k = s_q / b, s_k / b
    formula = _sdpa_backward_flops if spec.backward else _sdpa_flops
    flops = formula(b, h_q, s_q, s_k, d_q, d_v)
    # forward writes the output (q's shape with v's head dim); backward writes dQ, dK, dV
    written = q.nbytes + k.nbytes + v.nbytes if spec.backward else q.nbytes // d_q * d_v
    return OpCost(flops, args.bytes_in() + written, q.dtype, "attention")
