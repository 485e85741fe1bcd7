"""How far norm kernels run below HBM bandwidth, per zoo and demo run: a study of a fusion model
that was measured and not built (README, eleventh session).

    python benchmarks/norm_bandwidth.py

For each captured run with a device peak: the norm kernels' time per step (efficiency.
memory_bound_kernels, category "norm"), the share of peak bandwidth their bytes reached, and the
time above what 0.8 of peak would take (kernels of 20 µs or more), as a share of the step without
the profiler; printed where that share passes 2%, with whether the run's label allows fusion.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "benchmarks"), str(ROOT / "benchmarks" / "zoo")]

import accuracy  # noqa: E402

from bottleneck_lab import facts  # noqa: E402
from bottleneck_lab.efficiency import device_peak, memory_bound_kernels  # noqa: E402
from bottleneck_lab.trace import load_frame  # noqa: E402


def main() -> int:
    for s, v, run, path in accuracy.captured_runs():
        if not path.is_file():
            continue
        frame = load_frame(path)
        peak = device_peak(frame)
        if not peak or not peak.mem_bw_gbps or not len(frame.steps):
            continue
        bw = peak.mem_bw_gbps * 1e3  # bytes per µs
        mb = memory_bound_kernels(frame)
        norm = mb[mb["category"] == "norm"]
        dur, moved = norm["dur"].to_numpy(), norm["bytes"].to_numpy()
        n = len(frame.steps)
        excess = np.where(dur >= 20, np.maximum(dur - moved / (0.8 * bw), 0), 0).sum() / n
        step = facts.step_time_without_profiler_us(frame)
        if step > 0 and excess / step > 0.02:
            print(
                f"{s.name:32s} {v:8s} fusion allowed: {'fusion' in run.acceptable()!s:5s} "
                f"norm {dur.sum() / n / 1e3:6.2f} ms/step at "
                f"{moved.sum() / max(dur.sum(), 1) / bw:.2f} of peak bandwidth, "
                f"excess {100 * excess / step:5.1f}% of the step"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
