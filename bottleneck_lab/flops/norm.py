"""Normalisation (layer, batch, group, RMS norm): 4 FLOPs per element, 5 with an affine weight
(fvcore's convention), backward twice the forward; estimates reported apart from the
FlopCounterMode-comparable total."""

from __future__ import annotations

from typing import NamedTuple

from .args import OpCost, _Args


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
        # eval batch norm is a per-channel scale and shift: elementwise work a fused kernel
        # absorbs, not a reduction
        category = "elementwise" if spec.kind == "batch" and not training else "norm"
        return OpCost(x.numel * per_element, args.bytes_in() + x.nbytes, x.dtype, category)
    mask = (
        args.value(spec.mask, [True, True, True]) if spec.mask is not None else [True, True, True]
    )
    written = x.nbytes if mask[0] else 0
    if weight is not None:
        written += weight.nbytes * sum(1 for m in mask[1:] if m)
    return OpCost(2 * x.numel * per_element, args.bytes_in() + written, x.dtype, "norm")
