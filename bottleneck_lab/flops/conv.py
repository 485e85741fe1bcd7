"""Convolutions, forward and backward (FlopCounterMode's conv_flop_count, conv_backward_flop):
counted from the output's spatial size (the input's for transposed), honouring output_mask.

One departure: a grouped convolution's weight gradient. FlopCounterMode (torch 2.11 and 2.13)
counts it with the groups left out, `groups` times its work: a depthwise convolution's backward
(groups = channels) reads hundreds of times its forward, and timm's ConvMixer-768/32 read 129.0
TFLOP a step where it does 7.9, MFU 104%. Here it is counted per group, as the same products
split into ungrouped convolutions count (tests/flops/test_flops_accuracy.py); the cost's
flopcountermode_extra is what FlopCounterMode adds, for comparing with its totals."""

from __future__ import annotations

from collections.abc import Sequence
from math import prod
from typing import NamedTuple

from .args import OpCost, _Args, _Tensor


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


def _t(shape: Sequence[int]) -> list[int]:
    return [shape[1], shape[0], *shape[2:]]


def _weight_grad_flops_ungrouped(args: _Args) -> int | None:
    """FlopCounterMode's weight-gradient term of convolution_backward(grad_output, input,
    weight, bias_sizes, stride, padding, dilation, transposed, output_padding, groups,
    output_mask): conv(input, grad_output) with batch and channels swapped, groups left out.
    None where the weight gradient is not asked for or the shapes are missing."""
    grad_out, x, w = args.tensor(0), args.tensor(1), args.tensor(2)
    mask = args.value(10, [True, True, True])
    if grad_out is None or x is None or w is None or not mask[1]:
        return None
    if bool(args.value(7, False)):
        return _conv_flops(_t(grad_out.shape), _t(x.shape), _t(w.shape), False)
    return _conv_flops(_t(x.shape), _t(grad_out.shape), _t(w.shape), False)


def _groups(args: _Args) -> int:
    groups = args.value(9, 1)
    return groups if isinstance(groups, int) and groups > 0 else 1


def _conv_backward_cost(args: _Args) -> OpCost | None:
    grad_out, x, w = args.tensor(0), args.tensor(1), args.tensor(2)
    if grad_out is None or x is None or w is None:
        return None
    transposed = bool(args.value(7, False))
    mask = args.value(10, [True, True, True])
    flops = 0
    written = 0
    if mask[0]:  # grad_input = conv_transpose(grad_output, weight)
        flops += _conv_flops(grad_out.shape, w.shape, x.shape, not transposed)
        written += x.nbytes
    # grad_weight: each group's input against its own output channels; FlopCounterMode counts
    # the term with the groups left out, the rest of it its excess
    ungrouped = _weight_grad_flops_ungrouped(args) or 0
    weight_grad = ungrouped // _groups(args)
    if mask[1]:
        flops += weight_grad
        written += w.nbytes
    if len(mask) > 2 and mask[2]:  # grad_bias: a reduction, no FLOPs in FlopCounterMode
        written += grad_out.shape[1] * grad_out.itemsize
    return OpCost(flops, args.bytes_in() + written, x.dtype, "conv", ungrouped - weight_grad)
