"""precision: FP32 matmuls where BF16 tensor cores would run them several times faster.

bad:   plain FP32, with TF32 explicitly off (the strictest FP32 math, no tensor cores).
fixed: the same model and step under torch.autocast(dtype=torch.bfloat16): matmuls and
       attention run in BF16 on tensor cores; weights, optimizer state and reductions stay FP32.

    python demos/precision.py --variant bad --device cuda --out traces/h100/precision
"""

import _common
import torch

args = _common.parse_args(__doc__, steps_cuda=5)
device = args.device
BF16 = args.variant == "fixed"

# BAD: FP32 with TF32 off. (Left on, TF32 would already use tensor cores for FP32 matmuls.)
torch.backends.cuda.matmul.allow_tf32 = False
torch.backends.cudnn.allow_tf32 = False

vocab, dim, heads, layers, batch, seq = _common.by_device(
    args, cuda=(8192, 1024, 16, 8, 8, 1024), cpu=(256, 64, 4, 2, 2, 32)
)
model = _common.TinyLM(vocab, dim, heads, layers).to(device)
opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
ids, targets = _common.random_tokens(vocab, batch, seq, device)


def train_step():
    # FIXED: autocast runs matmuls and attention in BF16; BAD: enabled=False keeps FP32.
    with torch.autocast(device_type=device, dtype=torch.bfloat16, enabled=BF16):
        loss = model.loss(ids, targets)
    opt.zero_grad(set_to_none=True)
    loss.backward()
    opt.step()


_common.run(
    args,
    train_step,
    batch_size=batch,
    config={
        "autocast_dtype": "bfloat16" if BF16 else None,
        "tf32": False,
        "vocab": vocab,
        "dim": dim,
        "heads": heads,
        "layers": layers,
        "seq_len": seq,
        "tokens_per_step": batch * seq,
    },
)
