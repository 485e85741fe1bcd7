"""host_bound's promise with the profiler's cost spread step by step: a study of a rule that was
measured and not kept (README, eleventh session, holdout 14).

    python benchmarks/host_bound_per_step.py

For each captured run: host_bound's share as the analyzer computes it (the profiler's cost at
its highest measured share spread over all host-caused gaps), and the same with that cost spread
within each step over its own recorded ops, taking the least idle any step shows (min) or the
median step's; printed where either passes 3%, with whether the run's label allows host_bound.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "benchmarks"), str(ROOT / "benchmarks" / "zoo")]

import accuracy  # noqa: E402

from bottleneck_lab import facts  # noqa: E402
from bottleneck_lab.detectors._common import cost  # noqa: E402
from bottleneck_lab.trace import load_frame  # noqa: E402


def per_step_idle(frame, owner: str = "host_bound") -> np.ndarray:
    """Each step's idle of `owner`'s gaps less the profiler's cost of that step's own ops."""
    gaps = facts.idle_gaps(frame)
    dur = gaps["dur"].to_numpy()
    high = facts.PROFILER_SHARE_OF_HOST_OP_HIGH / facts.PROFILER_SHARE_OF_HOST_OP
    per_op = high * facts.profiler_us_per_op(frame)
    ops = frame.cpu_ops
    op_step = ops["step"].to_numpy()
    main = facts.main_thread(frame)
    if main is not None:  # the launching process's ops, as facts.ops_in_steps counts them
        op_step = np.where(ops["pid"].to_numpy() == main[0], op_step, -1)
    cause = gaps["cause"].to_numpy()
    starting = gaps["in_startup"].to_numpy(dtype=bool)
    tripping = gaps["in_round_trip"].to_numpy(dtype=bool)
    mine = facts.gap_owners(frame) == owner
    out = []
    for pos, number in enumerate(frame.steps["step"]):
        in_step = gaps["step"].to_numpy() == number
        recorded = per_op * int((op_step == pos).sum())
        d = np.where(in_step, dur, 0.0)
        # gaps outside the step hold no idle here, so they take none of its cost
        exposed = d - facts._profiler_us_of_gaps(d, cause, starting, tripping, recorded)
        out.append(float(exposed[mine & in_step].sum()))
    return np.array(out)


def main() -> int:
    for s, v, run, path in accuracy.captured_runs():
        if not path.is_file():
            continue
        frame = load_frame(path)
        if not frame.has_gpu or not len(frame.steps) or not len(facts.idle_gaps(frame)):
            continue
        now = cost(frame, facts.host_idle_at_high_profiler_share(frame, "host_bound"))[1]
        steps = per_step_idle(frame)
        least = cost(frame, steps.min() * len(steps))[1]
        median = cost(frame, np.median(steps) * len(steps))[1]
        if now >= 3 or least >= 3:
            print(
                f"{s.name:32s} {v:8s} allowed: {'host_bound' in run.acceptable()!s:5s} "
                f"now {now:5.1f}%  per step, least {least:5.1f}%  median {median:5.1f}%"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
