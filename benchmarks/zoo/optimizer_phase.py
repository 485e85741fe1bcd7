"""Where the host is when a per-parameter optimizer loop starts, timed without the profiler.

    python benchmarks/zoo/optimizer_phase.py

For torchvision ResNet-50 (batch 64, SGD with momentum and weight decay, foreach off and on) and
timm EfficientNet-B0 (batch 128, AdamW foreach off and fused), BF16 autocast + channels_last:
30 steps each synchronised at their start (the last 20 counted), then 20 free-running steps.
Per run, medians: the host's ms from the step's start to opt.step(), the GPU's ms to the
backward's end (CUDA events), the host's ms inside opt.step(), the GPU's ms to the step's end,
the synchronised step, the free-running step, and in how many steps the GPU had drained its
queue when opt.step() began (the loop then runs on an idle GPU). Where the GPU's backward ends
well after the host reaches the optimizer, the loop hides behind it and a fused optimizer saves
little; where it ends about when the host gets there, the loop's host time is step time.
"""

from __future__ import annotations

import statistics
import time

import torch


def resnet50_sgd(foreach: bool):
    import torchvision

    cl = torch.channels_last
    model = torchvision.models.resnet50(weights=None).cuda().to(memory_format=cl)
    opt = torch.optim.SGD(
        model.parameters(), lr=0.1, momentum=0.9, weight_decay=1e-4, foreach=foreach
    )
    x = torch.randn(64, 3, 224, 224, device="cuda").to(memory_format=cl)
    y = torch.randint(0, 1000, (64,), device="cuda")
    return opt, lambda: torch.nn.functional.cross_entropy(model(x), y)


def efficientnet_adamw(fused: bool):
    import timm

    cl = torch.channels_last
    model = timm.create_model("efficientnet_b0").cuda().to(memory_format=cl)
    kind = {"fused": True} if fused else {"foreach": False}
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, **kind)
    x = torch.randn(128, 3, 224, 224, device="cuda").to(memory_format=cl)
    y = torch.randint(0, 1000, (128,), device="cuda")
    return opt, lambda: torch.nn.functional.cross_entropy(model(x), y)


def _event():
    e = torch.cuda.Event(enable_timing=True)
    e.record()
    return e


def measure(name: str, build) -> None:
    torch.manual_seed(0)
    opt, loss_of = build()
    rows = []
    for i in range(30):
        torch.cuda.synchronize()
        t0, e0 = time.perf_counter(), _event()
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = loss_of()
        opt.zero_grad(set_to_none=True)
        loss.backward()
        backward_done = _event()
        t1, drained = time.perf_counter(), torch.cuda.current_stream().query()
        opt.step()
        t2, step_done = time.perf_counter(), _event()
        torch.cuda.synchronize()
        t3 = time.perf_counter()
        if i >= 10:
            rows.append(
                (
                    (t1 - t0) * 1e3,
                    e0.elapsed_time(backward_done),
                    (t2 - t1) * 1e3,
                    e0.elapsed_time(step_done),
                    (t3 - t0) * 1e3,
                    drained,
                )
            )
    torch.cuda.synchronize()
    t = time.perf_counter()
    for _ in range(20):
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = loss_of()
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
    torch.cuda.synchronize()
    free = (time.perf_counter() - t) / 20 * 1e3
    med = [statistics.median(r[j] for r in rows) for j in range(5)]
    print(
        f"{name:22s} host->opt {med[0]:6.2f}  gpu bwd done {med[1]:6.2f}  host in opt "
        f"{med[2]:6.2f}  gpu end {med[3]:6.2f}  synced step {med[4]:6.2f}  free step {free:6.2f}  "
        f"drained at opt {sum(r[5] for r in rows)}/{len(rows)}",
        flush=True,
    )


def main() -> None:
    measure("resnet50 sgd loop", lambda: resnet50_sgd(False))
    measure("resnet50 sgd foreach", lambda: resnet50_sgd(True))
    measure("effnet adamw loop", lambda: efficientnet_adamw(False))
    measure("effnet adamw fused", lambda: efficientnet_adamw(True))


if __name__ == "__main__":
    main()
