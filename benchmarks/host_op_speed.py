"""How much does the host's speed under the profiler move between two captures of one model?

    python benchmarks/host_op_speed.py

For each bad/fixed pair of traces/zoo and traces/h100, the median duration of each op that does
no work of its own beyond metadata (views, reshapes, transposes, empty tensors: the same C++
calls in both runs), bad over fixed, and the geometric mean of those ratios over the op names
both runs recorded. Where two runs of one model differ only in a line of the step, a ratio far
from 1 is the host (and the profiler's cost on it) running at another speed, which no single
trace can tell: why a host-side estimate taken from one trace is a range.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "benchmarks" / "zoo")]

import labels  # noqa: E402

from bottleneck_lab.trace.load import load_trace  # noqa: E402

METADATA_OPS = (
    "aten::view",
    "aten::t",
    "aten::detach",
    "aten::as_strided",
    "aten::transpose",
    "aten::reshape",
    "aten::expand",
    "aten::permute",
    "aten::unsqueeze",
    "aten::slice",
    "aten::select",
    "aten::_unsafe_view",
    "aten::alias",
    "aten::empty",
    "aten::empty_strided",
    "ViewBackward0",
    "TBackward0",
)


def median_op_us(path: Path) -> pd.Series:
    ops = load_trace(path)[0].cpu_ops
    mine = ops.loc[ops["name"].astype(object).isin(METADATA_OPS)]
    return mine.groupby(mine["name"].astype(object))["dur"].median()


def main() -> int:
    rows = []
    for s in labels.ALL:
        root = ROOT / "traces" / ("zoo" if s.source == "zoo" else "h100") / s.name
        bad, fixed = root / "bad.json.gz", root / "fixed.json.gz"
        if not (s.is_pair and bad.is_file() and fixed.is_file()):
            continue
        both = pd.concat([median_op_us(bad), median_op_us(fixed)], axis=1, keys=["b", "f"])
        both = both.dropna()
        if len(both) < 5:
            continue
        ratio = float(np.exp(np.log(both["b"] / both["f"]).mean()))
        rows.append((s.name, len(both), ratio))
        print(f"{s.name:<34}{len(both):>4} ops  bad/fixed {ratio:5.2f}", flush=True)
    r = np.array([x[2] for x in rows])
    print(
        f"\n{len(rows)} pairs: median {np.median(r):.2f}, {np.percentile(r, 10):.2f} to "
        f"{np.percentile(r, 90):.2f} (10th to 90th percentile), {r.min():.2f} to {r.max():.2f} "
        "in all"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
