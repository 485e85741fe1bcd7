"""batch_size: batches so small that every kernel leaves most of the GPU empty.

bad:   16 samples per step: each matmul launches a handful of thread blocks on a GPU with 132
       SMs, and the step costs about the same time as a far larger one would.
fixed: 2048 samples per step, the same model and data: the GPU is full, so samples/s (not
       steps/s) is the number to compare.

    python demos/batch_size.py --variant bad --device cuda --out traces/h100/batch_size
"""

import _common
import torch
import torch.nn as nn
import torch.nn.functional as F

args = _common.parse_args(__doc__, steps_cuda=20)
device = args.device

features, hidden, layers, classes = _common.by_device(
    args, cuda=(1024, 2048, 4, 1000), cpu=(64, 128, 2, 10)
)
# BAD: a tiny batch. FIXED: a batch that fills the GPU.
batch = (
    {"bad": 16, "fixed": 2048}[args.variant]
    if device == "cuda"
    else {"bad": 4, "fixed": 64}[args.variant]
)

model = nn.Sequential(
    nn.Linear(features, hidden),
    nn.ReLU(),
    *[m for _ in range(layers - 1) for m in (nn.Linear(hidden, hidden), nn.ReLU())],
    nn.Linear(hidden, classes),
).to(device)
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)

# A small synthetic dataset, already on the device, so the only difference is the batch size.
data = torch.randn(8, batch, features, device=device)
labels = torch.randint(0, classes, (8, batch), device=device)
step_no = 0


def train_step():
    global step_no
    x, y = data[step_no % 8], labels[step_no % 8]
    step_no += 1
    loss = F.cross_entropy(model(x), y)
    opt.zero_grad(set_to_none=True)
    loss.backward()
    opt.step()


_common.run(
    args,
    train_step,
    batch_size=batch,
    config={"features": features, "hidden": hidden, "layers": layers, "classes": classes},
)
