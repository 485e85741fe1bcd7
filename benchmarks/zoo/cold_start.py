"""A real model profiled from its first step, as a newcomer does it: the cold-start trace.

    python benchmarks/zoo/cold_start.py --out traces/zoo
    python benchmarks/zoo/cold_start.py --out traces/zoo --scenario gpt2_adamw_foreach:fixed --schedule

Builds a zoo step (by default ResNet-50 with BF16 autocast + channels_last, resnet50_precision/
fixed) in this fresh process, then profiles its first three steps with no warm-up
(torch.profiler.profile with record_shapes and profile_memory, prof.step() after each step;
with --schedule under schedule(wait=0, warmup=0, active=3), which marks ProfilerSteps, else with
none, which marks none), so the trace holds cuDNN/cuBLAS handle creation, first launches loading
their modules and the allocator's growth. Only then does it time steady-state steps outside the
profiler (synchronise, n steps, synchronise). Writes OUT/cold_start/<variant>.json.gz and its
sidecar with the synchronised time of each profiled step and the steady-state step time; the
variant is "cold", or the scenario's name with "_steps" under --schedule.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parents[1])]


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", type=Path, default=Path("traces/zoo"))
    p.add_argument("--scenario", default="resnet50_precision:fixed", help="NAME:VARIANT")
    p.add_argument("--schedule", action="store_true", help="schedule(wait=0, warmup=0, active=3)")
    args = p.parse_args()
    import scenarios
    import torch

    name, variant = args.scenario.split(":")
    built = scenarios.BUILDERS[name](variant)
    out = args.out / "cold_start"
    out.mkdir(parents=True, exist_ok=True)
    acts = [torch.profiler.ProfilerActivity.CPU, torch.profiler.ProfilerActivity.CUDA]
    schedule = (
        torch.profiler.schedule(wait=0, warmup=0, active=3, repeat=1) if args.schedule else None
    )
    label = f"{name}_steps" if args.schedule else "cold"
    trace = out / f"{label}.json.gz"
    profiled_ms = []
    # under a schedule the events go to on_trace_ready when the active steps end
    ready = (lambda p: p.export_chrome_trace(str(trace))) if schedule else None
    with torch.profiler.profile(
        activities=acts,
        record_shapes=True,
        profile_memory=True,
        schedule=schedule,
        on_trace_ready=ready,
    ) as prof:
        for _ in range(3):
            t0 = time.perf_counter()
            built.step()
            torch.cuda.synchronize()
            profiled_ms.append((time.perf_counter() - t0) * 1e3)
            prof.step()
    if schedule is None:
        prof.export_chrome_trace(str(trace))
    for _ in range(3):
        built.step()
    steady = []
    for _ in range(5):
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        for _ in range(10):
            built.step()
        torch.cuda.synchronize()
        steady.append((time.perf_counter() - t0) * 1e3 / 10)
    meta = {
        "schema": "bottleneck-lab/demo-meta/1",
        "demo": "cold_start",
        "variant": label,
        "scenario": args.scenario,
        "trace_file": trace.name,
        "device": {"name": torch.cuda.get_device_name()},
        "torch_version": torch.__version__,
        "batch_size": built.batch_size,
        "config": built.config,
        "profiler": {
            "schedule": "wait=0, warmup=0, active=3" if args.schedule else None,
            "record_shapes": True,
            "profile_memory": True,
        },
        "profiled_step_ms_synchronised": [round(x, 2) for x in profiled_ms],
        "step_time_ms": {"median": statistics.median(steady), "n": len(steady)},
        "timing": {"method": "after the profiled steps: 3 warm-up steps, then 5 blocks of 10"},
    }
    (out / f"{label}.meta.json").write_text(json.dumps(meta, indent=2))
    print(f"profiled steps (ms): {meta['profiled_step_ms_synchronised']}; steady {steady}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
