"""pageable_memcpy: host-to-device copies from pageable memory crawl and block the CPU.

bad:   batches live in ordinary (pageable) host memory and `.to(device)` copies them: the driver
       stages every byte through a pinned bounce buffer, and the CPU waits for the copy.
fixed: the same data in pinned (page-locked) host memory, copied with `non_blocking=True`: the
       copy engine reads it directly at full PCIe speed and the CPU moves on.
The copy time per step is measured with CUDA events around the two `.to()` calls. On a CPU
there is nothing to copy: the CPU variants only check that the script runs.

    python demos/pageable_memcpy.py --variant bad --device cuda --out traces/h100/pageable_memcpy
"""

import _common
import torch
import torch.nn.functional as F

args = _common.parse_args(__doc__, steps_cuda=10)
device = args.device
PINNED = args.variant == "fixed" and _common.is_cuda(device)

batch, size, n_batches, classes = _common.by_device(
    args, cuda=(128, 224, 6, 100), cpu=(4, 32, 2, 10)
)

# The "dataset": a few batches of images and labels in host memory.
images = torch.randn(n_batches, batch, 3, size, size)
labels = torch.randint(0, classes, (n_batches, batch))
if PINNED:  # FIXED: page-locked host memory (keep it pinned; pinning per batch costs more)
    images, labels = images.pin_memory(), labels.pin_memory()

model = _common.convnet(classes).to(device)
opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
copy_timer = _common.SpanTimer("copy", device)
step_no = 0


def train_step():
    global step_no
    i = step_no % n_batches
    step_no += 1
    with copy_timer:
        # FIXED: non_blocking from pinned memory; BAD: a blocking copy from pageable memory.
        x = images[i].to(device, non_blocking=PINNED)
        y = labels[i].to(device, non_blocking=PINNED)
    loss = F.cross_entropy(model(x), y)
    opt.zero_grad(set_to_none=True)
    loss.backward()
    opt.step()


_common.run(
    args,
    train_step,
    batch_size=batch,
    timers=[copy_timer],
    config={
        "pinned_memory": PINNED,
        "non_blocking": PINNED,
        "bytes_copied_per_step": images[0].nbytes + labels[0].nbytes,
        "image_size": size,
        "classes": classes,
    },
)
