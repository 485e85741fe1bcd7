"""Does kernel time in grids under the SM count tell a small batch where the matrix work does not?

    python benchmarks/grid_underfill.py [--min-share 0.4]

For every labelled single-GPU run (benchmarks/zoo/labels.py) whose recorded matrix work does not
call the batch small (facts.batch_is_small), prints the share of its kernel time in grids with
fewer blocks than the GPU has SMs (facts.underfilled_share) where it reaches --min-share, and
whether the run's label allows small_batch. small_batch judges the batch from the matrix work
alone; this is the check that a grid-based judgement would not do better on the zoo (fortieth
session: 28 such runs at 0.4, small_batch fits one, holdout 63's SegFormer at batch 1).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE / "zoo"), str(HERE.parent)]

import accuracy  # noqa: E402

from bottleneck_lab import facts  # noqa: E402
from bottleneck_lab.trace.load import load_frame  # noqa: E402


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--min-share", type=float, default=0.4)
    args = p.parse_args()
    rows = []
    for s, variant, run, path in accuracy.captured_runs():
        if s.gpus > 1 or not path.is_file():
            continue
        frame = load_frame(path)
        under = facts.underfilled_share(frame)
        if facts.batch_is_small(frame) is True or under is None or under < args.min_share:
            continue
        rows.append((under, f"{s.name}/{variant}", "small_batch" in run.acceptable()))
    print(f"{'run':<44}{'under-SM share':>15}  small_batch in label")
    for under, run, fits in sorted(rows, reverse=True):
        print(f"{run:<44}{under:>15.2f}  {'yes' if fits else 'no'}")
    print(
        f"\n{len(rows)} runs whose matrix work is not small spend >= {args.min_share:.0%} of kernel "
        f"time in grids under the SM count; small_batch fits {sum(r[2] for r in rows)}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
