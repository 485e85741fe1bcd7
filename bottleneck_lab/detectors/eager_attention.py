"""Attention run as separate matmul, softmax and matmul kernels where one fused kernel would do.

Symptom: a softmax over the last dimension of a [batch, heads, Sq, Sk] score matrix (or
[batch * heads, Sq, Sk]) between two batched matmuls of activations, Q K^T before it and
attn @ V after, forward and backward, with the scaling, masking, dropout and autocast casts of
the scores in between: each kernel reads and writes the whole Sq x Sk matrix per head in
memory, and the matmuls of a short head dimension run far below the tensor cores' peak (timm
ViT-B/16 with fused_attn off: align1 CUTLASS kernels at 3% of the BF16 peak on 197 tokens).
Likely cause: attention written by hand, or a library's eager path: HF transformers with
attn_implementation="eager", timm with fused_attn off, older model code.
Fix: `F.scaled_dot_product_attention(q, k, v, attn_mask=..., dropout_p=..., is_causal=...)`
in place of matmul-softmax-matmul (HF: attn_implementation="sdpa"; timm: fused attention on,
the default unless TIMM_FUSED_ATTN=0). It never writes the score matrix to memory, and no
longer keeps the probabilities for backward.

Not called replaceable: attention whose scores get a per-head bias of their own size added
(Swin's relative position bias, DeBERTa's disentangled terms; SDPA takes it only as a float
mask, never measured here), probabilities that more matmuls take than Q K^T and attn @ V (an
iteration on them: Nystromformer's pseudo-inverse of its landmark kernel, which SDPA does not
compute), and SDPA's own math fallback where a mask, a dtype or a shape kept the fused kernels
away. SDPA's math fallback for inputs the fused kernels take (4-D BF16 or FP16,
no mask: _attention.FUSED_SDPA_DTYPES) comes from the user's backend settings: it is this finding,
with its own fix, let SDPA choose (HF ViT-base pinned to SDPBackend.MATH: 42.9% measured,
holdout 53).

Estimate: the GPU time of every kernel on the attention (Q K^T, the ops that take the scores or
their transpose, attn @ V, and their backward; the Q, K, V reshapes and the scaling of Q are
left out), less a fused kernel's time: the attention's FLOPs (4 * batch * heads * Sq * Sk *
head_dim forward, 3.5x that when it trains) at the share of the peak fused attention reached on
that key length in the zoo (FUSED_PEAK_SHARE_*: 8.5% at 197 keys, 35% at 1024, never more than
36%). The host saves the dispatch of those ops, counted as fusion counts it. As for fusion, off
a GPU-bound step the host's work (at the profiler's lowest share) bounds the saving; the title
then also says what the GPU time alone would give. Needs recorded shapes (record_shapes=True).

Attention run one head at a time (the "Let's build GPT" lecture's Head modules: per head its own
q, k and v Linear from the model's width to the head dimension, its own matmul, softmax and
matmul on [batch, Sq, Sk] scores, then torch.cat of the heads) is said as such, with the fix of
one projection and one SDPA call over every head; the host then saves the recorded time of every
op of those heads and their projections, forward and backward, views and backward nodes that
launch no kernel included, but one head's worth (the lecture's GPT: 51.8% promised, 78.5%
measured, holdout 56).

The same attention inside a compiled graph (_attention.INDUCTOR_KERNEL: a generated kernel that
holds a softmax over batched scores between a Q K^T and an attn @ V) is said as the compiled
graph's, its fix to compile only the modules around attention or to call SDPA where the model
writes attention out; its fused kernel is priced in the step's half precision where most matrix
FLOPs run in it (the decomposition may upcast the scores' matmuls: HF ViViT compiled, FP32
matmuls and softmax kernels 100 ms a step, 64.1% promised, 61.6% measured by not compiling).
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, replace

import numpy as np

from .. import facts
from ..diagnosis import Finding, severity_for_share
from ..efficiency import compute_ops, device_peak, dominant_dtype
from ..trace import TraceFrame
from ..trace.frame import nearest_ancestor, outermost
from ..trace.synth import TraceBuilder
from ._attention import Scores, eager_attention, with_backward_nodes
from ._common import cost, fused_step_saving_us, host_us_of_kernels, shape_text
from ._examples import BF16, launch, steps

CODE = "eager-attention"
KIND = "fusion"
REQUIRES = {"kernels", "steps", "cpu_ops", "shapes"}

# The share of the peak fused attention (cuDNN SDPA, forward and backward) reached, as a power
# of the key length: the least-squares fit (in logs) over the zoo's training runs with SDPA in
# BF16 that are not holdouts, on H100 and H200 (`python benchmarks/fused_attention_share.py`:
# 10 runs; 5.7% at 180 keys with shapes changing every step, 12% at 197, 13-21% at 512, 35-36%
# at 1024). Short sequences leave most of a fused kernel's tiles idle. Capped at the highest
# share those runs reached: longer sequences reach more (85% at 8192 keys on a holdout), so
# there the fused kernel is priced slow and the saving low.
FUSED_PEAK_SHARE_SCALE = 0.00090
FUSED_PEAK_SHARE_EXPONENT = 0.861
FUSED_PEAK_SHARE_MAX = 0.36
# A fused attention's backward does 2.5x the forward's matmul FLOPs (it recomputes the scores).
TRAINING_FLOPS_X = 3.5


@dataclass(frozen=True)
class Config:
    min_share_pct: float = 3.0


def fused_peak_share(keys: int) -> float:
    """The share of the peak a fused attention kernel reaches on `keys` keys (the fit above)."""
    share = FUSED_PEAK_SHARE_SCALE * keys**FUSED_PEAK_SHARE_EXPONENT
    return min(share, FUSED_PEAK_SHARE_MAX)


def detect(frame: TraceFrame, cfg: Config):
    att = eager_attention(frame)
    if att is None:
        return []
    peak = device_peak(frame)
    scores = att.scores
    half = _half_matmul_dtype(frame) if att.compiled else None
    if half is not None:
        # the graph's FP32 matmuls on the scores are the decomposition's upcast in a step whose
        # other products run in half precision (autocast): SDPA there runs in that dtype
        scores = tuple(replace(s, dtype=half) if s.dtype == "fp32" else s for s in scores)
    fused = [_fused(s, att.trains, peak) for s in scores]
    if any(f is None for f in fused):
        return []  # no peak to price the fused kernel against
    g = frame.gpu_ops
    k = (g["kind"] == "kernel").to_numpy() & (g["step"] >= 0).to_numpy()
    k &= (g["device"] == facts.main_device(frame)).to_numpy() & att.kernels
    n_steps = max(len(frame.steps), 1)
    eager_us = float(g["dur"].to_numpy()[k].sum()) / n_steps
    fused_us = sum(f["fused_us_per_step"] for f in fused)
    gpu_saved = max(eager_us - fused_us, 0.0)
    # the host stops dispatching those ops (one SDPA call a layer instead), counted as fusion's
    removed = g.loc[k, ["op"]].rename(columns={"op": "owner"})
    host_saved = host_us_of_kernels(frame, removed) / n_steps
    # heads run one at a time, each with its own q, k and v projections: one projection a layer
    # and one SDPA call over all heads also drop all but one of every 3 x heads projections
    heads = _heads_apart(frame, att)
    if heads is not None:
        # every op of the per-head attention and projections goes, forward and backward,
        # kernels or none (views, transposes, expands and their backward nodes), but one head's
        # worth: a layer still runs one projection and one SDPA call
        host_saved = max(host_saved, heads.host_us * (1 - 1 / heads.heads))
    step_saved = fused_step_saving_us(frame, gpu_saved, host_saved)
    per_step, share = cost(frame, step_saved * n_steps)
    if share < cfg.min_share_pct:
        return []
    first = att.scores[0]
    shapes = [shape_text(s.shape) for s in att.scores]
    evidence = {
        "score_shape": list(first.shape),
        "head_dim": first.head_dim,
        "attentions_per_step": round(att.per_step, 1),
        "trains": att.trains,
        "dtype": first.dtype,
        "score_shapes": fused,
        "eager_kernels_per_step": round(float(k.sum()) / n_steps, 1),
        "eager_kernel_us_per_step": round(eager_us, 1),
        "fused_flops_per_step": sum(f["fused_flops_per_step"] for f in fused),
        "fused_us_per_step": round(fused_us, 1),
        "gpu_time_saved_us_per_step": round(gpu_saved, 1),
        "host_time_saved_us_per_step": round(host_saved, 1),
        "host_time_us_per_step": round(facts.host_time_us(frame), 1),
        "largest_ops": _largest_ops(frame, k, n_steps),
    }
    # what the GPU time alone would give, said where the host may hold the step back
    _, gpu_share = cost(frame, gpu_saved * n_steps)
    evidence["gpu_bound_share_pct"] = gpu_share
    evidence["heads_apart"] = None
    if att.compiled:
        how = "The compiled graph runs attention as separate matmul and softmax kernels" + (
            f" (its matmuls on the scores in {first.dtype.upper()})" if first.dtype else ""
        )
    elif att.sdpa_fallback:
        how = (
            "scaled_dot_product_attention runs its math fallback (separate matmul, softmax and "
            "matmul kernels)"
        )
    else:
        how = "Attention runs as separate matmul, softmax and matmul kernels"
    if heads is not None:
        evidence["heads_apart"] = {
            "heads": heads.heads,
            "width": heads.width,
            "projections_per_step": round(heads.projections_per_step, 1),
            "host_us_per_step": round(heads.host_us, 1),
        }
        how = (
            f"Attention runs one head at a time ({heads.heads} heads of {first.head_dim}, each "
            "with its own q, k and v projections) as separate matmul, softmax and matmul kernels"
        )
    title = (
        f"{how} over {_listed(shapes)} "
        f"score matrices ({att.per_step:.3g} a step): {eager_us / 1e3:.2f} ms of kernels a step "
        f"where fused attention would take ~{fused_us / 1e3:.2f} ms; ~{share:.0f}% of the step"
    )
    if gpu_share > share + 5:
        title += (
            f" as traced, where the host's work may set its length (~{gpu_share:.0f}% if the "
            "GPU does)"
        )
    # one clause per distinct key length (a cross-attention shares its encoder's)
    assumed = ", ".join(
        dict.fromkeys(
            f"{100 * f['fused_peak_share_assumed']:.0f}% of the {f['dtype']} peak on "
            f"{f['shape'][-1]} keys"
            for f in fused
        )
    )
    evidence["sdpa_math_fallback"] = att.sdpa_fallback
    evidence["compiled_graph"] = att.compiled  # its softmax in torch.compile's kernels
    if att.compiled:
        fix = (
            "torch.compile either decomposed the model's scaled_dot_product_attention into "
            "these kernels (its math path: the score matrices written to memory"
            + (", here with their matmuls in FP32" if first.dtype == "fp32" else "")
            + ") or compiled attention the model writes out. Compile only "
            "the modules around attention (module.compile() on each MLP and norm) and leave "
            "attention eager, where SDPA picks its fused kernel; where the model writes "
            "attention out, call F.scaled_dot_product_attention there. Compare a trace of the "
            "model without torch.compile: its attention kernels should be flash, "
            "memory-efficient or cuDNN ones."
        )
    elif att.sdpa_fallback:
        fix = (  # no attention to rewrite: a setting to undo
            "SDPA was called with inputs its fused kernels take (no mask, "
            f"{first.dtype.upper() if first.dtype else 'BF16/FP16'}, head dimension "
            f"{first.head_dim}), so a setting kept them off: look for "
            "torch.nn.attention.sdpa_kernel(SDPBackend.MATH) (or the older "
            "torch.backends.cuda.sdp_kernel) around the step, and "
            "torch.backends.cuda.enable_flash_sdp(False), enable_mem_efficient_sdp(False) or "
            "enable_cudnn_sdp(False); drop it, or list the fused backends there "
            "(sdpa_kernel([SDPBackend.FLASH_ATTENTION, SDPBackend.EFFICIENT_ATTENTION]))."
        )
    else:
        fix = (
            "Replace matmul-softmax-matmul with F.scaled_dot_product_attention(q, k, v, "
            "attn_mask=..., dropout_p=..., is_causal=...): a causal mask is is_causal=True, a "
            "padding mask goes in attn_mask. HF transformers: attn_implementation='sdpa' (or "
            "'flash_attention_2') where the model supports it (loading raises where it does not, "
            "as for CANINE in transformers 5.17: then the attention module's forward is where "
            "the call goes); timm: leave fused attention on (TIMM_FUSED_ATTN unset). The "
            "fused kernel never writes the score matrices to memory, so it also stops keeping "
            f"{shapes[0]} probabilities per layer for backward."
        )
    if heads is not None:
        fix = (
            f"Compute all {heads.heads} heads at once: one Linear({heads.width}, "
            f"{3 * heads.width}) for q, k and v, a view to (batch, {heads.heads}, tokens, "
            f"{first.head_dim}), and one F.scaled_dot_product_attention(q, k, v, is_causal=..., "
            "dropout_p=...) call over every head (nanoGPT's CausalSelfAttention), in place of a "
            "module per head and torch.cat of their outputs: each head's projections and "
            "attention ops are kernels the host dispatches one by one. " + fix
        )
    fix += (
        f" The estimate assumes fused attention at {assumed}, as measured on H100 and H200: "
        "time it."
    )
    return [Finding(CODE, KIND, severity_for_share(share), title, per_step, share, evidence, fix)]


@dataclass(frozen=True)
class HeadsApart:
    """Attention computed head by head: how many heads, the model width they split, the
    per-head projections a step, and the host's time a step in the ops of the attention and
    those projections, forward and backward (less the profiler's share)."""

    heads: int
    width: int
    projections_per_step: float
    host_us: float


def _heads_apart(frame: TraceFrame, att) -> HeadsApart | None:
    """Whether the main score shape's attention runs a head at a time (the "Let's build GPT"
    lecture's Head modules): scores with no head dimension, [batch, Sq, Sk], and at least two
    projections an attention a step (aten::linear, outside another) from the model's width to
    the head dimension (weight [head_dim, width], width a multiple of it, 2x or more), taking
    the scores' batch; the attentions a step a multiple of width / head_dim. A batched layout
    ([batch x heads, Sq, Sk], nn.MultiheadAttention) projects to the full width instead."""
    first = att.scores[0]
    if len(first.shape) != 3:
        return None
    ops = frame.cpu_ops
    names = ops["name"].astype(object).to_numpy()
    parent = ops["parent"].to_numpy()
    linear = outermost(parent, names == "aten::linear")
    linear &= ops["step"].to_numpy() >= 0
    hd, batch = first.head_dim, first.shape[0]
    widths: Counter = Counter()
    rows = []
    for i in np.flatnonzero(linear):
        d = ops["input_dims"].iat[i]
        if not isinstance(d, list) or len(d) < 2 or not isinstance(d[1], list):
            continue
        x, w = d[0], d[1]
        if len(w) == 2 and w[0] == hd and w[1] >= 2 * hd and w[1] % hd == 0 and x and x[0] == batch:
            widths[w[1]] += 1
            rows.append((i, w[1]))
    if not widths:
        return None
    width, count = widths.most_common(1)[0]
    n_steps = max(len(frame.steps), 1)
    heads = width // hd
    per_step = count / n_steps
    attentions = first.per_step
    if per_step < 2 * attentions or round(attentions) % heads:
        return None
    mine = np.zeros(len(ops), dtype=bool)
    mine[[i for i, w in rows if w == width]] = True
    mine[att.ops] = True
    rows_all = np.arange(len(ops))
    inside = nearest_ancestor(parent, rows_all, mine) >= 0
    region = with_backward_nodes(ops, rows_all, inside) & (ops["step"].to_numpy() >= 0)
    recorded = float(ops["dur"].to_numpy()[outermost(parent, region)].sum())
    host_us = min(
        recorded * (1.0 - facts.PROFILER_SHARE_OF_HOST_OP) / n_steps, facts.host_time_us(frame)
    )
    return HeadsApart(heads, width, per_step, host_us)


def _half_matmul_dtype(frame: TraceFrame) -> str | None:
    """bf16 or fp16 where most of the step's matrix FLOPs (efficiency's compute ops) run in it,
    else None."""
    top = dominant_dtype(frame)
    if top not in ("bf16", "fp16"):
        return None
    flops = compute_ops(frame).groupby("dtype")["flops"].sum()
    return top if flops[top] > 0.5 * flops.sum() else None


def _fused(scores: Scores, trains: bool, peak) -> dict | None:
    """One score shape's fused attention: its FLOPs a step and time at the fitted share of the
    peak of its dtype, None where the device has no such peak."""
    peak_tflops = peak.peak_for(scores.dtype) if peak is not None else None
    if not peak_tflops:
        return None
    *lead, sq, sk = scores.shape
    forward = 4.0 * math.prod(lead) * sq * sk * scores.head_dim * scores.per_step
    flops = forward * (TRAINING_FLOPS_X if trains else 1.0)
    share_of_peak = fused_peak_share(sk)
    return {
        "shape": list(scores.shape),
        "head_dim": scores.head_dim,
        "per_step": round(scores.per_step, 1),
        "dtype": scores.dtype,
        "fused_flops_per_step": flops,
        "fused_peak_share_assumed": round(share_of_peak, 3),
        "fused_us_per_step": round(flops / (share_of_peak * peak_tflops * 1e12) * 1e6, 1),
    }


def _listed(items: list[str]) -> str:
    """a; a and b; a, b and c."""
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def _largest_ops(frame: TraceFrame, kernels: np.ndarray, n_steps: int) -> list[dict]:
    """The attention's kernel time per step by the op that launched it, largest first."""
    ops = frame.cpu_ops
    g = frame.gpu_ops
    owner = g["op"].to_numpy()[kernels]
    dur = g["dur"].to_numpy()[kernels]
    by: Counter = Counter()
    for o, d in zip(owner, dur):
        dims = ops["input_dims"].iat[o]
        shapes = (
            [x for x in dims[:2] if isinstance(x, list) and x] if isinstance(dims, list) else []
        )
        by[(str(ops["name"].iat[o]), ", ".join(shape_text(x) for x in shapes))] += d
    return [
        {"op": name, "shapes": shapes, "us_per_step": round(float(us) / n_steps, 1)}
        for (name, shapes), us in by.most_common(5)
    ]


# --- example: positive (bad=True) and negative trace; `bottleneck-lab explain` shows it -------
# ViT-B/16's attention at batch 64: 12 heads over 197 tokens, BF16


def example(bad: bool) -> TraceBuilder:
    """One attention a step (64 x 12 heads, 197 tokens, head dimension 64, BF16), forward only.
    Bad: Q K^T, softmax and attn @ V as three ops, 400 µs of kernels. Good: one
    scaled_dot_product_attention kernel of 100 µs."""
    q = [64, 12, 197, 64]
    scores = [64, 12, 197, 197]

    def args(dims: list, concrete: list | None = None) -> dict:
        return {
            "Input Dims": dims,
            "Input type": [BF16 if d else "" for d in dims],
            "Concrete Inputs": concrete or [""] * len(dims),
        }

    if bad:
        ops = [
            ("aten::matmul", args([q, [64, 12, 64, 197]]), "gemm_qk", 150),
            ("aten::softmax", args([scores, [], []], ["", "-1", ""]), "softmax_warp", 100),
            ("aten::matmul", args([scores, q]), "gemm_av", 150),
        ]
    else:
        ops = [("aten::scaled_dot_product_attention", args([q, q, q]), "cudnn_attention", 100)]
    b = TraceBuilder()
    for t0 in steps(b, cpu_us=60):
        kernel_ts = t0 + 50  # the ops launch early in the step, their kernels run back to back
        for i, (name, op_args, kernel, dur) in enumerate(ops):
            launch(b, t0 + 10 + 12 * i, kernel_ts, dur, name=name, kernel=kernel, op_args=op_args)
            kernel_ts += dur
    return b
