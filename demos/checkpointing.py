"""checkpointing: activation checkpointing trades a second forward pass for most activation memory.

bad:   every block keeps all its activations for the backward pass: peak memory grows with
       depth x batch x sequence length.
fixed: torch.utils.checkpoint around each block keeps only the block's input and recomputes
       the rest during backward: far lower peak memory for roughly one extra forward pass.

"bad" is not always wrong here: it is the faster one when memory is plentiful. Use the fixed
variant when the peak would not fit, or to buy a larger batch.

    python demos/checkpointing.py --variant bad --device cuda --out traces/h100/checkpointing
"""

import _common
import torch
from torch.utils.checkpoint import checkpoint

args = _common.parse_args(__doc__, steps_cuda=5)
device = args.device
CHECKPOINT = args.variant == "fixed"

vocab, dim, heads, layers, batch, seq = _common.by_device(
    args, cuda=(4096, 1024, 16, 12, 8, 2048), cpu=(256, 64, 4, 2, 2, 32)
)
model = _common.TinyLM(vocab, dim, heads, layers).to(device)
opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
ids, targets = _common.random_tokens(vocab, batch, seq, device)


def run_block(block, x):
    if CHECKPOINT:  # FIXED: keep only x, recompute the block's insides during backward
        return checkpoint(block, x, use_reentrant=False)
    return block(x)  # BAD (for memory): keep every activation of every block


def train_step():
    with torch.autocast(device_type=device, dtype=torch.bfloat16):
        loss = model.loss(ids, targets, run_block)
    opt.zero_grad(set_to_none=True)
    loss.backward()
    opt.step()


_common.run(
    args,
    train_step,
    batch_size=batch,
    config={
        "activation_checkpointing": CHECKPOINT,
        "autocast_dtype": "bfloat16",
        "vocab": vocab,
        "dim": dim,
        "heads": heads,
        "layers": layers,
        "seq_len": seq,
        "tokens_per_step": batch * seq,
    },
)
