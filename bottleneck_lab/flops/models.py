"""FLOP and byte model of aten ops, computed from what a Kineto trace records.

A cpu_op event recorded with ``record_shapes=True`` carries ``Input Dims``, ``Input type`` and
``Concrete Inputs``. ``op_cost`` turns those into an ``OpCost``; ``count_step_flops`` sums the
costs of a step without counting nested ops twice.

Conventions (chosen so totals compare with ``torch.utils.flop_counter.FlopCounterMode``):

- Only leaf compute ops carry FLOPs. ``aten::linear``, ``aten::matmul``, ``aten::conv2d``,
  ``aten::scaled_dot_product_attention`` and other composite wrappers return ``None``: their work
  is counted once, at the op below them that launches the kernel (``aten::addmm``, ``aten::mm``,
  ``aten::bmm``, ``aten::convolution`` ...).
- The "gemm", "conv" and "attention" categories use FlopCounterMode's formulas exactly: 2*m*n*k
  per matmul, bias and scaling ignored; convolution counted from the output (input for transposed)
  spatial size; convolution backward honours ``output_mask`` (grad_input, grad_weight; the bias
  gradient carries no FLOPs); attention counts the two batched matmuls (Q@K^T, P@V), backward
  counts five (2.5x forward). Their sum is the FlopCounterMode-comparable total.
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
- "norm", "elementwise" and "other" FLOPs are estimates reported apart from that total: one FLOP
  per output element for elementwise math (a transcendental counts as one), 4 per element for a
  normalisation (5 with an affine weight, fvcore's convention; 1 or 2 for batch norm in eval),
  backward twice the forward. Data movement (copy_, fill_) and softmax carry bytes only.
- Bytes are a minimum-traffic model: every tensor input read once plus every output written
  once. Small statistics outputs (mean, rstd, logsumexp) are left out. TensorList elements
  carry no dtype in the trace; they take the op's first known tensor dtype (else 4 bytes).
"""

from __future__ import annotations

import ast
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from math import prod
from typing import Any, NamedTuple

CATEGORIES = ("gemm", "conv", "attention", "norm", "elementwise", "other")
# The categories FlopCounterMode counts; their sum is comparable with get_total_flops().
COMPUTE_CATEGORIES = frozenset({"gemm", "conv", "attention"})


@dataclass(frozen=True)
class OpCost:
    flops: float
    bytes: float
    dtype: str | None  # fp64, fp32, bf16, fp16, fp8, int8 or None
    category: str  # one of CATEGORIES


# --- reading one op's arguments ----------------------------------------------------------------

# Kineto "Input type" string -> (normalised dtype, bytes per element). Old traces write
# "long"/"int"/"double" where new ones write "long int"/"int"/"double".
_DTYPES: dict[str, tuple[str | None, int]] = {
    "double": ("fp64", 8),
    "float": ("fp32", 4),
    "c10::BFloat16": ("bf16", 2),
    "c10::Half": ("fp16", 2),
    "c10::Float8_e4m3fn": ("fp8", 1),
    "c10::Float8_e5m2": ("fp8", 1),
    "c10::Float8_e4m3fnuz": ("fp8", 1),
    "c10::Float8_e5m2fnuz": ("fp8", 1),
    "c10::Float8_e8m0fnu": ("fp8", 1),
    "signed char": ("int8", 1),
    "unsigned char": (None, 1),
    "bool": (None, 1),
    "short int": (None, 2),
    "short": (None, 2),
    "int": (None, 4),
    "long int": (None, 8),
    "long": (None, 8),
    "c10::complex<float>": (None, 8),
    "c10::complex<double>": (None, 16),
    "c10::complex<c10::Half>": (None, 4),
}

# c10::ScalarType codes, as a ScalarType argument (e.g. _scaled_mm's out_dtype) is recorded.
_SCALAR_TYPE_CODES: dict[int, tuple[str | None, int]] = {
    5: ("fp16", 2),
    6: ("fp32", 4),
    7: ("fp64", 8),
    15: ("bf16", 2),
    23: ("fp8", 1),
    24: ("fp8", 1),
    25: ("fp8", 1),
    26: ("fp8", 1),
}


class _Tensor(NamedTuple):
    shape: tuple[int, ...]
    dtype: str | None
    itemsize: int

    @property
    def numel(self) -> int:
        return prod(self.shape)

    @property
    def nbytes(self) -> int:
        return self.numel * self.itemsize


def _is_shape(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(v, int) for v in value)


def _parse_concrete(text: Any) -> Any:
    """'[1, 1]' -> [1, 1], 'False' -> False, '1e-05' -> 1e-05, '' or junk -> None."""
    if not isinstance(text, str) or not text:
        return None
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return None


class _Args:
    """The recorded arguments of one op, looked up by position."""

    def __init__(self, dims: list | None, types: list | None, concrete: list | None):
        self.dims = dims if isinstance(dims, list) else []
        self.types = types if isinstance(types, list) else []
        self.concrete = concrete if isinstance(concrete, list) else []
        known = [_DTYPES[t] for t in self.types if isinstance(t, str) and t in _DTYPES]
        # TensorList elements have no recorded dtype: borrow the op's first known one.
        self._list_dtype = known[0] if known else (None, 4)

    def tensor(self, i: int) -> _Tensor | None:
        if i >= len(self.dims) or i >= len(self.types):
            return None
        dtype = _DTYPES.get(self.types[i]) if isinstance(self.types[i], str) else None
        if dtype is None or not _is_shape(self.dims[i]):
            return None
        return _Tensor(tuple(self.dims[i]), *dtype)

    def tensor_list(self, i: int) -> list[_Tensor]:
        """The tensors at position i: one tensor, the elements of a TensorList, or none."""
        if i < len(self.types) and self.types[i] == "TensorList" and isinstance(self.dims[i], list):
            return [_Tensor(tuple(d), *self._list_dtype) for d in self.dims[i] if _is_shape(d)]
        t = self.tensor(i)
        return [t] if t is not None else []

    def tensors(self, start: int = 0) -> list[_Tensor]:
        """Every tensor from position ``start`` on, TensorList elements included."""
        return [
            t
            for i in range(start, min(len(self.dims), len(self.types)))
            for t in self.tensor_list(i)
        ]

    def value(self, i: int, default: Any = None) -> Any:
        parsed = _parse_concrete(self.concrete[i]) if i < len(self.concrete) else None
        return default if parsed is None else parsed

    def ints(self, i: int | None, n: int, default: int) -> list[int]:
        """An int-list argument broadcast to n entries (PyTorch expands [2] to [2, 2])."""
        got = self.value(i) if i is not None else None
        if isinstance(got, int):
            got = [got]
        if (
            not isinstance(got, list)
            or len(got) not in (1, n)
            or not all(isinstance(v, int) for v in got)
        ):
            return [default] * n
        return got * n if len(got) == 1 else got

    def bytes_in(self) -> int:
        return _sum_bytes(self.tensors())


def _sum_bytes(tensors: Iterable[_Tensor]) -> int:
    return sum(t.nbytes for t in tensors)


# --- matmul (FlopCounterMode: mm_flop, bmm_flop) ------------------------------------------------


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


# --- convolution (FlopCounterMode: conv_flop_count, conv_backward_flop) --------------------------


def _conv_flops(x: Sequence[int], w: Sequence[int], out: Sequence[int], transposed: bool) -> int:
    """Multiply-adds x 2; a transposed conv iterates over the input's spatial points."""
    batch = x[0]
    conv_shape = (x if transposed else out)[2:]
    c_out, c_in, *filter_size = w
    return prod(conv_shape) * prod(filter_size) * batch * c_out * c_in * 2


class _ConvSpec(NamedTuple):
    """Argument positions of one convolution op (None: not an argument, use the default)."""

    stride: int | None
    padding: int | None
    dilation: int | None
    groups: int | None
    transposed: int | bool  # position of the flag, or a fixed value
    output_padding: int | None = None


_CONV_SPECS: dict[str, _ConvSpec] = {
    "convolution": _ConvSpec(3, 4, 5, 8, 6, 7),
    "_convolution": _ConvSpec(3, 4, 5, 8, 6, 7),
    "convolution_overrideable": _ConvSpec(3, 4, 5, 8, 6, 7),
    "cudnn_convolution": _ConvSpec(3, 2, 4, 5, False),
    "cudnn_convolution_transpose": _ConvSpec(4, 2, 5, 6, True, 3),
    "mkldnn_convolution": _ConvSpec(4, 3, 5, 6, False),
    "miopen_convolution": _ConvSpec(4, 3, 5, 6, False),
    "miopen_depthwise_convolution": _ConvSpec(4, 3, 5, 6, False),
    "miopen_convolution_transpose": _ConvSpec(5, 3, 6, 7, True, 4),
    "_slow_conv2d_forward": _ConvSpec(4, 5, None, None, False),
    "thnn_conv2d": _ConvSpec(4, 5, None, None, False),
    "slow_conv3d_forward": _ConvSpec(4, 5, None, None, False),
    "slow_conv_dilated2d": _ConvSpec(4, 5, 6, None, False),
    "slow_conv_dilated3d": _ConvSpec(4, 5, 6, None, False),
    "_conv_depthwise2d": _ConvSpec(4, 5, 6, None, False),
    "slow_conv_transpose2d": _ConvSpec(4, 5, 7, None, True, 6),
    "slow_conv_transpose3d": _ConvSpec(4, 5, 7, None, True, 6),
}


def _conv_output_shape(
    args: _Args, x: _Tensor, w: _Tensor, spec: _ConvSpec, transposed: bool
) -> list[int]:
    # Without Concrete Inputs (old traces) the op's defaults apply: stride 1, no padding.
    n = len(x.shape) - 2
    stride = args.ints(spec.stride, n, 1)
    padding = args.ints(spec.padding, n, 0)
    dilation = args.ints(spec.dilation, n, 1)
    groups = args.value(spec.groups, 1) if spec.groups is not None else 1
    kernel = w.shape[2:]
    if transposed:
        out_pad = args.ints(spec.output_padding, n, 0)
        spatial = [
            (i - 1) * s - 2 * p + d * (k - 1) + op + 1
            for i, s, p, d, k, op in zip(x.shape[2:], stride, padding, dilation, kernel, out_pad)
        ]
        return [x.shape[0], w.shape[1] * groups, *spatial]
    spatial = [
        (i + 2 * p - d * (k - 1) - 1) // s + 1
        for i, s, p, d, k in zip(x.shape[2:], stride, padding, dilation, kernel)
    ]
    return [x.shape[0], w.shape[0], *spatial]


def _conv_cost(args: _Args, spec: _ConvSpec) -> OpCost | None:
    x, w = args.tensor(0), args.tensor(1)
    if x is None or w is None or len(x.shape) != len(w.shape) or len(x.shape) < 3:
        return None
    flag = spec.transposed
    transposed = bool(args.value(flag, False)) if not isinstance(flag, bool) else flag
    out = _conv_output_shape(args, x, w, spec, transposed)
    flops = _conv_flops(x.shape, w.shape, out, transposed)
    return OpCost(flops, args.bytes_in() + prod(out) * x.itemsize, x.dtype, "conv")


def _conv_backward_cost(args: _Args) -> OpCost | None:
    # convolution_backward(grad_output, input, weight, bias_sizes, stride, padding, dilation,
    #                      transposed, output_padding, groups, output_mask)
    grad_out, x, w = args.tensor(0), args.tensor(1), args.tensor(2)
    if grad_out is None or x is None or w is None:
        return None
    transposed = bool(args.value(7, False))
    mask = args.value(10, [True, True, True])

    def t(shape: Sequence[int]) -> list[int]:
        return [shape[1], shape[0], *shape[2:]]

    flops = 0
    written = 0
    if mask[0]:  # grad_input = conv_transpose(grad_output, weight)
        flops += _conv_flops(grad_out.shape, w.shape, x.shape, not transposed)
        written += x.nbytes
    if mask[1]:  # grad_weight = conv(input, grad_output) with batch and channels swapped
        if transposed:
            flops += _conv_flops(t(grad_out.shape), t(x.shape), t(w.shape), False)
        else:
            flops += _conv_flops(t(x.shape), t(grad_out.shape), t(w.shape), False)
        written += w.nbytes
    if len(mask) > 2 and mask[2]:  # grad_bias: a reduction, no FLOPs in FlopCounterMode
        written += grad_out.shape[1] * grad_out.itemsize
    return OpCost(flops, args.bytes_in() + written, x.dtype, "conv")


# --- attention (FlopCounterMode: sdpa_flop_count, sdpa_backward_flop_count) ---------------------


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


# --- normalisation -------------------------------------------------------------------------------


class _NormSpec(NamedTuple):
    input: int
    weight: int | None
    kind: str  # "norm", "rms" or "batch"
    backward: bool = False
    mask: int | None = None  # backward output_mask position (grad_input, grad_weight, grad_bias)
    training: int | bool = True  # position of batch norm's training flag, or a fixed value


_NORM_SPECS: dict[str, _NormSpec] = {
    "layer_norm": _NormSpec(0, 2, "norm"),
    "native_layer_norm": _NormSpec(0, 2, "norm"),
    "group_norm": _NormSpec(0, 2, "norm"),
    "native_group_norm": _NormSpec(0, 1, "norm"),
    "rms_norm": _NormSpec(0, 2, "rms"),
    "_fused_rms_norm": _NormSpec(0, 2, "rms"),
    "batch_norm": _NormSpec(0, 1, "batch", training=5),
    "_batch_norm_impl_index": _NormSpec(0, 1, "batch", training=5),
    "native_batch_norm": _NormSpec(0, 1, "batch", training=5),
    "cudnn_batch_norm": _NormSpec(0, 1, "batch", training=5),
    "miopen_batch_norm": _NormSpec(0, 1, "batch", training=5),
    "_native_batch_norm_legit": _NormSpec(0, 1, "batch"),
    "_batch_norm_with_update": _NormSpec(0, 1, "batch"),
    "_native_batch_norm_legit_no_training": _NormSpec(0, 1, "batch", training=False),
    "_batch_norm_no_update": _NormSpec(0, 1, "batch", training=False),
    "native_layer_norm_backward": _NormSpec(1, 5, "norm", True, 7),
    "native_group_norm_backward": _NormSpec(1, 4, "norm", True, 9),
    "_fused_rms_norm_backward": _NormSpec(1, 4, "rms", True, 5),
    "native_batch_norm_backward": _NormSpec(1, 2, "norm", True, 9),
    "batch_norm_backward": _NormSpec(1, 2, "norm", True, 9),
    "cudnn_batch_norm_backward": _NormSpec(0, 2, "norm", True),
    "miopen_batch_norm_backward": _NormSpec(0, 2, "norm", True),
}


def _norm_cost(args: _Args, spec: _NormSpec) -> OpCost | None:
    x = args.tensor(spec.input)
    if x is None:
        return None
    weight = args.tensor(spec.weight) if spec.weight is not None else None
    affine = weight is not None and weight.numel > 0
    training = (
        spec.training if isinstance(spec.training, bool) else bool(args.value(spec.training, True))
    )
    if spec.kind == "batch" and not training:
        per_element = 2 if affine else 1  # eval batch norm folds into one scale and shift
    elif spec.kind == "rms":
        per_element = 4 if affine else 3  # square, mean, scale (and weight)
    else:
        per_element = 5 if affine else 4  # mean, variance, normalise (and scale, shift)
    if not spec.backward:
        return OpCost(x.numel * per_element, args.bytes_in() + x.nbytes, x.dtype, "norm")
    mask = (
        args.value(spec.mask, [True, True, True]) if spec.mask is not None else [True, True, True]
    )
    written = x.nbytes if mask[0] else 0
    if weight is not None:
        written += weight.nbytes * sum(1 for m in mask[1:] if m)
    return OpCost(2 * x.numel * per_element, args.bytes_in() + written, x.dtype, "norm")


# --- elementwise, foreach, reductions ------------------------------------------------------------

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


# --- dispatch ------------------------------------------------------------------------------------

_OPS: dict[str, Callable[[_Args], OpCost | None]] = {
    "mm": lambda a: _gemm_cost(a, 0, batched=False),
    "addmm": lambda a: _gemm_cost(a, 1, batched=False),
    "bmm": lambda a: _gemm_cost(a, 0, batched=True),
    "baddbmm": lambda a: _gemm_cost(a, 1, batched=True),
    "_scaled_mm": lambda a: _gemm_cost(a, 0, batched=False, out_dtype_idx=6),
    "convolution_backward": _conv_backward_cost,
    "_fused_adam_": lambda a: _fused_optimizer_cost(a, (0, 2, 3)),
    "_fused_adamw_": lambda a: _fused_optimizer_cost(a, (0, 2, 3)),
    "_fused_sgd_": lambda a: _fused_optimizer_cost(a, (0, 2)),
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
    # gemm + conv + attention FLOPs by dtype ("unknown" when the trace gives none)
    compute_flops_by_dtype: dict[str, float]
    ops_counted: int

    @property
    def compute_flops(self) -> float:
        """The total comparable with FlopCounterMode.get_total_flops()."""
        return sum(v for k, v in self.flops_by_category.items() if k in COMPUTE_CATEGORIES)

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


def counted_op_costs(ops: Sequence[OpRecord]) -> list[tuple[int, OpCost]]:
    """(index into ops, cost) of the ops whose cost enters a step total.

    Ops nest by time on each thread. A compute op (gemm, conv, attention with FLOPs) counts
    unless another compute op runs inside it: aten::convolution -> aten::_convolution ->
    aten::mkldnn_convolution counts once, at the innermost. Any other costed op counts only if
    no costed op runs inside it and it does not run inside a compute op (the bias copy_ inside
    aten::addmm is part of the addmm).

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
    has_compute_inside = [False] * len(ops)
    has_cost_inside = [False] * len(ops)
    inside_compute = [False] * len(ops)

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
                has_cost_inside[parent] |= costs[child] is not None or has_cost_inside[child]

        for i in indices:
            while stack and starts[i] >= ends[stack[-1]]:
                pop(stack)
            inside_compute[i] = bool(stack) and (compute[stack[-1]] or inside_compute[stack[-1]])
            stack.append(i)
        while stack:
            pop(stack)

    counted = []
    for i, cost in enumerate(costs):
        if cost is None:
            continue
        if compute[i]:
            keep = not has_compute_inside[i]
        else:
            keep = not has_cost_inside[i] and not inside_compute[i]
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
    for _, cost in counted:
        flops[cost.category] += cost.flops
        nbytes[cost.category] += cost.bytes
        if cost.category in COMPUTE_CATEGORIES:
            by_dtype[cost.dtype or "unknown"] += cost.flops
    return FlopTotals(dict(flops), dict(nbytes), dict(by_dtype), len(counted))
