"""dataloader: the GPU waits while the training process decodes and augments every sample.

bad:   DataLoader(num_workers=0): each batch is decoded in the training process, between steps,
       while the GPU sits idle.
fixed: DataLoader(num_workers=N, pin_memory=True, persistent_workers=True, prefetch_factor=4):
       worker processes decode the next batches while the GPU trains on this one, and the batch
       arrives in pinned memory so its copy can be non_blocking.

    python demos/dataloader.py --variant bad --device cuda --out traces/h100/dataloader
"""

import os
import sys
import zlib

import _common
import numpy as np
import torch
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset

args = _common.parse_args(__doc__, steps_cuda=10)
device = args.device
WORKERS = args.variant == "fixed"


class CompressedImages(Dataset):
    """Images kept compressed in memory, decoded and augmented per sample (real CPU work)."""

    MEAN = np.array([0.485, 0.456, 0.406], np.float32).reshape(3, 1, 1)
    STD = np.array([0.229, 0.224, 0.225], np.float32).reshape(3, 1, 1)

    def __init__(self, n_images: int, size: int, crop: int, classes: int, length: int):
        rng = np.random.default_rng(0)
        self.size, self.crop, self.classes, self.length = size, crop, classes, length
        self.blobs = []
        for _ in range(n_images):  # smooth noise: compresses about like a photograph
            small = rng.integers(0, 256, (3, size // 4 + 1, size // 4 + 1), dtype=np.uint8)
            img = np.repeat(np.repeat(small, 4, axis=1), 4, axis=2)[:, :size, :size]
            img = img + rng.integers(0, 8, img.shape, dtype=np.uint8)
            self.blobs.append(zlib.compress(img.tobytes(), 6))

    def __len__(self) -> int:
        return self.length

    def __getitem__(self, i: int):
        rng = np.random.default_rng(i)
        s, c = self.size, self.crop
        raw = zlib.decompress(self.blobs[i % len(self.blobs)])  # "decode"
        img = np.frombuffer(raw, np.uint8).reshape(3, s, s).astype(np.float32) / 255.0
        img = (img[:, :-2, :-2] + img[:, 1:-1, 1:-1] + img[:, 2:, 2:]) / 3.0  # blur
        y, x = rng.integers(0, s - 2 - c + 1, size=2)  # random crop
        img = img[:, y : y + c, x : x + c]
        if rng.random() < 0.5:  # horizontal flip
            img = img[:, :, ::-1]
        img = img * rng.uniform(0.8, 1.2) + rng.uniform(-0.1, 0.1)  # brightness, contrast
        img = (np.clip(img, 0.0, 1.0) - self.MEAN) / self.STD
        return torch.from_numpy(np.ascontiguousarray(img)), i % self.classes


batch, size, crop, width, depth, workers = _common.by_device(
    args, cuda=(32, 226, 192, 128, 12, min(12, os.cpu_count() or 1)), cpu=(8, 226, 64, 16, 1, 2)
)
classes = 100
dataset = CompressedImages(n_images=64, size=size, crop=crop, classes=classes, length=batch * 10**6)

if WORKERS:  # FIXED: decode in parallel worker processes, ahead of the GPU
    if not _common.is_cuda(device):
        torch.set_num_threads(1)  # on a CPU, training and workers share cores: leave them some
    loader = DataLoader(
        dataset,
        batch_size=batch,
        num_workers=workers,
        pin_memory=_common.is_cuda(device),
        persistent_workers=True,
        prefetch_factor=4,
    )
else:  # BAD: decode in the training process, one batch at a time
    loader = DataLoader(dataset, batch_size=batch, num_workers=0)

# Start the workers before anything touches CUDA: forked workers must not inherit a CUDA context
# (they would hang at exit). The dataset is long enough for the whole run.
batches = iter(loader)
model = _common.convnet(classes, width=width, depth=depth).to(device)
opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
wait_timer = _common.SpanTimer("data_wait", device, host=True)


def train_step():
    with wait_timer:  # how long the training loop waits for its next batch
        images, labels = next(batches)
    images = images.to(device, non_blocking=True)  # only asynchronous from pinned memory
    labels = labels.to(device, non_blocking=True)
    loss = F.cross_entropy(model(images), labels)
    opt.zero_grad(set_to_none=True)
    loss.backward()
    opt.step()


_common.run(
    args,
    train_step,
    batch_size=batch,
    timers=[wait_timer],
    config={
        "num_workers": workers if WORKERS else 0,
        "pin_memory": WORKERS and _common.is_cuda(device),
        "persistent_workers": WORKERS,
        "prefetch_factor": 4 if WORKERS else None,
        "image_size": size,
        "crop": crop,
        "classes": classes,
        "width": width,
        "depth": depth,
    },
)
# Leave without the DataLoader's shutdown: with persistent_workers and pin_memory it waits 5 s per
# worker (pytorch/pytorch#81794). Trace and sidecar are written by now.
sys.stdout.flush()
os._exit(0)
