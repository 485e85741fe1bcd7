"""Achieved TFLOP/s over the profiled step and over the step estimated without the profiler,
each against the FLOPs over the synchronised step measured outside the profiler.

    python benchmarks/achieved_tflops.py

For every shipped trace with a sidecar step time and FLOPs in the trace: the analyzer's FLOPs
per step over (a) the median profiled step (`summary.achieved_tflops`), (b) the step without
the profiler's share (`summary.profiler_overhead.achieved_tflops_without_profiler_est`), and
(c) the sidecar's synchronised median step (the truth here), with each one's error against (c).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT)]

from bottleneck_lab.analyze import diagnose  # noqa: E402
from bottleneck_lab.trace import load_trace  # noqa: E402


def main() -> None:
    rows = []
    for trace in sorted((ROOT / "traces").glob("*/*/*.json.gz")):
        meta_path = trace.with_name(trace.name.replace(".json.gz", ".meta.json"))
        meta = json.loads(meta_path.read_text()) if meta_path.exists() else {}
        step_ms = (meta.get("step_time_ms") or {}).get("median")
        if not step_ms:
            continue
        s = diagnose(load_trace(trace), path=str(trace)).summary
        free = (s.extra.get("profiler_overhead") or {}).get("achieved_tflops_without_profiler_est")
        if not s.flops_per_step or not free:
            continue
        truth = s.flops_per_step / (step_ms * 1e-3) / 1e12
        name = f"{trace.parent.parent.name}/{trace.parent.name}/{trace.name[:-8]}"
        rows.append((name, truth, s.achieved_tflops, free))
    print(f"{'trace':44} {'synced':>8} {'profiled':>9} {'err %':>7} {'w/o prof':>9} {'err %':>7}")
    for name, truth, prof, free in rows:
        print(
            f"{name:44} {truth:8.1f} {prof:9.1f} {100 * (prof / truth - 1):7.1f} "
            f"{free:9.1f} {100 * (free / truth - 1):7.1f}"
        )
    prof_err = np.abs([p / t - 1 for _, t, p, _ in rows]) * 100
    free_err = np.abs([f / t - 1 for _, t, _, f in rows]) * 100
    print(
        f"\n{len(rows)} traces; |error| median: profiled {np.median(prof_err):.1f}%, "
        f"without the profiler {np.median(free_err):.1f}%"
    )


if __name__ == "__main__":
    main()
