"""Traces as many users capture them, with no schedule and no prof.step(): `with profile(...)`
around five iterations of torchvision ResNet-50 training (batch 64, BF16 autocast +
channels_last, fused AdamW), once cold (the first iterations in the window) and once after three
warm-up iterations; then the synchronised step time outside the profiler. On a GPU machine:

    OUT=some/dir python benchmarks/stepless_capture.py
    bottleneck-lab analyze some/dir/warm_stepless.json   # one window of five iterations
"""

import json
import os
import time

import torch
import torchvision
from torch.profiler import ProfilerActivity, profile

out = os.environ["OUT"]
torch.backends.cudnn.benchmark = True
model = torchvision.models.resnet50().cuda().to(memory_format=torch.channels_last)
opt = torch.optim.AdamW(model.parameters(), lr=1e-4, fused=True)
x = torch.randn(64, 3, 224, 224, device="cuda").contiguous(memory_format=torch.channels_last)
y = torch.randint(0, 1000, (64,), device="cuda")


def step():
    with torch.autocast("cuda", dtype=torch.bfloat16):
        loss = torch.nn.functional.cross_entropy(model(x), y)
    opt.zero_grad(set_to_none=True)
    loss.backward()
    opt.step()


acts = [ProfilerActivity.CPU, ProfilerActivity.CUDA]
with profile(activities=acts, record_shapes=True) as p:
    for _ in range(5):
        step()
    torch.cuda.synchronize()
p.export_chrome_trace(f"{out}/cold_stepless.json")
for _ in range(3):
    step()
torch.cuda.synchronize()
with profile(activities=acts, record_shapes=True) as p:
    for _ in range(5):
        step()
    torch.cuda.synchronize()
p.export_chrome_trace(f"{out}/warm_stepless.json")
ts = []
for _ in range(5):
    torch.cuda.synchronize()
    t = time.perf_counter()
    for _ in range(10):
        step()
    torch.cuda.synchronize()
    ts.append((time.perf_counter() - t) / 10 * 1e3)
json.dump(
    {"step_ms_blocks": ts, "device": torch.cuda.get_device_name()}, open(f"{out}/timing.json", "w")
)
print(ts)
