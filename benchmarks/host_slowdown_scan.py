"""How often a profiled step's host took much longer than another step's for the same recorded
ops (facts.host_slowdown_by_step), over every shipped trace with two or more steps.

    python benchmarks/host_slowdown_scan.py

Prints, for each trace where the slowest step's host working time is at least
facts.SLOWED_HOST_RATIO times the fastest's, the per-step working times (ms, over each step's
host span, less its time blocked), their ratio to the fastest, and whether every step recorded
the same ops (within 1%: the rule applies only then); then the counts.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT)]

from bottleneck_lab import facts  # noqa: E402
from bottleneck_lab.trace import load_frame  # noqa: E402
from bottleneck_lab.trace.errors import TraceError  # noqa: E402


def main() -> int:
    with_steps = slowed = applied = 0
    for path in sorted((ROOT / "traces").rglob("*.json.gz")):
        try:
            frame = load_frame(path)
        except TraceError:
            continue
        if len(frame.steps) < 2 or facts.main_thread(frame) is None:
            continue
        starts, ends = facts._host_spans(frame)
        working = (ends - starts) - facts._host_blocked_in(frame, starts, ends)
        ops = facts._ops_in(frame, starts, ends)
        with_steps += 1
        if working.min() <= 0:
            continue
        ratio = working / working.min()
        if ratio.max() < facts.SLOWED_HOST_RATIO:
            continue
        same = ops.min() > 0 and ops.max() <= 1.01 * ops.min()
        slowed += 1
        applied += same
        print(
            f"{str(path.relative_to(ROOT / 'traces')):<58} ms {np.round(working / 1e3, 1)} "
            f"ratio {np.round(ratio, 2)} same ops: {'yes' if same else 'no'}"
        )
    print(
        f"\n{with_steps} traces with steps; {slowed} with a step >= {facts.SLOWED_HOST_RATIO}x "
        f"the fastest; the rule applies (same ops) on {applied}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
