"""How much host time the profiler adds per recorded op, measured on the machine it runs on.

    python benchmarks/profiler_overhead.py            # needs torch and a CUDA GPU

A host-bound loop of tiny CUDA ops (the GPU is idle most of the time, so step time is host time)
is timed with synchronisation outside the profiler, then under torch.profiler with the settings
bottleneck_lab.capture uses (CPU + CUDA activities, record_shapes, profile_memory). The
difference per step, divided by the cpu_op events per step in the exported trace, is the
profiler's host cost per recorded op. bottleneck_lab.facts uses the figure to discount the
host-side idle that only exists under the profiler.
"""

from __future__ import annotations

import gzip
import json
import sys
import tempfile
import time
from pathlib import Path

import torch

OPS_PER_STEP = 400


def step(x: torch.Tensor) -> torch.Tensor:
    for _ in range(OPS_PER_STEP // 2):
        x = x.mul(1.0001).add_(0.5)  # two ops, two launches, each far shorter than its launch
    return x


def timed(x: torch.Tensor, steps: int) -> float:
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    for _ in range(steps):
        x = step(x)
    torch.cuda.synchronize()
    return (time.perf_counter() - t0) / steps * 1e6


def main() -> int:
    x = torch.zeros(1024, device="cuda")
    for _ in range(20):
        step(x)
    plain = min(timed(x, 50) for _ in range(5))
    rows = []
    for shapes, memory in ((False, False), (True, False), (True, True)):
        acts = [torch.profiler.ProfilerActivity.CPU, torch.profiler.ProfilerActivity.CUDA]
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "t.json.gz"
            with torch.profiler.profile(
                activities=acts, record_shapes=shapes, profile_memory=memory
            ) as prof:
                for _ in range(5):
                    step(x)
                torch.cuda.synchronize()
                prof_us = timed(x, 20)
            prof.export_chrome_trace(str(path))
            events = json.load(gzip.open(path))["traceEvents"]
        n_ops = sum(1 for e in events if e.get("cat") == "cpu_op") / 25
        per_op = (prof_us - plain) / n_ops
        rows.append(
            {
                "record_shapes": shapes,
                "profile_memory": memory,
                "plain_us_per_step": plain,
                "profiled_us_per_step": prof_us,
                "cpu_ops_per_step": n_ops,
                "overhead_us_per_op": per_op,
                "slowdown": prof_us / plain,
            }
        )
    print(
        json.dumps(
            {"device": torch.cuda.get_device_name(), "torch": torch.__version__, "rows": rows},
            indent=1,
        )
    )
    print(
        f"\n{'shapes':<7}{'memory':<7}{'plain us':>10}{'profiled us':>12}{'ops':>6}{'us/op':>7}{'x':>6}"
    )
    for r in rows:
        print(
            f"{r['record_shapes']!s:<7}{r['profile_memory']!s:<7}{r['plain_us_per_step']:>10.0f}"
            f"{r['profiled_us_per_step']:>12.0f}{r['cpu_ops_per_step']:>6.0f}{r['overhead_us_per_op']:>7.2f}"
            f"{r['slowdown']:>6.2f}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
