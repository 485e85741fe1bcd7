"""cuDNN's fused recurrent layers (nn.LSTM, nn.GRU, nn.RNN on a GPU): aten::_cudnn_rnn and its
backward, which FlopCounterMode has no formula for (it counts them as zero).

Their work is matrix products, one pair per layer, direction and token: the input's
(G*H x I_l) and the hidden state's (G*H x H_r) gate weights, G gates (4 for LSTM, 3 for GRU, 1
for a plain RNN), plus an LSTM's (P x H) projection where proj_size P is set. Counted as
FlopCounterMode counts the same products written out (2*m*n*k each, biases and the gates'
pointwise math ignored), as the CPU's unrolled LSTM runs them. Tokens are all the input's rows:
a packed sequence's total length, or time x batch. The backward counts what the written-out
products' backward does: the data pass (the forward's products again, every layer's input
gradient included) less the first step's hidden-state products where no gradient of the
initial state is asked for, and the weight pass (the forward's products once more) where the
weights need gradients. Checked against FlopCounterMode on the CPU's unrolled LSTM, GRU and RNN
(tests/flops/test_rnn_flops.py).
"""

from __future__ import annotations

from math import prod

from .args import OpCost, _Args

# cuDNN's cudnnRNNMode_t as the op records it -> gates per cell
_GATES = {0: 1, 1: 1, 2: 4, 3: 3}  # RNN_RELU, RNN_TANH, LSTM, GRU


# Argument positions of (mode, hidden_size, proj_size, num_layers, bidirectional) and, in the
# backward, output_mask (grad_input, grad_hx, grad_cx, grad_weight).
FORWARD_ARGS = (6, 7, 8, 9, 13)
BACKWARD_ARGS = (10, 11, 12, 13, 17)
BACKWARD_OUTPUT_MASK = 21


def _forward(args: _Args, positions: tuple[int, ...]) -> tuple[int, int] | None:
    """(FLOPs of the forward pass, FLOPs of its first time step's hidden-state products) from
    the recorded input, initial hidden state and arguments; None where they do not say."""
    x, hx = args.tensor(0), args.tensor(4)
    mode, hidden, proj, layers, bidirectional = (args.value(i) for i in positions)
    if x is None or len(x.shape) not in (2, 3) or mode not in _GATES:
        return None
    if not all(isinstance(v, int) and v >= 0 for v in (hidden, proj, layers)) or not hidden:
        return None
    gates, dirs = _GATES[mode] * hidden, 2 if bidirectional is True else 1
    tokens, size_in = prod(x.shape[:-1]), x.shape[-1]
    h_out = proj or hidden
    per_direction = 0
    for layer in range(layers):
        size = size_in if layer == 0 else dirs * h_out
        per_direction += 2 * tokens * gates * (size + h_out) + 2 * tokens * proj * hidden
    batch = hx.shape[1] if hx is not None and len(hx.shape) == 3 else 0
    return dirs * per_direction, dirs * layers * 2 * batch * gates * h_out


def _rnn_cost(args: _Args, backward: bool) -> OpCost | None:
    got = _forward(args, BACKWARD_ARGS if backward else FORWARD_ARGS)
    if got is None:
        return None
    flops, first_step = got
    x, hx, cx = args.tensor(0), args.tensor(4), args.tensor(5)
    # minimum traffic: every tensor read once, but the weight list, which views weight_buf, and
    # each output written once
    read = sum(t.nbytes for i in range(len(args.dims)) if i != 1 for t in args.tensor_list(i))
    if backward:
        mask = args.value(BACKWARD_OUTPUT_MASK)
        if not (isinstance(mask, list) and len(mask) == 4):
            mask = [True] * 4
        data = flops - (0 if mask[1] is not False else first_step)
        flops = data + (flops if mask[3] is not False else 0)
        grads = [(True, x), (mask[1] is not False, hx), (mask[2] is not False, cx)]
        grads.append((mask[3] is not False, args.tensor(3)))  # the weights' gradient buffer
        written = sum(t.nbytes for asked, t in grads if asked and t is not None)
    else:
        dirs = 2 if args.value(FORWARD_ARGS[4]) is True else 1
        h_out = hx.shape[-1] if hx is not None else 0
        out = prod(x.shape[:-1]) * dirs * h_out * x.itemsize
        written = out + sum(t.nbytes for t in (hx, cx) if t is not None)  # output, hy, cy
    return OpCost(float(flops), float(read + written), x.dtype, "rnn")
