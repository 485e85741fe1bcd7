"""sync: host-device synchronisations inside the step drain the GPU again and again.

bad:   the loop reads GPU values on the host while it trains: a monitoring hook on every layer
       logs activation and gradient statistics with `.item()`, the masked loss uses boolean
       indexing (`nonzero`), a NaN guard tests the loss with `if`, and accuracy comes back
       with `.cpu()`. Each read waits until the GPU has finished everything queued, then the
       GPU idles while Python launches the next kernels: CPU and GPU take turns.
fixed: the same logic with the values kept on the GPU: statistics stay tensors (call .item()
       when you print, every N steps), the mask multiplies instead of indexing, the NaN guard
       accumulates in a device flag read once at the end. The CPU runs ahead of the GPU.

    python demos/sync.py --variant bad --device cuda --out traces/h100/sync
"""

import _common
import torch
import torch.nn as nn
import torch.nn.functional as F

args = _common.parse_args(
    __doc__,
    steps_cuda=20,
    extra=lambda p: (
        p.add_argument("--batch-size", type=int, default=None, help="rows per step"),
        p.add_argument(
            "--bf16",
            action="store_true",
            help="forward under BF16 autocast (what precision alone saves)",
        ),
    ),
)
device = args.device
SYNC = args.variant == "bad"

dim, layers, batch, classes = _common.by_device(
    args, cuda=(1024, 8, 4096, 1000), cpu=(64, 2, 16, 10)
)
batch = args.batch_size or batch

model = nn.Sequential(
    *[nn.Sequential(nn.LayerNorm(dim), nn.Linear(dim, dim), nn.GELU()) for _ in range(layers)],
    nn.Linear(dim, classes),
).to(device)
opt = torch.optim.AdamW(model.parameters(), lr=1e-4)

x_data = torch.randn(batch, dim, device=device)
y_data = torch.randint(0, classes, (batch,), device=device)
keep = torch.rand(batch, device=device) > 0.1  # e.g. padding rows to leave out of the loss

stats = {}  # what a dashboard would show
nonfinite = torch.zeros((), dtype=torch.bool, device=device)


def log_stat(name, value):
    if SYNC:  # BAD: .item() waits for the GPU
        stats[name] = value.item()
    else:  # FIXED: keep the tensor; .item() only when you print
        stats[name] = value


def log_tensor(name, t):
    log_stat(f"{name}/mean", t.mean())
    log_stat(f"{name}/std", t.std())
    log_stat(f"{name}/absmax", t.abs().amax())


def monitor(name):
    """Forward hook: log statistics of the layer's output, and of its gradient in backward."""

    def hook(module, inputs, out):
        log_tensor(f"{name}/act", out.detach())
        if out.requires_grad:
            out.register_hook(lambda grad: log_tensor(f"{name}/grad", grad))

    return hook


for name, module in model.named_modules():
    if not list(module.children()):
        module.register_forward_hook(monitor(name))


def train_step():
    global nonfinite
    with torch.autocast(device_type=device, dtype=torch.bfloat16, enabled=args.bf16):
        logits = model(x_data).float()
    if SYNC:  # BAD: boolean indexing calls nonzero, whose output size the host must know
        loss = F.cross_entropy(logits[keep], y_data[keep])
    else:  # FIXED: the same mean over kept rows, with a multiply
        loss = (F.cross_entropy(logits, y_data, reduction="none") * keep).sum() / keep.sum()
    if SYNC:  # BAD: `if tensor` reads it on the host
        if not torch.isfinite(loss):
            raise FloatingPointError("loss is not finite")
    else:  # FIXED: remember it on the GPU, look once at the end
        nonfinite = nonfinite | ~torch.isfinite(loss)
    opt.zero_grad(set_to_none=True)
    loss.backward()
    opt.step()
    hits = ((logits.argmax(1) == y_data) & keep).sum()
    log_stat("loss", loss.detach())
    stats["hits"] = hits.cpu() if SYNC else hits  # BAD: .cpu() is a blocking copy


_common.run(
    args,
    train_step,
    batch_size=batch,
    config={
        "host_syncs_in_step": SYNC,
        "dim": dim,
        "layers": layers,
        "classes": classes,
        "autocast_dtype": "bfloat16" if args.bf16 else None,
    },
)
if not SYNC and bool(nonfinite):  # the one read of the flag, after training
    raise FloatingPointError("loss was not finite")
