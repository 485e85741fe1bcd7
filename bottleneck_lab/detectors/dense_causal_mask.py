"""Fused attention handed a dense causal mask inside a compiled graph, where is_causal would do.

Symptom: inside a torch.compile'd graph, a fused scaled_dot_product_attention kernel (cuDNN's or
the memory-efficient one, forward and backward) takes an attention mask of one head,
[batch, 1, S, S], with is_causal=False, and the graph's generated kernels build a mask from
compared positions (arange with le, lt, ge or gt; or tril, triu): a causal mask, materialised.
The kernel then computes every tile of the S x S scores and reads the mask for every head,
where with is_causal=True it skips the tiles above the diagonal and reads no mask.
Likely cause: an HF transformers decoder under torch.compile(model). Traced by Dynamo, its mask
code cannot take the is_causal shortcut it takes eagerly (transformers 5.17:
masking_utils._ignore_causal_mask_sdpa returns False whenever it is traced), so it builds the
causal mask as a tensor and SDPA runs is_causal=False. Eager, or with only the decoder layers
compiled, the same model passes no mask and SDPA runs is_causal=True.
Fix: where no sequence has padding, keep the whole model compiled and give attention no mask
(transformers: `AttentionInterface.register("sdpa_causal", sdpa_attention_forward)` and
`model.set_attn_implementation("sdpa_causal")`; transformers builds no mask for an attention it
has no mask function for, and SDPA runs is_causal=True). Compiling each decoder layer instead
(`layer.compile()`) leaves the mask to eager code too, but loses what compiling across layers
fused. Hand-written attention that passes a tril mask: call SDPA with is_causal=True instead.

Not raised on eager code: an eager one-head mask is a real one (padding, sliding windows, BERT's
padding masks, Gemma's windows), whose fix is packing or variable-length attention, not
is_causal. Not raised without a position comparison among the compiled kernels: a compiled
encoder's padding mask is not causal.

Estimate: half the masked kernels' time, the tiles a causal kernel skips; the mask reads it also
stops are left out (they grow with the sequence: at 8,192 tokens the masked kernels took 3.3x
the eager causal ones, at 1,024 2.0x). Where the GPU sets the step that is step time saved, else
what the host's work allows (as eager-attention's). Measured on an H200 with transformers 5.17,
the whole model compiled and then its SDPA handed no mask (`compile_savings.py --causal`): HF
Llama 8 x 1024 at 2 x 8,192 tokens 43.5% (promised 33.7%), HF Qwen3 at 2 x 4,096 28.1% (23.1%),
HF StableLM at 4 x 2,048 13.5% (12.8%), GPT-NeoX at 8 x 1,024 11.5% (10.3%), Llama at 8 x 1,024
9.8% (9.3%), GPT-2 8.9% (4.2%). Compiling the layers instead measured 38.5% on the long Llama
but 7.3% (21.1% timed interleaved) on Qwen3.
Needs recorded shapes (record_shapes=True).
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

import numpy as np

from .. import facts
from ..diagnosis import Finding, severity_for_share
from ..trace import TraceFrame
from ..trace.frame import name_mask, nearest_ancestor
from ..trace.synth import TraceBuilder
from ._common import cost, fused_step_saving_us, shape_text
from ._examples import BF16, launch, steps

CODE = "dense-causal-mask"
KIND = "fusion"  # as eager-attention's: attention kernels doing work one causal kernel skips
REQUIRES = {"kernels", "steps", "cpu_ops", "shapes"}

# Fused SDPA ops that take a mask: the positions of attn_bias and is_causal in their schemas
# (torch 2.11-2.13). Flash attention takes no mask.
MASK_AND_CAUSAL_ARGS = {
    "aten::_scaled_dot_product_cudnn_attention": (3, 6),
    "aten::_scaled_dot_product_cudnn_attention_backward": (8, 14),
    "aten::_scaled_dot_product_efficient_attention": (3, 6),
    "aten::_scaled_dot_product_efficient_attention_backward": (4, 11),
}
# AOTAutograd's compiled forward and backward, and Dynamo's frame (inference graphs)
COMPILED_SPAN = re.compile(r"^(CompiledFunction|CompiledFunctionBackward|Torch-Compiled Region)")
# Inductor names a generated kernel after the aten ops it fused: a causal mask is positions
# compared (HF: kv_idx <= q_idx over aranges, "..._arange_..._le_..._where_...") or a tril
CAUSAL_TOKENS = frozenset({"tril", "triu"})
POSITION_COMPARISONS = frozenset({"le", "lt", "ge", "gt"})
# the masked half of the score tiles: what is_causal skips
SKIPPED_SHARE = 0.5


@dataclass(frozen=True)
class Config:
    min_share_pct: float = 3.0


def detect(frame: TraceFrame, cfg: Config):
    mask_kernel = _causal_mask_kernel(frame)
    if mask_kernel is None:
        return []
    ops = frame.cpu_ops
    names = ops["name"].astype(object).to_numpy()
    masked = _masked_ops(frame, names)
    if not masked.any():
        return []
    g = frame.gpu_ops
    owner = nearest_ancestor(
        ops["parent"].to_numpy(), g["op"].fillna(-1).to_numpy().astype(np.int64), masked
    )
    k = (g["kind"] == "kernel").to_numpy() & (g["step"] >= 0).to_numpy() & (owner >= 0)
    k &= (g["device"] == facts.main_device(frame)).to_numpy()
    if not k.any():
        return []
    n_steps = max(len(frame.steps), 1)
    masked_us = float(g["dur"].to_numpy()[k].sum()) / n_steps
    gpu_saved = masked_us * SKIPPED_SHARE
    # as eager-attention's: GPU time saved where the GPU sets the step, else what the host allows
    step_saved = fused_step_saving_us(frame, gpu_saved, 0.0)
    per_step, share = cost(frame, step_saved * n_steps)
    if share < cfg.min_share_pct:
        return []
    forward = [o for o in np.flatnonzero(masked) if not names[o].endswith("_backward")]
    shapes = Counter(
        shape_text(_arg(ops["input_dims"].iat[o], MASK_AND_CAUSAL_ARGS[names[o]][0]))
        for o in forward or np.flatnonzero(masked)
    )
    mask_shape = shapes.most_common(1)[0][0]
    cudnn = any("cudnn" in names[o] for o in np.flatnonzero(masked))
    backend = "cuDNN's" if cudnn else "the memory-efficient"
    ops_in_steps = masked & (ops["step"].to_numpy() >= 0)
    evidence = {
        "mask_shape": mask_shape,
        "mask_shapes": dict(shapes),
        "is_causal": False,
        "attention_ops_per_step": round(float(ops_in_steps.sum()) / n_steps, 1),
        "masked_kernels_per_step": round(float(k.sum()) / n_steps, 1),
        "masked_kernel_us_per_step": round(masked_us, 1),
        "gpu_time_saved_us_per_step": round(gpu_saved, 1),
        "gpu_sets_step": facts.gpu_sets_step(frame),
        "causal_mask_kernel": mask_kernel,
        "largest_kernels": _largest_kernels(g.loc[k], n_steps),
    }
    title = (
        f"The compiled graph hands {backend} fused attention a dense {mask_shape} causal mask "
        f"with is_causal=False: {masked_us / 1e3:.2f} ms of attention kernels a step compute "
        f"every score tile and read the mask; is_causal=True would skip the masked half, "
        f"~{share:.0f}% of the step"
    )
    fix = (
        "torch.compile traced the model's mask code, which then builds the causal mask as a "
        f"tensor (Inductor kernel {mask_kernel}) where eager code passes none and SDPA runs "
        "is_causal=True (HF transformers under torch.compile(model)). Where no sequence has "
        "padding, keep the whole model compiled and give attention no mask: "
        'AttentionInterface.register("sdpa_causal", sdpa_attention_forward) (from '
        "transformers.integrations.sdpa_attention), then model.set_attn_implementation("
        '"sdpa_causal"): transformers builds no mask for an attention it has no mask function '
        "for, and SDPA runs is_causal=True. Compiling each decoder layer instead of the whole "
        "model (for layer in model.model.layers: layer.compile()) also leaves the mask to eager "
        "code, but loses what compiling across layers fused. Hand-written attention: "
        "F.scaled_dot_product_attention(q, k, v, is_causal=True) in place of a tril mask. The "
        "estimate is the half of the score tiles a causal kernel skips; the mask reads it also "
        "stops come on top at long sequences: time it."
    )
    return [Finding(CODE, KIND, severity_for_share(share), title, per_step, share, evidence, fix)]


def _arg(dims, i: int):
    return dims[i] if isinstance(dims, list) and len(dims) > i else None


def _masked_ops(frame: TraceFrame, names: np.ndarray) -> np.ndarray:
    """CPU ops of fused SDPA in a compiled graph with a one-head square mask, is_causal=False."""
    ops = frame.cpu_ops
    out = np.zeros(len(ops), dtype=bool)
    rows = np.flatnonzero(np.isin(names, list(MASK_AND_CAUSAL_ARGS)))
    for o in rows:
        mask_at, causal_at = MASK_AND_CAUSAL_ARGS[names[o]]
        mask = _arg(ops["input_dims"].iat[o], mask_at)
        causal = _arg(ops["concrete_inputs"].iat[o], causal_at)
        out[o] = (
            isinstance(mask, list)
            and len(mask) == 4
            and mask[1] == 1
            and mask[2] == mask[3] > 1
            and causal == "False"
        )
    if not out.any():
        return out
    compiled = name_mask(ops["name"], COMPILED_SPAN)
    inside = nearest_ancestor(ops["parent"].to_numpy(), np.arange(len(ops)), compiled) >= 0
    return out & inside


def _causal_mask_kernel(frame: TraceFrame) -> str | None:
    """The name of a generated (Triton) kernel in the steps that builds a causal mask, or None.
    Names are matched once per distinct name (the column is categorical), rows only for those."""
    g = frame.gpu_ops
    names = g["name"]
    for name in names.cat.categories:
        if not name.startswith("triton_"):
            continue
        tokens = set(name.split("_"))
        if not (tokens & CAUSAL_TOKENS or ("arange" in tokens and tokens & POSITION_COMPARISONS)):
            continue
        rows = (names == name).to_numpy() & (g["kind"] == "kernel").to_numpy()
        if (g["step"].to_numpy()[rows] >= 0).any():
            return name
    return None


def _largest_kernels(kernels, n_steps: int) -> list[dict]:
    by = kernels.groupby(kernels["name"].astype(str), observed=True)["dur"].sum()
    return [
        {"kernel": name, "us_per_step": round(float(us) / n_steps, 1)}
        for name, us in by.nlargest(3).items()
    ]


# --- example: positive (bad=True) and negative trace; `bottleneck-lab explain` shows it -------
# one compiled decoder attention a step, 2 x 16 heads over 2,048 tokens, BF16


def example(bad: bool) -> TraceBuilder:
    """A compiled graph a step (CompiledFunction): a Triton kernel that builds the causal mask
    from compared positions, then cuDNN's fused attention (2 x 16 heads, 2,048 tokens, BF16).
    Bad: the attention takes the [2, 1, 2048, 2048] mask with is_causal=False, 600 µs. Good: no
    mask and is_causal=True, 300 µs."""
    q = [2, 16, 2048, 64]
    mask = [2, 1, 2048, 2048] if bad else []
    dims = [q, q, q, mask, [], [], [], [], []]
    attention_args = {
        "Input Dims": dims,
        "Input type": [BF16, BF16, BF16, BF16 if bad else "", "Scalar", "Scalar", "Scalar", "", ""],
        "Concrete Inputs": ["", "", "", "", "True", "0.", "False" if bad else "True", "False", ""],
    }
    b = TraceBuilder()
    for t0 in steps(b, cpu_us=80):
        b.cpu_op("CompiledFunction", t0 + 5, 70)
        mask_kernel = "triton_poi_fused_add_arange_expand_le_scalar_tensor_unsqueeze_where_5"
        launch(b, t0 + 10, t0 + 40, 20, name=mask_kernel, kernel=mask_kernel)
        launch(
            b,
            t0 + 30,
            t0 + 60,
            600 if bad else 300,
            name="aten::_scaled_dot_product_cudnn_attention",
            kernel="cudnn_generated_fort_native_sdpa_sm90_flash_fprop_wgmma_f16_knob_7_64x128x128",
            op_args=attention_args,
        )
    return b
