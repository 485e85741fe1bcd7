"""How fast one capture's host ran against another's, on the ops both recorded.

    python benchmarks/host_pace.py traces/zoo/ernie_grad_norm_log/bad.json.gz \
        traces/zoo/ernie_grad_norm_log/fixed.json.gz

For every op name recorded at least 20 times a step in both traces' steps, the ratio of its
median host duration in A to that in B; prints the median of those ratios and the op names at
either end. Two captures of the same model whose ops take 1.7x as long in one (holdout 61's ERNIE
pair) ran on a host at another pace: a host-bound pair's sidecars then measure the host as much
as the fix.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bottleneck_lab.trace import load_trace  # noqa: E402

MIN_PER_STEP = 20


def per_op(path: str) -> tuple[pd.Series, pd.Series]:
    """Median host µs by op name and how many a step, over the trace's steps."""
    frame = load_trace(path)[0]
    ops = frame.cpu_ops.loc[frame.cpu_ops["step"] >= 0]
    by_name = ops.groupby(ops["name"].astype(str))["dur"]
    return by_name.median(), by_name.size() / max(len(frame.steps), 1)


def main() -> int:
    if len(sys.argv) != 3:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    (med_a, n_a), (med_b, n_b) = per_op(sys.argv[1]), per_op(sys.argv[2])
    common = [k for k in med_a.index if k in med_b.index and min(n_a[k], n_b[k]) >= MIN_PER_STEP]
    ratio = (med_a[common] / med_b[common]).sort_values()
    print(f"{len(common)} op names in both, >= {MIN_PER_STEP} a step")
    print(f"median ratio of their median host durations (A / B): {ratio.median():.2f}")
    for name, r in list(ratio.items())[:3] + list(ratio.items())[-3:]:
        print(f"  {r:5.2f}  {name[:80]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
