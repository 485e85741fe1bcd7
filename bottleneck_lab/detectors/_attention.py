"""Attention written as matmul, softmax, matmul, found from recorded shapes: the score matrices
a softmax normalises between two batched matmuls, and the kernels that work on them forward and
backward. eager_attention prices them against one fused kernel; fusion leaves them to it."""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass

import numpy as np

from .. import facts
from ..flops.args import dtype_name
from ..trace import TraceFrame
from ..trace.frame import name_mask, nearest_ancestor

SOFTMAX_OPS = frozenset({"aten::softmax", "aten::_softmax", "aten::_safe_softmax"})
SOFTMAX_BACKWARD_OPS = frozenset({"aten::_softmax_backward_data"})
# torch.compile's generated kernels are recorded as ops named after the kernel, and Inductor names
# each after the aten ops it fused: a kernel that holds a softmax (not only its backward) over a
# batched score matrix between two batched matmuls is the same attention, decomposed into the
# graph (SDPA's math path under compile, or attention written out). A compiled HF ViViT ran its
# attention as FP32 matmuls and such kernels, 107 ms a step against cuDNN's fused 13.5 ms eager.
INDUCTOR_KERNEL = "triton_"
BATCHED_MATMUL_OPS = frozenset({"aten::matmul", "aten::bmm", "aten::baddbmm"})
# A user who called SDPA and got its math fallback for inputs the fused kernels cannot take has
# no eager attention to replace: the ops under these are SDPA's own (T5 with a position bias
# that needs its gradient, Hiera's 5-D heads, FP32 with transposed heads).
SDPA_OPS = frozenset(
    {"aten::scaled_dot_product_attention", "aten::_scaled_dot_product_attention_math"}
)
# Where they can take them, the math fallback was chosen by the user's backend settings
# (sdpa_kernel(SDPBackend.MATH), enable_flash_sdp(False), ...) and is eager attention like any
# other. Inputs every fused kernel on an sm80+ GPU takes (PyTorch's sdp_utils constraints, kept
# narrow): 4-D FP16 or BF16 query, key and value of one batch, head count and head dimension, that
# dimension a multiple of 8 and at most 128, no attn_mask (is_causal and dropout are fine). A
# transposed layout is no bar: the hand-written UNet's heads, last-dim stride 256, got the fused
# kernel in BF16 (holdout 50).
FUSED_SDPA_DTYPES = frozenset({"bf16", "fp16"})
FUSED_SDPA_MAX_HEAD_DIM = 128
# A score added to a per-head tensor of its own size is a learned or computed bias (Swin's
# relative positions, DeBERTa's disentangled terms): SDPA takes it only as a float mask, whose
# gradient and speed were never measured here, so that attention is not called replaceable.
# Masks (causal, padding) are shared across heads: head dimension 1.
BIAS_OPS = frozenset({"aten::add", "aten::add_", "aten::sub", "aten::sub_"})
# Scores this short are not attention worth a fused kernel (and the fit below has no data there).
MIN_SEQUENCE = 16
# Attention multiplies its scores' shape twice a softmax, Q K^T and attn @ V (a baddbmm or a
# second read of the probabilities allowed for): SDPA computes exactly that. Probabilities that
# feed an iteration of matmuls are some other algorithm on them (Nystromformer's pseudo-inverse
# of its landmark kernel: 30 matmuls of 64 x 64 per softmax, holdout 56), which SDPA does not.
MAX_MATMULS_PER_SOFTMAX = 3


@dataclass(frozen=True)
class Scores:
    """One shape of score matrix an eager attention softmaxes, (..., Sq, Sk) with batch and
    heads leading: its head dimension, forward attentions per step, and the dtype its Q K^T runs
    in (bf16, fp16, fp32)."""

    shape: tuple[int, ...]
    head_dim: int
    per_step: float
    dtype: str | None
    sdpa_fallback: bool = False  # SDPA's math fallback for inputs the fused kernels take


@dataclass(frozen=True)
class EagerAttention:
    """The eager attention of a trace: its score shapes (most common first; an encoder-decoder
    has its self- and cross-attention), whether it trains (softmax backward present), and for
    each GPU op (row of frame.gpu_ops) whether its kernel works on attention (Q K^T, the scores,
    softmax, masks, dropout, casts, attn @ V, and their backward)."""

    scores: tuple[Scores, ...]
    trains: bool
    kernels: np.ndarray
    ops: np.ndarray  # cpu_op rows in the attention
    compiled: bool = False  # its softmax found in torch.compile's generated kernels

    @property
    def per_step(self) -> float:
        return sum(s.per_step for s in self.scores)

    @property
    def sdpa_fallback(self) -> bool:
        return any(s.sdpa_fallback for s in self.scores)


def _dims(value) -> list[list[int]]:
    """The tensor inputs of an op's Input Dims ([] for scalars and lists of tensors)."""
    if not isinstance(value, list):
        return []
    return [d if isinstance(d, list) and all(isinstance(x, int) for x in d) else [] for d in value]


def _lead(d: list[int]) -> int:
    return math.prod(d[:-2])


def _is_score(d: list[int], sq: int, sk: int, lead: int) -> bool:
    """A tensor of the scores' size, as they are or transposed (batch and heads as one)."""
    return len(d) >= 3 and tuple(d[-2:]) in ((sq, sk), (sk, sq)) and _lead(d) == lead


def _is_qk(a: list[int], b: list[int], sq: int, sk: int, lead: int) -> bool:
    """Two batched operands whose product is a score matrix: Q K^T forward, or grad_out V^T."""
    return (
        len(a) >= 3
        and len(b) >= 3
        and a[-2] == sq
        and b[-1] == sk
        and a[-1] == b[-2]
        and _lead(a) == lead
        and _lead(b) == lead
    )


def _matmul_operands(name: str, dims: list[list[int]]) -> tuple[list[int], list[int]] | None:
    first = 1 if name == "aten::baddbmm" else 0  # baddbmm(bias, a, b)
    if len(dims) < first + 2:
        return None
    return dims[first], dims[first + 1]


def eager_attention(frame: TraceFrame) -> EagerAttention | None:
    """The trace's eager attention (EagerAttention), None where it has none or recorded no
    shapes. Computed once per frame."""
    cache = frame.__dict__.setdefault("_eager_attention", {})
    if "value" not in cache:
        cache["value"] = _find(frame)
    return cache["value"]


def _find(frame: TraceFrame) -> EagerAttention | None:
    ops = frame.cpu_ops
    if not len(ops) or not ops["input_dims"].notna().any():
        return None
    names = ops["name"].astype(object).to_numpy()
    parent = ops["parent"].to_numpy()
    in_step = ops["step"].to_numpy() >= 0

    def named(part: str) -> np.ndarray:
        return ops["name"].str.contains(part, regex=False, na=False).to_numpy()

    inductor = ops["name"].str.startswith(INDUCTOR_KERNEL, na=False).to_numpy()
    # a kernel of the softmax's backward holds "softmax_backward"; one that also recomputes the
    # forward (a last layer's) holds "safe_softmax_" as well
    inductor_softmax_bwd = inductor & named("softmax_backward")
    inductor_softmax = (
        inductor & named("softmax") & (~inductor_softmax_bwd | named("safe_softmax_"))
    )
    softmax = np.isin(names, list(SOFTMAX_OPS)) | inductor_softmax
    if not (softmax & in_step).any():
        return None
    rows = np.arange(len(ops))
    backward = nearest_ancestor(parent, rows, name_mask(ops["name"], facts.ENGINE_NODE)) >= 0
    dims = ops["input_dims"].to_numpy()
    types = ops["input_type"].to_numpy()
    concrete = ops["concrete_inputs"].to_numpy()
    sdpa = np.isin(names, list(SDPA_OPS))
    fusable = np.zeros(len(ops), dtype=bool)
    if _fused_sdpa_device(frame):
        for i in np.flatnonzero(sdpa):
            fusable[i] = _fused_kernels_take(dims[i], types[i])
    under_sdpa = nearest_ancestor(parent, rows, sdpa & ~fusable) >= 0
    fallback = nearest_ancestor(parent, rows, sdpa & fusable)
    # the outermost softmax of each call (aten::softmax runs aten::_softmax)
    outer = nearest_ancestor(parent, parent, softmax) < 0
    candidates = np.flatnonzero(softmax & in_step & ~backward & ~under_sdpa & outer)
    shapes: Counter = Counter()
    fallback_dtype: dict = {}  # shape -> the dtype SDPA was called with, for a fallback's scores
    compiled = False
    for i in candidates:
        d = _dims(dims[i])
        if inductor_softmax[i]:
            score = _inductor_scores(d)
            if score is None:
                continue
            compiled = True
            shapes[score] += 1
            continue
        if not d or len(d[0]) < 3 or min(d[0][-2:]) < MIN_SEQUENCE:
            continue
        arg = concrete[i][1] if isinstance(concrete[i], list) and len(concrete[i]) > 1 else ""
        if arg not in ("-1", str(len(d[0]) - 1)):  # softmax over the last dimension only
            continue
        shapes[tuple(d[0])] += 1
        if fallback[i] >= 0:
            fallback_dtype[tuple(d[0])] = dtype_name(types[fallback[i]][0])
    if not shapes:
        return None
    forward = in_step & ~backward & ~under_sdpa
    # the ops with a batched (rank >= 3) input, their inputs parsed once for every shape
    batched = []
    for i in np.flatnonzero(in_step & ~under_sdpa):
        d = _dims(dims[i])
        if any(len(x) >= 3 for x in d):
            batched.append((i, d))
    region = np.zeros(len(ops), dtype=bool)
    scores = []
    n_steps = max(len(frame.steps), 1)
    for shape, count in shapes.most_common():
        found = _attention_of(frame, shape, names, batched, forward, count)
        if found is not None:
            ops_of, head_dim, dtype = found
            region |= ops_of
            # the math fallback may upcast to FP32 (allow_fp16_bf16_reduction_math_sdp off): the
            # fused kernel would run in the dtype SDPA was given
            sdpa_dtype = fallback_dtype.get(shape)
            scores.append(
                Scores(
                    shape, head_dim, count / n_steps, sdpa_dtype or dtype, sdpa_dtype is not None
                )
            )
    if not scores:
        return None
    if any(sc.sdpa_fallback for sc in scores):
        region |= with_backward_nodes(ops, rows, in_step & (fallback >= 0))
    trains = bool(np.isin(names[in_step], list(SOFTMAX_BACKWARD_OPS)).any())
    trains |= bool((inductor_softmax_bwd & in_step).any())
    kernels = nearest_ancestor(parent, frame.gpu_ops["op"].to_numpy(), region) >= 0
    return EagerAttention(tuple(scores), trains, kernels, np.flatnonzero(region), compiled)


def _inductor_scores(d: list[list[int]]) -> tuple[int, ...] | None:
    """The score matrix an Inductor kernel holding a softmax takes: its first batched input of at
    least MIN_SEQUENCE rows and columns. None where the kernel also reads a tensor with a value
    per query and key position that is not the scores themselves: a position bias fused in
    (T5's [512, 512, heads], Swin's table and its 49 x 49 index), which, as for eager
    attention, is not called replaceable (a full-size mask too: the conservative side)."""
    big = [x for x in d if len(x) >= 3 and min(x[-2:]) >= MIN_SEQUENCE]
    if not big:
        return None
    score = tuple(big[0])
    size, per_position = math.prod(score), score[-2] * score[-1]
    if any(x and size != math.prod(x) >= per_position for x in d):
        return None
    return score


def with_backward_nodes(ops, rows: np.ndarray, inside: np.ndarray) -> np.ndarray:
    """The cpu_ops `inside` (a mask) and every backward node in the steps that autograd ran for
    them (matched by sequence number), with what runs under those: what a fix that replaces
    those ops removes, forward and backward (SDPA's math fallback, all of it: HF ViT-base pinned
    to the math backend, 24.4 ms of kernels a step, 20.2 ms of them on the scores; attention
    run a head at a time, its projections included)."""
    seq = ops["seq"].to_numpy()
    forward = np.unique(seq[inside & (seq >= 0)])
    nodes = name_mask(ops["name"], facts.ENGINE_NODE) & np.isin(seq, forward)
    nodes &= ops["step"].to_numpy() >= 0
    return inside | (nearest_ancestor(ops["parent"].to_numpy(), rows, nodes) >= 0)


def _fused_sdpa_device(frame: TraceFrame) -> bool:
    """Whether the main device is one every fused SDPA kernel runs on (sm80 or newer: Flash and
    memory-efficient attention in FP16 and BF16)."""
    props = frame.device_props(facts.main_device(frame) or 0) or {}
    return int(props.get("computeMajor", 0)) >= 8


def _fused_kernels_take(dims, types) -> bool:
    """Whether an SDPA call's recorded inputs (query, key, value, attn_mask, ...) are ones the
    fused kernels take (FUSED_SDPA_DTYPES, FUSED_SDPA_MAX_HEAD_DIM; see above)."""
    d = _dims(dims)
    if len(d) < 4 or not isinstance(types, list) or len(types) < 3:
        return False
    q, k, v, mask = d[:4]
    if mask or not (len(q) == len(k) == len(v) == 4):
        return False
    # one batch and head count; one head dimension; keys and values of one length
    if not (q[:2] == k[:2] == v[:2] and q[3] == k[3] == v[3] and k[2] == v[2]):
        return False
    kinds = {dtype_name(t) for t in types[:3]}
    head = q[3]
    return (
        len(kinds) == 1
        and kinds <= FUSED_SDPA_DTYPES
        and head % 8 == 0
        and head <= FUSED_SDPA_MAX_HEAD_DIM
    )


def _attention_of(
    frame: TraceFrame,
    shape: tuple[int, ...],
    names: np.ndarray,
    batched: list[tuple[int, list[list[int]]]],
    forward: np.ndarray,
    softmaxes: int,
) -> tuple[np.ndarray, int, str | None] | None:
    """For one softmax's score shape (`softmaxes` of them in the trace's forward), among the
    `batched` ops (row, parsed input dims) in the steps: the cpu_ops of its attention (a mask
    over cpu_ops), the head dimension and the dtype of Q K^T, where a forward Q K^T and attn @ V
    around it exist, no per-head bias is added to it (BIAS_OPS) and no more than
    MAX_MATMULS_PER_SOFTMAX forward matmuls take tensors of its shape; else None."""
    sq, sk, lead = shape[-2], shape[-1], math.prod(shape[:-2])
    types = frame.cpu_ops["input_type"].to_numpy()
    parent = frame.cpu_ops["parent"].to_numpy()
    # aten::matmul runs aten::bmm: one product, counted once
    outer = ~np.isin(names[np.maximum(parent, 0)], list(BATCHED_MATMUL_OPS)) | (parent < 0)
    region = np.zeros(len(names), dtype=bool)
    head_dims: Counter = Counter()
    has_av = False
    matmuls = 0
    dtypes: set = set()
    for i, d in batched:
        name = names[i]
        score_inputs = [j for j, x in enumerate(d) if _is_score(x, sq, sk, lead)]
        if name in BATCHED_MATMUL_OPS:
            pair = _matmul_operands(name, d)
            if pair is not None and _is_qk(*pair, sq, sk, lead):
                region[i] = True
                matmuls += int(forward[i] and outer[i])
                if forward[i]:
                    head_dims[pair[0][-1]] += 1
                    t = types[i]
                    at = 1 if name == "aten::baddbmm" else 0
                    if isinstance(t, list) and len(t) > at:
                        dtypes.add(dtype_name(t[at]))
                continue
            if forward[i] and pair is not None and _is_score(pair[0], sq, sk, lead):
                has_av = True
                matmuls += int(outer[i])
        if not score_inputs:
            continue
        if forward[i] and name in BIAS_OPS:
            other = [x for j, x in enumerate(d) if j != score_inputs[0] and len(x) >= 3]
            if any(tuple(x[-2:]) == (sq, sk) and x[-3] > 1 for x in other):
                return None  # a per-head bias: not called replaceable
        region[i] = True
    if not head_dims or not has_av or matmuls > MAX_MATMULS_PER_SOFTMAX * softmaxes:
        return None
    # under autocast aten::matmul records the FP32 inputs it casts (Qwen2's rotary embeddings
    # leave Q and K in FP32) and the aten::bmm inside it the BF16 it runs in
    dtype = next((d for d in ("bf16", "fp16", "fp32") if d in dtypes), None)
    return region, head_dims.most_common(1)[0][0], dtype
