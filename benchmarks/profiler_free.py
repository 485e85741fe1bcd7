"""The analyzer's profiler-free figures against the synchronised step measured outside the
profiler, over every shipped trace with a sidecar step time.

    python benchmarks/profiler_free.py

Two tables. Achieved TFLOP/s (traces with FLOPs): the analyzer's FLOPs per step over (a) the
median profiled step (`summary.achieved_tflops`) and (b) the step without the profiler's share
(`summary.profiler_overhead.achieved_tflops_without_profiler_est`), each against the same FLOPs
over the sidecar's synchronised median step. Step time: the profiler-free estimate
(facts.step_time_without_profiler_us) and the replay's (bottleneck_lab/replay.py) against the
synchronised step, with what the replay says dropping the syncs would save where that is 1% or
more.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT)]

from bottleneck_lab import facts, replay  # noqa: E402
from bottleneck_lab.analyze import diagnose  # noqa: E402
from bottleneck_lab.trace import load_trace  # noqa: E402


def _runs():
    """(name, synchronised median step ms, frames) for each shipped trace with a sidecar."""
    for trace in sorted((ROOT / "traces").glob("*/*/*.json.gz")):
        meta_path = trace.with_name(trace.name.replace(".json.gz", ".meta.json"))
        meta = json.loads(meta_path.read_text()) if meta_path.exists() else {}
        synced = (meta.get("step_time_ms") or {}).get("median")
        if synced:
            name = f"{trace.parent.parent.name}/{trace.parent.name}/{trace.name[:-8]}"
            yield name, synced, trace


def _errors(pairs) -> np.ndarray:
    return np.abs([got / truth - 1 for got, truth in pairs]) * 100


def main() -> None:
    flops, steps = [], []
    for name, synced, trace in _runs():
        frames = load_trace(trace)
        s = diagnose(frames, path=str(trace)).summary
        free = (s.extra.get("profiler_overhead") or {}).get("achieved_tflops_without_profiler_est")
        if s.flops_per_step and free:
            flops.append((name, s.flops_per_step / (synced * 1e-3) / 1e12, s.achieved_tflops, free))
        replayed = replay.step_us(frames[0])
        if replayed is not None:
            estimate = facts.step_time_without_profiler_us(frames[0]) / 1e3
            saving = 100 * replay.sync_saving_us(frames[0]) / replayed
            steps.append((name, synced, estimate, replayed / 1e3, saving))

    print(f"{'trace':44} {'synced':>8} {'profiled':>9} {'err %':>7} {'w/o prof':>9} {'err %':>7}")
    for name, truth, prof, free in flops:
        print(
            f"{name:44} {truth:8.1f} {prof:9.1f} {100 * (prof / truth - 1):7.1f} "
            f"{free:9.1f} {100 * (free / truth - 1):7.1f}"
        )
    prof_err = _errors((p, t) for _, t, p, _ in flops)
    free_err = _errors((f, t) for _, t, _, f in flops)
    print(
        f"\nachieved TFLOP/s, {len(flops)} traces; |error| median: profiled "
        f"{np.median(prof_err):.1f}%, without the profiler {np.median(free_err):.1f}%\n"
    )

    print(f"{'trace':44} {'synced':>8} {'estimate':>9} {'err %':>6} {'replay':>8} {'err %':>6}")
    for name, synced, estimate, replayed, saving in steps:
        print(
            f"{name:44} {synced:8.2f} {estimate:9.2f} {100 * (estimate / synced - 1):6.1f} "
            f"{replayed:8.2f} {100 * (replayed / synced - 1):6.1f}"
            + (f"   syncs cost {saving:.1f}%" if saving >= 1 else "")
        )
    est_err = _errors((e, s) for _, s, e, _, _ in steps)
    rep_err = _errors((r, s) for _, s, _, r, _ in steps)
    print(
        f"\nstep time, {len(steps)} traces; |error| median: estimate {np.median(est_err):.1f}%, "
        f"replay {np.median(rep_err):.1f}%"
    )


if __name__ == "__main__":
    main()
