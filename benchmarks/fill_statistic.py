"""Which FLOP-weighted statistic of the matrix work's fill tells a small batch on the zoo?

    python benchmarks/fill_statistic.py

small_batch calls a batch small where the FLOP-weighted median of the matrix work's fill
(op_flops.median_fill: output tiles per SM, convolutions as implicit GEMMs) is under 0.9
(facts.SMALL_BATCH_IDLE_SMS). Holdout 64's Granite at one sequence sits at 0.97 by the median,
with 43% of its matrix FLOPs at 0.48, so the FLOP-weighted mean of the fill capped at 1 (the
share of SM capacity the matrix work uses) reads 0.78 there. For every labelled single-GPU run
with recorded matrix work (benchmarks/zoo/labels.py) this counts, for each statistic and cut,
the runs called small among those whose label puts small_batch first, allows it, or has no
small_batch at all (forty-first session, 397 runs: the median under 0.9 called 17 of the 27
with small_batch first small and none of the 357 without it; the mean under 0.9 called 22 and
84, under 0.8 17 and 54). The median stays.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE / "zoo"), str(HERE.parent)]

import accuracy  # noqa: E402

from bottleneck_lab import facts  # noqa: E402
from bottleneck_lab.op_flops import median_fill, work_fill  # noqa: E402
from bottleneck_lab.trace.load import load_frame  # noqa: E402

CUTS = (0.9, 0.8)


def statistics(frame) -> tuple[float, float] | None:
    """(FLOP-weighted median fill, FLOP-weighted mean of the fill capped at 1), or None."""
    if not facts.sm_count(frame):
        return None
    w = work_fill(frame)
    w = w.loc[np.isfinite(w["fill"].to_numpy())]
    if not len(w) or w["flops"].sum() <= 0:
        return None
    capped = np.minimum(w["fill"].to_numpy(), 1.0)
    return median_fill(frame), float((capped * w["flops"]).sum() / w["flops"].sum())


def main() -> int:
    rows = []  # (label group, median, mean)
    for s, _, run, path in accuracy.captured_runs():
        if s.gpus > 1 or not path.is_file():
            continue
        stats = statistics(load_frame(path))
        if stats is None:
            continue
        group = (
            "first"
            if run.top and "small_batch" in run.top
            else "allowed"
            if "small_batch" in run.acceptable()
            else "none"
        )
        rows.append((group, *stats))
    counts = {g: sum(r[0] == g for r in rows) for g in ("first", "allowed", "none")}
    print(
        f"{len(rows)} runs: small_batch first in {counts['first']}, allowed in "
        f"{counts['allowed']}, not in the label in {counts['none']}"
    )
    print(f"{'statistic':<10}{'cut':>5}{'first':>9}{'allowed':>9}{'none':>7}  (runs called small)")
    for name, i in (("median", 1), ("mean", 2)):
        for cut in CUTS:
            called = {g: sum(r[0] == g and r[i] < cut for r in rows) for g in counts}
            print(
                f"{name:<10}{cut:>5}{called['first']:>9}{called['allowed']:>9}{called['none']:>7}"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
